#include "exec/engine_context.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>

#include "exec/families/families.h"
#include "ops/registry.h"
#include "util/error.h"

namespace hetcim::exec::native {

dt dnnl_type(DType t, const graph::Node* n) {
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

int64_t known_count(const graph::Graph& g, const std::string& t) {
  const graph::TensorInfo* ti = g.info(t);
  return ti && ti->shape ? graph::element_count(*ti->shape) : -1;
}

int64_t known_dim(const graph::Graph& g, const std::string& t, int64_t axis) {
  const graph::TensorInfo* ti = g.info(t);
  if (!ti || !ti->shape || ti->shape->empty()) return -1;
  const auto rank = static_cast<int64_t>(ti->shape->size());
  const int64_t a = axis < 0 ? rank + axis : axis;
  return a >= 0 && a < rank ? (*ti->shape)[static_cast<size_t>(a)] : -1;
}

// ---- the node's operands --------------------------------------------------------------------

const Shape& EngineContext::shape(const std::string& t) const {
  return known_shape(*g, *node, t);
}

DType EngineContext::dtype(const std::string& t) const {
  const graph::TensorInfo* ti = g->info(t);
  if (!ti) fail(*node, "the dtype of tensor '" + t + "' is not known");
  return ti->dtype;
}

const graph::Initializer* EngineContext::init(const std::string& t) const {
  auto it = g->initializers.find(t);
  return it == g->initializers.end() ? nullptr : &it->second;
}

Tensor EngineContext::constant(const std::string& t) const {
  const graph::Initializer* i = init(t);
  if (!i) fail(*node, "operand '" + t + "' must be a constant");
  return Tensor::from_initializer(*i, t);
}

float EngineContext::scalar_f(size_t input) const {
  const Tensor t = constant(node->inputs.at(input));
  if (t.numel() != 1) fail(*node, "input " + std::to_string(input) + " must be a scalar");
  return static_cast<float>(t.at(0));
}

int32_t EngineContext::scalar_zp(size_t input) const {
  if (!has_input(*node, input)) return 0;
  const Tensor t = constant(node->inputs[input]);
  if (t.numel() != 1) fail(*node, "input " + std::to_string(input) + " must be a scalar");
  return static_cast<int32_t>(t.at(0));
}

std::vector<float> EngineContext::per_channel(size_t input, int64_t count) const {
  const Tensor t = constant(node->inputs.at(input));
  if (t.numel() == 1)
    return std::vector<float>(static_cast<size_t>(count), static_cast<float>(t.at(0)));
  if (t.numel() != count)
    fail(*node,
         "input " + std::to_string(input) + " must have 1 or " + std::to_string(count) + " values");
  return t.floats();
}

std::vector<int32_t> EngineContext::per_channel_zp(size_t input, int64_t count) const {
  std::vector<int32_t> out(static_cast<size_t>(count), 0);
  if (!has_input(*node, input)) return out;
  const Tensor t = constant(node->inputs[input]);
  if (t.numel() != 1 && t.numel() != count)
    fail(*node, "zero point must have 1 or " + std::to_string(count) + " values");
  for (int64_t k = 0; k < count; ++k)
    out[static_cast<size_t>(k)] = static_cast<int32_t>(t.at(t.numel() == 1 ? 0 : k));
  return out;
}

// ---- memory planning ------------------------------------------------------------------------

memory EngineContext::alloc(const memory::desc& md) {
  memory m(md, eng);
  std::memset(m.get_data_handle(), 0, md.get_size());
  return m;
}

memory EngineContext::activation(const std::string& t, const memory::desc& md) {
  if (opt.keep_intermediates) return alloc(md);
  void* p = arena.allocate(md.get_size());
  owned[t].push_back(p);
  return memory(md, eng, p);
}

int EngineContext::last_reader(const std::string& t) const {
  auto it = last_read.find(t);
  return it == last_read.end() ? -1 : it->second;  // never read: dead once produced
}

// A node's outputs never share its inputs' bytes: these are given back only after its outputs
// were placed.
void EngineContext::release_dead(int i) {
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

memory EngineContext::const_memory(const Tensor& t, const memory::desc& md) {
  memory m = alloc(md);
  HETCIM_ASSERT(md.get_size() == t.bytes.size(), "const_memory size");
  std::memcpy(m.get_data_handle(), t.bytes.data(), t.bytes.size());
  return m;
}

memory EngineContext::scalar_s32(int32_t v) {
  memory m = alloc(memory::desc({1}, dt::s32, tag::x));
  *static_cast<int32_t*>(m.get_data_handle()) = v;
  return m;
}

void EngineContext::reorder_now(const memory& src, const memory& dst) {
  dnnl::reorder(src, dst).execute(strm, const_cast<memory&>(src), const_cast<memory&>(dst));
  strm.wait();
}

memory EngineContext::node_temp(const memory::desc& md) {
  if (opt.keep_intermediates) return alloc(md);
  void* p = arena.allocate(md.get_size());
  owned[std::string(1, '\x01') + node->name + "#" + std::to_string(owned.size())].push_back(p);
  return memory(md, eng, p);
}

// ---- tensors and layouts --------------------------------------------------------------------

Buf& EngineContext::buf(const std::string& t) {
  if (auto it = bufs.find(t); it != bufs.end()) return it->second;
  const graph::Initializer* i = init(t);
  if (!i) fail(*node, "tensor '" + t + "' is used before it is computed");
  Tensor v = Tensor::from_initializer(*i, t);
  Buf b{v.dtype, v.shape, plain_md(v.shape, dnnl_type(v.dtype, node)), {}};
  b.mem = const_memory(v, b.md);
  return bufs[t] = b;
}

memory EngineContext::get(const std::string& t, const memory::desc& want) {
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

memory EngineContext::get_strided(const std::string& t, memory::desc* md_out) {
  Buf& b = buf(t);
  memory::desc want = is_strided(b.md) ? b.md : plain_md(b.shape, b.md.data_type());
  if (md_out) *md_out = want;
  return get(t, want);
}

memory EngineContext::get_plain(const std::string& t) {
  Buf& b = buf(t);
  return get(t, plain_md(b.shape, b.md.data_type()));
}

memory& EngineContext::output(const std::string& t, const memory::desc& md, DType type) {
  Buf b{type, shape(t), md, activation(t, md)};
  return (bufs[t] = b).mem;
}

memory& EngineContext::output_alias(const std::string& t, const memory::desc& md, DType type,
                                    void* handle) {
  for (auto& [owner, regions] : owned)
    if (std::find(regions.begin(), regions.end(), handle) != regions.end()) {
      last_read[owner] = std::max(last_reader(owner), last_reader(t));
      aliases[owner].push_back(t);
    }
  Buf b{type, shape(t), md, memory(md, eng, handle)};
  return (bufs[t] = b).mem;
}

// ---- oneDNN primitives ----------------------------------------------------------------------

void EngineContext::add_scratchpad(const dnnl::primitive_desc_base& pd,
                                   std::unordered_map<int, memory>& args) {
  const memory::desc sd = pd.scratchpad_desc();
  if (sd.get_size() == 0) return;
  memory m(sd, eng, DNNL_MEMORY_NONE);
  scratch_users.push_back(m);
  scratch_size = std::max(scratch_size, sd.get_size());
  args[DNNL_ARG_SCRATCHPAD] = m;
}

dnnl::primitive_attr EngineContext::base_attr() const {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void EngineContext::add_primitive(const dnnl::primitive& p, std::unordered_map<int, memory> args,
                                  const dnnl::primitive_desc_base& pd) {
  add_scratchpad(pd, args);
  cur->steps.push_back([this, p, args]() { p.execute(strm, args); });
  const std::string impl = pd.impl_info_str();
  cur->info.impl = cur->info.impl.empty() ? impl : impl + cur->info.impl;
}

void EngineContext::post_activation(dnnl::post_ops& po, const Activation& a, float scale_div) {
  if (a.kind == Activation::Relu)
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  if (a.kind == Activation::Clip)
    po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, a.lo / scale_div, a.hi / scale_div);
}

void EngineContext::post_round(dnnl::post_ops& po, int32_t zy) {
  if (zy != 0) po.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
}

// ---- the fused plan -------------------------------------------------------------------------

bool EngineContext::graph_output(const std::string& t) const {
  return last_reader(t) == INT_MAX;
}

bool EngineContext::readers_take_strided(const std::string& t) const {
  auto it = readers.find(t);
  if (it == readers.end() || it->second.empty() || graph_output(t)) return false;
  for (int k : it->second) {
    const graph::Node* r = later_node(k);
    const NativeFamily* f = r ? native_family(*r) : nullptr;
    if (!f || !f->reads_strided || !f->reads_strided(*r)) return false;
  }
  return true;
}

int EngineContext::sole_reader(const std::string& t) const {
  auto it = readers.find(t);
  if (it == readers.end() || it->second.empty() || graph_output(t)) return -1;
  for (int k : it->second)
    if (k != it->second[0]) return -1;
  return it->second[0];
}

const graph::Node* EngineContext::later_node(int j) const {
  if (j <= index || j >= static_cast<int>(g->nodes.size())) return nullptr;
  const graph::Node& n = g->nodes[static_cast<size_t>(j)];
  return taken.count(n.name) ? nullptr : &n;
}

const graph::Node* EngineContext::later_host_node(int j) const {
  const graph::Node* n = later_node(j);
  return n && n->domain.empty() ? n : nullptr;
}

int EngineContext::residual_add(const std::string& y, std::string& s) {
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

int EngineContext::silu_mul(const std::string& x, const std::string& s, bool quantized) {
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

int EngineContext::matmul_bias(const std::string& y, int64_t N, std::string& bias) {
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

int EngineContext::sole_relu(const std::string& y) const {
  const int j = fusing() ? sole_reader(y) : -1;
  const graph::Node* relu = later_host_node(j);
  const bool ok = relu && relu->op_type == "Relu" && relu->outputs.size() == 1 &&
                  g->info(relu->outputs[0]) && g->info(relu->outputs[0])->dtype == DType::Float32;
  return ok ? j : -1;
}

}  // namespace hetcim::exec::native
