// Operator DAGs of the paper's four networks at ONNX Runtime's int8 granularity (seeds/README.md),
// built by hand with tensor shapes, and a synthetic cost model to turn them into partitioning
// problems: host latencies from MAC and element counts (an analytical stand-in for profiles,
// ARM-like by default), accelerator latencies from eqs. 1-3, transfers from eq. 4.
// ResNet-18 / ResNet-50 / MobileNetV2 follow the graphs exactly (38 / 79 / 71 operators);
// YOLOv5n is YOLOv5 v6 'n' (depth 0.33, width 0.25, 640x640) with SiLU as Sigmoid + Mul and the
// Detect decode of the export path, 238 operators, 60 convolutions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "partition/problem.h"

namespace hetcim::partition::testing {

enum class OpKind { Conv, Gemm, Eltwise, Sigmoid, Concat, Pool, Resize, Layout, Quant };

struct NetOp {
  std::string name;
  OpKind kind;
  int64_t in_elems = 0, out_elems = 0;
  int64_t rows = 0, cols = 0;  // weight matrix M_v = C_out, N_v = C_in/groups * K * K
  int64_t n_mvm = 0;           // H_out * W_out (1 for Gemm)
  int64_t work = 0;            // pooling: window size
  int groups = 1;
};

struct Net {
  std::vector<NetOp> ops;
  std::vector<std::pair<int, int>> edges;
};

struct Tensor {
  int op;
  int64_t c, h, w;
  [[nodiscard]] int64_t elems() const { return c * h * w; }
};

class NetBuilder {
 public:
  Tensor input(int64_t c, int64_t h, int64_t w) {
    return add({"input_q", OpKind::Quant, c * h * w, c * h * w}, {}, c, h, w);
  }
  Tensor conv(const Tensor& x, int64_t cout, int k, int stride, const std::string& name,
              int groups = 1) {
    const int64_t ho = (x.h + stride - 1) / stride, wo = (x.w + stride - 1) / stride;
    NetOp op{name, OpKind::Conv, x.elems(), cout * ho * wo};
    op.rows = cout;
    op.cols = x.c / groups * k * k;
    op.n_mvm = ho * wo;
    op.groups = groups;
    return add(op, {x}, cout, ho, wo);
  }
  Tensor unary(const Tensor& x, OpKind kind, const std::string& name) {
    return add({name, kind, x.elems(), x.elems()}, {x}, x.c, x.h, x.w);
  }
  Tensor binary(const Tensor& a, const Tensor& b, const std::string& name) {
    return add({name, OpKind::Eltwise, a.elems() + b.elems(), a.elems()}, {a, b}, a.c, a.h, a.w);
  }
  Tensor concat(const std::vector<Tensor>& xs, const std::string& name) {
    int64_t c = 0, e = 0;
    for (const Tensor& x : xs) {
      c += x.c;
      e += x.elems();
    }
    return add({name, OpKind::Concat, e, e}, xs, c, xs[0].h, xs[0].w);
  }
  Tensor pool(const Tensor& x, int k, int stride, const std::string& name) {
    const int64_t ho = (x.h + stride - 1) / stride, wo = (x.w + stride - 1) / stride;
    NetOp op{name, OpKind::Pool, x.elems(), x.c * ho * wo};
    op.work = int64_t{k} * k;
    return add(op, {x}, x.c, ho, wo);
  }
  Tensor global_pool(const Tensor& x, const std::string& name) {
    NetOp op{name, OpKind::Pool, x.elems(), x.c};
    op.work = 1;
    return add(op, {x}, x.c, 1, 1);
  }
  Tensor resize2x(const Tensor& x, const std::string& name) {
    return add({name, OpKind::Resize, x.elems(), 4 * x.elems()}, {x}, x.c, 2 * x.h, 2 * x.w);
  }
  Tensor gemm(const Tensor& x, int64_t out, const std::string& name) {
    NetOp op{name, OpKind::Gemm, x.elems(), out};
    op.rows = out;
    op.cols = x.elems();
    op.n_mvm = 1;
    return add(op, {x}, out, 1, 1);
  }
  // Conv + Sigmoid + Mul (YOLO's SiLU kept as two nodes).
  Tensor conv_silu(const Tensor& x, int64_t cout, int k, int stride, const std::string& name) {
    const Tensor c = conv(x, cout, k, stride, name);
    const Tensor s = unary(c, OpKind::Sigmoid, name + ".sigmoid");
    return binary(c, s, name + ".mul");
  }
  Net take() { return std::move(net_); }

