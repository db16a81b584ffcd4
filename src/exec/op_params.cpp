#include "exec/op_params.h"

#include <algorithm>
#include <cmath>

#include "graph/node_errors.h"
#include "ops/registry.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

[[noreturn]] void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

// Pads for one spatial axis given the output size (auto_pad SAME_* and VALID resolved).
void resolve_axis(const graph::Node& n, const std::string& auto_pad, int64_t in, int64_t out,
                  int64_t k, int64_t s, int64_t d, int64_t& begin, int64_t& end) {
  const int64_t span = (k - 1) * d + 1;
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + span - in);
    begin = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    end = total - begin;
  } else if (auto_pad == "VALID") {
    begin = end = 0;
  } else if (auto_pad != "NOTSET" && !auto_pad.empty()) {
    fail(n, "unknown auto_pad '" + auto_pad + "'");
  }
}

Window2d window(const graph::Graph& g, const graph::Node& n, const graph::Shape& x,
                const graph::Shape& y, std::vector<int64_t> kernel) {
  if (x.size() != 4 || y.size() != 4)
    fail(n, "hetcim executes 2-D windows only (4-D input and output), got input " +
                graph::shape_str(x));
  (void)g;
  Window2d w;
  w.n = x[0];
  w.c = x[1];
  w.h = x[2];
  w.w = x[3];
  w.oc = y[1];
  w.oh = y[2];
  w.ow = y[3];
  if (kernel.size() != 2) fail(n, "kernel_shape must have 2 entries");
  w.kh = kernel[0];
  w.kw = kernel[1];
  const auto strides = n.attr_ints("strides", {1, 1});
  const auto dil = n.attr_ints("dilations", {1, 1});
  const auto pads = n.attr_ints("pads", {0, 0, 0, 0});
  if (strides.size() != 2 || dil.size() != 2 || pads.size() != 4)
    fail(n, "strides/dilations must have 2 entries and pads 4");
  w.sh = strides[0];
  w.sw = strides[1];
  w.dh = dil[0];
  w.dw = dil[1];
  w.pt = pads[0];
  w.pl = pads[1];
  w.pb = pads[2];
  w.pr = pads[3];
  if (w.sh < 1 || w.sw < 1 || w.dh < 1 || w.dw < 1 || w.kh < 1 || w.kw < 1)
    fail(n, "kernel, strides and dilations must be >= 1");
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  resolve_axis(n, auto_pad, w.h, w.oh, w.kh, w.sh, w.dh, w.pt, w.pb);
  resolve_axis(n, auto_pad, w.w, w.ow, w.kw, w.sw, w.dw, w.pl, w.pr);
  w.pb_declared = w.pb;
  w.pr_declared = w.pr;
  // ceil_mode (or any mismatch in the recorded output size) extends the bottom/right padding.
  const int64_t need_b = (w.oh - 1) * w.sh + (w.kh - 1) * w.dh + 1 - w.h - w.pt;
  const int64_t need_r = (w.ow - 1) * w.sw + (w.kw - 1) * w.dw + 1 - w.w - w.pl;
  if (need_b > w.pb) w.pb = need_b;
  if (need_r > w.pr) w.pr = need_r;
  return w;
}

}  // namespace

const graph::Shape& known_shape(const graph::Graph& g, const graph::Node& n, const std::string& t) {
  const graph::TensorInfo* ti = g.info(t);
  if (!ti || !ti->shape || graph::element_count(*ti->shape) < 0)
    fail(n, "the shape of tensor '" + t + "' is not fully known");
  return *ti->shape;
}

bool has_input(const graph::Node& n, size_t i) {
  return i < n.inputs.size() && !n.inputs[i].empty();
}

Window2d conv_window(const graph::Graph& g, const graph::Node& n, const std::string& x,
                     const std::string& wt, const std::string& y) {
  const graph::Shape& ws = known_shape(g, n, wt);
  if (ws.size() != 4) fail(n, "weight '" + wt + "' must be 4-D, got " + graph::shape_str(ws));
  auto kernel = n.attr_ints("kernel_shape", {ws[2], ws[3]});
  Window2d w = window(g, n, known_shape(g, n, x), known_shape(g, n, y), kernel);
  w.group = n.attr_int("group", 1);
  if (w.group < 1 || w.c % w.group != 0 || w.oc % w.group != 0 || ws[1] * w.group != w.c ||
      ws[0] != w.oc)
    fail(n, "weight shape " + graph::shape_str(ws) + " does not match input channels " +
                std::to_string(w.c) + ", output channels " + std::to_string(w.oc) + " and group " +
                std::to_string(w.group));
  return w;
}

