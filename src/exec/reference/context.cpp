#include "exec/reference/context.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::exec::reference {

using graph::DType;
using graph::Shape;

const Tensor& Context::get(const std::string& t) {
  if (auto it = env_.find(t); it != env_.end()) return it->second;
  auto init = g_.initializers.find(t);
  if (init == g_.initializers.end()) fail("tensor '" + t + "' has not been computed");
  return env_[t] = Tensor::from_initializer(init->second, t);
}

const Tensor& Context::in(size_t i) {
  if (!has_input(*node_, i)) fail("input " + std::to_string(i) + " is required");
  return get(node_->inputs[i]);
}

const Tensor& Context::float_in(size_t i) {
  const Tensor& t = in(i);
  if (t.dtype != DType::Float32) fail("input " + std::to_string(i) + " must be float32");
  return t;
}

Shape Context::out_shape(size_t i) const {
  return known_shape(g_, *node_, node_->outputs.at(i));
}

DType Context::out_dtype(size_t i, DType fallback) const {
  const graph::TensorInfo* ti = g_.info(node_->outputs.at(i));
  return ti ? ti->dtype : fallback;
}

Tensor& Context::set(size_t i, Tensor t) {
  return env_[node_->outputs.at(i)] = std::move(t);
}

float Context::scalar_f(size_t i) {
  const Tensor& t = in(i);
  if (t.numel() != 1) fail("input " + std::to_string(i) + " must be a scalar (per-tensor)");
  return static_cast<float>(t.at(0));
}

int32_t Context::scalar_zp(size_t i) {
  if (!has_input(*node_, i)) return 0;
  const Tensor& t = in(i);
  if (t.numel() != 1) fail("input " + std::to_string(i) + " must be a scalar (per-tensor)");
  return static_cast<int32_t>(t.at(0));
}

std::vector<float> Context::per_channel_f(size_t i, int64_t count) {
  const Tensor& t = in(i);
  if (t.numel() == 1)
    return std::vector<float>(static_cast<size_t>(count), static_cast<float>(t.at(0)));
  if (t.numel() != count)
    fail("input " + std::to_string(i) + " has " + std::to_string(t.numel()) +
         " values, expected 1 or " + std::to_string(count));
  return t.floats();
}

std::vector<int32_t> Context::per_channel_zp(size_t i, int64_t count) {
  std::vector<int32_t> out(static_cast<size_t>(count), 0);
  if (!has_input(*node_, i)) return out;
  const Tensor& t = in(i);
  // Length first: a shorter zero point must not be read past its end.
  if (t.numel() != 1 && t.numel() != count)
    fail("input " + std::to_string(i) + " (zero point) has " + std::to_string(t.numel()) +
         " values, expected 1 or " + std::to_string(count));
  for (int64_t k = 0; k < count; ++k)
    out[static_cast<size_t>(k)] = static_cast<int32_t>(t.at(t.numel() == 1 ? 0 : k));
  return out;
}

std::vector<int64_t> Context::const_ints(size_t i) {
  const Tensor& t = in(i);
  std::vector<int64_t> v;
  for (int64_t k = 0; k < t.numel(); ++k) v.push_back(static_cast<int64_t>(t.at(k)));
  return v;
}

float sigmoidf(float v) {
  return 1.0f / (1.0f + std::exp(-v));
}

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

void broadcast2(const Shape& out, const Shape& a, const Shape& b,
                const std::function<void(int64_t, int64_t, int64_t)>& f) {
  const auto sa = broadcast_strides(a, out), sb = broadcast_strides(b, out);
  const int64_t total = graph::element_count(out);
  std::vector<int64_t> idx(out.size(), 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, ia, ib);
    for (size_t k = out.size(); k-- > 0;) {
      ++idx[k];
      ia += sa[k];
      ib += sb[k];
      if (idx[k] < out[k]) break;
      ia -= sa[k] * out[k];
      ib -= sb[k] * out[k];
      idx[k] = 0;
    }
  }
}

std::vector<int64_t> unravel(int64_t i, const Shape& s) {
  std::vector<int64_t> idx(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    idx[d] = s[d] == 0 ? 0 : i % s[d];
    i = s[d] == 0 ? 0 : i / s[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t f = 0;
  for (size_t d = 0; d < s.size(); ++d) f = f * s[d] + idx[d];
  return f;
}

void store_q(Tensor& y, int64_t i, int32_t v) {
  if (y.dtype == DType::Int8)
    y.data<int8_t>()[i] = static_cast<int8_t>(v);
  else
    y.data<uint8_t>()[i] = static_cast<uint8_t>(v);
}

void store_any(Tensor& y, int64_t i, double v) {
  switch (y.dtype) {
    case DType::Float32:
      y.data<float>()[i] = static_cast<float>(v);
      break;
    case DType::UInt8:
      y.data<uint8_t>()[i] = static_cast<uint8_t>(v);
      break;
    case DType::Int8:
      y.data<int8_t>()[i] = static_cast<int8_t>(v);
      break;
    default:
      throw internal_error("store_any: dtype");
  }
}

void apply_qact(Tensor& y, const Activation& act, float sy, int32_t zy, QRange r) {
  if (act.kind == Activation::None) return;
  int32_t lo = zy, hi = r.hi;
  if (act.kind == Activation::Clip) {
    lo = quantize_value(act.lo, sy, zy, r);
    hi = quantize_value(act.hi, sy, zy, r);
  }
  for (int64_t i = 0; i < y.numel(); ++i) {
    const int32_t v = static_cast<int32_t>(y.at(i));
    store_q(y, i, std::clamp(v, lo, hi));
  }
}

}  // namespace hetcim::exec::reference
