#include "exec/engine.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "exec/arena.h"
#include "exec/kernels.h"
#include "exec/op_params.h"
#include "exec/quantize.h"
#include "exec/resize.h"
#include "exec/winograd.h"
#include "graph/node_errors.h"
#include "graph/qlinear_operands.h"
#include "ops/registry.h"
#include "util/error.h"
#include "util/limits.h"
#include "util/omp_wait.h"

namespace hetcim::exec {
namespace {

using dnnl::memory;
using graph::DType;
using graph::Shape;
using dt = memory::data_type;
using tag = memory::format_tag;

[[noreturn]] void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

dt dnnl_type(DType t, const graph::Node* n = nullptr) {
  switch (t) {
    case DType::Float32:
      return dt::f32;
    case DType::UInt8:
      return dt::u8;
    case DType::Int8:
      return dt::s8;
    case DType::Int32:
      return dt::s32;
    default:
      if (n)
        fail(*n, std::string("tensors of dtype ") + std::string(graph::dtype_name(t)) +
                     " are not supported by the engine");
      throw user_error("tensors of dtype ", graph::dtype_name(t),
                       " are not supported by the engine");
  }
}

memory::dims dims_of(const Shape& s) {
  return s.empty() ? memory::dims{1} : memory::dims(s.begin(), s.end());
}

std::vector<int64_t> row_major_strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * std::max<int64_t>(s[i], 1);
  return st;
}

memory::desc plain_md(const Shape& s, dt t) {
  if (s.empty()) return memory::desc({1}, t, memory::dims{1});
  const auto st = row_major_strides(s);
  return memory::desc(dims_of(s), t, memory::dims(st.begin(), st.end()));
}

memory::desc nhwc_md(const Shape& s, dt t) {
  HETCIM_ASSERT(s.size() == 4, "nhwc_md of rank ", s.size());
  return memory::desc(dims_of(s), t, tag::acdb);
}

bool is_strided(const memory::desc& md) {
  return md.data.format_kind == dnnl_blocked && md.data.format_desc.blocking.inner_nblks == 0;
}

std::vector<int64_t> md_strides(const memory::desc& md) {
  std::vector<int64_t> st(static_cast<size_t>(md.data.ndims));
  for (int i = 0; i < md.data.ndims; ++i)
    st[static_cast<size_t>(i)] = md.data.format_desc.blocking.strides[i];
  return st;
}

// Strides that view a tensor of shape `from` with strides `st` as shape `to` without moving
// bytes (NumPy's no-copy reshape: every group of dimensions that maps onto another must be
// contiguous within itself), or none. Same element count, no zero-size dimension.
std::optional<std::vector<int64_t>> reshape_strides(const Shape& from,
                                                    const std::vector<int64_t>& st,
                                                    const Shape& to) {
  std::vector<int64_t> os, ost;
  for (size_t k = 0; k < from.size(); ++k) {
    if (from[k] == 0) return std::nullopt;
    if (from[k] != 1) {
      os.push_back(from[k]);
      ost.push_back(st[k]);
    }
  }
  std::vector<int64_t> out(to.size(), 1);
  size_t oi = 0, ni = 0;
  while (oi < os.size() && ni < to.size()) {
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = os[oi], np = to[ni];
    while (np != op) {
      if (np < op) {
        if (nj == to.size()) return std::nullopt;
        np *= to[nj++];
      } else {
        if (oj == os.size()) return std::nullopt;
        op *= os[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (ost[k] != ost[k + 1] * os[k + 1]) return std::nullopt;
    out[nj - 1] = ost[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) out[k - 1] = out[k] * to[k];
    oi = oj;
    ni = nj;
  }
  if (oi != os.size()) return std::nullopt;
  for (size_t k = ni; k < to.size(); ++k)
    if (to[k] != 1) return std::nullopt;
  return out;
}

// A dense strided md for `s` with the same dimension order as `like` (strided, same rank), or
// row-major.
memory::desc like_md(const memory::desc& like, const Shape& s, dt t) {
  if (!is_strided(like) || like.data.ndims != static_cast<int>(s.size()) || s.empty())
    return plain_md(s, t);
  const auto st = md_strides(like);
  std::vector<size_t> order(s.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return st[a] > st[b]; });
  std::vector<int64_t> out(s.size());
  int64_t stride = 1;
  for (size_t k = order.size(); k-- > 0;) {
    out[order[k]] = stride;
    stride *= std::max<int64_t>(s[order[k]], 1);
  }
  return memory::desc(dims_of(s), t, memory::dims(out.begin(), out.end()));
}

// An md for `s` in the channel-blocked layout of `like` (aBc8b, aBcd16b, aBcde8b, ...: one inner
// block of dimension 1, the outer dimensions in order), or none when `like` is not one of those.
std::optional<memory::desc> channel_blocked_like(const memory::desc& like, const Shape& s, dt t) {
  const auto& blk = like.data.format_desc.blocking;
  if (like.data.format_kind != dnnl_blocked || blk.inner_nblks != 1 || blk.inner_idxs[0] != 1 ||
      like.data.ndims != static_cast<int>(s.size()))
    return std::nullopt;
  const int64_t block = blk.inner_blks[0];
  tag tg = tag::undef;
  if (s.size() == 3) tg = block == 8 ? tag::aBc8b : block == 16 ? tag::aBc16b : tag::undef;
  if (s.size() == 4) tg = block == 8 ? tag::aBcd8b : block == 16 ? tag::aBcd16b : tag::undef;
  if (s.size() == 5) tg = block == 8 ? tag::aBcde8b : block == 16 ? tag::aBcde16b : tag::undef;
  if (tg == tag::undef) return std::nullopt;
  const memory::dims like_dims(like.data.dims, like.data.dims + like.data.ndims);
  if (memory::desc(like_dims, like.data_type(), tg) != like) return std::nullopt;
  return memory::desc(dims_of(s), t, tg);
}

bool is_plain(const memory::desc& md, const Shape& s) {
  return md == plain_md(s, md.data_type());
}

struct Buf {
  DType dtype = DType::Float32;
  Shape shape;
  memory::desc md;
  memory mem;
};

// OpInfo::layout of a buffer.
std::string layout_name(const Buf& b) {
  if (is_plain(b.md, b.shape)) return "row-major";
  if (b.shape.size() == 4 && b.md == nhwc_md(b.shape, b.md.data_type())) return "channels-last";
  return is_strided(b.md) ? "strided" : "blocked";
}

struct Op {
  OpInfo info;
  std::vector<std::function<void()>> steps;
};

struct Converted {
  std::string tensor;
  memory::desc md;
  memory mem;
};

}  // namespace

struct Engine::Impl {
  const graph::Graph* g = nullptr;
  EngineOptions opt;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  std::map<std::string, Buf> bufs;
  std::vector<Converted> converted;
  std::vector<Op> ops;
  std::vector<memory> scratch_users;
  size_t scratch_size = 0;
  std::vector<uint8_t> scratch_storage;
  std::vector<OpInfo> infos;
  Op* cur = nullptr;
  const graph::Node* node = nullptr;
  std::vector<std::string> inputs_, outputs_;
  // Activation memory by lifetime (arena.h): the arena regions each live tensor owns (its buffer
  // and its converted copies), the node index of its last reader (graph outputs: never), the
  // tensors that alias an owner's buffer, and the tensors whose bytes were given back.
  Arena arena;
  std::map<std::string, std::vector<void*>> owned;
  std::map<std::string, int> last_read;
  std::map<std::string, std::vector<std::string>> aliases;
  std::set<std::string> released;
  // The fused plan (EngineOptions::fuse): the nodes reading each tensor, the nodes a backend
  // takes, the index of the node being compiled, and the nodes whose work an earlier node's
  // kernel does (by index: that node's name, and the tensor whose buffer the output aliases).
  std::map<std::string, std::vector<int>> readers;
  std::set<std::string> taken;
  int index = 0;
  struct FusedAway {
    std::string into, alias_of;
  };
  std::map<int, FusedAway> fused_away;

  // ---- compile-time helpers -----------------------------------------------------------------
  const Shape& shape(const std::string& t) { return known_shape(*g, *node, t); }
  // Node n's work: its multiply-accumulates for a convolution or matrix product, 16 per output
  // element for anything else (a streaming kernel's time per element is about that of 16 MACs);
  // -1 when a shape it needs is not known.
  int64_t work_of(const graph::Node& n) const {
    auto count = [&](const std::string& t) -> int64_t {
      const graph::TensorInfo* ti = g->info(t);
      return ti && ti->shape ? graph::element_count(*ti->shape) : -1;
    };
    auto dim = [&](const std::string& t, int64_t axis) -> int64_t {  // axis < 0: from the end
      const graph::TensorInfo* ti = g->info(t);
      if (!ti || !ti->shape || ti->shape->empty()) return -1;
      const auto rank = static_cast<int64_t>(ti->shape->size());
      const int64_t a = axis < 0 ? rank + axis : axis;
      return a >= 0 && a < rank ? (*ti->shape)[static_cast<size_t>(a)] : -1;
    };
    if (n.outputs.empty() || n.outputs[0].empty()) return -1;
    const int64_t out = count(n.outputs[0]);
    if (out < 0) return -1;
    const std::string& op = n.op_type;
    int64_t per = 16;
    const size_t w_at = op == "QLinearConv" ? 3 : 1;
    if ((op == "Conv" || op == "ConvInteger" || op == "QLinearConv") && n.inputs.size() > w_at) {
      const int64_t wn = count(n.inputs[w_at]), oc = dim(n.inputs[w_at], 0);
      per = wn > 0 && oc > 0 ? wn / oc : -1;  // C/group x kernel taps
    } else if (op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") {
      per = dim(n.inputs[0], -1);
    } else if (op == "Gemm" || op == "QGemm") {
      per = dim(n.inputs[0], n.attr_int("transA", 0) != 0 ? 0 : 1);
    }
    return per < 0 ? -1 : out * per;
  }
  // OpenMP threads for node n: EngineOptions::threads, except 1 for an operator whose work is
  // below kSerialWork (a parallel region's start and end cost more than half of it saves).
  int threads_for(const graph::Node& n) const {
    if (opt.threads == 1) return 1;
    const int64_t w = work_of(n);
    return w >= 0 && w < kSerialWork ? 1 : opt.threads;
  }
  static constexpr int64_t kSerialWork = int64_t{1} << 19;
  DType dtype(const std::string& t) {
    const graph::TensorInfo* ti = g->info(t);
    if (!ti) fail(*node, "the dtype of tensor '" + t + "' is not known");
    return ti->dtype;
  }
  const graph::Initializer* init(const std::string& t) {
    auto it = g->initializers.find(t);
    return it == g->initializers.end() ? nullptr : &it->second;
  }
  Tensor constant(const std::string& t) {
    const graph::Initializer* i = init(t);
    if (!i) fail(*node, "operand '" + t + "' must be a constant");
    return Tensor::from_initializer(*i, t);
  }
  float scalar_f(size_t input) {
    const Tensor t = constant(node->inputs.at(input));
    if (t.numel() != 1) fail(*node, "input " + std::to_string(input) + " must be a scalar");
    return static_cast<float>(t.at(0));
  }
  int32_t scalar_zp(size_t input) {
    if (!has_input(*node, input)) return 0;
    const Tensor t = constant(node->inputs[input]);
    if (t.numel() != 1) fail(*node, "input " + std::to_string(input) + " must be a scalar");
    return static_cast<int32_t>(t.at(0));
  }
  std::vector<float> per_channel(size_t input, int64_t count) {
    const Tensor t = constant(node->inputs.at(input));
    if (t.numel() == 1)
      return std::vector<float>(static_cast<size_t>(count), static_cast<float>(t.at(0)));
    if (t.numel() != count)
      fail(*node, "input " + std::to_string(input) + " must have 1 or " + std::to_string(count) +
                      " values");
    return t.floats();
  }
  std::vector<int32_t> per_channel_zp(size_t input, int64_t count) {
    std::vector<int32_t> out(static_cast<size_t>(count), 0);
    if (!has_input(*node, input)) return out;
    const Tensor t = constant(node->inputs[input]);
    if (t.numel() != 1 && t.numel() != count)
      fail(*node, "zero point must have 1 or " + std::to_string(count) + " values");
    for (int64_t k = 0; k < count; ++k)
      out[static_cast<size_t>(k)] = static_cast<int32_t>(t.at(t.numel() == 1 ? 0 : k));
    return out;
  }

  memory alloc(const memory::desc& md) {
    memory m(md, eng);
    std::memset(m.get_data_handle(), 0, md.get_size());
    return m;
  }
  // The buffer of activation t (not a constant): from the arena, given back after t's last reader.
  memory activation(const std::string& t, const memory::desc& md) {
    if (opt.keep_intermediates) return alloc(md);
    void* p = arena.allocate(md.get_size());
    owned[t].push_back(p);
    return memory(md, eng, p);
  }
  int last_reader(const std::string& t) const {
    auto it = last_read.find(t);
    return it == last_read.end() ? -1 : it->second;  // never read: dead once produced
  }
  // After node i is compiled: the regions of tensors nobody reads after node i go back to the
  // arena, so the outputs of later nodes reuse them (a node's outputs never share its inputs'
  // bytes: these are given back only after its outputs were placed).
  void release_dead(int i) {
    for (auto it = owned.begin(); it != owned.end();) {
      if (last_reader(it->first) > i) {
        ++it;
        continue;
      }
      for (void* p : it->second) arena.release(p);
      released.insert(it->first);
      for (const std::string& a : aliases[it->first]) released.insert(a);
      it = owned.erase(it);
    }
  }
  // ---- the fused plan ------------------------------------------------------------------------
  bool fusing() const { return opt.fuse && !opt.keep_intermediates; }
  bool graph_output(const std::string& t) const { return last_reader(t) == INT_MAX; }
  // True when t is no graph output and every node reading it takes an input in any dense
  // strided layout at no extra cost (it reads through strides or makes its own copy anyway), so
  // a layout change or reshape producing t can alias its input's bytes instead of reordering.
  bool readers_take_strided(const std::string& t) const {
    auto it = readers.find(t);
    if (it == readers.end() || it->second.empty() || graph_output(t)) return false;
    for (int k : it->second) {
      const graph::Node* r = later_node(k);
      if (!r) return false;
      const std::string& op = r->op_type;
      if (op == "Transpose" && r->attr_int("layout_only", 0) != 0) return false;
      if (op != "Reshape" && op != "Transpose" && op != "QLinearConcat" && op != "Split" &&
          op != "Slice")
        return false;
    }
    return true;
  }
  // The one node reading t (t no graph output), or -1.
  int sole_reader(const std::string& t) const {
    auto it = readers.find(t);
    if (it == readers.end() || it->second.empty() || graph_output(t)) return -1;
    for (int k : it->second)
      if (k != it->second[0]) return -1;
    return it->second[0];
  }
  // Node j, when a later node the engine itself compiles (no backend's).
  const graph::Node* later_node(int j) const {
    if (j <= index || j >= static_cast<int>(g->nodes.size())) return nullptr;
    const graph::Node& n = g->nodes[static_cast<size_t>(j)];
    return taken.count(n.name) ? nullptr : &n;
  }
  // The same, of the default ONNX domain (an Add is ONNX's Add).
  const graph::Node* later_host_node(int j) const {
    const graph::Node* n = later_node(j);
    return n && n->domain.empty() ? n : nullptr;
  }
  // The Add that Conv output y (of the node being compiled) can join as the convolution's sum
  // post-op, or -1; `s` is its other operand, whose buffer the convolution then overwrites. So s
  // must be a float activation in the arena of y's shape, and no tensor sharing its bytes (s, its
  // owner, the aliases made by reshapes) may be read from this node on except s by the Add: not
  // by this convolution (in place), not between it and the Add, not after the Add, not as a graph
  // output.
  int residual_add(const std::string& y, std::string& s) {
    if (!fusing()) return -1;
    const int j = sole_reader(y);
    const graph::Node* add = later_host_node(j);
    if (!add || add->op_type != "Add" || add->inputs.size() != 2 || add->outputs.size() != 1)
      return -1;
    s = add->inputs[0] == y ? add->inputs[1] : add->inputs[0];
    if (s == y || init(s) || !bufs.count(s)) return -1;
    const graph::TensorInfo *si = g->info(s), *zi = g->info(add->outputs[0]);
    if (!si || !zi || si->dtype != DType::Float32 || zi->dtype != DType::Float32) return -1;
    const Shape& ys = shape(y);
    if (known_shape(*g, *add, s) != ys || known_shape(*g, *add, add->outputs[0]) != ys) return -1;
    void* h = bufs[s].mem.get_data_handle();
    for (const auto& [owner, regions] : owned) {
      if (std::find(regions.begin(), regions.end(), h) == regions.end()) continue;
      std::vector<std::string> group = aliases[owner];
      group.push_back(owner);
      for (const std::string& t : group) {
        if (graph_output(t)) return -1;
        for (int k : readers[t])
          if (k >= index && !(k == j && t == s)) return -1;
      }
      return j;
    }
    return -1;  // s is not an arena activation (a graph input or an alias of one)
  }
  // The Mul(x, s) (either operand order, no broadcast) that s = Sigmoid(x) of the node being
  // compiled feeds alone, or -1. Float: the pair is then one SiLU kernel writing the Mul's output
  // (which applies no fused activation). Quantized (QLinearSigmoid, QLinearMul): the Mul's output
  // is a function of one byte of x, one table (its kernels' exact arithmetic, a fused Relu/Clip
  // included, on the sigmoid's table).
  int silu_mul(const std::string& x, const std::string& s, bool quantized) {
    if (!fusing()) return -1;
    const int j = sole_reader(s);
    const graph::Node* mul = quantized ? later_node(j) : later_host_node(j);
    const size_t b = quantized ? 3 : 1;  // the second operand
    if (!mul || mul->op_type != (quantized ? "QLinearMul" : "Mul") || mul->inputs.size() <= b ||
        mul->outputs.size() != 1 || (!quantized && !mul->attr_string("activation", "").empty()))
      return -1;
    if (!((mul->inputs[0] == x && mul->inputs[b] == s) ||
          (mul->inputs[0] == s && mul->inputs[b] == x)))
      return -1;
    const graph::TensorInfo* zi = g->info(mul->outputs[0]);
    if (!zi || zi->dtype != (quantized ? DType::UInt8 : DType::Float32) ||
        known_shape(*g, *mul, mul->outputs[0]) != shape(x))
      return -1;
    return j;
  }
  // The Add(y, bias) (either operand order) that the float MatMul output y of the node being
  // compiled feeds alone, `bias` a constant of N values along the last axis (a Linear layer's
  // bias, which torch exports as MatMul + Add), or -1. The product then adds it as oneDNN's bias
  // (one rounding, as the Add did) with the Add's fused Relu/Clip as post-op, writing the Add's
  // output.
  int matmul_bias(const std::string& y, int64_t N, std::string& bias) {
    if (!fusing()) return -1;
    const int j = sole_reader(y);
    const graph::Node* add = later_host_node(j);
    if (!add || add->op_type != "Add" || add->inputs.size() != 2 || add->outputs.size() != 1)
      return -1;
    bias = add->inputs[0] == y ? add->inputs[1] : add->inputs[0];
    const graph::Initializer* c = init(bias);
    if (bias == y || !c || !c->has_values() || c->info.dtype != DType::Float32 || !c->info.shape ||
        c->info.shape->empty() || c->info.shape->back() != N ||
        graph::element_count(*c->info.shape) != N)
      return -1;
    const graph::TensorInfo* zi = g->info(add->outputs[0]);
    if (!zi || zi->dtype != DType::Float32 || known_shape(*g, *add, add->outputs[0]) != shape(y))
      return -1;
    return j;
  }
  // A node whose work an earlier kernel did: no steps; its output aliases the buffer that kernel
  // wrote (the residual Add) or was already placed (SiLU's Mul).
  void fused_node(const FusedAway& f) {
    const graph::Node& n = *node;
    if (!f.alias_of.empty()) {
      const Buf& sb = bufs.at(f.alias_of);
      output_alias(n.outputs.at(0), sb.md, DType::Float32, sb.mem.get_data_handle());
    }
    cur->info.impl = "fused into '" + f.into + "'";
  }

  memory const_memory(const Tensor& t, const memory::desc& md) {
    memory m = alloc(md);
    HETCIM_ASSERT(md.get_size() == t.bytes.size(), "const_memory size");
    std::memcpy(m.get_data_handle(), t.bytes.data(), t.bytes.size());
    return m;
  }
  memory scalar_s32(int32_t v) {
    memory m = alloc(memory::desc({1}, dt::s32, tag::x));
    *static_cast<int32_t*>(m.get_data_handle()) = v;
    return m;
  }
  void reorder_now(const memory& src, const memory& dst) {
    dnnl::reorder(src, dst).execute(strm, const_cast<memory&>(src), const_cast<memory&>(dst));
    strm.wait();
  }
  // A buffer only the current node's steps use: the arena gives it back once the node is compiled,
  // like a tensor whose last reader is this node.
  memory node_temp(const memory::desc& md) {
    if (opt.keep_intermediates) return alloc(md);
    void* p = arena.allocate(md.get_size());
    owned[std::string(1, '\x01') + node->name + "#" + std::to_string(owned.size())].push_back(p);
    return memory(md, eng, p);
  }

  // ---- exact int8 without VNNI (int8_weight_halves) ------------------------------------------
  // Whether an int8 kernel over weights w8, adding k_per_output products per output, must run as
  // halves here: some adjacent pair could overflow int16 (one product per output cannot).
  static bool needs_halves(const Tensor& w8, int64_t k_per_output) {
    if (!int8_weight_halves() || k_per_output < 2) return false;
    const int8_t* w = w8.data<int8_t>();
    return std::any_of(w, w + w8.numel(), [](int8_t v) { return v < -64 || v > 64; });
  }
  // w8 = lo + hi, lo = floor(w / 2) in [-64, 63], hi = w - lo in [-64, 64].
  static std::pair<Tensor, Tensor> weight_halves(const Tensor& w8) {
    std::pair<Tensor, Tensor> h{Tensor::zeros(DType::Int8, w8.shape),
                                Tensor::zeros(DType::Int8, w8.shape)};
    kernels::int8_halves(w8.data<int8_t>(), h.first.data<int8_t>(), h.second.data<int8_t>(),
                         static_cast<size_t>(w8.numel()));
    return h;
  }
  // The requantization scales of an int8 kernel, one per output channel along `axis` of a
  // rank-`rank` output: oneDNN output scales (one value when all agree) or, for the hi half's
  // kernel of a split one (`partial` given: the lo half's int32 sum), post-ops 0 and 1 that add
  // partial and then multiply the scales (oneDNN applies output scales before post-ops, so they
  // cannot stay output scales). With every sum below 2^24 the float value is the single kernel's.
  void int8_scales(dnnl::primitive_attr& attr, dnnl::post_ops& po,
                   std::unordered_map<int, memory>& args, const std::vector<float>& scales,
                   size_t axis, size_t rank, const memory& partial) {
    if (!partial) {
      const bool same =
          std::all_of(scales.begin(), scales.end(), [&](float v) { return v == scales.front(); });
      if (same)
        attr.set_output_scales(0, {scales.front()});
      else
        attr.set_output_scales(1 << axis, scales);
      return;
    }
    Shape scale_shape(rank, 1);
    scale_shape[axis] = static_cast<int64_t>(scales.size());
    // In partial's dimension order (the same bytes as row-major for a per-channel vector): on
    // AVX2 oneDNN 2.6 takes a channels-last convolution over a 1x1 map (a squeeze-excitation
    // gate's) with its reference kernel when the two post-op operands' orders differ.
    memory sm = alloc(like_md(partial.get_desc(), scale_shape, dt::f32));
    std::memcpy(sm.get_data_handle(), scales.data(), scales.size() * sizeof(float));
    po.append_binary(dnnl::algorithm::binary_add, partial.get_desc());
    po.append_binary(dnnl::algorithm::binary_mul, sm.get_desc());
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = partial;
    args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = sm;
  }
  // The lo half's kernel: the primitive `desc_of(partial's desc)` describes (no bias, no scales),
  // its weights lo reordered once from `w_user`, writing the int32 sum into partial. Added before
  // the hi half's kernel, which reads partial; the node's impl (the hi kernel's, prepended by
  // add_primitive) ends in " x2 (int8 weight halves)". A non-constant lo (`lo_runtime`, refreshed
  // by an earlier step) is read as it is.
  template <class Prim, class DescOf>
  void add_lo_half(DescOf desc_of, const Tensor& lo, const memory::desc& w_user, const memory& src,
                   const memory& partial, int32_t zx, const memory& lo_runtime = memory()) {
    dnnl::primitive_attr a = base_attr();
    if (zx != 0) a.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    typename Prim::primitive_desc pd(desc_of(partial.get_desc()), a, eng);
    memory wm = lo_runtime;
    if (!wm) {
      wm = alloc(pd.weights_desc());
      reorder_now(const_memory(lo, w_user), wm);
    }
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_DST, partial}};
    if (zx != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = scalar_s32(zx);
    add_scratchpad(pd, args);
    cur->steps.push_back([this, p = Prim(pd), args]() { p.execute(strm, args); });
    cur->info.impl += " x2 (int8 weight halves)";
  }
  // An s8 source as u8 (x + 128: the sign bit flipped) in a node temp, refreshed by a step each
  // run; the caller adds 128 to its zero point. Without VNNI oneDNN rounds the weights of
  // s8-source kernels to even values; u8 sources keep them whole.
  memory shifted_u8(const memory& s8) {
    memory::desc md = s8.get_desc();
    md.data.data_type = dnnl_u8;
    memory u8 = node_temp(md);
    const size_t bytes = md.get_size();
    cur->steps.push_back([s8, u8, bytes]() {
      kernels::flip_sign_bits(static_cast<const uint8_t*>(s8.get_data_handle()),
                              static_cast<uint8_t*>(u8.get_data_handle()), bytes);
    });
    return u8;
  }

  // The buffer of tensor t (a graph input, an earlier output, or a constant made on demand).
  Buf& buf(const std::string& t) {
    if (auto it = bufs.find(t); it != bufs.end()) return it->second;
    const graph::Initializer* i = init(t);
    if (!i) fail(*node, "tensor '" + t + "' is used before it is computed");
    Tensor v = Tensor::from_initializer(*i, t);
    Buf b{v.dtype, v.shape, plain_md(v.shape, dnnl_type(v.dtype, node)), {}};
    b.mem = const_memory(v, b.md);
    return bufs[t] = b;
  }
  // Tensor t in layout `want`: the buffer itself, or a converted copy made by a reorder that runs
  // in the first operator that needs it.
  memory get(const std::string& t, const memory::desc& want) {
    if (!bufs.count(t))
      if (const graph::Initializer* i = init(t)) {
        // A constant first wanted in another layout (a convolution's blocked weights) is
        // converted straight from the initializer: its plain copy is made only if something
        // asks for the plain buffer itself.
        for (const Converted& c : converted)
          if (c.tensor == t && c.md == want) return c.mem;
        Tensor v = Tensor::from_initializer(*i, t);
        const memory::desc plain = plain_md(v.shape, dnnl_type(v.dtype, node));
        if (plain != want) {
          memory src(plain, eng, v.bytes.data());
          memory dst = alloc(want);
          reorder_now(src, dst);
          converted.push_back({t, want, dst});
          return dst;
        }
      }
    Buf& b = buf(t);
    if (b.md == want) return b.mem;
    for (const Converted& c : converted)
      if (c.tensor == t && c.md == want) return c.mem;
    memory dst = init(t) ? alloc(want) : activation(t, want);
    memory src = b.mem;
    dnnl::reorder r(src, dst);
    if (init(t)) {
      reorder_now(src, dst);  // constants convert once
    } else {
      cur->steps.push_back([this, r, src, dst]() mutable { r.execute(strm, src, dst); });
      cur->info.impl += "+reorder";
    }
    converted.push_back({t, want, dst});
    return dst;
  }
  // Tensor t in a strided (non-blocked) layout: as it is if strided, else row-major.
  memory get_strided(const std::string& t, memory::desc* md_out = nullptr) {
    Buf& b = buf(t);
    memory::desc want = is_strided(b.md) ? b.md : plain_md(b.shape, b.md.data_type());
    if (md_out) *md_out = want;
    return get(t, want);
  }
  memory get_plain(const std::string& t) {
    Buf& b = buf(t);
    return get(t, plain_md(b.shape, b.md.data_type()));
  }
  memory& output(const std::string& t, const memory::desc& md, DType type) {
    Buf b{type, shape(t), md, activation(t, md)};
    return (bufs[t] = b).mem;
  }
  memory& output_alias(const std::string& t, const memory::desc& md, DType type, void* handle) {
    // t reads the owner's bytes: the owner's region lives until t's last reader too.
    for (auto& [owner, regions] : owned)
      if (std::find(regions.begin(), regions.end(), handle) != regions.end()) {
        last_read[owner] = std::max(last_reader(owner), last_reader(t));
        aliases[owner].push_back(t);
      }
    Buf b{type, shape(t), md, memory(md, eng, handle)};
    return (bufs[t] = b).mem;
  }
  void add_scratchpad(const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory>& args) {
    const memory::desc sd = pd.scratchpad_desc();
    if (sd.get_size() == 0) return;
    memory m(sd, eng, DNNL_MEMORY_NONE);
    scratch_users.push_back(m);
    scratch_size = std::max(scratch_size, sd.get_size());
    args[DNNL_ARG_SCRATCHPAD] = m;
  }
  dnnl::primitive_attr base_attr() {
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return a;
  }
  void add_primitive(const dnnl::primitive& p, std::unordered_map<int, memory> args,
                     const dnnl::primitive_desc_base& pd) {
    add_scratchpad(pd, args);
    cur->steps.push_back([this, p, args]() { p.execute(strm, args); });
    const std::string impl = pd.impl_info_str();
    cur->info.impl = cur->info.impl.empty() ? impl : impl + cur->info.impl;
  }
  void post_activation(dnnl::post_ops& po, const Activation& a, float scale_div = 1.0f) {
    if (a.kind == Activation::Relu)
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    if (a.kind == Activation::Clip)
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, a.lo / scale_div, a.hi / scale_div);
  }
  // oneDNN adds the destination zero point to the scaled float value and rounds the sum; ONNX
  // rounds first and adds the zero point after. A round-half-to-even post-op before the zero point
  // makes the sum an exact integer, so both agree bit for bit (zero point 0 needs nothing).
  void post_round(dnnl::post_ops& po, int32_t zy) {
    if (zy != 0) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
  }

