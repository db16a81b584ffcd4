// What the oneDNN engine (engine.h) gives an operator family's kernel compiler: the graph and the
// node being compiled, the dnnl engine and stream, the tensors' buffers and layouts, activation
// memory by lifetime (arena.h), the fused plan's queries, and the step list of the node's
// operator. Internal to hetcim_exec: the families (exec/families/) and engine.cpp include it.
//
// The engine owns memory planning, fusion and scheduling (this context's methods, engine.cpp); a
// family (families/families.h) owns its operators' semantics and reaches buffers only through
// buf/get/output/output_alias/node_temp, so every byte stays planned by the arena.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "exec/arena.h"
#include "exec/engine.h"
#include "exec/op_params.h"
#include "exec/tensor.h"
#include "graph/graph.h"
#include "graph/node_errors.h"
#include "ops/kernel.h"

namespace hetcim::exec::native {

using dnnl::memory;
using graph::DType;
using graph::Shape;
using dt = memory::data_type;
using tag = memory::format_tag;

[[noreturn]] inline void fail(const graph::Node& n, const std::string& what) {
  throw graph::node_error(n, what);
}

// ---- memory descriptors -------------------------------------------------------------------
// oneDNN's type of a tensor dtype; a UserError (naming n when given) for dtypes it has none of.
dt dnnl_type(DType t, const graph::Node* n = nullptr);
memory::dims dims_of(const Shape& s);
std::vector<int64_t> row_major_strides(const Shape& s);
memory::desc plain_md(const Shape& s, dt t);
memory::desc nhwc_md(const Shape& s, dt t);  // rank 4
bool is_strided(const memory::desc& md);     // dense strides, no inner blocks
std::vector<int64_t> md_strides(const memory::desc& md);
bool is_plain(const memory::desc& md, const Shape& s);
// Strides that view a tensor of shape `from` with strides `st` as shape `to` without moving
// bytes (NumPy's no-copy reshape: every group of dimensions that maps onto another must be
// contiguous within itself), or none. Same element count, no zero-size dimension.
std::optional<std::vector<int64_t>> reshape_strides(const Shape& from,
                                                    const std::vector<int64_t>& st,
                                                    const Shape& to);
// A dense strided md for `s` with the same dimension order as `like` (strided, same rank), or
// row-major.
memory::desc like_md(const memory::desc& like, const Shape& s, dt t);
// An md for `s` in the channel-blocked layout of `like` (aBc8b, aBcd16b, aBcde8b, ...: one inner
// block of dimension 1, the outer dimensions in order), or none when `like` is not one of those.
std::optional<memory::desc> channel_blocked_like(const memory::desc& like, const Shape& s, dt t);

// The element count / dimension `axis` (< 0: from the end) of tensor t as the graph records it,
// or -1 when not known.
int64_t known_count(const graph::Graph& g, const std::string& t);
int64_t known_dim(const graph::Graph& g, const std::string& t, int64_t axis);

// ---- the engine's per-tensor and per-operator records ----------------------------------------
struct Buf {
  DType dtype = DType::Float32;
  Shape shape;
  memory::desc md;
  memory mem;
};

struct Op {
  OpInfo info;
  std::vector<std::function<void()>> steps;
};

struct Converted {
  std::string tensor;
  memory::desc md;
  memory mem;
};

struct EngineContext {
  const graph::Graph* g = nullptr;
  EngineOptions opt;
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  std::map<std::string, Buf> bufs;
  std::vector<Converted> converted;
  std::vector<memory> scratch_users;
  size_t scratch_size = 0;
  Op* cur = nullptr;                  // the operator being compiled: its steps and OpInfo
  const graph::Node* node = nullptr;  // ... and its node
  std::vector<std::unique_ptr<ops::Constant>> host_constants;  // constants portable kernels hold
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

  // ---- the node's operands ------------------------------------------------------------------
  const Shape& shape(const std::string& t) const;
  DType dtype(const std::string& t) const;
  const graph::Initializer* init(const std::string& t) const;
  Tensor constant(const std::string& t) const;  // UserError unless t is a constant
  float scalar_f(size_t input) const;           // input `input` of the node: a constant scalar
  int32_t scalar_zp(size_t input) const;        // ... a zero point (absent: 0)
  std::vector<float> per_channel(size_t input, int64_t count) const;  // 1 or count values
  std::vector<int32_t> per_channel_zp(size_t input, int64_t count) const;

