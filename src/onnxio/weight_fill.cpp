#include "onnxio/weight_fill.h"

#include <cmath>
#include <cstring>

#include "ops/registry.h"
#include "util/error.h"
#include "util/hash.h"

namespace hetcim::onnxio {

namespace {

using graph::DType;

enum class Rule { Weight, Zero, One, Scale, QuantWeight, GenericWeight, None };

struct Use {
  const graph::Node* node = nullptr;
  size_t slot = 0;
};

Use first_use(const graph::Graph& g, const std::string& name) {
  for (const graph::Node& n : g.nodes) {
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      if (n.inputs[i] == name) return {&n, i};
    }
  }
  return {};
}

bool is_float(DType t) {
  return t == DType::Float32 || t == DType::Float64;
}

// The registry row's fill rule of the input slot (ops::Fill), refined by the tensor's dtype.
Rule rule_for(const Use& use, DType t) {
  const ops::Family* f =
      use.node && use.node->domain.empty() ? ops::row(use.node->op_type) : nullptr;
  const ops::Fill fill = f && use.slot < f->fill.size() ? f->fill[use.slot] : ops::Fill::Generic;
  switch (fill) {
    case ops::Fill::Weight:
      if (is_float(t)) return Rule::Weight;
      break;
    case ops::Fill::Zero:
      return Rule::Zero;
    case ops::Fill::One:
      return Rule::One;
    case ops::Fill::Scale:
      return Rule::Scale;
    case ops::Fill::Quantized:
      if (t == DType::Int8 || t == DType::UInt8) return Rule::QuantWeight;
      if (t == DType::Int32) return Rule::Zero;
      break;
    case ops::Fill::Generic:
      break;
  }
  return is_float(t) ? Rule::GenericWeight : Rule::None;
}

// Fan-in of a weight: a Gemm's K (by transB) or a MatMul's rows of B; otherwise the product of
// every dimension but the first (a convolution's C/g x K...).
int64_t fan_in(const Use& use, const graph::Shape& dims) {
  int64_t f = 1;
  const ops::Family* r = use.node ? ops::row(use.node->op_type) : nullptr;
  const bool weight = r && r->operands && !r->operands->quantized && use.slot == r->operands->w;
  const ops::GemmView view = weight ? r->gemm : ops::GemmView::None;
  if (view == ops::GemmView::Gemm && dims.size() == 2) {
    f = use.node->attr_int("transB", 0) != 0 ? dims[1] : dims[0];
  } else if (view == ops::GemmView::MatMul && !dims.empty()) {
    f = dims.size() >= 2 ? dims[dims.size() - 2] : dims[0];
  } else {
    for (size_t i = 1; i < dims.size(); ++i) f *= dims[i];
  }
  return f > 0 ? f : 1;
}

template <typename T>
void put(std::vector<uint8_t>& raw, size_t i, T v) {
  std::memcpy(raw.data() + i * sizeof(T), &v, sizeof(T));
}

// Writes `value(i)` (a double) into element i in the tensor's float type.
template <typename F>
void fill_float(std::vector<uint8_t>& raw, DType t, size_t n, F value) {
  for (size_t i = 0; i < n; ++i) {
    if (t == DType::Float64) {
      put<double>(raw, i, value(i));
    } else {
      put<float>(raw, i, static_cast<float>(value(i)));
    }
  }
}

// Writes the integer `value(i)` into element i in the tensor's integer type.
template <typename F>
void fill_int(std::vector<uint8_t>& raw, DType t, size_t n, F value) {
  for (size_t i = 0; i < n; ++i) {
    const int64_t v = value(i);
    switch (t) {
      case DType::Int8:
        put<int8_t>(raw, i, static_cast<int8_t>(v));
        break;
      case DType::UInt8:
      case DType::Bool:
        put<uint8_t>(raw, i, static_cast<uint8_t>(v));
        break;
      case DType::Int32:
        put<int32_t>(raw, i, static_cast<int32_t>(v));
        break;
      case DType::Int64:
        put<int64_t>(raw, i, v);
        break;
      default:
        throw internal_error("fill_int on a float tensor");
    }
  }
}

}  // namespace

std::vector<uint8_t> generate_initializer_values(const graph::Graph& g, const std::string& name,
                                                 uint64_t seed) {
  auto it = g.initializers.find(name);
  HETCIM_ASSERT(it != g.initializers.end(), "no initializer '", name, "'");
  const graph::TensorInfo& info = it->second.info;
  if (!info.shape) throw user_error("initializer '", name, "' has no shape, so no values");
  const int64_t count = graph::element_count(*info.shape);
  if (count < 0) {
    throw user_error("initializer '", name, "' has shape ", graph::shape_str(*info.shape),
                     " with unknown dimensions, so its values cannot be generated");
  }
  const size_t n = static_cast<size_t>(count);
  std::vector<uint8_t> raw(n * graph::dtype_size(info.dtype), 0);
  const Use use = first_use(g, name);
  const Rule rule = rule_for(use, info.dtype);
  SplitMix64 rng{seed ^ fnv1a(name)};
  switch (rule) {
    case Rule::Zero:
      break;  // raw is already zero in every dtype
    case Rule::One:
      if (is_float(info.dtype)) {
        fill_float(raw, info.dtype, n, [](size_t) { return 1.0; });
      } else {
        fill_int(raw, info.dtype, n, [](size_t) { return int64_t{1}; });
      }
      break;
    case Rule::Scale:
      if (!is_float(info.dtype)) {
        throw user_error("initializer '", name, "': a quantization scale must be float, not ",
                         graph::dtype_name(info.dtype));
      }
      fill_float(raw, info.dtype, n, [](size_t) { return 0x1.0p-7; });
      break;
    case Rule::QuantWeight: {
      const bool is_signed = info.dtype == DType::Int8;
      const uint64_t span = is_signed ? 255 : 256;  // [-127, 127] or [0, 255]
      const int64_t lo = is_signed ? -127 : 0;
      fill_int(raw, info.dtype, n,
               [&](size_t) { return lo + static_cast<int64_t>(rng.next() % span); });
      break;
    }
    case Rule::Weight:
    case Rule::GenericWeight: {
      const double bound = std::sqrt(6.0 / static_cast<double>(fan_in(use, *info.shape)));
      fill_float(raw, info.dtype, n, [&](size_t) { return (2.0 * rng.uniform01() - 1.0) * bound; });
      break;
    }
    case Rule::None:
      throw user_error("initializer '", name, "' (", graph::dtype_name(info.dtype), ", shape ",
                       graph::shape_str(*info.shape), ") has no values",
                       use.node ? " and is read by node '" + use.node->name + "' (" +
                                      use.node->op_type + ") input " + std::to_string(use.slot)
                                : std::string(" and no reader"),
                       "; hetcim has no rule to generate integer values there");
  }
  return raw;
}

size_t materialize_weights(graph::Graph& g, uint64_t seed) {
  size_t filled = 0;
  for (auto& [name, init] : g.initializers) {
    if (init.has_values() || !init.info.shape) continue;
    if (graph::element_count(*init.info.shape) <= 0) continue;
    init.raw = generate_initializer_values(g, name, seed);
    ++filled;
  }
  return filled;
}

}  // namespace hetcim::onnxio