Window2d pool_window(const graph::Graph& g, const graph::Node& n, const std::string& x,
                     const std::string& y) {
  const graph::Shape& xs = known_shape(g, n, x);
  const ops::Family* f = ops::row(n.op_type);
  const bool global = f && f->global_pool;
  if (global) {
    if (xs.size() != 4) fail(n, "hetcim executes 2-D pooling only (4-D input)");
    graph::Node plain = n;
    plain.attrs.clear();
    return window(g, plain, xs, known_shape(g, n, y), {xs[2], xs[3]});
  }
  if (!n.has_attr("kernel_shape")) fail(n, "attribute 'kernel_shape' is required");
  Window2d w = window(g, n, xs, known_shape(g, n, y), n.attr_ints("kernel_shape", {}));
  w.oc = w.c;
  return w;
}

std::vector<int64_t> const_ints(const graph::Graph& g, const graph::Node& n, size_t input,
                                const char* what) {
  if (!has_input(n, input))
    fail(n, std::string(what) + " (input " + std::to_string(input) + ") is required");
  auto it = g.initializers.find(n.inputs[input]);
  if (it == g.initializers.end() ||
      (!it->second.has_values() && graph::element_count(*it->second.info.shape) != 0))
    fail(n,
         std::string(what) + " must be a constant with values (tensor '" + n.inputs[input] + "')");
  return it->second.ints();
}

std::vector<float> const_floats(const graph::Graph& g, const graph::Node& n, size_t input,
                                const char* what) {
  if (!has_input(n, input))
    fail(n, std::string(what) + " (input " + std::to_string(input) + ") is required");
  auto it = g.initializers.find(n.inputs[input]);
  if (it == g.initializers.end() ||
      (!it->second.has_values() && graph::element_count(*it->second.info.shape) != 0))
    fail(n,
         std::string(what) + " must be a constant with values (tensor '" + n.inputs[input] + "')");
  return it->second.floats();
}

Activation fused_activation(const graph::Node& n) {
  Activation a;
  const std::string kind = n.attr_string("activation", "");
  if (kind.empty()) return a;
  if (kind == "Relu") {
    a.kind = Activation::Relu;
  } else if (kind == "Clip") {
    if (!n.has_attr("activation_min") || !n.has_attr("activation_max"))
      fail(n, "fused Clip without recorded bounds (activation_min/activation_max)");
    a.kind = Activation::Clip;
    a.lo = static_cast<float>(n.attr_float("activation_min", 0));
    a.hi = static_cast<float>(n.attr_float("activation_max", 0));
  } else {
    fail(n, "unknown fused activation '" + kind + "'");
  }
  return a;
}

Activation clip_bounds(const graph::Graph& g, const graph::Node& n) {
  Activation a;
  a.kind = Activation::Clip;
  a.lo = -INFINITY;
  a.hi = INFINITY;
  if (n.has_attr("min")) a.lo = static_cast<float>(n.attr_float("min", 0));
  if (n.has_attr("max")) a.hi = static_cast<float>(n.attr_float("max", 0));
  if (has_input(n, 1)) {
    auto v = const_floats(g, n, 1, "min");
    if (v.size() != 1) fail(n, "min must be a scalar");
    a.lo = v[0];
  }
  if (has_input(n, 2)) {
    auto v = const_floats(g, n, 2, "max");
    if (v.size() != 1) fail(n, "max must be a scalar");
    a.hi = v[0];
  }
  return a;
}

int64_t norm_axis(const graph::Node& n, int64_t axis, int64_t rank) {
  return graph::normalize_axis(n, axis, rank);
}

SliceParams slice_params(const graph::Graph& g, const graph::Node& n, const graph::Shape& x) {
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.has_attr("starts")) {  // opset < 10
    starts = n.attr_ints("starts", {});
    ends = n.attr_ints("ends", {});
    axes = n.attr_ints("axes", {});
  } else {
    starts = const_ints(g, n, 1, "starts");
    ends = const_ints(g, n, 2, "ends");
    if (has_input(n, 3)) axes = const_ints(g, n, 3, "axes");
    if (has_input(n, 4)) steps = const_ints(g, n, 4, "steps");
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(n, "starts, ends, axes and steps must have the same length");
  const int64_t r = static_cast<int64_t>(x.size());
  SliceParams p;
  p.start.assign(x.size(), 0);
  p.step.assign(x.size(), 1);
  p.len = x;
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t a = static_cast<size_t>(norm_axis(n, axes[i], r));
    const int64_t dim = x[a], step = steps[i];
    if (step == 0) fail(n, "step 0");
    int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? (e - s + step - 1) / step : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e + (-step) - 1) / (-step) : 0;
    }
    p.start[a] = s;
    p.step[a] = step;
    p.len[a] = len;
  }
  return p;
}

