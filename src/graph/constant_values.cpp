#include "graph/constant_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "util/error.h"

namespace hetcim::graph {

std::optional<DType> dtype_from_onnx_code(int64_t code) {
  switch (code) {
    case 1:
      return DType::Float32;
    case 2:
      return DType::UInt8;
    case 3:
      return DType::Int8;
    case 6:
      return DType::Int32;
    case 7:
      return DType::Int64;
    case 9:
      return DType::Bool;
    case 11:
      return DType::Float64;
    default:
      return std::nullopt;
  }
}

bool is_integer(DType t) {
  return t == DType::Int8 || t == DType::UInt8 || t == DType::Int32 || t == DType::Int64;
}

namespace {

// One value of `t` as little-endian bytes appended to `raw`; `is_float` says which of `f` / `i`
// holds the source value.
void append_cast(std::vector<uint8_t>& raw, DType t, bool is_float, double f, int64_t i) {
  auto put = [&raw](const auto v) {
    uint8_t b[sizeof(v)];
    std::memcpy(b, &v, sizeof(v));
    raw.insert(raw.end(), b, b + sizeof(v));
  };
  auto to_int = [&](double lo, double hi) -> int64_t {
    if (!is_float) return i;
    if (std::isnan(f)) return 0;
    return static_cast<int64_t>(std::clamp(std::trunc(f), lo, hi));
  };
  switch (t) {
    case DType::Float32:
      put(static_cast<float>(is_float ? f : static_cast<double>(i)));
      return;
    case DType::Float64:
      put(is_float ? f : static_cast<double>(i));
      return;
    case DType::Int8:
      put(static_cast<int8_t>(to_int(-128.0, 127.0)));
      return;
    case DType::UInt8:
      put(static_cast<uint8_t>(to_int(0.0, 255.0)));
      return;
    case DType::Int32:
      put(static_cast<int32_t>(to_int(-2147483648.0, 2147483647.0)));
      return;
    case DType::Int64:
      put(to_int(-9.2233720368547748e18, 9.2233720368547748e18));
      return;
    case DType::Bool:
      put(static_cast<uint8_t>(is_float ? f != 0.0 : i != 0));
      return;
  }
}

}  // namespace

Initializer filled(DType dtype, const Shape& shape, double value) {
  Initializer init;
  init.info = {dtype, shape};
  const int64_t n = element_count(shape);
  if (n < 0) throw internal_error("filled with unknown shape ", shape_str(shape));
  init.raw.reserve(static_cast<size_t>(n) * dtype_size(dtype));
  for (int64_t k = 0; k < n; ++k)
    append_cast(init.raw, dtype, true, value, static_cast<int64_t>(value));
  return init;
}

Initializer cast_to(const Initializer& init, DType to) {
  Initializer out;
  out.info = {to, init.info.shape};
  if (init.info.dtype == DType::Float32 || init.info.dtype == DType::Float64) {
    const std::vector<float> v = init.floats();
    out.raw.reserve(v.size() * dtype_size(to));
    for (float f : v) append_cast(out.raw, to, true, static_cast<double>(f), 0);
  } else {
    const std::vector<int64_t> v = init.ints();
    out.raw.reserve(v.size() * dtype_size(to));
    for (int64_t i : v) append_cast(out.raw, to, false, 0.0, i);
  }
  return out;
}

}  // namespace hetcim::graph