 private:
  Tensor add(NetOp op, const std::vector<Tensor>& inputs, int64_t c, int64_t h, int64_t w) {
    const int id = static_cast<int>(net_.ops.size());
    net_.ops.push_back(std::move(op));
    for (const Tensor& x : inputs) net_.edges.push_back({x.op, id});
    return Tensor{id, c, h, w};
  }
  Net net_;
};

// ORT's int8 graph tail: GAP, Transpose, DequantizeLinear, Flatten, QuantizeLinear, Gemm, DQ.
inline void classifier_tail(NetBuilder& b, Tensor x, int64_t classes) {
  x = b.global_pool(x, "gap");
  x = b.unary(x, OpKind::Layout, "transpose_out");
  x = b.unary(x, OpKind::Quant, "dq_flatten");
  x = b.unary(x, OpKind::Layout, "flatten");
  x = b.unary(x, OpKind::Quant, "q_flatten");
  x = b.gemm(x, classes, "fc");
  (void)b.unary(x, OpKind::Quant, "output_dq");
}

inline Net resnet(int depth) {
  NetBuilder b;
  Tensor x = b.input(3, 224, 224);
  x = b.unary(x, OpKind::Layout, "transpose_in");
  x = b.conv(x, 64, 7, 2, "conv1");
  x = b.pool(x, 3, 2, "maxpool");
  const std::vector<int> blocks =
      depth == 18 ? std::vector<int>{2, 2, 2, 2} : std::vector<int>{3, 4, 6, 3};
  int64_t width = 64;
  for (size_t stage = 0; stage < 4; ++stage, width *= 2) {
    for (int i = 0; i < blocks[stage]; ++i) {
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      const std::string n = "layer" + std::to_string(stage + 1) + "." + std::to_string(i);
      Tensor y = x;
      int64_t out = width;
      if (depth == 18) {
        y = b.conv(y, width, 3, stride, n + ".conv1");
        y = b.conv(y, width, 3, 1, n + ".conv2");
      } else {
        out = 4 * width;
        y = b.conv(y, width, 1, 1, n + ".conv1");
        y = b.conv(y, width, 3, stride, n + ".conv2");
        y = b.conv(y, out, 1, 1, n + ".conv3");
      }
      Tensor skip = x;
      if (stride != 1 || x.c != out) skip = b.conv(x, out, 1, stride, n + ".downsample");
      x = b.binary(y, skip, n + ".add");
    }
  }
  classifier_tail(b, x, 1000);
  return b.take();
}

inline Net mobilenetv2() {
  NetBuilder b;
  Tensor x = b.input(3, 224, 224);
  x = b.unary(x, OpKind::Layout, "transpose_in");
  x = b.conv(x, 32, 3, 2, "conv_first");
  struct Stage {
    int t, c, n, s;
  };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2},      {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {1 * 6, 160, 3, 2}, {6, 320, 1, 1}};
  int block = 0;
  for (const Stage& st : stages) {
    for (int i = 0; i < st.n; ++i, ++block) {
      const int stride = i == 0 ? st.s : 1;
      const std::string n = "block" + std::to_string(block);
      Tensor y = x;
      if (st.t != 1) y = b.conv(y, x.c * st.t, 1, 1, n + ".expand");
      y = b.conv(y, y.c, 3, stride, n + ".dw", static_cast<int>(y.c));
      y = b.conv(y, st.c, 1, 1, n + ".project");
      x = (stride == 1 && x.c == st.c) ? b.binary(y, x, n + ".add") : y;
    }
  }
  x = b.conv(x, 1280, 1, 1, "conv_last");
  classifier_tail(b, x, 1000);
  return b.take();
}