  // ---- memory planning (arena.h) ------------------------------------------------------------
  memory alloc(const memory::desc& md);  // zeroed, owned by the engine for its lifetime
  // The buffer of activation t (not a constant): from the arena, given back after t's last reader.
  memory activation(const std::string& t, const memory::desc& md);
  int last_reader(const std::string& t) const;
  // After node i is compiled: the regions of tensors nobody reads after node i go back to the
  // arena, so the outputs of later nodes reuse them.
  void release_dead(int i);
  memory const_memory(const Tensor& t, const memory::desc& md);
  memory scalar_s32(int32_t v);
  void reorder_now(const memory& src, const memory& dst);
  // A buffer only the current node's steps use: the arena gives it back once the node is compiled.
  memory node_temp(const memory::desc& md);

  // ---- tensors and layouts ------------------------------------------------------------------
  // The buffer of tensor t (a graph input, an earlier output, or a constant made on demand).
  Buf& buf(const std::string& t);
  // Tensor t in layout `want`: the buffer itself, or a converted copy made by a reorder that runs
  // in the first operator that needs it (constants convert once, at compile time).
  memory get(const std::string& t, const memory::desc& want);
  // Tensor t in a strided (non-blocked) layout: as it is if strided, else row-major.
  memory get_strided(const std::string& t, memory::desc* md_out = nullptr);
  memory get_plain(const std::string& t);
  memory& output(const std::string& t, const memory::desc& md, DType type);
  // t reads `handle`'s bytes (an owner's buffer): the owner's region lives until t's last reader.
  memory& output_alias(const std::string& t, const memory::desc& md, DType type, void* handle);

  // ---- oneDNN primitives --------------------------------------------------------------------
  void add_scratchpad(const dnnl::primitive_desc_base& pd, std::unordered_map<int, memory>& args);
  dnnl::primitive_attr base_attr() const;  // user scratchpad
  // A step running p; the node's impl becomes pd's implementation name (+ what was there).
  void add_primitive(const dnnl::primitive& p, std::unordered_map<int, memory> args,
                     const dnnl::primitive_desc_base& pd);
  static void post_activation(dnnl::post_ops& po, const Activation& a, float scale_div = 1.0f);
  // oneDNN adds the destination zero point to the scaled float value and rounds the sum; ONNX
  // rounds first and adds the zero point after. A round-half-to-even post-op before the zero point
  // makes the sum an exact integer, so both agree bit for bit (zero point 0 needs nothing).
  static void post_round(dnnl::post_ops& po, int32_t zy);

  // ---- the fused plan (EngineOptions::fuse) -------------------------------------------------
  bool fusing() const { return opt.fuse && !opt.keep_intermediates; }
  bool graph_output(const std::string& t) const;
  // True when t is no graph output and every node reading it takes an input in any dense
  // strided layout at no extra cost (its family says so: NativeFamily::reads_strided), so a
  // layout change or reshape producing t can alias its input's bytes instead of reordering.
  bool readers_take_strided(const std::string& t) const;
  int sole_reader(const std::string& t) const;  // the one node reading t (no graph output), or -1
  // Node j, when a later node the engine itself compiles (no backend's); the same, of the
  // default ONNX domain (an Add is ONNX's Add).
  const graph::Node* later_node(int j) const;
  const graph::Node* later_host_node(int j) const;
  // The Add that Conv output y (of the node being compiled) can join as the convolution's sum
  // post-op, or -1; `s` is its other operand, whose buffer the convolution then overwrites. So s
  // must be a float activation in the arena of y's shape, and no tensor sharing its bytes (s, its
  // owner, the aliases made by reshapes) may be read from this node on except s by the Add: not
  // by this convolution (in place), not between it and the Add, not after the Add, not as a graph
  // output.
  int residual_add(const std::string& y, std::string& s);
  // The Mul(x, s) (either operand order, no broadcast) that s = Sigmoid(x) of the node being
  // compiled feeds alone, or -1. Float: the pair is then one SiLU kernel writing the Mul's output
  // (which applies no fused activation). Quantized (QLinearSigmoid, QLinearMul): the Mul's output
  // is a function of one byte of x, one table (its kernels' exact arithmetic, a fused Relu/Clip
  // included, on the sigmoid's table).
  int silu_mul(const std::string& x, const std::string& s, bool quantized);
  // The Add(y, bias) (either operand order) that the float MatMul output y of the node being
  // compiled feeds alone, `bias` a constant of N values along the last axis (a Linear layer's
  // bias, which torch exports as MatMul + Add), or -1. The product then adds it as oneDNN's bias
  // (one rounding, as the Add did) with the Add's fused Relu/Clip as post-op, writing the Add's
  // output.
  int matmul_bias(const std::string& y, int64_t N, std::string& bias);
  // The Relu reading nothing but the node's float output y (DenseNet's BN -> Relu), or -1.
  int sole_relu(const std::string& y) const;
};

}  // namespace hetcim::exec::native
