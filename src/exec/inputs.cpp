#include "exec/inputs.h"

#include "util/error.h"
#include "util/hash.h"

namespace hetcim::exec {
TensorMap random_inputs(const graph::Graph& g, uint64_t seed) {
  TensorMap out;
  for (const std::string& name : g.inputs) {
    const graph::TensorInfo* ti = g.info(name);
    if (!ti || !ti->shape || graph::element_count(*ti->shape) < 0)
      throw user_error("input '", name, "' has no fully known shape");
    Tensor t = Tensor::zeros(ti->dtype, *ti->shape);
    SplitMix64 rng{seed ^ fnv1a(name)};
    const int64_t n = t.numel();
    for (int64_t i = 0; i < n; ++i) {
      switch (t.dtype) {
        case graph::DType::Float32:
          t.data<float>()[i] = static_cast<float>(2.0 * rng.uniform01() - 1.0);
          break;
        case graph::DType::Float64:
          t.data<double>()[i] = 2.0 * rng.uniform01() - 1.0;
          break;
        case graph::DType::UInt8:
          t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.next() & 0xff);
          break;
        case graph::DType::Int8:
          t.data<int8_t>()[i] = static_cast<int8_t>(rng.next() & 0xff);
          break;
        case graph::DType::Bool:
          t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.next() & 1);
          break;
        case graph::DType::Int32:
          t.data<int32_t>()[i] = static_cast<int32_t>(rng.next() % 100);
          break;
        case graph::DType::Int64:
          t.data<int64_t>()[i] = static_cast<int64_t>(rng.next() % 100);
          break;
      }
    }
    out[name] = std::move(t);
  }
  return out;
}

}  // namespace hetcim::exec
