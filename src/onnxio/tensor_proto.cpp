#include "onnxio/tensor_proto.h"

#include <bit>
#include <cstring>
#include <limits>

#include "util/error.h"

namespace hetcim::onnxio {

static_assert(std::endian::native == std::endian::little,
              "ONNX raw_data is little-endian; hetcim copies it without byte swapping");

namespace {

using graph::DType;
using onnx::TensorProto;

// Protobuf messages cannot exceed 2 GB, so no embedded tensor can either.
constexpr uint64_t kMaxTensorBytes = std::numeric_limits<int32_t>::max();

std::string dims_str(const graph::Shape& dims) {
  if (dims.empty()) return "[] (scalar)";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// Copies a repeated numeric field into little-endian bytes of type Out, checking each value's
// range when the field is wider than the element (int8 stored in int32_data, for instance).
template <typename Out, typename Field>
std::vector<uint8_t> pack(const Field& field, int64_t lo, int64_t hi, std::string_view what,
                          std::string_view field_name, DType t) {
  std::vector<uint8_t> raw(static_cast<size_t>(field.size()) * sizeof(Out));
  for (int i = 0; i < field.size(); ++i) {
    const auto v = field.Get(i);
    if constexpr (std::is_integral_v<decltype(v)>) {
      if (static_cast<int64_t>(v) < lo || static_cast<int64_t>(v) > hi) {
        throw user_error(what, ": ", field_name, "[", i, "] = ", static_cast<int64_t>(v),
                         " is out of range for ", graph::dtype_name(t));
      }
    }
    const Out o = static_cast<Out>(v);
    std::memcpy(raw.data() + static_cast<size_t>(i) * sizeof(Out), &o, sizeof(Out));
  }
  return raw;
}

}  // namespace

std::optional<DType> dtype_from_onnx(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT:
      return DType::Float32;
    case TensorProto::DOUBLE:
      return DType::Float64;
    case TensorProto::INT8:
      return DType::Int8;
    case TensorProto::UINT8:
      return DType::UInt8;
    case TensorProto::INT32:
      return DType::Int32;
    case TensorProto::INT64:
      return DType::Int64;
    case TensorProto::BOOL:
      return DType::Bool;
    default:
      return std::nullopt;
  }
}

int32_t dtype_to_onnx(DType t) {
  switch (t) {
    case DType::Float32:
      return TensorProto::FLOAT;
    case DType::Float64:
      return TensorProto::DOUBLE;
    case DType::Int8:
      return TensorProto::INT8;
    case DType::UInt8:
      return TensorProto::UINT8;
    case DType::Int32:
      return TensorProto::INT32;
    case DType::Int64:
      return TensorProto::INT64;
    case DType::Bool:
      return TensorProto::BOOL;
  }
  throw internal_error("dtype_to_onnx: unhandled DType ", static_cast<int>(t));
}

std::string onnx_dtype_name(int32_t elem_type) {
  if (onnx::TensorProto_DataType_IsValid(elem_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(elem_type));
  }
  return "<unknown " + std::to_string(elem_type) + ">";
}

int64_t checked_element_count(const graph::Shape& dims, DType t, std::string_view what) {
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      throw user_error(what, ": dimension ", i, " is ", dims[i], " in shape ", dims_str(dims),
                       " (dimensions must be >= 0)");
    }
    if (dims[i] == 0) has_zero = true;
  }
  if (has_zero) return 0;
  const uint64_t limit = kMaxTensorBytes / graph::dtype_size(t);
  uint64_t n = 1;
  for (int64_t d : dims) {
    if (static_cast<uint64_t>(d) > limit / n) {
      throw user_error(what, ": shape ", dims_str(dims), " of ", graph::dtype_name(t),
                       " exceeds the 2 GB limit of an embedded ONNX tensor");
    }
    n *= static_cast<uint64_t>(d);
  }
  return static_cast<int64_t>(n);
}

