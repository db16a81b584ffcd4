// A schema registry for onnx::shape_inference::InferShapes that keeps libonnx 1.12's inference
// and data-propagation functions away from inputs they assume but do not check. Without it a
// hostile model crashes libonnx with an out-of-bounds read or a null dereference (several found by
// fuzz/fuzz_onnx_import). Every schema handed out is a copy of libonnx's whose functions are
// replaced or wrapped:
//
//   0. Allowlist. Only the default-domain operators listed in inference_guard.cpp (the usual CNN,
//      detection and quantization operators) run libonnx's functions. Any other operator is still
//      imported, but gets no inferred output types (declared value_info types remain).
//   1. Fail fast. InferShapes records a node's InferenceError and goes on with the next node, whose
//      inputs then lack types that its function may dereference unchecked. After the first error
//      the wrapped functions refuse to run (inference throws "skipped", propagation returns).
//   2. Untyped inputs. A required (Single) input without a type - after an operator without
//      inference, or of an unknown domain - skips the node's inference; data propagation is skipped
//      when any input is untyped. Neither is an error.
//   3. Operator preconditions, raised as InferenceError (reported by InferShapes with the node):
//      Conv, ConvInteger, QLinearConv, ConvTranspose, MaxPool, AveragePool, LpPool: input rank >=
//      3;
//        weight rank == input rank; kernel_shape, strides, dilations, output_padding, output_shape
//        have one entry per spatial axis and pads two; kernel_shape, strides, dilations >= 1;
//        pads >= 0; group >= 1.
//      Gather (data propagation): every propagated index lies in [-n, n) for the n propagated dims.
//
// A registry serves one InferShapes call (it remembers whether a node failed).
// infer_shapes_guarded is how the importer and the exporter run shape inference.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"

namespace hetcim::onnxio {

class GuardedSchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  GuardedSchemaRegistry() = default;
  GuardedSchemaRegistry(const GuardedSchemaRegistry&) = delete;
  GuardedSchemaRegistry& operator=(const GuardedSchemaRegistry&) = delete;

  // A guarded copy of libonnx's schema (made on first use), or nullptr when libonnx has none.
  const onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                  const std::string& domain) const override;

  // True once a wrapped inference function raised an error.
  [[nodiscard]] bool failed() const { return failed_; }

 private:
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
  mutable bool failed_ = false;
};

// The default-domain operators whose libonnx inference runs (step 0 above), sorted.
[[nodiscard]] std::vector<std::string> inference_allowlist();

// onnx::shape_inference::InferShapes on `m` in strict mode with type checks and data propagation,
// through a GuardedSchemaRegistry. Failure: UserError "ONNX shape inference: (op_type:Conv, node
// name: c): <libonnx's reason>" for the first failing node (later nodes only report that they
// were skipped, so they are left out).
void infer_shapes_guarded(onnx::ModelProto& m);

}  // namespace hetcim::onnxio
