// Moved: the QDQ export is a graph rewrite, passes/qdq_export.h (passes::to_qdq). This alias keeps
// exec callers and tests compiling.
#pragma once

#include "passes/qdq_export.h"

namespace hetcim::exec {

using passes::to_qdq;

}  // namespace hetcim::exec