  // ---- operators ----------------------------------------------------------------------------
  // The engine-native kernels of each operator family (ops/registry.h names the family of every
  // operator; a family with a portable kernel in src/ops and no row here runs that kernel).
  using CompileFn = void (*)(Impl&);
  struct NativeFamily {
    std::string_view family;
    CompileFn compile;
  };
  static CompileFn native(std::string_view family) {
    static const NativeFamily kNative[] = {
        {"conv", [](Impl& e) { e.conv(false); }},
        {"qconv", [](Impl& e) { e.conv(true); }},
        {"gemm", [](Impl& e) { e.gemm(false); }},
        {"qgemm", [](Impl& e) { e.gemm(true); }},
        {"matmul", [](Impl& e) { e.matmul(false); }},
        {"qmatmul", [](Impl& e) { e.matmul(true); }},
        {"binary", [](Impl& e) { e.binary(); }},
        {"qbinary", [](Impl& e) { e.qbinary(); }},
        {"eltwise", [](Impl& e) { e.eltwise(); }},
        {"qunary", [](Impl& e) { e.qunary(); }},
        {"pool", [](Impl& e) { e.pool(); }},
        {"qgap", [](Impl& e) { e.qgap(); }},
        {"qavgpool", [](Impl& e) { e.qavgpool(); }},
        {"concat", [](Impl& e) { e.concat(); }},
        {"qconcat", [](Impl& e) { e.qconcat(); }},
        {"slice_split", [](Impl& e) { e.slice_split(); }},
        {"resize", [](Impl& e) { e.resize(); }},
        {"reshape", [](Impl& e) { e.reshape(); }},
        {"transpose", [](Impl& e) { e.transpose(); }},
        {"batchnorm", [](Impl& e) { e.batchnorm(); }},
        {"quantize", [](Impl& e) { e.quantize(); }},
        {"dequantize", [](Impl& e) { e.dequantize(); }},
    };
    for (const NativeFamily& r : kNative)
      if (r.family == family) return r.compile;
    return nullptr;
  }
  // Whether the engine runs n: a native family (any domain, as the QLinear contrib operators),
  // or a portable kernel of src/ops for an operator of the default domain.
  static bool runs(const graph::Node& n, const ops::Family* f) {
    return f && (native(f->family) || (f->compile && n.domain.empty()));
  }

