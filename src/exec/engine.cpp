#include "exec/engine.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <memory>
#include <oneapi/dnnl/dnnl.hpp>
#include <set>

#include "exec/engine_context.h"
#include "exec/families/families.h"
#include "exec/families/int8_one_pass.h"
#include "ops/registry.h"
#include "util/error.h"
#include "util/limits.h"
#include "util/omp_wait.h"

namespace hetcim::exec {
namespace {

using native::Buf;
using native::fail;
using native::memory;
using native::Op;
using native::plain_md;
using dt = memory::data_type;

// OpInfo::layout of a buffer.
std::string layout_name(const Buf& b) {
  if (native::is_plain(b.md, b.shape)) return "row-major";
  if (b.shape.size() == 4 && b.md == native::nhwc_md(b.shape, b.md.data_type()))
    return "channels-last";
  return native::is_strided(b.md) ? "strided" : "blocked";
}

}  // namespace

// The engine: the context the families compile into (buffers, memory planning, the fused plan)
// plus the schedule (the operators' steps in graph order, their threads) and the dispatch of each
// node to its family, a backend, or the node whose kernel did its work.
struct Engine::Impl : native::EngineContext {
  std::vector<Op> ops;
  std::vector<uint8_t> scratch_storage;
  std::vector<OpInfo> infos;
  std::vector<std::string> inputs_, outputs_;

  // Node n's work: its multiply-accumulates for a convolution or matrix product (its family's
  // macs_per_output), 16 per output element for anything else (a streaming kernel's time per
  // element is about that of 16 MACs); -1 when a shape it needs is not known.
  int64_t work_of(const graph::Node& n) const {
    if (n.outputs.empty() || n.outputs[0].empty()) return -1;
    const int64_t out = native::known_count(*g, n.outputs[0]);
    if (out < 0) return -1;
    const native::NativeFamily* f = native::native_family(n);
    const int64_t per = f && f->macs_per_output ? f->macs_per_output(*g, n) : 16;
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

  // A node whose work an earlier kernel did: no steps; its output aliases the buffer that kernel
  // wrote (the residual Add) or was already placed (SiLU's Mul).
  void fused_node(const FusedAway& f) {
    const graph::Node& n = *node;
    if (!f.alias_of.empty()) {
      const Buf& sb = bufs.at(f.alias_of);
      output_alias(n.outputs.at(0), sb.md, graph::DType::Float32, sb.mem.get_data_handle());
    }
    cur->info.impl = "fused into '" + f.into + "'";
  }

  // A node the engine runs: its family's native kernel (families/families.h) or, for a family
  // living in src/ops, that portable kernel.
  void compile_node() {
    const graph::Node& n = *node;
    if (!native::runs(n))
      fail(n, "unsupported operator '" + n.op_type + "'" +
                  (n.domain.empty() ? "" : " (domain " + n.domain + ")") + " at opset " +
                  std::to_string(g->opset) + " (hetcim run cannot execute it)");
    if (const native::NativeFamily* f = native::native_family(n)) return f->compile(*this, n);
    native::compile_portable(*this, n, *ops::find(n.op_type));
  }

  // A node a backend takes: its kernel on the engine's buffers, input and output in the layouts
  // it asks for (reorders as for any primitive).
  void backend_node(Backend& backend) {
    const graph::Node& n = *node;
    if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() || n.outputs[0].empty())
      fail(n, "a backend node needs an input 0 and an output 0");
    const std::string& x = n.inputs[0];
    const std::string& y = n.outputs[0];
    if (dtype(x) != graph::DType::Float32 || dtype(y) != graph::DType::Float32)
      fail(n, "a backend node reads and writes float32 tensors");
    BackendKernel k = backend.compile(*g, n);
    if (!k.run) fail(n, "the backend returned no kernel");
    const auto md_of = [&](const std::string& t, BackendLayout l) {
      const graph::Shape& s = shape(t);
      if (l == BackendLayout::ChannelsLast) {
        if (s.size() != 4) fail(n, "channels-last layout for tensor '" + t + "' of rank != 4");
        return native::nhwc_md(s, dt::f32);
      }
      return plain_md(s, dt::f32);
    };
    memory in = get(x, md_of(x, k.input_layout));
    memory out = output(y, md_of(y, k.output_layout), graph::DType::Float32);
    auto run = std::move(k.run);
    cur->steps.push_back([run, in, out] {
      run(static_cast<const float*>(in.get_data_handle()),
          static_cast<float*>(out.get_data_handle()));
    });
    cur->info.impl = k.impl + cur->info.impl;
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
    Buf b{ti->dtype, *ti->shape, plain_md(*ti->shape, native::dnnl_type(ti->dtype)), {}};
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
  return native::runs(n);
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
  if (int8_weight_halves())
    out += native::int8_one_pass()
               ? "; int8 in one exact pass by hetcim's vpmaddwd kernels (no VNNI)"
               : "; int8 as weight halves (no VNNI)";
  if (v->cpu_runtime == DNNL_RUNTIME_OMP) out += "; OpenMP spin-wait " + openmp_wait_description();
  return out;
}

}  // namespace hetcim::exec
