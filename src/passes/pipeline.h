// The lowering pipeline from an imported or zoo graph to the operator granularity at which
// hetcim profiles, models and partitions a network (seeds/README.md): the graph ONNX Runtime
// executes for the int8 model. It reads as a table of contents; a hook sees the graph after
// every step (the CLI's --dump-after).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::passes {

enum class Precision { Fp32, Int8 };

struct PipelineOptions {
  Precision precision = Precision::Int8;  // int8: the deployment seed 000 profiles
  bool fold_batchnorm = true;
  bool fuse_activations = true;
};

using DumpHook = std::function<void(const std::string& step, const graph::Graph&)>;

// Step names, in order: fold-constants, remove-identity, fold-batchnorm, fuse-layer-norm,
// fuse-gelu, fuse-activation, fold-qdq, fuse-quantized-activation, quantize-int8, layout-nhwc.
[[nodiscard]] const std::vector<std::string>& pipeline_steps();

// By value: a caller that moves its graph in pays for no copy of the weights.
[[nodiscard]] graph::Graph lower(graph::Graph g, const PipelineOptions& options = {},
                                 const DumpHook& dump = {});

}  // namespace hetcim::passes