  void compile_node() {
    const std::string& op = node->op_type;
    const ops::Family* f = ops::find(op);
    if (runs(*node, f)) {
      if (CompileFn c = native(f->family)) return c(*this);
      return host_kernel(*f);
    }
    fail(*node, "unsupported operator '" + op + "'" +
                    (node->domain.empty() ? "" : " (domain " + node->domain + ")") + " at opset " +
                    std::to_string(g->opset) + " (hetcim run cannot execute it)");
  }

  // A node a backend takes: its kernel on the engine's buffers, input and output in the layouts
  // it asks for (reorders as for any primitive).
  void backend_node(Backend& backend) {
    const graph::Node& n = *node;
    if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() || n.outputs[0].empty())
      fail(n, "a backend node needs an input 0 and an output 0");
    const std::string& x = n.inputs[0];
    const std::string& y = n.outputs[0];
    if (dtype(x) != DType::Float32 || dtype(y) != DType::Float32)
      fail(n, "a backend node reads and writes float32 tensors");
    BackendKernel k = backend.compile(*g, n);
    if (!k.run) fail(n, "the backend returned no kernel");
    const auto md_of = [&](const std::string& t, BackendLayout l) {
      const Shape& s = shape(t);
      if (l == BackendLayout::ChannelsLast) {
        if (s.size() != 4) fail(n, "channels-last layout for tensor '" + t + "' of rank != 4");
        return nhwc_md(s, dt::f32);
      }
      return plain_md(s, dt::f32);
    };
    memory in = get(x, md_of(x, k.input_layout));
    memory out = output(y, md_of(y, k.output_layout), DType::Float32);
    auto run = std::move(k.run);
    cur->steps.push_back([run, in, out] {
      run(static_cast<const float*>(in.get_data_handle()),
          static_cast<float*>(out.get_data_handle()));
    });
    cur->info.impl = k.impl + cur->info.impl;
  }

  void conv(bool q) {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& wname = n.inputs.at(graph::weighted_operands(n.op_type).value().w);
    const std::string& y = n.outputs.at(0);
    const Window2d w = conv_window(*g, n, x, wname, y);
    if (w.pb < 0 || w.pr < 0) fail(n, "negative padding");
    const Activation act = fused_activation(n);
    const bool grouped = w.group > 1;
    memory::dims wd = grouped ? memory::dims{w.group, w.oc / w.group, w.c / w.group, w.kh, w.kw}
                              : memory::dims{w.oc, w.c, w.kh, w.kw};
    const memory::dims strides{w.sh, w.sw}, dil{w.dh - 1, w.dw - 1}, pl{w.pt, w.pl}, pr{w.pb, w.pr};
    const size_t bias_at = q ? 8 : 2;
    const bool has_bias = has_input(n, bias_at);
    dnnl::primitive_attr attr = base_attr();
    dnnl::post_ops po;
    std::unordered_map<int, memory> args;
    memory::desc src_md, dst_md, bias_md;
    std::string sum_of;  // the other operand of the residual Add this convolution joins
    int add_at = -1;
    Tensor wt = constant(wname);
    dt wdt = dt::f32;
    DType ytype = DType::Float32;
    int32_t zx = 0, zy = 0;
    bool halves = false, shift = false;  // int8_weight_halves()
    memory partial;
    if (q) {
      const float sx = scalar_f(1), sy = scalar_f(6);
      zx = scalar_zp(2);
      zy = scalar_zp(7);
      const auto sw = per_channel(4, w.oc);
      const auto zw = per_channel_zp(5, w.oc);
      const DType xtype = dtype(x);
      ytype = dtype(y);
      if ((xtype != DType::UInt8 && xtype != DType::Int8) ||
          (ytype != DType::UInt8 && ytype != DType::Int8))
        fail(n, "8-bit input and output expected");
      // Weights as s8 with zero point 0: w - zw must fit.
      Tensor w8 = Tensor::zeros(DType::Int8, wt.shape);
      const int64_t per_oc = wt.numel() / w.oc;
      for (int64_t i = 0; i < wt.numel(); ++i) {
        const int64_t v = static_cast<int64_t>(wt.at(i)) - zw[static_cast<size_t>(i / per_oc)];
        if (v < -128 || v > 127)
          fail(n,
               "weights minus their zero point do not fit int8; hetcim executes symmetric int8 "
               "weights");
        w8.data<int8_t>()[i] = static_cast<int8_t>(v);
      }
      wt = std::move(w8);
      wdt = dt::s8;
      std::vector<float> scales(static_cast<size_t>(w.oc));
      for (size_t c = 0; c < scales.size(); ++c) scales[c] = (sx * sw[c]) / sy;
      // Depthwise kernels multiply in int32 (one product per pair): exact without halves.
      const bool depthwise = w.c == w.group && w.oc == w.group;
      halves = needs_halves(wt, depthwise ? 1 : (w.c / w.group) * w.kh * w.kw);
      shift = int8_weight_halves() && xtype == DType::Int8;
      if (shift) zx += 128;
      if (halves) partial = node_temp(nhwc_md(shape(y), dt::s32));
      int8_scales(attr, po, args, scales, 1, 4, partial);
      if (zx != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
      post_activation(po, act, sy);
      post_round(po, zy);
      src_md = nhwc_md(shape(x), shift ? dt::u8 : dnnl_type(xtype));
      dst_md = nhwc_md(shape(y), dnnl_type(ytype));
      bias_md = memory::desc({w.oc}, dt::s32, tag::x);
    } else {
      if (act.kind == Activation::None) add_at = residual_add(y, sum_of);
      post_activation(po, act);
      const Buf& xb = buf(x);
      // Take the producer's layout when it is oneDNN's choice; let the primitive pick otherwise
      // (also after a Winograd convolution's blocked output: the direct kernels are faster in
      // their own channels-last layout, reorder included).
      src_md = is_plain(xb.md, xb.shape) || !is_strided(xb.md)
                   ? memory::desc(dims_of(shape(x)), dt::f32, tag::any)
                   : xb.md;
      dst_md = memory::desc(dims_of(shape(y)), dt::f32, tag::any);
      bias_md = memory::desc({w.oc}, dt::f32, tag::x);
    }
    attr.set_post_ops(po);
    const memory::desc wany(wd, wdt, tag::any);
    // Float 3x3 stride-1 convolutions of >= 64 channels in and out and outputs of at least 4x4:
    // oneDNN's Winograd kernels (F(2x2,3x3) / F(4x4,3x3)) when it has them for the shape, 1.1x
    // to 2.3x faster than its direct brgconv from 4x4 to 56x56 (1 thread, AVX-512; 2x slower at
    // 2x2); their transforms round differently from a direct sum (about 1e-5 relative per layer,
    // measured). hetcim's own (conv_winograd) where oneDNN has none (2.6: below AVX-512) and would
    // run its AVX2 direct kernel, and in place of oneDNN's on larger maps (winograd_tile). Direct
    // otherwise.
    dnnl::algorithm alg = dnnl::algorithm::convolution_direct;
    const bool winograd_shape = !q && w.kh == 3 && w.kw == 3 && w.sh == 1 && w.sw == 1 &&
                                w.dh == 1 && w.dw == 1 && !grouped && w.oh >= 4 && w.ow >= 4;
    if (winograd_shape && w.c >= 64 && w.oc >= 64) alg = dnnl::algorithm::convolution_winograd;
    auto make_desc = [&](const memory::desc& dmd, dnnl::algorithm a) {
      // Winograd kernels take their own (blocked) source layout.
      const memory::desc smd = a == dnnl::algorithm::convolution_winograd
                                   ? memory::desc(dims_of(shape(x)), dt::f32, tag::any)
                                   : src_md;
      return has_bias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, a, smd,
                                                        wany, bias_md, dmd, strides, dil, pl, pr)
                      : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, a, smd,
                                                        wany, dmd, strides, dil, pl, pr);
    };
    auto make_pd = [&](const memory::desc& dmd, const dnnl::primitive_attr& at, bool fallback) {
      try {
        return dnnl::convolution_forward::primitive_desc(make_desc(dmd, alg), at, eng);
      } catch (const dnnl::error&) {
        if (!fallback || alg == dnnl::algorithm::convolution_direct) throw;
        alg = dnnl::algorithm::convolution_direct;
        return dnnl::convolution_forward::primitive_desc(make_desc(dmd, alg), at, eng);
      }
    };
    dnnl::convolution_forward::primitive_desc pd = make_pd(dst_md, attr, true);
    // hetcim's own Winograd kernel where it measured faster than the kernel oneDNN picked (its
    // AVX2 direct one, or on AVX-512 its own Winograd on larger maps): winograd_tile.
    if (winograd_shape) {
      const int m = winograd_tile(w, pd.impl_info_str());
      if (m > 0) return conv_winograd(w, m, act, add_at, sum_of, has_bias ? bias_at : 0);
    }
    // The residual Add as a sum post-op (EngineOptions::fuse), when the other operand's buffer
    // has the layout the convolution picks for its output: dst = conv + bias + s, then the Add's
    // activation.
    bool sum_into = add_at >= 0 && pd.dst_desc() == buf(sum_of).md;
    if (sum_into) {
      dnnl::post_ops spo;
      spo.append_sum(1.0f);
      post_activation(spo, fused_activation(g->nodes[static_cast<size_t>(add_at)]));
      dnnl::primitive_attr sattr = base_attr();
      sattr.set_post_ops(spo);
      try {
        pd = make_pd(buf(sum_of).md, sattr, false);
      } catch (const dnnl::error&) {
        sum_into = false;  // the kernel takes no sum post-op: the Add runs on its own
      }
    }
    // Weights: reorder once into the primitive's layout.
    const memory::desc wplain(wd, wdt, grouped ? tag::goihw : tag::oihw);
    Tensor lo;
    if (halves) std::tie(lo, wt) = weight_halves(wt);
    memory wuser = const_memory(wt, wplain);
    memory wmem = alloc(pd.weights_desc());
    reorder_now(wuser, wmem);
    args[DNNL_ARG_WEIGHTS] = wmem;
    if (has_bias) {
      Tensor b = constant(n.inputs[bias_at]);
      if (q && b.dtype != DType::Int32) fail(n, "the bias must be int32");
      if (!q && b.dtype != DType::Float32) fail(n, "the bias must be float32");
      args[DNNL_ARG_BIAS] = const_memory(b, bias_md);
    }
    args[DNNL_ARG_SRC] =
        shift ? shifted_u8(get(x, nhwc_md(shape(x), dt::s8))) : get(x, pd.src_desc());
    if (halves)
      add_lo_half<dnnl::convolution_forward>(
          [&](const memory::desc& dmd) {
            return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, alg,
                                                   pd.src_desc(), wany, dmd, strides, dil, pl, pr);
          },
          lo, wplain, args[DNNL_ARG_SRC], partial, zx);
    args[DNNL_ARG_DST] = sum_into ? bufs.at(sum_of).mem : output(y, pd.dst_desc(), ytype);
    if (q && zx != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = scalar_s32(zx);
    if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = scalar_s32(zy);
    add_primitive(dnnl::convolution_forward(pd), args, pd);
    if (sum_into) {
      const std::string& add = g->nodes[static_cast<size_t>(add_at)].name;
      cur->info.impl += "+sum(" + add + ")";
      fused_away[add_at] = {n.name, sum_of};
    }
  }

  // The output tile of hetcim's Winograd kernel (exec/winograd.h) for a float 3x3 stride-1
  // convolution that oneDNN runs with kernel `impl`, or 0 to keep that kernel. Measured per layer
  // with `hetcim profile` at 1 thread (bench/README.md, exec, sessions 14 and 16):
  // - oneDNN's AVX2 direct kernel (2.6 has Winograd kernels for AVX-512 only). F(4x4) when it has
  //   at least 32 tiles, F(2x2) below: per layer of ResNet-18 (oneDNN capped at AVX2 on a Zen 5),
  //   F(4x4) took 0.81 / 0.66 ms at 56x56x64 / 28x28x128 against F(2x2)'s 1.33 / 1.12, and
  //   F(2x2) 1.10 / 2.02 ms at 14x14x256 / 7x7x512 against F(4x4)'s 1.23 / 2.45 (direct: 2.2,
  //   2.3, 2.4, 3.1).
  // - oneDNN's own AVX-512 Winograd kernels (jit_fp32_wino_2x3, jit_wino_4x3) on maps of at
  //   least 32 F(2x2) tiles, with the same tile rule. On a Zen 5: ResNet-50's six 56x56 and
  //   28x28 layers (F(4x4)) 4.87 -> 3.57 ms, its five 14x14 ones (F(2x2)) 4.14 -> 3.63,
  //   ResNet-18's ten 5.15 + 2.48 -> 3.62 + 2.07, VGG-11's 16x16x128 0.35 -> 0.18 ms. At
  //   7x7x512 (16 tiles) hetcim's took 2.1-3.2 ms against oneDNN's 1.2-1.4 (16 MB of transformed
  //   weights for 16 tiles), so smaller maps keep oneDNN's.
  static int winograd_tile(const Window2d& w, const std::string& impl) {
    if (!winograd::available() || w.c % 8 != 0 || w.oc % 8 != 0) return 0;
    const int64_t tiles_f2 = w.n * ((w.oh + 1) / 2) * ((w.ow + 1) / 2);
    const bool onednn_winograd =
        impl.rfind("jit_fp32_wino", 0) == 0 || impl.rfind("jit_wino", 0) == 0;
    if (onednn_winograd) {
      if (tiles_f2 < 32) return 0;
    } else {
      if (impl.rfind("jit:avx2", 0) != 0) return 0;
      // Fewer than 64 channels in or out (where oneDNN is not asked for Winograd): only from 16
      // and on maps of >= 64 F(2x2) tiles. Measured as above: YOLOv5n's 32-channel layers at
      // 80x80 0.98 -> 0.52 ms, its 16-channel one at 160x160 1.40 -> 1.26; DenseNet-121's 128 ->
      // 32 layers 0.18 -> 0.15 ms at 16x16 (64 tiles), even at 8x8 (16), 0.022 -> 0.028 at 4x4 (4).
      if ((w.c < 64 || w.oc < 64) && (w.c < 16 || w.oc < 16 || tiles_f2 < 64)) return 0;
    }
    return w.n * ((w.oh + 3) / 4) * ((w.ow + 3) / 4) >= 32 ? 4 : 2;
  }

  // A float 3x3 stride-1 convolution by Winograd F(m x m, 3 x 3) on aBcd8b tensors: per block of
  // nb tiles, the input transform, one batched oneDNN matmul (positions x nb x C times
  // positions x C x OC), the output transform with the bias, the fused residual Add (as the
  // primitive path's sum post-op) and the activation.
  void conv_winograd(const Window2d& w, int m, const Activation& act, int add_at,
                     const std::string& sum_of, size_t bias_at) {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const winograd::Conv cv{w.n, w.c, w.h, w.w, w.oc, w.oh, w.ow, w.pt, w.pl, m};
    const Tensor wt = constant(n.inputs.at(1));
    if (wt.dtype != DType::Float32) fail(n, "the weights must be float32");
    std::vector<float> u = winograd::transform_weights(cv, wt.data<float>());
    // Blocks of tiles whose transformed input and products (positions x nb x (C + OC) floats)
    // take at most 8 MB: the larger the matmul's M, the faster it ran (ResNet-18 at 56x56x64,
    // F(4x4): 1.06 ms in blocks of 24 tiles, 0.85 in 98, 0.81 in one of 196).
    const int64_t positions = cv.positions(), tiles = cv.tiles();
    const int64_t nb_max = std::max<int64_t>(
        16, (int64_t{8} << 20) / (positions * (w.c + w.oc) * int64_t{sizeof(float)}));
    const int64_t blocks = (tiles + nb_max - 1) / nb_max, nb = (tiles + blocks - 1) / blocks;
    const memory::desc vmd({positions, nb, w.c}, dt::f32, tag::abc);
    const memory::desc mmd({positions, nb, w.oc}, dt::f32, tag::abc);
    const memory::desc umd({positions, w.c, w.oc}, dt::f32, tag::any);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(vmd, umd, mmd), base_attr(), eng);
    memory umem = alloc(pd.weights_desc());
    reorder_now(memory({{positions, w.c, w.oc}, dt::f32, tag::abc}, eng, u.data()), umem);
    std::unordered_map<int, memory> args{
        {DNNL_ARG_SRC, node_temp(vmd)}, {DNNL_ARG_WEIGHTS, umem}, {DNNL_ARG_DST, node_temp(mmd)}};
    add_scratchpad(pd, args);
    auto bias = std::make_shared<std::vector<float>>();
    if (bias_at > 0) {
      const Tensor b = constant(n.inputs[bias_at]);
      if (b.dtype != DType::Float32) fail(n, "the bias must be float32");
      bias->assign(b.data<float>(), b.data<float>() + b.numel());
    }
    const memory xm = get(x, memory::desc(dims_of(shape(x)), dt::f32, tag::aBcd8b));
    const memory::desc ymd(dims_of(shape(y)), dt::f32, tag::aBcd8b);
    const bool sum_into = add_at >= 0 && buf(sum_of).md == ymd;
    winograd::Epilogue e;
    e.sum = sum_into;
    e.act = sum_into ? fused_activation(g->nodes[static_cast<size_t>(add_at)]) : act;
    const memory ym = sum_into ? bufs.at(sum_of).mem : output(y, ymd, DType::Float32);
    const dnnl::matmul product(pd);
    cur->steps.push_back([this, cv, product, args, xm, ym, bias, e, blocks, nb, tiles]() mutable {
      const auto* xp = static_cast<const float*>(xm.get_data_handle());
      auto* yp = static_cast<float*>(ym.get_data_handle());
      auto* vp = static_cast<float*>(args.at(DNNL_ARG_SRC).get_data_handle());
      const auto* mp = static_cast<const float*>(args.at(DNNL_ARG_DST).get_data_handle());
      e.bias = bias->empty() ? nullptr : bias->data();
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t t0 = b * nb, nt = std::min(nb, tiles - t0);
        winograd::transform_input(cv, xp, t0, nt, nb, vp);
        product.execute(strm, args);
        winograd::transform_output(cv, mp, t0, nt, nb, e, yp);
      }
    });
    cur->info.impl = "hetcim:winograd_f" + std::to_string(m) + "x" + std::to_string(m) + "(" +
                     pd.impl_info_str() + ")" + cur->info.impl;
    if (sum_into) {
      const std::string& add = g->nodes[static_cast<size_t>(add_at)].name;
      cur->info.impl += "+sum(" + add + ")";
      fused_away[add_at] = {n.name, sum_of};
    }
  }

  // Gemm / QGemm as a oneDNN matmul: A (M x K, strided per transA), B constant reordered once.
  void gemm(bool q) {
    const graph::Node& n = *node;
    const std::string& a = n.inputs.at(0);
    const std::string& bname = n.inputs.at(graph::weighted_operands(n.op_type).value().w);
    const std::string& y = n.outputs.at(0);
    const Shape& as = shape(a);
    const Shape& bs = shape(bname);
    if (as.size() != 2 || bs.size() != 2) fail(n, "A and B must be 2-D");
    const bool ta = n.attr_int("transA", 0) != 0, tb = n.attr_int("transB", 0) != 0;
    const float alpha = static_cast<float>(n.attr_float("alpha", 1.0));
    const float beta = static_cast<float>(n.attr_float("beta", 1.0));
    const int64_t M = ta ? as[1] : as[0], K = ta ? as[0] : as[1], N = tb ? bs[0] : bs[1];
    if ((tb ? bs[1] : bs[0]) != K) fail(n, "inner dimensions of A and B differ");
    const size_t c_at = q ? 6 : 2;
    Tensor bt = constant(bname);
    dnnl::primitive_attr attr = base_attr();
    dnnl::post_ops po;
    const Activation act = fused_activation(n);
    std::unordered_map<int, memory> args;
    DType atype = dtype(a), ytype = dtype(y);
    dt wdt = dt::f32, bias_dt = dt::f32;
    int32_t za = 0, zy = 0;
    bool halves = false, shift = false;  // int8_weight_halves()
    memory partial;
    if (q) {
      const float sa = scalar_f(1);
      za = scalar_zp(2);
      const auto sb = per_channel(4, N);
      const auto zb = per_channel_zp(5, N);
      const bool float_out = !has_input(n, 7);
      const float sy = float_out ? 1.0f : scalar_f(7);
      zy = float_out ? 0 : scalar_zp(8);
      Tensor b8 = Tensor::zeros(DType::Int8, bt.shape);
      for (int64_t i = 0; i < bt.numel(); ++i) {
        const int64_t col = tb ? i / K : i % N;
        const int64_t v = static_cast<int64_t>(bt.at(i)) - zb[static_cast<size_t>(col)];
        if (v < -128 || v > 127) fail(n, "B minus its zero point does not fit int8");
        b8.data<int8_t>()[i] = static_cast<int8_t>(v);
      }
      bt = std::move(b8);
      wdt = dt::s8;
      bias_dt = dt::s32;
      std::vector<float> scales(static_cast<size_t>(N));
      for (size_t j = 0; j < scales.size(); ++j)
        scales[j] = float_out ? alpha * sa * sb[j] : (alpha * sa * sb[j]) / sy;
      halves = needs_halves(bt, K);
      shift = int8_weight_halves() && atype == DType::Int8;
      if (shift) {
        za += 128;
        atype = DType::UInt8;
      }
      if (halves) partial = node_temp(plain_md({M, N}, dt::s32));
      int8_scales(attr, po, args, scales, 1, 2, partial);
      if (za != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
      post_activation(po, act, sy);
      if (!float_out) post_round(po, zy);
    } else {
      if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
      post_activation(po, act);
    }
    attr.set_post_ops(po);
    const dt adt = dnnl_type(atype, node);
    const memory::desc a_md(memory::dims{M, K}, adt, ta ? memory::dims{1, M} : memory::dims{K, 1});
    const memory::desc b_user(memory::dims{K, N}, wdt,
                              tb ? memory::dims{1, K} : memory::dims{N, 1});
    const memory::desc b_any(memory::dims{K, N}, wdt, tag::any);
    const memory::desc y_md = plain_md({M, N}, dnnl_type(ytype, node));
    memory::desc c_md;
    Tensor ct;
    const bool has_c = has_input(n, c_at) && beta != 0.0f;
    if (has_c) {
      ct = constant(n.inputs[c_at]);
      Shape cs = ct.shape;
      while (cs.size() < 2) cs.insert(cs.begin(), 1);
      if ((cs[0] != 1 && cs[0] != M) || (cs[1] != 1 && cs[1] != N))
        fail(n, "C does not broadcast to M x N");
      if (q && ct.dtype != DType::Int32) fail(n, "C must be int32");
      if (!q) {
        // beta and alpha: matmul computes alpha * (A B + C'), so C' = beta * C / alpha.
        for (int64_t i = 0; i < ct.numel(); ++i)
          ct.data<float>()[i] = ct.data<float>()[i] * beta / alpha;
      } else if (alpha != 1.0f || beta != 1.0f) {
        fail(n, "QGemm with a bias needs alpha = beta = 1");
      }
      ct.shape = cs;
      c_md = plain_md(cs, bias_dt);
    }
    auto desc =
        has_c ? dnnl::matmul::desc(a_md, b_any, c_md, y_md) : dnnl::matmul::desc(a_md, b_any, y_md);
    dnnl::matmul::primitive_desc pd(desc, attr, eng);
    Tensor lo;
    if (halves) std::tie(lo, bt) = weight_halves(bt);
    memory buser = const_memory(bt, b_user);
    memory bmem = alloc(pd.weights_desc());
    reorder_now(buser, bmem);
    args[DNNL_ARG_WEIGHTS] = bmem;
    if (has_c) args[DNNL_ARG_BIAS] = const_memory(ct, c_md);
    // A: row-major input viewed with the transA strides.
    memory abuf = shift ? shifted_u8(get_plain(a)) : get_plain(a);
    args[DNNL_ARG_SRC] = memory(a_md, eng, abuf.get_data_handle());
    if (halves)
      add_lo_half<dnnl::matmul>(
          [&](const memory::desc& dmd) { return dnnl::matmul::desc(a_md, b_any, dmd); }, lo, b_user,
          args[DNNL_ARG_SRC], partial, za);
    args[DNNL_ARG_DST] = output(y, y_md, ytype);
    if (q && za != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = scalar_s32(za);
    if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = scalar_s32(zy);
    add_primitive(dnnl::matmul(pd), args, pd);
  }

  void matmul(bool q) {
    const graph::Node& n = *node;
    const std::string& a = n.inputs.at(0);
    const std::string& b = n.inputs.at(graph::weighted_operands(n.op_type).value().w);
    const std::string& y = n.outputs.at(0);
    Shape as = shape(a), bs = shape(b);
    const Shape ys = shape(y);
    if (as.size() < 2 || bs.size() < 2) fail(n, "MatMul operands of rank 1 are not supported");
    size_t r = std::max(as.size(), bs.size());
    while (as.size() < r) as.insert(as.begin(), 1);
    while (bs.size() < r) bs.insert(bs.begin(), 1);
    const int64_t N = bs.back();
    Shape ys_full = ys;
    while (ys_full.size() < r) ys_full.insert(ys_full.begin(), 1);
    // A float B without batch dimensions (a Linear layer on [..., M, K] activations): one 2-D
    // GEMM over every row of A (oneDNN runs a broadcast batch as a loop of small products).
    if (!q && r > 2 && std::all_of(bs.begin(), bs.end() - 2, [](int64_t d) { return d == 1; })) {
      const int64_t rows = graph::element_count(as) / as.back();
      as = {rows, as.back()};
      bs = {bs[r - 2], N};
      ys_full = {rows, N};
      r = 2;
    }
    dnnl::primitive_attr attr = base_attr();
    dnnl::post_ops po;
    std::unordered_map<int, memory> args;
    const DType ytype = dtype(y);
    int32_t za = 0, zy = 0, zb = 0;
    bool halves = false, shift = false;  // int8_weight_halves()
    memory partial;
    int bias_at = -1;  // the bias Add done by this product (matmul_bias)
    std::string bias;
    dt adt = dnnl_type(dtype(a), node);
    dt bdt = dnnl_type(dtype(b), node);
    const bool b_const = init(b) != nullptr;
    Tensor bt;
    if (b_const) bt = constant(b);
    if (q) {
      const float sa = scalar_f(1), sy = scalar_f(6);
      za = scalar_zp(2);
      zy = scalar_zp(7);
      const auto sb = per_channel(4, N);
      const auto zbs = per_channel_zp(5, N);
      if (b_const) {
        Tensor b8 = Tensor::zeros(DType::Int8, bt.shape);
        for (int64_t i = 0; i < bt.numel(); ++i) {
          const int64_t v = static_cast<int64_t>(bt.at(i)) - zbs[static_cast<size_t>(i % N)];
          if (v < -128 || v > 127) fail(n, "B minus its zero point does not fit int8");
          b8.data<int8_t>()[i] = static_cast<int8_t>(v);
        }
        bt = std::move(b8);
        bdt = dt::s8;
      } else {
        if (bdt != dt::s8) fail(n, "a non-constant B must be int8");
        zb = zbs[0];
        for (int32_t z : zbs)
          if (z != zb) fail(n, "per-column zero points of a non-constant B are not supported");
        if (zb != 0) attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {DNNL_RUNTIME_S32_VAL});
      }
      std::vector<float> scales(static_cast<size_t>(N));
      for (size_t j = 0; j < scales.size(); ++j) scales[j] = (sa * sb[j]) / sy;
      // A non-constant B is split each run (its zero point stays with the hi half's kernel).
      halves = b_const ? needs_halves(bt, as.back()) : int8_weight_halves() && as.back() > 1;
      shift = int8_weight_halves() && adt == dt::s8;
      if (shift) {
        za += 128;
        adt = dt::u8;
      }
      if (halves) partial = node_temp(plain_md(ys_full, dt::s32));
      int8_scales(attr, po, args, scales, r - 1, r, partial);
      if (za != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      if (zy != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
      post_activation(po, fused_activation(n), sy);
      post_round(po, zy);
    } else if (r == 2 && fused_activation(n).kind == Activation::None &&
               (bias_at = matmul_bias(y, N, bias)) >= 0) {
      post_activation(po, fused_activation(g->nodes[static_cast<size_t>(bias_at)]));
    } else {
      post_activation(po, fused_activation(n));
    }
    attr.set_post_ops(po);
    const memory::desc a_md = plain_md(as, adt);
    const memory::desc b_md = plain_md(bs, bdt);
    const memory::desc y_md = plain_md(ys_full, dnnl_type(ytype, node));
    const memory::desc b_use = b_const ? memory::desc(dims_of(bs), bdt, tag::any) : b_md;
    const memory::desc bias_md({1, N}, dt::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(bias_at >= 0 ? dnnl::matmul::desc(a_md, b_use, bias_md, y_md)
                                                 : dnnl::matmul::desc(a_md, b_use, y_md),
                                    attr, eng);
    if (bias_at >= 0) {
      args[DNNL_ARG_BIAS] = const_memory(constant(bias), bias_md);
      const graph::Node& add = g->nodes[static_cast<size_t>(bias_at)];
      fused_away[bias_at] = {n.name, ""};
      cur->info.impl += "+bias(" + add.name + ")";
    }
    Tensor lo;
    memory lo_runtime;
    if (b_const) {
      if (halves) std::tie(lo, bt) = weight_halves(bt);
      memory buser = const_memory(bt, b_md);
      memory bmem = alloc(pd.weights_desc());
      reorder_now(buser, bmem);
      args[DNNL_ARG_WEIGHTS] = bmem;
    } else if (halves) {
      memory bmem = memory(b_md, eng, get_plain(b).get_data_handle());
      lo_runtime = node_temp(b_md);
      memory hi = node_temp(b_md);
      const size_t count = b_md.get_size();
      cur->steps.push_back([bmem, lo_runtime, hi, count]() {
        kernels::int8_halves(static_cast<const int8_t*>(bmem.get_data_handle()),
                             static_cast<int8_t*>(lo_runtime.get_data_handle()),
                             static_cast<int8_t*>(hi.get_data_handle()), count);
      });
      args[DNNL_ARG_WEIGHTS] = hi;
    } else {
      args[DNNL_ARG_WEIGHTS] = memory(b_md, eng, get_plain(b).get_data_handle());
    }
    memory abuf = shift ? shifted_u8(get_plain(a)) : get_plain(a);
    args[DNNL_ARG_SRC] = memory(a_md, eng, abuf.get_data_handle());
    if (halves)
      add_lo_half<dnnl::matmul>(
          [&](const memory::desc& dmd) { return dnnl::matmul::desc(a_md, b_use, dmd); }, lo, b_md,
          args[DNNL_ARG_SRC], partial, za, lo_runtime);
    const std::string& y_out = bias_at >= 0 ? g->nodes[static_cast<size_t>(bias_at)].outputs[0] : y;
    memory& out = output(y_out, plain_md(ys, dnnl_type(ytype, node)), ytype);
    args[DNNL_ARG_DST] = memory(y_md, eng, out.get_data_handle());
    if (q && za != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = scalar_s32(za);
    if (q && zb != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_WEIGHTS] = scalar_s32(zb);
    if (q && zy != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = scalar_s32(zy);
    add_primitive(dnnl::matmul(pd), args, pd);
  }

  // Float binary ops: oneDNN binary when the second operand broadcasts into the first (swapping
  // commutative operands if needed), the generic strided kernel otherwise.
  void binary() {
    const graph::Node& n = *node;
    const std::string& op = n.op_type;
    std::string a = n.inputs.at(0), b = n.inputs.at(1);
    const std::string& y = n.outputs.at(0);
    if (dtype(a) != DType::Float32 || dtype(b) != DType::Float32)
      fail(n, "float32 operands expected");
    const Shape ys = shape(y);
    auto padded = [&](Shape s) {
      while (s.size() < ys.size()) s.insert(s.begin(), 1);
      return s;
    };
    const bool commutative = op == "Add" || op == "Mul";
    if (padded(shape(a)) != ys && commutative) std::swap(a, b);
    const Activation act = fused_activation(n);
    if (op == "Pow") {
      // Constant scalar exponent: oneDNN eltwise pow.
      const graph::Initializer* e = init(b);
      if (e && e->has_values() && graph::element_count(*e->info.shape) == 1 &&
          padded(shape(a)) == ys) {
        const float p = e->floats()[0];
        return eltwise_with(a, y, dnnl::algorithm::eltwise_pow, 1.0f, p, act);
      }
    }
    if (padded(shape(a)) == ys && op != "Pow") {
      const Buf& ab = buf(a);
      const memory::desc a_md =
          ab.md.data.ndims == static_cast<int>(ys.size()) ? ab.md : plain_md(ys, dt::f32);
      Shape bsh = padded(shape(b));
      memory::desc b_md = bsh == ys ? a_md : plain_md(bsh, dt::f32);
      dnnl::algorithm alg = op == "Add"   ? dnnl::algorithm::binary_add
                            : op == "Sub" ? dnnl::algorithm::binary_sub
                            : op == "Mul" ? dnnl::algorithm::binary_mul
                                          : dnnl::algorithm::binary_div;
      dnnl::primitive_attr attr = base_attr();
      dnnl::post_ops po;
      post_activation(po, act);
      attr.set_post_ops(po);
      auto make_pd = [&](const memory::desc& bmd) {
        return dnnl::binary::primitive_desc(
            dnnl::binary::desc(alg, a_md, bmd, memory::desc(dims_of(ys), dt::f32, tag::any)), attr,
            eng);
      };
      dnnl::binary::primitive_desc pd = make_pd(b_md);
      // oneDNN's AVX2 binary kernels broadcast a second operand over a channel-blocked first
      // one only when both share the blocking; with a plain [1, C, 1, 1] it picks the reference
      // kernel (a squeeze-excitation Mul of 32x32x32 on Zen 3: 3.2 ms against ~10 us).
      auto reference = [](const dnnl::binary::primitive_desc& d) {
        return std::string(d.impl_info_str()).rfind("ref", 0) == 0;
      };
      if (reference(pd) && bsh != ys && bsh == shape(b))
        if (const auto blocked = channel_blocked_like(a_md, bsh, dt::f32)) {
          dnnl::binary::primitive_desc alt = make_pd(*blocked);
          if (!reference(alt)) pd = alt;
        }
      // oneDNN's reference kernel (a broadcast it has no jit kernel for, e.g. a LayerNorm's
      // per-row mean): the portable kernel, vectorised, is 10-100x faster.
      if (reference(pd)) return host_kernel(*ops::find(op));
      std::unordered_map<int, memory> args;
      args[DNNL_ARG_SRC_0] = get(a, pd.src_desc(0));
      memory bm = bsh == shape(b) ? get(b, pd.src_desc(1)) : memory();
      if (!bm) {  // rank-padded view of a row-major operand
        memory raw = get_plain(b);
        bm = memory(pd.src_desc(1), eng, raw.get_data_handle());
      }
      args[DNNL_ARG_SRC_1] = bm;
      args[DNNL_ARG_DST] = output(y, pd.dst_desc(), DType::Float32);
      add_primitive(dnnl::binary(pd), args, pd);
      return;
    }
    // Any other broadcasting, and Pow: the binary family's portable kernel (ops/binary.cpp).
    host_kernel(*ops::find(op));
  }

  // Element strides with which an operand of logical shape s (physical layout md) is read when
  // iterating the broadcast output shape `out`.
  static std::vector<int64_t> bstrides(const memory::desc& md, const Shape& s, const Shape& out) {
    const auto phys = s.empty() ? std::vector<int64_t>{} : md_strides(md);
    std::vector<int64_t> st(out.size(), 0);
    for (size_t k = 0; k < s.size(); ++k) {
      const size_t o = out.size() - s.size() + k;
      st[o] = s[k] == 1 ? 0 : phys[k];
    }
    return st;
  }

  void eltwise_with(const std::string& x, const std::string& y, dnnl::algorithm alg, float alpha,
                    float beta, const Activation& act) {
    const Buf& xb = buf(x);
    dnnl::primitive_attr attr = base_attr();
    dnnl::post_ops po;
    post_activation(po, act);
    attr.set_post_ops(po);
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, xb.md, alpha, beta),
        attr, eng);
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = get(x, pd.src_desc());
    args[DNNL_ARG_DST] = output(y, pd.dst_desc(), DType::Float32);
    add_primitive(dnnl::eltwise_forward(pd), args, pd);
  }

  void eltwise() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    if (dtype(x) != DType::Float32)
      fail(n, "expected a float32 input, got " + std::string(graph::dtype_name(dtype(x))) +
                  " (a Relu/Clip on quantized data must be fused into its producer)");
    const std::string& op = n.op_type;
    using A = dnnl::algorithm;
    if (op == "Relu") return eltwise_with(x, y, A::eltwise_relu, 0.0f, 0.0f, {});
    if (op == "LeakyRelu")
      return eltwise_with(x, y, A::eltwise_relu, static_cast<float>(n.attr_float("alpha", 0.01)),
                          0.0f, {});
    if (op == "Sigmoid") {
      // Hand-written: about 4x faster than oneDNN 2.6's logistic on AVX-512 (YOLOv5n's SiLUs).
      // With the Mul(x, Sigmoid(x)) it alone feeds: one SiLU kernel writing the Mul's output.
      const Buf& xb = buf(x);
      memory xm = xb.mem;
      const int j = silu_mul(x, y, false);
      const bool silu = j >= 0;
      memory ym =
          output(silu ? g->nodes[static_cast<size_t>(j)].outputs[0] : y, xb.md, DType::Float32);
      const int64_t count = static_cast<int64_t>(xb.md.get_size() / sizeof(float));
      cur->info.impl =
          silu ? "hetcim:silu(" + g->nodes[static_cast<size_t>(j)].name + ")" : "hetcim:sigmoid";
      if (silu) fused_away[j] = {n.name, ""};
      cur->steps.push_back([xm, ym, count, silu]() {
        (silu ? kernels::silu_f32 : kernels::sigmoid_f32)(
            static_cast<const float*>(xm.get_data_handle()),
            static_cast<float*>(ym.get_data_handle()), count);
      });
      return;
    }
    if (op == "Tanh") return eltwise_with(x, y, A::eltwise_tanh, 0.0f, 0.0f, {});
    if (op == "Clip") {
      const Activation c = clip_bounds(*g, n);
      return eltwise_with(x, y, A::eltwise_clip, c.lo, c.hi, {});
    }
    if (op == "HardSwish") return eltwise_with(x, y, A::eltwise_hardswish, 0.0f, 0.0f, {});
    // HardSigmoid: clip(alpha x + beta, 0, 1). Hand-written on an unpadded buffer (oneDNN 2.6
    // runs linear + clip post-op with its reference implementation, 10x slower than a loop);
    // a padded blocked layout keeps oneDNN, which leaves the padding zero.
    const float alpha = static_cast<float>(n.attr_float("alpha", 0.2)),
                beta = static_cast<float>(n.attr_float("beta", 0.5));
    const Buf& xb = buf(x);
    const int64_t count = graph::element_count(shape(x));
    if (static_cast<int64_t>(xb.md.get_size()) == count * static_cast<int64_t>(sizeof(float))) {
      memory xm = xb.mem;
      memory ym = output(y, xb.md, DType::Float32);
      cur->info.impl = "hetcim:hardsigmoid";
      cur->steps.push_back([xm, ym, count, alpha, beta]() {
        kernels::hardsigmoid_f32(static_cast<const float*>(xm.get_data_handle()),
                                 static_cast<float*>(ym.get_data_handle()), count, alpha, beta);
      });
      return;
    }
    Activation c;
    c.kind = Activation::Clip;
    c.lo = 0;
    c.hi = 1;
    eltwise_with(x, y, A::eltwise_linear, alpha, beta, c);
  }

  void pool() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    if (n.outputs.size() > 1 && !n.outputs[1].empty())
      fail(n, "MaxPool's Indices output is not supported");
    const Window2d w = pool_window(*g, n, x, y);
    if (w.dh != 1 || w.dw != 1) fail(n, "dilated pooling is not supported");
    const bool is_max = n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool";
    const bool include = n.attr_int("count_include_pad", 0) != 0;
    if (!is_max && include && (w.pb != w.pb_declared || w.pr != w.pr_declared))
      fail(n, "AveragePool with count_include_pad=1 and ceil_mode padding is not supported");
    const DType xt = dtype(x);
    if (!is_max && xt != DType::Float32) fail(n, "float32 input expected");
    const dnnl::algorithm alg = is_max    ? dnnl::algorithm::pooling_max
                                : include ? dnnl::algorithm::pooling_avg_include_padding
                                          : dnnl::algorithm::pooling_avg_exclude_padding;
    const Buf& xb = buf(x);
    dnnl::pooling_forward::primitive_desc pd(
        dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, alg, xb.md,
                                    memory::desc(dims_of(shape(y)), dnnl_type(xt, node), tag::any),
                                    {w.sh, w.sw}, {w.kh, w.kw}, {w.pt, w.pl}, {w.pb, w.pr}),
        base_attr(), eng);
    std::unordered_map<int, memory> args;
    args[DNNL_ARG_SRC] = get(x, pd.src_desc());
    args[DNNL_ARG_DST] = output(y, pd.dst_desc(), xt);
    add_primitive(dnnl::pooling_forward(pd), args, pd);
  }

  void concat() {
    const graph::Node& n = *node;
    const std::string& y = n.outputs.at(0);
    const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(shape(y).size()));
    std::vector<memory::desc> mds;
    const DType t = dtype(n.inputs.at(0));
    for (const std::string& x : n.inputs) {
      if (dtype(x) != t) fail(n, "inputs of different dtypes");
      mds.push_back(buf(x).md);
    }
    bool same_format = true;
    for (const memory::desc& md : mds)
      same_format = same_format && is_strided(md) == is_strided(mds[0]);
    if (!same_format || is_strided(mds[0])) return concat_strided(axis, t);
    if (axis == 1 && concat_blocked(t)) return;
    dnnl::concat::primitive_desc pd(static_cast<int>(axis), mds, eng, base_attr());
    std::unordered_map<int, memory> args;
    for (size_t i = 0; i < n.inputs.size(); ++i)
      args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] =
          get(n.inputs[i], pd.src_desc(static_cast<int>(i)));
    args[DNNL_ARG_DST] = output(y, pd.dst_desc(), t);
    add_primitive(dnnl::concat(pd), args, pd);
  }

  // A channel Concat of inputs in one channel-blocked layout (aBcd8b, ...) whose channel counts
  // are whole blocks: per image, each input is one contiguous slab of the output, so the Concat is
  // one memcpy per input and image (oneDNN 2.6's simple concat moved YOLOv5n's 8-channel blocks
  // at about 2 GB/s on Zen 3). False (nothing added) for anything else.
  bool concat_blocked(DType t) {
    const graph::Node& n = *node;
    const std::string& y = n.outputs.at(0);
    const memory::desc& first = buf(n.inputs[0]).md;
    const auto ymd = channel_blocked_like(first, shape(y), first.data_type());
    if (!ymd) return false;
    const int64_t block = first.data.format_desc.blocking.inner_blks[0];
    const int64_t images = shape(y)[0];
    std::vector<memory> ins;
    std::vector<int64_t> offsets, slabs;  // per input: its bytes' offset in an output image, size
    int64_t offset = 0;
    for (const std::string& x : n.inputs) {
      const Buf& xb = buf(x);
      if (xb.md != channel_blocked_like(first, shape(x), first.data_type()) ||
          shape(x)[1] % block != 0)
        return false;
      ins.push_back(xb.mem);
      offsets.push_back(offset);
      slabs.push_back(static_cast<int64_t>(xb.md.get_size()) / images);
      offset += slabs.back();
    }
    memory ym = output(y, *ymd, t);
    const int64_t image_bytes = offset;  // whole blocks: the output has no padding
    cur->info.impl = "hetcim:concat_blocked";
    cur->steps.push_back([ins, offsets, slabs, ym, images, image_bytes]() {
      auto* yp = static_cast<uint8_t*>(ym.get_data_handle());
      const auto parts = static_cast<int64_t>(ins.size());
#pragma omp parallel for collapse(2) schedule(static) if (images * image_bytes >= (1 << 20))
      for (int64_t im = 0; im < images; ++im)
        for (int64_t i = 0; i < parts; ++i) {
          const auto k = static_cast<size_t>(i);
          std::memcpy(yp + im * image_bytes + offsets[k],
                      static_cast<const uint8_t*>(ins[k].get_data_handle()) + im * slabs[k],
                      static_cast<size_t>(slabs[k]));
        }
    });
    return true;
  }

  // Concat of tensors in strided layouts (or in a mix of layouts, converted to strided): one
  // strided copy per input into its slab of the output, in the first input's dimension order.
  // A 4-D channel concat with any channels-last input is written channels-last (DenseNet: its
  // BatchNorms and 1x1 convolutions then read it without a reorder); inputs in another layout are
  // converted once (the converted copy serves every later Concat that reads the same tensor).
  void concat_strided(int64_t axis, DType t) {
    const graph::Node& n = *node;
    const std::string& y = n.outputs.at(0);
    bool channels_last = false;
    if (shape(y).size() == 4 && axis == 1)
      for (const std::string& x : n.inputs) {
        const Buf& xb = buf(x);
        channels_last = channels_last || xb.md == nhwc_md(xb.shape, xb.md.data_type());
      }
    auto fetch = [&](const std::string& x, memory::desc* md) {
      if (!channels_last) return get_strided(x, md);
      const Buf& xb = buf(x);
      *md = nhwc_md(xb.shape, xb.md.data_type());
      return get(x, *md);
    };
    memory::desc first;
    (void)fetch(n.inputs.at(0), &first);
    const memory::desc ymd = like_md(first, shape(y), first.data_type());
    memory ym = output(y, ymd, t);
    const auto yst = md_strides(ymd);
    const size_t es = graph::dtype_size(t);
    // Channels-last concat on the channel axis (every tensor dense with the concat axis
    // innermost): one pass over the pixels, each writing its output row once.
    auto axis_innermost = [&](const Shape& s, const std::vector<int64_t>& st) {
      if (st[static_cast<size_t>(axis)] != 1) return false;
      int64_t expect = s[static_cast<size_t>(axis)];
      for (size_t k = s.size(); k-- > 0;) {
        if (static_cast<int64_t>(k) == axis) continue;
        if (s[k] != 1 && st[k] != expect) return false;
        expect *= s[k];
      }
      return true;
    };
    bool rows = axis_innermost(shape(y), yst);
    std::vector<memory> ins;
    std::vector<int64_t> widths;
    for (const std::string& x : n.inputs) {
      memory::desc md;
      ins.push_back(fetch(x, &md));
      widths.push_back(shape(x)[static_cast<size_t>(axis)]);
      rows = rows && axis_innermost(shape(x), md_strides(md));
    }
    if (rows) {
      const int64_t total = shape(y)[static_cast<size_t>(axis)];
      const int64_t outer = graph::element_count(shape(y)) / std::max<int64_t>(total, 1);
      cur->info.impl = "hetcim:concat_rows";
      cur->steps.push_back([ins, widths, ym, total, outer, es]() {
        uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
        const int64_t e = static_cast<int64_t>(es);
#pragma omp parallel for schedule(static) if (outer * total >= 65536)
        for (int64_t o = 0; o < outer; ++o) {
          int64_t off = 0;
          for (size_t i = 0; i < ins.size(); ++i) {
            std::memcpy(yp + (o * total + off) * e,
                        static_cast<const uint8_t*>(ins[i].get_data_handle()) + o * widths[i] * e,
                        static_cast<size_t>(widths[i] * e));
            off += widths[i];
          }
        }
      });
      return;
    }
    int64_t offset = 0;
    cur->info.impl = "hetcim:concat";
    for (const std::string& x : n.inputs) {
      memory::desc md;
      memory xm = fetch(x, &md);
      const Shape xs = shape(x);
      const auto xst = md_strides(md);
      const int64_t base = offset * yst[static_cast<size_t>(axis)] * static_cast<int64_t>(es);
      cur->steps.push_back([xm, ym, xs, xst, yst, base, es]() {
        kernels::strided_copy(xs, static_cast<const uint8_t*>(xm.get_data_handle()), xst,
                              static_cast<uint8_t*>(ym.get_data_handle()) + base, yst, es);
      });
      offset += xs[static_cast<size_t>(axis)];
    }
  }

  // Standalone BatchNormalization of a 4-D float tensor (DenseNet's pre-activation BN after each
  // Concat): y = x * a[c] + b[c] with a = scale / sqrt(var + eps), b = B - mean * a (as the host
  // kernel computes them), in the producer's layout when that is channels-last, so the
  // convolutions around it need no layout reorders (oneDNN 2.6's batch-normalization primitive
  // took twice the host kernel's time here). Anything else (other ranks, non-constant statistics,
  // a training-mode node) goes to the host kernel, which also names what it refuses.
  void batchnorm() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const Shape xs = shape(x);
    bool ok = xs.size() == 4 && dtype(x) == DType::Float32 && n.inputs.size() == 5 &&
              n.attr_int("training_mode", 0) == 0;
    for (size_t o = 1; ok && o < n.outputs.size(); ++o) ok = n.outputs[o].empty();
    for (size_t i = 1; ok && i < 5; ++i) {
      const graph::Initializer* c = init(n.inputs[i]);
      ok = c && c->has_values() && c->info.dtype == DType::Float32 && c->info.shape &&
           graph::element_count(*c->info.shape) == xs[1];
    }
    if (!ok) return host_kernel(*ops::find("BatchNormalization"));
    const std::string& y = n.outputs.at(0);
    const std::vector<float> scale = constant(n.inputs[1]).floats(),
                             bias = constant(n.inputs[2]).floats(),
                             mean = constant(n.inputs[3]).floats(),
                             var = constant(n.inputs[4]).floats();
    const double eps = n.attr_float("epsilon", 1e-5);
    const int64_t N = xs[0], C = xs[1], HW = xs[2] * xs[3];
    auto ab = std::make_shared<std::vector<float>>(static_cast<size_t>(2 * C));
    for (int64_t c = 0; c < C; ++c) {
      const auto k = static_cast<size_t>(c);
      const float a = static_cast<float>(scale[k] / std::sqrt(static_cast<double>(var[k]) + eps));
      (*ab)[k] = a;
      (*ab)[static_cast<size_t>(C) + k] = bias[k] - mean[k] * a;
    }
    const bool cl = buf(x).md == nhwc_md(xs, dt::f32);
    const memory::desc md = cl ? nhwc_md(xs, dt::f32) : plain_md(xs, dt::f32);
    memory xm = get(x, md);
    // A Relu reading nothing but this output (DenseNet's BN -> Relu): applied in the same pass
    // (EngineOptions::fuse), writing the Relu's output.
    const int j = fusing() ? sole_reader(y) : -1;
    const graph::Node* relu = later_host_node(j);
    const bool with_relu = relu && relu->op_type == "Relu" && relu->outputs.size() == 1 &&
                           g->info(relu->outputs[0]) &&
                           g->info(relu->outputs[0])->dtype == DType::Float32;
    memory ym = output(with_relu ? relu->outputs[0] : y, md, DType::Float32);
    cur->info.impl = cl ? "hetcim:batchnorm_nhwc" : "hetcim:batchnorm_nchw";
    if (with_relu) {
      cur->info.impl += "+relu(" + relu->name + ")";
      fused_away[j] = {n.name, ""};
    }
    cur->steps.push_back([xm, ym, cl, N, C, HW, ab, with_relu]() {
      kernels::channel_affine_f32(static_cast<const float*>(xm.get_data_handle()),
                                  static_cast<float*>(ym.get_data_handle()), cl, N, C, HW,
                                  ab->data(), ab->data() + C, with_relu);
    });
  }

  // ---- portable kernels of src/ops (ops/kernel.h: the context a family compiles from) ------
  std::vector<std::unique_ptr<ops::Constant>> host_constants;  // constants the kernels captured

  void host_kernel(const ops::Family& f) {
    const graph::Node& n = *node;
    ops::KernelInput k{n, g->opset, {}, {}, {}};
    std::vector<bool> activation(n.inputs.size(), false);
    for (size_t i : f.activations.empty() ? std::vector<size_t>{0} : f.activations)
      if (i < activation.size()) activation[i] = true;
    std::vector<memory> in_mem(n.inputs.size());
    std::vector<bool> has_in(n.inputs.size(), false);
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& t = n.inputs[i];
      if (t.empty()) {
        k.shapes.emplace_back();
        k.constants.push_back(nullptr);
        continue;
      }
      k.shapes.push_back(shape(t));
      if (init(t)) {
        const Tensor v = constant(t);
        auto c = std::make_unique<ops::Constant>();
        c->shape = v.shape;
        c->values.resize(static_cast<size_t>(v.numel()));
        for (int64_t e = 0; e < v.numel(); ++e) c->values[static_cast<size_t>(e)] = v.at(e);
        host_constants.push_back(std::move(c));
        k.constants.push_back(host_constants.back().get());
      } else {
        k.constants.push_back(nullptr);
        if (!activation[i])
          fail(n, "input " + std::to_string(i) + " '" + t + "' must be a constant");
      }
      if (!activation[i]) continue;
      if (dtype(t) != DType::Float32)
        fail(n, "input '" + t + "' is " + std::string(graph::dtype_name(dtype(t))) +
                    "; hetcim executes " + n.op_type + " on float32");
      in_mem[i] = get_plain(t);
      has_in[i] = true;
    }
    for (const std::string& t : n.outputs) k.out_shapes.push_back(t.empty() ? Shape{} : shape(t));
    ops::Run run = f.compile(k);
    std::vector<memory> out_mem(n.outputs.size());
    std::vector<bool> has_out(n.outputs.size(), false);
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o].empty()) continue;
      out_mem[o] = output(n.outputs[o], plain_md(shape(n.outputs[o]), dt::f32), DType::Float32);
      has_out[o] = true;
    }
    cur->steps.push_back([run, in_mem, has_in, out_mem, has_out] {
      std::vector<const float*> in(in_mem.size(), nullptr);
      for (size_t i = 0; i < in_mem.size(); ++i)
        if (has_in[i]) in[i] = static_cast<const float*>(in_mem[i].get_data_handle());
      std::vector<float*> out(out_mem.size(), nullptr);
      for (size_t o = 0; o < out_mem.size(); ++o)
        if (has_out[o]) out[o] = static_cast<float*>(out_mem[o].get_data_handle());
      run(in, out);
    });
    cur->info.impl = "hetcim:" + std::string(f.op);
  }

  // ---- hand-written kernels -----------------------------------------------------------------
  // QLinearAdd / QLinearMul's arithmetic (kernels.h) from the node being compiled.
  kernels::QBinary qbinary_params() {
    kernels::QBinary p;
    p.sa = scalar_f(1);
    p.za = scalar_zp(2);
    p.sb = scalar_f(4);
    p.zb = scalar_zp(5);
    p.sy = scalar_f(6);
    p.zy = scalar_zp(7);
    p.mul = node->op_type == "QLinearMul";
    const Activation act = fused_activation(*node);
    if (act.kind == Activation::Relu) p.lo = p.zy;
    if (act.kind == Activation::Clip) {
      p.lo = quantize_value(act.lo, p.sy, p.zy, {0, 255});
      p.hi = quantize_value(act.hi, p.sy, p.zy, {0, 255});
    }
    return p;
  }
  void qbinary() {
    const graph::Node& n = *node;
    const std::string& a = n.inputs.at(0);
    const std::string& b = n.inputs.at(3);
    const std::string& y = n.outputs.at(0);
    if (dtype(a) != DType::UInt8 || dtype(b) != DType::UInt8 || dtype(y) != DType::UInt8)
      fail(n, "uint8 operands and output expected");
    const kernels::QBinary p = qbinary_params();
    const Shape ys = shape(y);
    const Shape as = shape(a), bs = shape(b);
    if (as == ys && bs == ys) {
      const Buf& ab = buf(a);
      const memory::desc md = is_strided(ab.md) ? ab.md : plain_md(ys, dt::u8);
      memory am = get(a, md), bm = get(b, md);
      memory ym = output(y, md, DType::UInt8);
      const int64_t count = static_cast<int64_t>(md.get_size());
      cur->info.impl = "hetcim:qlinear_binary";
      cur->steps.push_back([am, bm, ym, count, p]() {
        kernels::qbinary_u8(static_cast<const uint8_t*>(am.get_data_handle()),
                            static_cast<const uint8_t*>(bm.get_data_handle()),
                            static_cast<uint8_t*>(ym.get_data_handle()), count, p);
      });
      return;
    }
    // Broadcast: per element with strides; a single-valued operand becomes an exact table.
    const bool a_single = graph::element_count(as) == 1 && as != ys;
    const std::string& big = a_single ? b : a;
    const std::string& small = a_single ? a : b;
    if (graph::element_count(shape(small)) == 1 && shape(big) == ys) {
      kernels::QBinary pp = p;
      pp.a_broadcast = a_single;
      memory::desc md;
      memory bigm = get_strided(big, &md);
      memory sm = get_plain(small);
      memory ym = output(y, like_md(md, ys, dt::u8), DType::UInt8);
      const int64_t count = static_cast<int64_t>(md.get_size());
      cur->info.impl = "hetcim:qlinear_binary_table";
      cur->steps.push_back([bigm, sm, ym, count, pp]() {
        kernels::qbinary_u8_scalar(static_cast<const uint8_t*>(bigm.get_data_handle()),
                                   *static_cast<const uint8_t*>(sm.get_data_handle()),
                                   static_cast<uint8_t*>(ym.get_data_handle()), count, pp);
      });
      return;
    }
    memory::desc amd, bmd;
    memory am = get_strided(a, &amd), bm = get_strided(b, &bmd);
    const memory::desc ymd = plain_md(ys, dt::u8);
    memory ym = output(y, ymd, DType::UInt8);
    auto sa = bstrides(amd, as, ys), sb = bstrides(bmd, bs, ys), sy = row_major_strides(ys);
    cur->info.impl = "hetcim:qlinear_binary_strided";
    cur->steps.push_back([am, bm, ym, ys, sa, sb, sy, p]() {
      const uint8_t* ap = static_cast<const uint8_t*>(am.get_data_handle());
      const uint8_t* bp = static_cast<const uint8_t*>(bm.get_data_handle());
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
      kernels::for_each_run(
          ys, {sy, sa, sb}, [&](int64_t len, const int64_t* off, const int64_t* st) {
            // ONNX Runtime's operand order (kernels.h): a constant along the run, b not.
            kernels::QBinary q = p;
            q.a_broadcast = len > 1 && st[1] == 0 && st[2] != 0;
            for (int64_t i = 0; i < len; ++i) {
              const float v =
                  kernels::qbinary_value(ap[off[1] + i * st[1]], bp[off[2] + i * st[2]], q);
              yp[off[0] + i * st[0]] = static_cast<uint8_t>(kernels::qbinary_round(v, q));
            }
          });
    });
  }

  // QLinearSigmoid / QLinearLeakyRelu: the output depends on one uint8 value, so a 256-entry
  // table computed with reference semantics is exact.
  void qunary() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    if (dtype(x) != DType::UInt8 || dtype(y) != DType::UInt8)
      fail(n, "uint8 input and output expected");
    const float sx = scalar_f(1), sy = scalar_f(3);
    const int32_t zx = scalar_zp(2), zy = scalar_zp(4);
    const float alpha = static_cast<float>(n.attr_float("alpha", 0.01));
    const bool sig = n.op_type == "QLinearSigmoid";
    auto table = std::make_shared<std::array<uint8_t, 256>>();
    for (int i = 0; i < 256; ++i) {
      const float v = dequantize_value(i, sx, zx);
      const float f = sig ? 1.0f / (1.0f + std::exp(-v)) : (v >= 0 ? v : v * alpha);
      (*table)[static_cast<size_t>(i)] = static_cast<uint8_t>(quantize_value(f, sy, zy, {0, 255}));
    }
    // SiLU in int8: the Mul(x, sigmoid(x)) this sigmoid alone feeds, folded into the table.
    if (const int j = sig ? silu_mul(x, y, true) : -1; j >= 0) {
      const graph::Node& mul = g->nodes[static_cast<size_t>(j)];
      const graph::Node* self = node;
      node = &mul;
      const kernels::QBinary p = qbinary_params();
      node = self;
      const bool x_first = mul.inputs[0] == x;
      for (int i = 0; i < 256; ++i) {
        const int32_t s = (*table)[static_cast<size_t>(i)];
        const float v = x_first ? kernels::qbinary_value(i, s, p) : kernels::qbinary_value(s, i, p);
        (*table)[static_cast<size_t>(i)] = static_cast<uint8_t>(kernels::qbinary_round(v, p));
      }
      fused_away[j] = {n.name, ""};
      table_op(x, mul.outputs[0], table);
      cur->info.impl = "hetcim:table+mul(" + mul.name + ")";
      return;
    }
    table_op(x, y, table);
  }
  void table_op(const std::string& x, const std::string& y,
                std::shared_ptr<std::array<uint8_t, 256>> table) {
    memory::desc md;
    memory xm = get_strided(x, &md);
    memory ym = output(y, md, DType::UInt8);
    const int64_t count = static_cast<int64_t>(md.get_size());
    cur->info.impl = "hetcim:table";
    cur->steps.push_back([xm, ym, count, table]() {
      kernels::table_u8(static_cast<const uint8_t*>(xm.get_data_handle()),
                        static_cast<uint8_t*>(ym.get_data_handle()), count, table->data());
    });
  }

  void qgap() {
    const graph::Node& n = *node;
    if (n.attr_int("channels_last", 0) != 0) fail(n, "channels_last=1 is not supported");
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const Shape xs = shape(x);
    if (xs.size() != 4) fail(n, "4-D input expected");
    if (dtype(x) != DType::UInt8 || dtype(y) != DType::UInt8)
      fail(n, "uint8 input and output expected");
    const float sx = scalar_f(1), sy = scalar_f(3);
    const int32_t zx = scalar_zp(2), zy = scalar_zp(4);
    const Buf& xb = buf(x);
    const bool cl = xb.md == nhwc_md(xs, dt::u8);
    memory xm = get(x, cl ? nhwc_md(xs, dt::u8) : plain_md(xs, dt::u8));
    const Shape ys = shape(y);
    memory ym = output(y, cl ? nhwc_md(ys, dt::u8) : plain_md(ys, dt::u8), DType::UInt8);
    const int64_t N = xs[0], C = xs[1], HW = xs[2] * xs[3];
    const float m = sx / (sy * static_cast<float>(HW));
    auto acc = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(N * C));
    cur->info.impl = "hetcim:qlinear_global_average_pool";
    cur->steps.push_back([xm, ym, cl, N, C, HW, zx, zy, m, acc]() {
      kernels::channel_sums_u8(static_cast<const uint8_t*>(xm.get_data_handle()), cl, N, C, HW, zx,
                               acc->data());
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
      for (int64_t k = 0; k < N * C; ++k)
        yp[k] = static_cast<uint8_t>(requantize((*acc)[static_cast<size_t>(k)], m, zy, {0, 255}));
    });
  }

  void qavgpool() {
    const graph::Node& n = *node;
    if (n.attr_int("channels_last", 0) != 0) fail(n, "channels_last=1 is not supported");
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const Window2d w = pool_window(*g, n, x, y);
    if (dtype(x) != DType::UInt8 || dtype(y) != DType::UInt8)
      fail(n, "uint8 input and output expected");
    const float sx = scalar_f(1), sy = scalar_f(3);
    const int32_t zx = scalar_zp(2), zy = scalar_zp(4);
    const bool include = n.attr_int("count_include_pad", 0) != 0;
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const memory::desc ymd = like_md(xmd, shape(y), dt::u8);
    memory ym = output(y, ymd, DType::UInt8);
    const auto xst = md_strides(xmd), yst = md_strides(ymd);
    cur->info.impl = "hetcim:qlinear_average_pool";
    cur->steps.push_back([xm, ym, w, xst, yst, sx, sy, zx, zy, include]() {
      const uint8_t* xp = static_cast<const uint8_t*>(xm.get_data_handle());
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
#pragma omp parallel for collapse(2) schedule(static)
      for (int64_t b = 0; b < w.n; ++b)
        for (int64_t c = 0; c < w.c; ++c)
          for (int64_t oh = 0; oh < w.oh; ++oh)
            for (int64_t ow = 0; ow < w.ow; ++ow) {
              int32_t acc = 0, count = 0;
              for (int64_t kh = 0; kh < w.kh; ++kh)
                for (int64_t kw = 0; kw < w.kw; ++kw) {
                  const int64_t ih = oh * w.sh - w.pt + kh * w.dh,
                                iw = ow * w.sw - w.pl + kw * w.dw;
                  const bool inside = ih >= 0 && ih < w.h && iw >= 0 && iw < w.w;
                  const bool in_declared = ih >= -w.pt && ih < w.h + w.pb_declared && iw >= -w.pl &&
                                           iw < w.w + w.pr_declared;
                  if (inside)
                    acc += static_cast<int32_t>(
                               xp[b * xst[0] + c * xst[1] + ih * xst[2] + iw * xst[3]]) -
                           zx;
                  if (inside || (include && in_declared)) ++count;
                }
              const float m = sx / (sy * static_cast<float>(count));
              yp[b * yst[0] + c * yst[1] + oh * yst[2] + ow * yst[3]] =
                  static_cast<uint8_t>(requantize(acc, m, zy, {0, 255}));
            }
    });
  }

  void qconcat() {
    const graph::Node& n = *node;
    const std::string& y = n.outputs.at(0);
    const Shape ys = shape(y);
    const int64_t axis = norm_axis(n, n.attr_int("axis", 0), static_cast<int64_t>(ys.size()));
    const float sy = scalar_f(0);
    const int32_t zy = scalar_zp(1);
    if ((n.inputs.size() - 2) % 3 != 0 || n.inputs.size() < 5)
      fail(n, "inputs must be Y_scale, Y_zp, then (X, scale, zp) triples");
    memory::desc first_md;
    (void)get_strided(n.inputs[2], &first_md);
    const memory::desc ymd = like_md(first_md, ys, dt::u8);
    memory ym = output(y, ymd, DType::UInt8);
    const auto yst = md_strides(ymd);
    int64_t offset = 0;
    struct Part {
      memory m;
      Shape shape;
      std::vector<int64_t> strides;
      int64_t offset;
      std::array<uint8_t, 256> table;
      bool identity;
    };
    auto parts = std::make_shared<std::vector<Part>>();
    for (size_t i = 2; i + 2 < n.inputs.size(); i += 3) {
      const std::string& x = n.inputs[i];
      if (dtype(x) != DType::UInt8) fail(n, "uint8 inputs expected");
      const float sx = scalar_f(i + 1);
      const int32_t zx = scalar_zp(i + 2);
      memory::desc md;
      Part p;
      p.m = get_strided(x, &md);
      p.shape = shape(x);
      p.strides = md_strides(md);
      p.offset = offset;
      p.identity = sx == sy && zx == zy;
      for (int v = 0; v < 256; ++v)
        p.table[static_cast<size_t>(v)] =
            static_cast<uint8_t>(quantize_value(dequantize_value(v, sx, zx), sy, zy, {0, 255}));
      offset += p.shape[static_cast<size_t>(axis)];
      parts->push_back(std::move(p));
    }
    cur->info.impl = "hetcim:qlinear_concat";
    cur->steps.push_back([ym, yst, axis, parts]() {
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
      for (const Part& p : *parts) {
        uint8_t* base = yp + p.offset * yst[static_cast<size_t>(axis)];
        const uint8_t* xp = static_cast<const uint8_t*>(p.m.get_data_handle());
        if (p.identity) {
          kernels::strided_copy(p.shape, xp, p.strides, base, yst, 1);
          continue;
        }
        const uint8_t* t = p.table.data();
        kernels::for_each_rows(
            p.shape, {yst, p.strides},
            [&](int64_t rows, int64_t len, const int64_t* off, const int64_t* st,
                const int64_t* row) {
              if (st[0] == 1 && st[1] == 1)  // contiguous runs: the vector table, row by row
                return kernels::copy_rows_u8(rows, len, xp + off[1], row[1], base + off[0], row[0],
                                             t);
              for (int64_t r = 0; r < rows; ++r)
                for (int64_t i = 0; i < len; ++i)
                  base[off[0] + r * row[0] + i * st[0]] = t[xp[off[1] + r * row[1] + i * st[1]]];
            });
      }
    });
  }

  void slice_split() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const Shape xs = shape(x);
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const auto xst = md_strides(xmd);
    const size_t es = graph::dtype_size(dtype(x));
    std::vector<SliceParams> parts;
    if (n.op_type == "Slice") {
      parts.push_back(slice_params(*g, n, xs));
    } else {
      const SplitParams sp = split_params(*g, n, xs);
      int64_t off = 0;
      for (int64_t s : sp.sizes) {
        SliceParams p;
        p.start.assign(xs.size(), 0);
        p.step.assign(xs.size(), 1);
        p.len = xs;
        p.start[static_cast<size_t>(sp.axis)] = off;
        p.len[static_cast<size_t>(sp.axis)] = s;
        off += s;
        parts.push_back(p);
      }
    }
    cur->info.impl = "hetcim:strided_copy";
    for (size_t i = 0; i < parts.size() && i < n.outputs.size(); ++i) {
      if (n.outputs[i].empty()) continue;
      const SliceParams& p = parts[i];
      const memory::desc ymd = like_md(xmd, p.len, xmd.data_type());
      memory ym = output(n.outputs[i], ymd, dtype(x));
      int64_t base = 0;
      std::vector<int64_t> sst(xs.size());
      for (size_t k = 0; k < xs.size(); ++k) {
        base += p.start[k] * xst[k];
        sst[k] = p.step[k] * xst[k];
      }
      const auto yst = md_strides(ymd);
      const Shape len = p.len;
      cur->steps.push_back([xm, ym, len, base, sst, yst, es]() {
        kernels::strided_copy(
            len,
            static_cast<const uint8_t*>(xm.get_data_handle()) + base * static_cast<int64_t>(es),
            sst, static_cast<uint8_t*>(ym.get_data_handle()), yst, es);
      });
    }
  }

  void resize() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const Shape xs = shape(x), ys = shape(y);
    const resize::Spec spec = resize::parse(*g, n, xs, ys, dtype(x));
    if (spec.mode != resize::Mode::Nearest) {  // linear / cubic: exec/resize.h
      memory::desc xmd;
      memory xm = get_strided(x, &xmd);
      const memory::desc ymd = like_md(xmd, ys, xmd.data_type());
      memory ym = output(y, ymd, dtype(x));
      auto plan = std::make_shared<const resize::Plan>(resize::make_plan(spec, xs, ys));
      auto scratch = std::make_shared<resize::Scratch>();
      const DType t = dtype(x);
      cur->info.impl = std::string("hetcim:resize_") + resize::mode_name(spec.mode);
      cur->steps.push_back(
          [xm, ym, plan, scratch, t, xst = md_strides(xmd), yst = md_strides(ymd)]() {
            resize::interpolate(*plan, xm.get_data_handle(), t, xst, ym.get_data_handle(), yst,
                                *scratch);
          });
      return;
    }
    auto map = resize_nearest_map(*g, n, xs, ys);
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const memory::desc ymd = like_md(xmd, ys, xmd.data_type());
    memory ym = output(y, ymd, dtype(x));
    const auto xst = md_strides(xmd), yst = md_strides(ymd);
    const size_t es = graph::dtype_size(dtype(x));
    // Source offsets per axis, premultiplied by the input strides.
    auto offs = std::make_shared<std::vector<std::vector<int64_t>>>(map);
    for (size_t a = 0; a < map.size(); ++a)
      for (int64_t& v : (*offs)[a]) v *= xst[a];
    cur->info.impl = "hetcim:resize_nearest";
    cur->steps.push_back([xm, ym, ys, yst, offs, es]() {
      const uint8_t* xp = static_cast<const uint8_t*>(xm.get_data_handle());
      uint8_t* yp = static_cast<uint8_t*>(ym.get_data_handle());
      const size_t r = ys.size();
      // Innermost axis = smallest output stride; iterate the rest.
      size_t inner = r - 1;
      for (size_t k = 0; k < r; ++k)
        if (ys[k] > 1 && yst[k] < yst[inner]) inner = k;
      int64_t outer = 1;
      for (size_t k = 0; k < r; ++k)
        if (k != inner) outer *= ys[k];
      const auto& in_off = (*offs)[inner];
      bool identity_inner = yst[inner] == 1;
      for (int64_t i = 0; identity_inner && i < ys[inner]; ++i) {
        identity_inner = in_off[static_cast<size_t>(i)] == i;
      }
#pragma omp parallel for schedule(static) if (outer * ys[inner] >= 65536)
      for (int64_t o = 0; o < outer; ++o) {
        int64_t rem = o, src = 0, dst = 0;
        for (size_t k = r; k-- > 0;) {
          if (k == inner) continue;
          const int64_t v = rem % ys[k];
          rem /= ys[k];
          src += (*offs)[k][static_cast<size_t>(v)];
          dst += v * yst[k];
        }
        if (identity_inner) {  // channels-last: the innermost run is contiguous on both sides
          std::memcpy(yp + dst * static_cast<int64_t>(es), xp + src * static_cast<int64_t>(es),
                      static_cast<size_t>(ys[inner]) * es);
          continue;
        }
        // A gather along the innermost axis, typed for the common element sizes (a memcpy call
        // per element of runtime size cost ~10 ns: YOLOv5n's two upsamplings 3.7 ms on Zen 3;
        // a memcpy of constant size 4 still took 2-4x the typed loop's time). The 4-byte type may
        // alias the buffer's float or int32 elements.
        using Word = uint32_t __attribute__((__may_alias__));
        auto gather = [&](auto* out, const auto* in) {
          for (int64_t i = 0; i < ys[inner]; ++i)
            out[dst + i * yst[inner]] = in[src + in_off[static_cast<size_t>(i)]];
        };
        if (es == 4)
          gather(reinterpret_cast<Word*>(yp), reinterpret_cast<const Word*>(xp));
        else if (es == 1)
          gather(yp, xp);
        else
          for (int64_t i = 0; i < ys[inner]; ++i)
            std::memcpy(yp + (dst + i * yst[inner]) * static_cast<int64_t>(es),
                        xp + (src + in_off[static_cast<size_t>(i)]) * static_cast<int64_t>(es), es);
      }
    });
  }

  // Reshape-like ops: a row-major input is aliased (no copy, no time); a tensor held in another
  // layout is reordered into a row-major output first.
  void reshape() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const DType t = dtype(x);
    const dt d = dnnl_type(t, node);
    const Buf& xb = buf(x);
    if (graph::element_count(shape(y)) != graph::element_count(xb.shape))
      fail(n, "element count changes");
    if (is_plain(xb.md, xb.shape)) {
      output_alias(y, plain_md(shape(y), d), t, xb.mem.get_data_handle());
      cur->info.impl = "hetcim:alias";
      return;
    }
    if (is_strided(xb.md) && readers_take_strided(y) && n.op_type == "Reshape")
      if (auto st = reshape_strides(xb.shape, md_strides(xb.md), shape(y))) {
        const memory::desc view(dims_of(shape(y)), d, memory::dims(st->begin(), st->end()));
        output_alias(y, view, t, xb.mem.get_data_handle());
        cur->info.impl = "hetcim:alias";
        return;
      }
    memory src = xb.mem;
    memory& dst = output(y, plain_md(shape(y), d), t);
    memory dst_view(plain_md(xb.shape, d), eng, dst.get_data_handle());
    dnnl::reorder r(src, dst_view);
    cur->steps.push_back([this, r, src, dst_view]() mutable { r.execute(strm, src, dst_view); });
    cur->info.impl = "reorder";
  }

  void transpose() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const DType t = dtype(x);
    const dt d = dnnl_type(t, node);
    const Shape xs = shape(x);
    const Buf& xb = buf(x);
    if (n.attr_int("layout_only", 0) != 0) {
      // Layout change of the same logical tensor: to NHWC or back to row-major NCHW.
      const auto perm = n.attr_ints("perm", {});
      const bool to_nhwc = perm == std::vector<int64_t>{0, 2, 3, 1};
      const memory::desc want = to_nhwc && xs.size() == 4 ? nhwc_md(xs, d) : plain_md(xs, d);
      if (xb.md == want || (!to_nhwc && is_strided(xb.md) && readers_take_strided(y))) {
        output_alias(y, xb.md, t, xb.mem.get_data_handle());
        cur->info.impl = "hetcim:alias";
        return;
      }
      memory src = xb.mem;
      memory dst = output(y, want, t);
      dnnl::reorder r(src, dst);
      cur->steps.push_back([this, r, src, dst]() mutable { r.execute(strm, src, dst); });
      cur->info.impl = "reorder";
      return;
    }
    std::vector<int64_t> perm = n.attr_ints("perm", {});
    if (perm.empty())
      for (size_t k = xs.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
    if (perm.size() != xs.size()) fail(n, "perm has the wrong length");
    const Shape ys = shape(y);
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const auto xst = md_strides(xmd);
    std::vector<int64_t> sst(perm.size());
    for (size_t k = 0; k < perm.size(); ++k) sst[k] = xst[static_cast<size_t>(perm[k])];
    // The output's last dimension contiguous in the input too (a channels-last tensor's channel
    // groups, perm (0,2,1,3) of attention heads): rows of runs by strided_copy. Otherwise oneDNN's
    // reorder from the input viewed with permuted axes: its transposition kernels are faster than
    // an element-wise strided copy.
    const bool runs = !sst.empty() && sst.back() == 1 && ys.back() > 1;
    if (xs.size() >= 2 && xs.size() <= 6 && !runs) {
      std::vector<int> p(perm.size());
      for (size_t k = 0; k < perm.size(); ++k)
        p[static_cast<size_t>(perm[k])] = static_cast<int>(k);
      const memory::desc view = xmd.permute_axes(p);
      memory src(view, eng, xm.get_data_handle());
      memory dst = output(y, plain_md(ys, d), t);
      dnnl::reorder r(src, dst);
      cur->steps.push_back([this, r, src, dst]() mutable { r.execute(strm, src, dst); });
      cur->info.impl = "reorder";
      return;
    }
    const memory::desc ymd = plain_md(ys, d);
    memory ym = output(y, ymd, t);
    const auto yst = row_major_strides(ys);
    const size_t es = graph::dtype_size(t);
    cur->info.impl = "hetcim:transpose";
    cur->steps.push_back([xm, ym, ys, sst, yst, es]() {
      kernels::strided_copy(ys, static_cast<const uint8_t*>(xm.get_data_handle()), sst,
                            static_cast<uint8_t*>(ym.get_data_handle()), yst, es);
    });
  }

  // Per-axis parameters of QuantizeLinear/DequantizeLinear (scale with more than one value).
  bool per_axis(int64_t& axis, std::vector<float>& s, std::vector<int32_t>& z, const Shape& xs) {
    const Tensor st = constant(node->inputs.at(1));
    if (st.numel() == 1) return false;
    axis = norm_axis(*node, node->attr_int("axis", 1), static_cast<int64_t>(xs.size()));
    s = per_channel(1, xs[static_cast<size_t>(axis)]);
    z = per_channel_zp(2, xs[static_cast<size_t>(axis)]);
    return true;
  }

  void quantize() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    if (dtype(x) != DType::Float32) fail(n, "float32 input expected");
    DType yt = has_input(n, 2) ? constant(n.inputs[2]).dtype : DType::UInt8;
    if (yt != DType::UInt8 && yt != DType::Int8) fail(n, "uint8 or int8 output expected");
    const bool s8 = yt == DType::Int8;
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const Shape xs = shape(x);
    const memory::desc ymd = like_md(xmd, xs, s8 ? dt::s8 : dt::u8);
    memory ym = output(y, ymd, yt);
    int64_t axis = 0;
    std::vector<float> sv;
    std::vector<int32_t> zv;
    const QRange r = qrange(yt);
    if (!per_axis(axis, sv, zv, xs)) {
      const float s = scalar_f(1);
      const int32_t z = scalar_zp(2);
      const int64_t count = graph::element_count(xs);
      const bool dense = xmd.get_size() == static_cast<size_t>(count) * 4;
      if (!dense) fail(n, "input layout is not dense");
      cur->info.impl = "hetcim:quantize";
      cur->steps.push_back([xm, ym, count, s, z, s8]() {
        kernels::quantize_f32(static_cast<const float*>(xm.get_data_handle()), ym.get_data_handle(),
                              s8, count, s, z);
      });
      return;
    }
    const auto xst = md_strides(xmd), yst = md_strides(ymd);
    cur->info.impl = "hetcim:quantize_per_axis";
    cur->steps.push_back([xm, ym, xs, xst, yst, axis, sv, zv, r, s8]() {
      const float* xp = static_cast<const float*>(xm.get_data_handle());
      std::vector<int64_t> xst2 = xst, yst2 = yst;
      const int64_t total = graph::element_count(xs);
      for (int64_t i = 0; i < total; ++i) {
        int64_t rem = i, xo = 0, yo = 0, c = 0;
        for (size_t k = xs.size(); k-- > 0;) {
          const int64_t v = rem % xs[k];
          rem /= xs[k];
          xo += v * xst2[k];
          yo += v * yst2[k];
          if (static_cast<int64_t>(k) == axis) c = v;
        }
        const int32_t q =
            quantize_value(xp[xo], sv[static_cast<size_t>(c)], zv[static_cast<size_t>(c)], r);
        if (s8)
          static_cast<int8_t*>(ym.get_data_handle())[yo] = static_cast<int8_t>(q);
        else
          static_cast<uint8_t*>(ym.get_data_handle())[yo] = static_cast<uint8_t>(q);
      }
    });
  }

  void dequantize() {
    const graph::Node& n = *node;
    const std::string& x = n.inputs.at(0);
    const std::string& y = n.outputs.at(0);
    const DType xt = dtype(x);
    if (xt != DType::UInt8 && xt != DType::Int8 && xt != DType::Int32)
      fail(n, "8-bit or int32 input expected");
    memory::desc xmd;
    memory xm = get_strided(x, &xmd);
    const Shape xs = shape(x);
    const memory::desc ymd = like_md(xmd, xs, dt::f32);
    memory ym = output(y, ymd, DType::Float32);
    int64_t axis = -1;
    std::vector<float> sv;
    std::vector<int32_t> zv;
    const int64_t count = graph::element_count(xs);
    if (!per_axis(axis, sv, zv, xs) && xt != DType::Int32) {
      const float s = scalar_f(1);
      const int32_t z = scalar_zp(2);
      const bool s8 = xt == DType::Int8;
      cur->info.impl = "hetcim:dequantize";
      cur->steps.push_back([xm, ym, count, s, z, s8]() {
        kernels::dequantize_x8(xm.get_data_handle(), s8, static_cast<float*>(ym.get_data_handle()),
                               count, s, z);
      });
      return;
    }
    if (axis < 0) {
      axis = 0;
      sv.assign(static_cast<size_t>(xs.empty() ? 1 : xs[0]), scalar_f(1));
      zv.assign(sv.size(), scalar_zp(2));
    }
    const auto xst = md_strides(xmd), yst = md_strides(ymd);
    cur->info.impl = "hetcim:dequantize_per_axis";
    cur->steps.push_back([xm, ym, xs, xst, yst, axis, sv, zv, xt]() {
      float* yp = static_cast<float*>(ym.get_data_handle());
      const int64_t total = graph::element_count(xs);
      for (int64_t i = 0; i < total; ++i) {
        int64_t rem = i, xo = 0, yo = 0, c = 0;
        for (size_t k = xs.size(); k-- > 0;) {
          const int64_t v = rem % xs[k];
          rem /= xs[k];
          xo += v * xst[k];
          yo += v * yst[k];
          if (static_cast<int64_t>(k) == axis) c = v;
        }
        int32_t q;
        if (xt == DType::Int8)
          q = static_cast<const int8_t*>(xm.get_data_handle())[xo];
        else if (xt == DType::UInt8)
          q = static_cast<const uint8_t*>(xm.get_data_handle())[xo];
        else
          q = static_cast<const int32_t*>(xm.get_data_handle())[xo];
        yp[yo] = dequantize_value(q, sv[static_cast<size_t>(c)], zv[static_cast<size_t>(c)]);
      }
    });
  }
};

