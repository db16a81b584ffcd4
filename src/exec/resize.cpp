#include "exec/resize.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/op_params.h"
#include "graph/node_errors.h"
#include "ops/registry.h"

namespace hetcim::exec::resize {
namespace {

[[noreturn]] void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

Transform transform_of(const graph::Node& n, const std::string& ctm) {
  if (ctm == "half_pixel") return Transform::HalfPixel;
  if (ctm == "pytorch_half_pixel") return Transform::PytorchHalfPixel;
  if (ctm == "align_corners") return Transform::AlignCorners;
  if (ctm == "asymmetric") return Transform::Asymmetric;
  if (ctm == "tf_half_pixel_for_nn") return Transform::TfHalfPixelForNn;
  fail(n, "coordinate_transformation_mode '" + ctm +
              "' is not supported (hetcim supports half_pixel, pytorch_half_pixel, "
              "align_corners, asymmetric and, in mode nearest, tf_half_pixel_for_nn)");
}

// Cubic convolution kernel of Keys (1981) with parameter a, at distance d >= 0 (the ONNX spec's
// cubic_coeff_a; the four coefficients of the spec are this kernel at 1+r, r, 1-r, 2-r).
double cubic_kernel(double d, double a) {
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

int64_t row_major_count(const graph::Shape& s) {
  return graph::element_count(s);
}

bool is_row_major(const graph::Shape& s, const std::vector<int64_t>& st) {
  int64_t stride = 1;
  for (size_t k = s.size(); k-- > 0;) {
    if (s[k] != 1 && st[k] != stride) return false;
    stride *= s[k];
  }
  return true;
}

// Calls f(row_major_index, strided_offset) for every element of shape s with strides st.
template <typename F>
void for_each_strided(const graph::Shape& s, const std::vector<int64_t>& st, F f) {
  const int64_t total = row_major_count(s);
  if (total == 0) return;
  const size_t r = s.size();
  std::vector<int64_t> idx(r, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < total; ++i) {
    f(i, off);
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < s[k]) {
        off += st[k];
        break;
      }
      off -= (s[k] - 1) * st[k];
      idx[k] = 0;
    }
  }
}

template <typename T>
T saturate_round(float v) {
  const float lo = static_cast<float>(std::numeric_limits<T>::min());
  const float hi = static_cast<float>(std::numeric_limits<T>::max());
  return static_cast<T>(std::clamp(std::nearbyint(v), lo, hi));  // half to even
}

// One axis of a row-major tensor: src of shape (outer, in_len, inner) -> dst (outer, out_len,
// inner).
void resize_axis(const AxisTaps& t, const float* src, float* dst, int64_t outer, int64_t in_len,
                 int64_t out_len, int64_t inner) {
  const int64_t T = t.taps;
  const int64_t* idx = t.index.data();
  const float* w = t.weight.data();
#pragma omp parallel for schedule(static) if (outer * out_len * inner * T >= (int64_t{1} << 18))
  for (int64_t row = 0; row < outer * out_len; ++row) {
    const int64_t ob = row / out_len, o = row % out_len;
    const float* s = src + ob * in_len * inner;
    float* d = dst + row * inner;
    if (inner == 1) {
      float acc = 0;
      for (int64_t k = 0; k < T; ++k) acc += w[o * T + k] * s[idx[o * T + k]];
      d[0] = acc;
      continue;
    }
    std::fill(d, d + inner, 0.0f);
    for (int64_t k = 0; k < T; ++k) {
      const float wk = w[o * T + k];
      if (wk == 0) continue;
      const float* sk = s + idx[o * T + k] * inner;
      for (int64_t i = 0; i < inner; ++i) d[i] += wk * sk[i];
    }
  }
}

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Nearest:
      return "nearest";
    case Mode::Linear:
      return "linear";
    case Mode::Cubic:
      return "cubic";
  }
  return "?";
}

