// A schema registry for onnx::shape_inference::InferShapes that checks, before an operator's own
// inference (or data-propagation) function runs, the preconditions libonnx 1.12 assumes without
// checking. Without it, a hostile model crashes libonnx with an out-of-bounds read (found by
// fuzz/fuzz_onnx_import: e.g. a Conv whose weight has a lower rank than its input). A violated
// precondition raises onnx::InferenceError, which InferShapes reports with the node's name.
//
// Guarded operators and what is checked (ranks and attributes only where known):
//   Conv, ConvInteger, QLinearConv, ConvTranspose, MaxPool, AveragePool, LpPool:
//     input rank >= 3; weight rank == input rank; kernel_shape, strides, dilations,
//     output_padding, output_shape have one entry per spatial axis and pads two; kernel_shape,
//     strides, dilations >= 1; pads >= 0; group >= 1.
//   Gather (data propagation): every propagated index lies in [-n, n) for the n propagated dims.
// Schemas of all other operators are passed through unchanged.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "onnx/defs/schema.h"

namespace hetcim::onnxio {

class GuardedSchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  GuardedSchemaRegistry() = default;
  GuardedSchemaRegistry(const GuardedSchemaRegistry&) = delete;
  GuardedSchemaRegistry& operator=(const GuardedSchemaRegistry&) = delete;

  // libonnx's schema, or a copy of it whose inference functions run the guard first.
  const onnx::OpSchema* GetSchema(const std::string& key, const int maxInclusiveVersion,
                                  const std::string& domain) const override;

 private:
  // Guarded copies, made on first use; one registry lives for one import or export.
  mutable std::map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

}  // namespace hetcim::onnxio