Engine::Engine(const graph::Graph& g, const EngineOptions& options)
    : impl_(std::make_unique<Impl>()) {
  if (options.threads < 1) throw user_error("threads must be >= 1, got ", options.threads);
  // Every tensor is allocated up front: sizes beyond the stated limit are a UserError here, not
  // std::bad_alloc or a oneDNN failure later.
  for (const auto& [name, info] : g.values)
    if (info.shape && graph::element_count(*info.shape) >= 0)
      (void)checked_elements(*info.shape, kMaxTensorElements, "tensor '" + name + "'");
  Impl& m = *impl_;
  m.g = &g;
  m.opt = options;
  omp_set_num_threads(options.threads);
  m.inputs_ = g.inputs;
  for (const std::string& in : g.inputs) {
    const graph::TensorInfo* ti = g.info(in);
    if (!ti || !ti->shape || graph::element_count(*ti->shape) < 0)
      throw user_error("graph input '", in, "' has no fully known shape");
    Buf b{ti->dtype, *ti->shape, plain_md(*ti->shape, dnnl_type(ti->dtype)), {}};
    b.mem = m.alloc(b.md);
    m.bufs[in] = b;
  }
  std::set<std::string>& taken = m.taken;
  if (options.backend) {
    for (std::string& name : options.backend->capability(g)) {
      if (g.node_index(name) < 0)
        throw internal_error("the backend takes node '", name, "', which the graph does not have");
      taken.insert(std::move(name));
    }
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (const std::string& in : g.nodes[i].inputs)
      if (!in.empty()) {
        m.last_read[in] = static_cast<int>(i);
        m.readers[in].push_back(static_cast<int>(i));
      }
  for (const std::string& o : g.outputs) m.last_read[o] = INT_MAX;
  m.ops.reserve(g.nodes.size());
  int& index = m.index;
  for (const graph::Node& n : g.nodes) {
    m.ops.push_back({{n.name, n.op_type, "", m.threads_for(n), ""}, {}});
    m.cur = &m.ops.back();
    m.node = &n;
    // oneDNN sizes a kernel's work split and scratchpad for the threads at its creation.
    omp_set_num_threads(m.cur->info.threads);
    try {
      if (auto f = m.fused_away.find(index); f != m.fused_away.end())
        m.fused_node(f->second);
      else if (taken.count(n.name))
        m.backend_node(*options.backend);
      else
        m.compile_node();
    } catch (const dnnl::error& e) {
      throw user_error("node '", n.name, "' (", n.op_type,
                       "): oneDNN cannot create a kernel: ", e.what());
    }
    if (m.cur->info.impl.empty()) m.cur->info.impl = "none";
    if (auto b = m.bufs.find(n.outputs.empty() ? "" : n.outputs[0]); b != m.bufs.end())
      m.cur->info.layout = layout_name(b->second);
    m.infos.push_back(m.cur->info);
    m.release_dead(index++);
  }
  omp_set_num_threads(options.threads);
  m.scratch_storage.assign(m.scratch_size + 64, 0);
  void* aligned = m.scratch_storage.data() +
                  (64 - reinterpret_cast<uintptr_t>(m.scratch_storage.data()) % 64) % 64;
  for (memory& s : m.scratch_users) s.set_data_handle(aligned);
  m.g = nullptr;  // the graph is not needed after compilation
  m.node = nullptr;
  for (const std::string& o : g.outputs)
    if (!m.bufs.count(o)) throw user_error("graph output '", o, "' is not produced");
  m.outputs_ = g.outputs;
}

Engine::~Engine() = default;
Engine::Engine(Engine&&) noexcept = default;

bool Engine::executes(const graph::Node& n) {
  return Impl::runs(n, ops::find(n.op_type));
}

std::vector<std::string> unsupported_operators(const graph::Graph& g) {
  std::vector<std::string> out;
  for (const graph::Node& n : g.nodes) {
    if (Engine::executes(n)) continue;
    out.push_back("node '" + n.name + "' (" + (n.domain.empty() ? "" : n.domain + ".") + n.op_type +
                  ", opset " + std::to_string(g.opset) + ")");
  }
  return out;
}
Engine& Engine::operator=(Engine&&) noexcept = default;

void Engine::set_inputs(const TensorMap& inputs) {
  Impl& m = *impl_;
  for (const auto& [name, t] : inputs) {
    auto it = m.bufs.find(name);
    if (it == m.bufs.end() ||
        std::find(m.inputs_.begin(), m.inputs_.end(), name) == m.inputs_.end())
      throw user_error("input '", name, "' is not an input of the model");
    const Buf& b = it->second;
    if (t.dtype != b.dtype || t.shape != b.shape)
      throw user_error("input '", name, "': expected ", graph::dtype_name(b.dtype), " ",
                       graph::shape_str(b.shape), ", got ", graph::dtype_name(t.dtype), " ",
                       graph::shape_str(t.shape));
    HETCIM_ASSERT(t.bytes.size() == b.md.get_size(), "input size");
    std::memcpy(b.mem.get_data_handle(), t.bytes.data(), t.bytes.size());
  }
  for (const std::string& in : m.inputs_)
    if (!inputs.count(in)) throw user_error("input '", in, "' is missing");
}

void Engine::execute() {
  Impl& m = *impl_;
  int threads = 0;
  for (Op& op : m.ops) {
    if (op.info.threads != threads) omp_set_num_threads(threads = op.info.threads);
    for (auto& s : op.steps) s();
  }
  m.strm.wait();
  omp_set_num_threads(m.opt.threads);
}

void Engine::execute_timed(std::vector<double>& seconds) {
  Impl& m = *impl_;
  seconds.assign(m.ops.size(), 0.0);
  using clock = std::chrono::steady_clock;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    omp_set_num_threads(m.ops[i].info.threads);
    const auto t0 = clock::now();
    for (auto& s : m.ops[i].steps) s();
    m.strm.wait();
    seconds[i] = std::chrono::duration<double>(clock::now() - t0).count();
  }
  omp_set_num_threads(m.opt.threads);
}