inline Tensor c3(NetBuilder& b, const Tensor& x, int64_t c2, int n, bool shortcut,
                 const std::string& name) {
  const int64_t h = c2 / 2;
  Tensor m = b.conv_silu(x, h, 1, 1, name + ".cv1");
  for (int i = 0; i < n; ++i) {
    const std::string bn = name + ".m" + std::to_string(i);
    Tensor y = b.conv_silu(m, h, 1, 1, bn + ".cv1");
    y = b.conv_silu(y, h, 3, 1, bn + ".cv2");
    m = shortcut ? b.binary(m, y, bn + ".add") : y;
  }
  const Tensor side = b.conv_silu(x, h, 1, 1, name + ".cv2");
  return b.conv_silu(b.concat({m, side}, name + ".cat"), c2, 1, 1, name + ".cv3");
}

inline Tensor detect_head(NetBuilder& b, const Tensor& x, int i) {
  const std::string n = "detect" + std::to_string(i);
  Tensor y = b.conv(x, 255, 1, 1, n + ".conv");
  y = b.unary(y, OpKind::Layout, n + ".reshape");
  y = b.unary(y, OpKind::Layout, n + ".transpose");
  y = b.unary(y, OpKind::Sigmoid, n + ".sigmoid");
  const Tensor split = b.unary(y, OpKind::Layout, n + ".split");
  Tensor xy = b.unary(split, OpKind::Eltwise, n + ".xy_mul2");
  xy = b.unary(xy, OpKind::Eltwise, n + ".xy_add_grid");
  xy = b.unary(xy, OpKind::Eltwise, n + ".xy_mul_stride");
  Tensor wh = b.unary(split, OpKind::Eltwise, n + ".wh_mul2");
  wh = b.unary(wh, OpKind::Eltwise, n + ".wh_pow");
  wh = b.unary(wh, OpKind::Eltwise, n + ".wh_mul_anchor");
  y = b.concat({xy, wh, split}, n + ".cat");
  return b.unary(y, OpKind::Layout, n + ".reshape_out");
}

inline Net yolov5n() {
  NetBuilder b;
  Tensor x = b.input(3, 640, 640);
  x = b.conv_silu(x, 16, 6, 2, "b0");
  x = b.conv_silu(x, 32, 3, 2, "b1");
  x = c3(b, x, 32, 1, true, "b2");
  x = b.conv_silu(x, 64, 3, 2, "b3");
  const Tensor p3 = c3(b, x, 64, 2, true, "b4");
  x = b.conv_silu(p3, 128, 3, 2, "b5");
  const Tensor p4 = c3(b, x, 128, 3, true, "b6");
  x = b.conv_silu(p4, 256, 3, 2, "b7");
  x = c3(b, x, 256, 1, true, "b8");
  // SPPF
  x = b.conv_silu(x, 128, 1, 1, "b9.cv1");
  const Tensor y1 = b.pool(x, 5, 1, "b9.pool1");
  const Tensor y2 = b.pool(y1, 5, 1, "b9.pool2");
  const Tensor y3 = b.pool(y2, 5, 1, "b9.pool3");
  x = b.conv_silu(b.concat({x, y1, y2, y3}, "b9.cat"), 256, 1, 1, "b9.cv2");
  // Head (PANet)
  const Tensor h10 = b.conv_silu(x, 128, 1, 1, "h10");
  x = b.concat({b.resize2x(h10, "h11"), p4}, "h12");
  x = c3(b, x, 128, 1, false, "h13");
  const Tensor h14 = b.conv_silu(x, 64, 1, 1, "h14");
  x = b.concat({b.resize2x(h14, "h15"), p3}, "h16");
  const Tensor o17 = c3(b, x, 64, 1, false, "h17");
  x = b.concat({b.conv_silu(o17, 64, 3, 2, "h18"), h14}, "h19");
  const Tensor o20 = c3(b, x, 128, 1, false, "h20");
  x = b.concat({b.conv_silu(o20, 128, 3, 2, "h21"), h10}, "h22");
  const Tensor o23 = c3(b, x, 256, 1, false, "h23");
  const Tensor d0 = detect_head(b, o17, 0), d1 = detect_head(b, o20, 1),
               d2 = detect_head(b, o23, 2);
  (void)b.unary(b.concat({d0, d1, d2}, "detect.cat"), OpKind::Quant, "output_dq");
  return b.take();
}

