#include "exec/tensor.h"

#include "util/error.h"
#include "util/limits.h"

namespace hetcim::exec {

Tensor Tensor::zeros(graph::DType dtype, const graph::Shape& shape) {
  const int64_t n = graph::element_count(shape);
  HETCIM_ASSERT(n >= 0, "tensor of unknown shape ", graph::shape_str(shape));
  (void)checked_elements(shape, kMaxTensorElements, "a tensor");
  Tensor t;
  t.dtype = dtype;
  t.shape = shape;
  t.bytes.assign(static_cast<size_t>(n) * graph::dtype_size(dtype), 0);
  return t;
}

Tensor Tensor::from_floats(const graph::Shape& shape, const std::vector<float>& v) {
  Tensor t = zeros(graph::DType::Float32, shape);
  HETCIM_ASSERT(static_cast<int64_t>(v.size()) == t.numel(), "from_floats: ", v.size(),
                " values for shape ", graph::shape_str(shape));
  if (!v.empty()) std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

Tensor Tensor::from_initializer(const graph::Initializer& init, const std::string& name) {
  if (!init.info.shape || graph::element_count(*init.info.shape) < 0)
    throw user_error("initializer '", name, "' has no fully known shape");
  Tensor t = zeros(init.info.dtype, *init.info.shape);
  if (t.bytes.empty()) return t;
  if (!init.has_values())
    throw user_error("initializer '", name, "' (", graph::shape_str(*init.info.shape),
                     ") has no values; draw weights first (exec::materialize_weights)");
  if (init.raw.size() != t.bytes.size())
    throw user_error("initializer '", name, "' holds ", init.raw.size(), " bytes, expected ",
                     t.bytes.size(), " for ", graph::dtype_name(init.info.dtype), " ",
                     graph::shape_str(*init.info.shape));
  t.bytes = init.raw;
  return t;
}

double Tensor::at(int64_t i) const {
  const size_t k = static_cast<size_t>(i);
  switch (dtype) {
    case graph::DType::Float32:
      return data<float>()[k];
    case graph::DType::Float64:
      return data<double>()[k];
    case graph::DType::Int8:
      return data<int8_t>()[k];
    case graph::DType::UInt8:
      return data<uint8_t>()[k];
    case graph::DType::Int32:
      return data<int32_t>()[k];
    case graph::DType::Int64:
      return static_cast<double>(data<int64_t>()[k]);
    case graph::DType::Bool:
      return data<uint8_t>()[k] ? 1.0 : 0.0;
  }
  return 0;
}

std::vector<float> Tensor::floats() const {
  std::vector<float> out(static_cast<size_t>(numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(at(static_cast<int64_t>(i)));
  return out;
}

}  // namespace hetcim::exec
