// Conversion between ONNX TensorProto / element types and the graph IR's Initializer / DType.
// Internal to onnxio (the importer, the exporter and the tests use it); it is the one header of
// this library that exposes libonnx's protobuf types.
//
// Reading a TensorProto is where hostile input meets memory allocation, so every size is checked
// before anything proportional to it is allocated: dims must be >= 0, the element count and byte
// size must fit the 2 GB protobuf limit without overflow, the data must sit in exactly one field
// that matches the element type, and its length must equal the element count implied by dims.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graph/graph.h"
#include "onnx/onnx_pb.h"

namespace hetcim::onnxio {

// ONNX TensorProto::DataType -> DType; nullopt for types the IR does not have (float16, string...).
[[nodiscard]] std::optional<graph::DType> dtype_from_onnx(int32_t elem_type);
[[nodiscard]] int32_t dtype_to_onnx(graph::DType t);
// "FLOAT16", "STRING", ... or "<unknown 77>" for values outside the enum.
[[nodiscard]] std::string onnx_dtype_name(int32_t elem_type);

// Number of elements of `dims` (all >= 0), or a UserError naming `what` when a dim is negative
// or when count * element size would exceed the 2 GB protobuf limit.
[[nodiscard]] int64_t checked_element_count(const graph::Shape& dims, graph::DType t,
                                            std::string_view what);

// Reads an embedded dense tensor. `what` names it in errors ("initializer 'w'", "node 'c'
// (Constant): attribute 'value'"). External data, segments, unsupported element types, negative
// or overflowing dims, several or mismatching data fields and wrong data lengths are UserErrors.
// Typed fields are checked element by element (an int8 tensor's int32_data must hold -128..127).
[[nodiscard]] graph::Initializer initializer_from_proto(const onnx::TensorProto& t,
                                                        std::string_view what);

// Writes `init` as a TensorProto named `name` with little-endian raw_data. `raw` must hold the
// values (the exporter fills initializers without values before calling this).
void initializer_to_proto(const std::string& name, const graph::Initializer& init,
                          onnx::TensorProto* out);

}  // namespace hetcim::onnxio