// Analytical costs. Host: convolutions / Gemm at host_macs_per_s, element-wise work per
// element; accelerator (eqs. 1-3): crossbars ceil(M/256) * ceil(N/256), latency
// N_in / B + N_mvm * t_mvm + N_out / B (int8: 1 byte per element); transfers: N_out / B (eq. 4).
struct CostSpec {
  double host_macs_per_s = 3e9;      // ARM Cortex-A72-like int8 convolution throughput
  double host_elem_s = 1e-9;         // element-wise add/mul, layout, quantisation
  double host_sigmoid_s = 4e-9;      // per element
  double host_pool_s = 0.3e-9;       // per element and window tap
  double bus_bytes_per_s = 10.24e9;  // shared bus = internal CIM bandwidth (paper's ARM setup)
  double t_mvm = 50e-9;
  int64_t xbar_rows = 256, xbar_cols = 256;
  bool depthwise_offloadable = true;
  int64_t budget = 100;
  int replication_modes = 1;  // > 1: modes r = 1, 2, 4, ... copies (r * crossbars, ceil(N_mvm / r))
};

inline Problem to_problem(const Net& net, const CostSpec& c) {
  Problem p;
  p.dag = graph::Dag::from_edges(net.ops.size(), net.edges);
  for (const NetOp& op : net.ops) {
    p.names.push_back(op.name);
    double host = 0.0;
    switch (op.kind) {
      case OpKind::Conv:
      case OpKind::Gemm:
        host = static_cast<double>(op.rows * op.cols * op.n_mvm) / c.host_macs_per_s;
        break;
      case OpKind::Sigmoid:
        host = static_cast<double>(op.out_elems) * c.host_sigmoid_s;
        break;
      case OpKind::Pool:
        host = static_cast<double>(op.in_elems) *
               static_cast<double>(std::max<int64_t>(op.work, 1)) * c.host_pool_s;
        break;
      default:
        host = static_cast<double>(std::max(op.in_elems, op.out_elems)) * c.host_elem_s;
        break;
    }
    p.t_host.push_back(std::max(host, 1e-6));
    std::vector<AccMode> modes;
    const bool offload = (op.kind == OpKind::Conv || op.kind == OpKind::Gemm) &&
                         (op.groups == 1 || c.depthwise_offloadable);
    if (offload) {
      // A depthwise conv maps as a block-diagonal matrix: C_out x (C_in/groups * K * K) per
      // group, so its crossbars count the full C_out x (C_in * K * K) footprint.
      const int64_t cols = op.cols * op.groups;
      const int64_t xbars =
          ((op.rows + c.xbar_rows - 1) / c.xbar_rows) * ((cols + c.xbar_cols - 1) / c.xbar_cols);
      for (int r = 1, i = 0; i < c.replication_modes; ++i, r *= 2) {
        const int64_t mvm = (op.n_mvm + r - 1) / r;
        const double t = static_cast<double>(op.in_elems + op.out_elems) / c.bus_bytes_per_s +
                         static_cast<double>(mvm) * c.t_mvm;
        modes.push_back(AccMode{xbars * r, t});
        if (op.n_mvm <= r) break;
      }
    }
    p.acc.push_back(modes);
  }
  for (const auto& e : p.dag.edges)
    p.t_transfer.push_back(static_cast<double>(net.ops[static_cast<size_t>(e.first)].out_elems) /
                           c.bus_bytes_per_s);
  p.crossbar_budget = c.budget;
  return p;
}

}  // namespace hetcim::partition::testing
