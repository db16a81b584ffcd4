// Element types and constant values as ONNX defines them, shared by constant folding, the
// executors and shape inference: the ONNX TensorProto.DataType codes that attributes carry
// (Cast's `to`, ConstantOfShape's `value_dtype`), which dtypes are integers, and the two ways a
// constant is made from another: filled (ConstantOfShape) and converted (Cast).
#pragma once

#include <cstdint>
#include <optional>

#include "graph/graph.h"

namespace hetcim::graph {

// ONNX TensorProto.DataType code -> DType; nullopt for types the IR does not represent.
[[nodiscard]] std::optional<DType> dtype_from_onnx_code(int64_t code);

// Int8, UInt8, Int32, Int64 (not Bool, not the float types).
[[nodiscard]] bool is_integer(DType t);

// Every element `value`, converted to `dtype` as ONNX Cast converts it: ConstantOfShape's result.
// The shape must be fully known.
[[nodiscard]] Initializer filled(DType dtype, const Shape& shape, double value);

// `init`'s values converted to `to` with ONNX Cast semantics: float -> integer truncates toward
// zero (out-of-range values saturate, NaN gives 0; ONNX leaves both undefined), integer -> integer
// narrows as two's complement, anything -> bool is `!= 0`. `init` must have values.
[[nodiscard]] Initializer cast_to(const Initializer& init, DType to);

}  // namespace hetcim::graph