graph::Initializer initializer_from_proto(const TensorProto& t, std::string_view what) {
  if (t.data_location() == TensorProto::EXTERNAL || t.external_data_size() > 0) {
    std::string location;
    for (const auto& kv : t.external_data()) {
      if (kv.key() == "location") location = kv.value();
    }
    throw user_error(what, ": refers to external data",
                     location.empty() ? std::string() : " in file '" + location + "'",
                     "; hetcim reads only self-contained models (re-save with all tensors "
                     "embedded, e.g. onnx.save_model(m, path, save_as_external_data=False))");
  }
  if (t.has_segment()) throw user_error(what, ": segmented tensors are not supported");
  const std::optional<DType> dtype = dtype_from_onnx(t.data_type());
  if (!dtype) {
    throw user_error(
        what, ": element type ", onnx_dtype_name(t.data_type()),
        " is not supported (expected FLOAT, DOUBLE, INT8, UINT8, INT32, INT64 or BOOL)");
  }
  graph::Initializer init;
  init.info.dtype = *dtype;
  init.info.shape = graph::Shape(t.dims().begin(), t.dims().end());
  const graph::Shape& dims = *init.info.shape;
  const int64_t n = checked_element_count(dims, *dtype, what);
  const size_t want_bytes = static_cast<size_t>(n) * graph::dtype_size(*dtype);

  const int fields = int{t.has_raw_data()} + int{t.float_data_size() > 0} +
                     int{t.int32_data_size() > 0} + int{t.int64_data_size() > 0} +
                     int{t.double_data_size() > 0} + int{t.uint64_data_size() > 0} +
                     int{t.string_data_size() > 0};
  if (fields > 1)
    throw user_error(what, ": values are stored in ", fields, " fields (expected one)");
  if (fields == 0) {
    if (n == 0) return init;
    throw user_error(what, ": has no values (", n, " elements expected for shape ", dims_str(dims),
                     ")");
  }
  if (t.has_raw_data()) {
    if (t.raw_data().size() != want_bytes) {
      throw user_error(what, ": raw_data has ", t.raw_data().size(), " bytes but shape ",
                       dims_str(dims), " of ", graph::dtype_name(*dtype), " needs ", want_bytes);
    }
    init.raw.assign(t.raw_data().begin(), t.raw_data().end());
    return init;
  }
  // Typed fields: which one is legal depends on the element type (onnx.proto's comments).
  auto expect_count = [&](int count, std::string_view field) {
    if (static_cast<int64_t>(count) != n) {
      throw user_error(what, ": ", field, " has ", count, " values but shape ", dims_str(dims),
                       " needs ", n);
    }
  };
  auto wrong_field = [&](std::string_view field) {
    return user_error(what, ": a ", graph::dtype_name(*dtype),
                      " tensor cannot store its values in ", field);
  };
  constexpr int64_t kI32Min = std::numeric_limits<int32_t>::min();
  constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();
  if (t.float_data_size() > 0) {
    if (*dtype != DType::Float32) throw wrong_field("float_data");
    expect_count(t.float_data_size(), "float_data");
    init.raw = pack<float>(t.float_data(), 0, 0, what, "float_data", *dtype);
  } else if (t.double_data_size() > 0) {
    if (*dtype != DType::Float64) throw wrong_field("double_data");
    expect_count(t.double_data_size(), "double_data");
    init.raw = pack<double>(t.double_data(), 0, 0, what, "double_data", *dtype);
  } else if (t.int64_data_size() > 0) {
    if (*dtype != DType::Int64) throw wrong_field("int64_data");
    expect_count(t.int64_data_size(), "int64_data");
    init.raw = pack<int64_t>(t.int64_data(), std::numeric_limits<int64_t>::min(),
                             std::numeric_limits<int64_t>::max(), what, "int64_data", *dtype);
  } else if (t.int32_data_size() > 0) {
    expect_count(t.int32_data_size(), "int32_data");
    switch (*dtype) {
      case DType::Int32:
        init.raw = pack<int32_t>(t.int32_data(), kI32Min, kI32Max, what, "int32_data", *dtype);
        break;
      case DType::Int8:
        init.raw = pack<int8_t>(t.int32_data(), -128, 127, what, "int32_data", *dtype);
        break;
      case DType::UInt8:
        init.raw = pack<uint8_t>(t.int32_data(), 0, 255, what, "int32_data", *dtype);
        break;
      case DType::Bool:
        init.raw = pack<uint8_t>(t.int32_data(), 0, 1, what, "int32_data", *dtype);
        break;
      default:
        throw wrong_field("int32_data");
    }
  } else if (t.uint64_data_size() > 0) {
    throw wrong_field("uint64_data");
  } else {
    throw wrong_field("string_data");
  }
  return init;
}

void initializer_to_proto(const std::string& name, const graph::Initializer& init,
                          TensorProto* out) {
  HETCIM_ASSERT(init.info.shape.has_value(), "initializer '", name, "' has no shape");
  out->Clear();
  out->set_name(name);
  out->set_data_type(dtype_to_onnx(init.info.dtype));
  for (int64_t d : *init.info.shape) out->add_dims(d);
  const int64_t n =
      checked_element_count(*init.info.shape, init.info.dtype, "initializer '" + name + "'");
  const size_t want = static_cast<size_t>(n) * graph::dtype_size(init.info.dtype);
  HETCIM_ASSERT(init.raw.size() == want, "initializer '", name, "' holds ", init.raw.size(),
                " bytes, its shape needs ", want);
  if (!init.raw.empty()) out->set_raw_data(init.raw.data(), init.raw.size());
}

}  // namespace hetcim::onnxio
