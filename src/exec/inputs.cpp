#include "exec/inputs.h"

#include "util/error.h"

namespace hetcim::exec {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace

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
        case graph::DType::Float32: t.data<float>()[i] = static_cast<float>(2.0 * rng.uniform01() - 1.0); break;
        case graph::DType::Float64: t.data<double>()[i] = 2.0 * rng.uniform01() - 1.0; break;
        case graph::DType::UInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.next() & 0xff); break;
        case graph::DType::Int8: t.data<int8_t>()[i] = static_cast<int8_t>(rng.next() & 0xff); break;
        case graph::DType::Bool: t.data<uint8_t>()[i] = static_cast<uint8_t>(rng.next() & 1); break;
        case graph::DType::Int32: t.data<int32_t>()[i] = static_cast<int32_t>(rng.next() % 100); break;
        case graph::DType::Int64: t.data<int64_t>()[i] = static_cast<int64_t>(rng.next() % 100); break;
      }
    }
    out[name] = std::move(t);
  }
  return out;
}

}  // namespace hetcim::exec