Tensor Engine::read(const std::string& tensor) const {
  const Impl& m = *impl_;
  auto it = m.bufs.find(tensor);
  if (it == m.bufs.end()) throw user_error("tensor '", tensor, "' is not computed by the engine");
  if (m.released.count(tensor))
    throw internal_error("tensor '", tensor,
                         "' is an intermediate whose bytes later tensors reuse; build the engine "
                         "with EngineOptions::keep_intermediates to read it");
  const Buf& b = it->second;
  Tensor t = Tensor::zeros(b.dtype, b.shape);
  const memory::desc plain = plain_md(b.shape, b.md.data_type());
  if (b.md == plain) {
    std::memcpy(t.bytes.data(), b.mem.get_data_handle(), t.bytes.size());
    return t;
  }
  memory dst(plain, m.eng, t.bytes.data());
  memory src = b.mem;
  dnnl::stream s(m.eng);
  dnnl::reorder(src, dst).execute(s, src, dst);
  s.wait();
  return t;
}

TensorMap Engine::outputs() const {
  TensorMap out;
  for (const std::string& o : impl_->outputs_) out[o] = read(o);
  return out;
}

TensorMap Engine::run(const TensorMap& inputs) {
  set_inputs(inputs);
  execute();
  return outputs();
}

const std::vector<OpInfo>& Engine::ops() const {
  return impl_->infos;
}
int Engine::threads() const {
  return impl_->opt.threads;
}

