#include "passes/pipeline.h"

#include <utility>

#include "passes/fold_batchnorm.h"
#include "passes/fold_constants.h"
#include "passes/fold_qdq.h"
#include "passes/fuse_activation.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/layout_nhwc.h"
#include "passes/quantize_int8.h"
#include "passes/remove_identity.h"

namespace hetcim::passes {

const std::vector<std::string>& pipeline_steps() {
  static const std::vector<std::string> steps = {
      "fold-constants", "remove-identity", "fold-batchnorm", "fuse-layer-norm",
      "fuse-gelu",      "fuse-activation", "fold-qdq",       "fuse-quantized-activation",
      "quantize-int8",  "layout-nhwc"};
  return steps;
}

graph::Graph lower(graph::Graph g, const PipelineOptions& o, const DumpHook& dump) {
  auto step = [&](const std::string& name, bool enabled, graph::Graph (*pass)(graph::Graph)) {
    if (enabled) g = pass(std::move(g));  // each pass edits the one working copy
    if (dump) dump(name, g);
  };
  const bool int8 = o.precision == Precision::Int8;
  step("fold-constants", true, fold_constants);
  step("remove-identity", true, remove_identity);
  step("fold-batchnorm", o.fold_batchnorm, fold_batchnorm);
  // The opset-13 LayerNorm and GELU decompositions as one operator each (ONNX Runtime fuses both
  // too): what partitioning, profiling and the engine see.
  step("fuse-layer-norm", o.fuse_activations, fuse_layer_norm);
  step("fuse-gelu", o.fuse_activations, fuse_gelu);
  step("fuse-activation", o.fuse_activations, fuse_activation);
  step("fold-qdq", true, fold_qdq);
  // A Relu/Clip between DequantizeLinear and QuantizeLinear with the same quantization on both
  // sides (torch.ao FX mode's ReLU6) became a Clip on the quantized tensor in fold-qdq; it is
  // exactly a clamp of its producer's quantized output, so it fuses like a float activation.
  step("fuse-quantized-activation", o.fuse_activations, fuse_activation);
  step("quantize-int8", int8, quantize_int8);
  step("layout-nhwc", int8, layout_nhwc);
  return g;
}

}  // namespace hetcim::passes