Spec parse(const graph::Graph& g, const graph::Node& n, const graph::Shape& x,
           const graph::Shape& y, graph::DType dtype) {
  Spec s;
  const ops::Family* f = ops::row(n.op_type);
  const bool upsample = f && f->legacy_resize;
  const bool legacy = upsample || g.opset <= 10;  // (X, scales), asymmetric
  const std::string mode = n.attr_string("mode", "nearest");
  if (mode == "nearest")
    s.mode = Mode::Nearest;
  else if (mode == "linear" || (upsample && mode == "bilinear"))
    s.mode = Mode::Linear;
  else if (mode == "cubic" && !legacy)
    s.mode = Mode::Cubic;
  else
    fail(n, "mode '" + mode + "' is not supported (hetcim executes nearest, linear" +
                (legacy ? std::string(")") : std::string(" and cubic)")));
  if (s.mode == Mode::Nearest) return s;

  if (x.size() != y.size()) fail(n, "input and output ranks differ");
  if (dtype != graph::DType::Float32 && dtype != graph::DType::UInt8 && dtype != graph::DType::Int8)
    fail(n, "mode '" + mode + "' on " + std::string(graph::dtype_name(dtype)) +
                " tensors is not supported (float32, uint8 and int8 are)");
  std::vector<double> scales;
  if (legacy) {
    s.transform = Transform::Asymmetric;
    if (n.has_attr("scales")) {
      scales = std::get<std::vector<double>>(n.attrs.at("scales"));
    } else {
      for (float f : const_floats(g, n, 1, "scales")) scales.push_back(f);
    }
  } else {
    s.transform = transform_of(n, n.attr_string("coordinate_transformation_mode", "half_pixel"));
    if (s.transform == Transform::TfHalfPixelForNn)  // ONNX Runtime differs on 2-D inputs
      fail(n, "coordinate_transformation_mode 'tf_half_pixel_for_nn' is for mode nearest, not '" +
                  mode + "'");
    s.cubic_a = n.attr_float("cubic_coeff_a", -0.75);
    s.exclude_outside = n.attr_int("exclude_outside", 0) != 0;
    if (n.attr_int("antialias", 0) != 0)
      fail(n, "antialias=1 is not supported (hetcim interpolates without an antialiasing filter)");
    const std::string policy = n.attr_string("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch")
      fail(n, "keep_aspect_ratio_policy '" + policy + "' is not supported (only 'stretch')");
    if (has_input(n, 2)) {
      auto it = g.initializers.find(n.inputs[2]);
      if (it != g.initializers.end() && graph::element_count(*it->second.info.shape) > 0)
        for (float f : const_floats(g, n, 2, "scales")) scales.push_back(f);
    }
    const std::vector<int64_t> axes = n.attr_ints("axes", {});
    if (!axes.empty() && !scales.empty()) {  // opset 18: scales of the listed axes only
      if (scales.size() != axes.size())
        fail(n, std::to_string(scales.size()) + " scales for " + std::to_string(axes.size()) +
                    " axes");
      std::vector<double> full(x.size(), 1.0);
      for (size_t i = 0; i < axes.size(); ++i)
        full[static_cast<size_t>(graph::normalize_axis(n, axes[i], static_cast<int64_t>(x.size()),
                                                       "axes entry"))] = scales[i];
      scales = std::move(full);
    }
  }
  if (scales.empty()) {  // sizes decide: the scale is output length / input length (float32)
    for (size_t a = 0; a < x.size(); ++a) {
      if (x[a] == 0) fail(n, "axis " + std::to_string(a) + " of the input is empty");
      scales.push_back(static_cast<float>(y[a]) / static_cast<float>(x[a]));
    }
  }
  if (scales.size() != x.size())
    fail(n, std::to_string(scales.size()) + " scales for an input of rank " +
                std::to_string(x.size()));
  for (size_t a = 0; a < scales.size(); ++a)
    if (!(scales[a] > 0) || !std::isfinite(scales[a]))
      fail(n, "scale " + std::to_string(scales[a]) + " on axis " + std::to_string(a) +
                  " must be a positive finite number");
  s.scales = std::move(scales);
  return s;
}

double original_coordinate(Transform t, int64_t o, double scale, int64_t in_len, int64_t out_len) {
  const double od = static_cast<double>(o);
  switch (t) {
    case Transform::HalfPixel:
      return (od + 0.5) / scale - 0.5;
    case Transform::PytorchHalfPixel:
      return out_len > 1 ? (od + 0.5) / scale - 0.5 : 0.0;
    case Transform::AlignCorners:
      return out_len > 1 ? od * static_cast<double>(in_len - 1) / static_cast<double>(out_len - 1)
                         : 0.0;
    case Transform::Asymmetric:
      return od / scale;
    case Transform::TfHalfPixelForNn:
      return (od + 0.5) / scale;
  }
  return 0;
}