bool int8_weight_halves() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2_vnni:
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx:
      return false;  // vpdpbusd widens every product to int32
    default:
      return true;
  }
}

std::string onednn_description() {
  const dnnl_version_t* v = dnnl_version();
  std::string isa;
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41:
      isa = "sse41";
      break;
    case dnnl::cpu_isa::avx:
      isa = "avx";
      break;
    case dnnl::cpu_isa::avx2:
      isa = "avx2";
      break;
    case dnnl::cpu_isa::avx2_vnni:
      isa = "avx2_vnni";
      break;
    case dnnl::cpu_isa::avx512_core:
      isa = "avx512_core";
      break;
    case dnnl::cpu_isa::avx512_core_vnni:
      isa = "avx512_core_vnni";
      break;
    case dnnl::cpu_isa::avx512_core_bf16:
      isa = "avx512_core_bf16";
      break;
    case dnnl::cpu_isa::avx512_core_amx:
      isa = "avx512_core_amx";
      break;
    default:
      isa = "other";
      break;
  }
  const char* rt = v->cpu_runtime == DNNL_RUNTIME_OMP   ? "OpenMP"
                   : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                                                        : "sequential";
  std::string out = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                    std::to_string(v->patch) + " (" + rt + " runtime, ISA " + isa + ")";
  if (int8_weight_halves()) out += "; int8 as weight halves (no VNNI)";
  if (v->cpu_runtime == DNNL_RUNTIME_OMP) out += "; OpenMP spin-wait " + openmp_wait_description();
  return out;
}

}  // namespace hetcim::exec