SplitParams split_params(const graph::Graph& g, const graph::Node& n, const graph::Shape& x) {
  SplitParams p;
  p.axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(x.size()));
  const int64_t dim = x[static_cast<size_t>(p.axis)];
  if (has_input(n, 1))
    p.sizes = const_ints(g, n, 1, "split");
  else if (n.has_attr("split"))
    p.sizes = n.attr_ints("split", {});
  const int64_t outs = static_cast<int64_t>(n.outputs.size());
  if (p.sizes.empty()) {
    // Equal parts; opset 18's num_outputs allows a smaller last chunk.
    const int64_t chunk = (dim + outs - 1) / outs;
    for (int64_t i = 0; i < outs; ++i) p.sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  int64_t sum = 0;
  for (int64_t s : p.sizes) sum += s;
  if (static_cast<int64_t>(p.sizes.size()) != outs || sum != dim)
    fail(n, "split sizes do not add up to the axis length " + std::to_string(dim));
  return p;
}

std::vector<std::vector<int64_t>> resize_nearest_map(const graph::Graph& g, const graph::Node& n,
                                                     const graph::Shape& x, const graph::Shape& y) {
  std::string mode = n.attr_string("mode", "nearest");
  std::string ctm = n.attr_string("coordinate_transformation_mode", "half_pixel");
  std::string nearest = n.attr_string("nearest_mode", "round_prefer_floor");
  std::vector<double> scales;
  const ops::Family* f = ops::row(n.op_type);
  if ((f && f->legacy_resize) || g.opset <= 10) {
    ctm = "asymmetric";
    nearest = "floor";
    if (n.has_attr("scales")) {
      for (double d : std::get<std::vector<double>>(n.attrs.at("scales"))) scales.push_back(d);
    } else {
      for (float f : const_floats(g, n, 1, "scales")) scales.push_back(f);
    }
  } else if (has_input(n, 2)) {
    auto it = g.initializers.find(n.inputs[2]);
    if (it != g.initializers.end() && graph::element_count(*it->second.info.shape) > 0)
      for (float f : const_floats(g, n, 2, "scales")) scales.push_back(f);
  }
  if (mode != "nearest")
    fail(n, "hetcim executes Resize in mode 'nearest' only, not '" + mode + "'");
  if (n.has_attr("axes") && n.attr_ints("axes", {}).size() != x.size())
    fail(n, "Resize with an 'axes' attribute is not supported");
  if (x.size() != y.size()) fail(n, "input and output ranks differ");
  std::vector<std::vector<int64_t>> map(x.size());
  for (size_t a = 0; a < x.size(); ++a) {
    const double in = static_cast<double>(x[a]), out = static_cast<double>(y[a]);
    const double scale = scales.size() == x.size() ? scales[a] : out / in;
    map[a].resize(static_cast<size_t>(y[a]));
    for (int64_t o = 0; o < y[a]; ++o) {
      const double od = static_cast<double>(o);
      double c;
      if (ctm == "half_pixel")
        c = (od + 0.5) / scale - 0.5;
      else if (ctm == "asymmetric")
        c = od / scale;
      else if (ctm == "align_corners")
        c = out > 1 ? od * (in - 1) / (out - 1) : 0;
      else if (ctm == "pytorch_half_pixel")
        c = out > 1 ? (od + 0.5) / scale - 0.5 : 0;
      else if (ctm == "tf_half_pixel_for_nn")
        c = (od + 0.5) / scale;
      else
        fail(n, "coordinate_transformation_mode '" + ctm + "' is not supported in nearest mode");
      double r;
      if (nearest == "round_prefer_floor")
        r = (c - std::floor(c) == 0.5) ? std::floor(c) : std::round(c);
      else if (nearest == "round_prefer_ceil")
        r = std::round(c);
      else if (nearest == "floor")
        r = std::floor(c);
      else if (nearest == "ceil")
        r = std::ceil(c);
      else
        fail(n, "unknown nearest_mode '" + nearest + "'");
      map[a][static_cast<size_t>(o)] = std::clamp<int64_t>(static_cast<int64_t>(r), 0, x[a] - 1);
    }
  }
  return map;
}

std::vector<int64_t> broadcast_strides(const graph::Shape& s, const graph::Shape& out) {
  std::vector<int64_t> st(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < s.size(); ++k) {
    const size_t i = s.size() - 1 - k;    // axis in s
    const size_t o = out.size() - 1 - k;  // axis in out
    st[o] = s[i] == 1 ? 0 : stride;
    stride *= s[i];
  }
  return st;
}

}  // namespace hetcim::exec
