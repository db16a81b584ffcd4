// Moved: operand positions of the weighted operators are a row of the operator registry
// (ops/registry.h: ops::QLinearOperands, ops::weighted_operands). This alias remains only until
// exec/engine.cpp reads the registry directly; new code includes ops/registry.h.
#pragma once

#include "ops/registry.h"

namespace hetcim::graph {

using ops::QLinearOperands;
using ops::weighted_operands;

}  // namespace hetcim::graph
