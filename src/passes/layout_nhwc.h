#pragma once
#include "graph/graph.h"

namespace hetcim::passes {
// ONNX Runtime runs quantized 4-D operators (QLinearConv, pooling, QLinearAdd, ...) channels-last
// and inserts a Transpose wherever a tensor enters or leaves that NHWC region. This pass inserts
// those layout Transposes (perm 0,2,3,1 on entry, 0,3,1,2 on exit; one per tensor and direction)
// so that the operator list matches what the runtime executes. Shapes stay in NCHW order in the IR;
// the Transposes are identities on the logical layout (attribute layout_only=1) and exist because
// the host pays for them.
[[nodiscard]] graph::Graph layout_nhwc(graph::Graph g);

// True for a Transpose this pass inserted: the attribute layout_only=1, which only it writes.
[[nodiscard]] bool is_layout_transpose(const graph::Node& n);
}  // namespace hetcim::passes