AxisTaps axis_taps(const Spec& s, size_t axis, int64_t in_len, int64_t out_len) {
  AxisTaps t;
  t.taps = s.mode == Mode::Cubic ? 4 : 2;
  t.index.resize(static_cast<size_t>(out_len * t.taps));
  t.weight.resize(t.index.size());
  for (int64_t o = 0; o < out_len; ++o) {
    const double c = original_coordinate(s.transform, o, s.scales.at(axis), in_len, out_len);
    const double f = std::floor(c);
    const double r = c - f;
    const int64_t x0 = static_cast<int64_t>(f);
    double w[4];
    int64_t at[4];
    if (t.taps == 2) {
      at[0] = x0;
      at[1] = x0 + 1;
      w[0] = 1 - r;
      w[1] = r;
    } else {
      const double d[4] = {1 + r, r, 1 - r, 2 - r};
      for (int k = 0; k < 4; ++k) {
        at[k] = x0 - 1 + k;
        w[k] = cubic_kernel(d[k], s.cubic_a);
      }
      if (s.exclude_outside) {
        double sum = 0;
        for (int k = 0; k < 4; ++k) {
          if (at[k] < 0 || at[k] >= in_len) w[k] = 0;
          sum += w[k];
        }
        for (int k = 0; k < 4; ++k) w[k] /= sum;
      }
    }
    for (int64_t k = 0; k < t.taps; ++k) {
      const size_t i = static_cast<size_t>(o * t.taps + k);
      t.index[i] = std::clamp<int64_t>(at[k], 0, in_len - 1);
      t.weight[i] = static_cast<float>(w[k]);
    }
  }
  return t;
}

Plan make_plan(const Spec& s, const graph::Shape& x, const graph::Shape& y) {
  Plan p;
  p.in = x;
  p.out = y;
  for (size_t a = 0; a < x.size(); ++a) {
    bool same = x[a] == y[a];
    for (int64_t o = 0; same && o < y[a]; ++o)
      same = original_coordinate(s.transform, o, s.scales[a], x[a], y[a]) == static_cast<double>(o);
    if (same || y[a] == 0) continue;
    p.axes.push_back(a);
    p.taps.push_back(axis_taps(s, a, x[a], y[a]));
  }
  return p;
}

void interpolate(const Plan& p, const void* x, graph::DType dtype, const std::vector<int64_t>& xst,
                 void* y, const std::vector<int64_t>& yst, Scratch& scratch) {
  const bool f32 = dtype == graph::DType::Float32;
  // Row-major float32 input.
  const float* src = static_cast<const float*>(x);
  if (!f32 || !is_row_major(p.in, xst)) {
    scratch.in.resize(static_cast<size_t>(row_major_count(p.in)));
    float* d = scratch.in.data();
    if (dtype == graph::DType::Float32) {
      const float* xs = static_cast<const float*>(x);
      for_each_strided(p.in, xst, [&](int64_t i, int64_t off) { d[i] = xs[off]; });
    } else if (dtype == graph::DType::UInt8) {
      const uint8_t* xs = static_cast<const uint8_t*>(x);
      for_each_strided(p.in, xst, [&](int64_t i, int64_t off) { d[i] = xs[off]; });
    } else {
      const int8_t* xs = static_cast<const int8_t*>(x);
      for_each_strided(p.in, xst, [&](int64_t i, int64_t off) { d[i] = xs[off]; });
    }
    src = d;
  }
  // Row-major float32 output, written in place when y is one.
  const bool direct = f32 && is_row_major(p.out, yst);
  float* dst = static_cast<float*>(y);
  if (!direct) {
    scratch.out.resize(static_cast<size_t>(row_major_count(p.out)));
    dst = scratch.out.data();
  }
  graph::Shape cur = p.in;
  if (p.axes.empty()) {
    std::copy(src, src + row_major_count(p.in), dst);
  }
  for (size_t k = 0; k < p.axes.size(); ++k) {
    const size_t a = p.axes[k];
    graph::Shape next = cur;
    next[a] = p.out[a];
    float* to = dst;
    if (k + 1 < p.axes.size()) {
      std::vector<float>& buf = k % 2 == 0 ? scratch.a : scratch.b;
      buf.resize(static_cast<size_t>(row_major_count(next)));
      to = buf.data();
    }
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < a; ++i) outer *= cur[i];
    for (size_t i = a + 1; i < cur.size(); ++i) inner *= cur[i];
    resize_axis(p.taps[k], src, to, outer, cur[a], p.out[a], inner);
    src = to;
    cur = std::move(next);
  }
  if (direct) return;
  const float* r = dst;
  if (dtype == graph::DType::Float32) {
    float* ys = static_cast<float*>(y);
    for_each_strided(p.out, yst, [&](int64_t i, int64_t off) { ys[off] = r[i]; });
  } else if (dtype == graph::DType::UInt8) {
    uint8_t* ys = static_cast<uint8_t*>(y);
    for_each_strided(p.out, yst,
                     [&](int64_t i, int64_t off) { ys[off] = saturate_round<uint8_t>(r[i]); });
  } else {
    int8_t* ys = static_cast<int8_t*>(y);
    for_each_strided(p.out, yst,
                     [&](int64_t i, int64_t off) { ys[off] = saturate_round<int8_t>(r[i]); });
  }
}

}  // namespace hetcim::exec::resize
