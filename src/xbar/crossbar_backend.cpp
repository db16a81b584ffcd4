#include "xbar/crossbar_backend.h"

#include <algorithm>
#include <memory>

#include "exec/op_params.h"
#include "ops/registry.h"
#include "util/error.h"
#include "xbar/layout.h"

namespace hetcim::xbar {
namespace {

// The digital periphery of one analog node: bias (Gemm: times beta) and the fused activation,
// with AnalogGraph's arithmetic (v + scale * bias, then the activation) so both give equal bytes.
// The simulator runs it in its ADC pass (ProgrammedLayer's OutputEpilogue) on the scaled bias
// scale * bias, the same float product, while the outputs are in cache.
struct Epilogue {
  std::vector<float> shift;  // scale * bias per output column (empty: none)
  OutputEpilogue out;        // its span points into shift: keep the object where it was made
};

std::shared_ptr<const Epilogue> epilogue_of(const graph::Graph& g, const graph::Node& n,
                                            int64_t cols) {
  auto e = std::make_shared<Epilogue>();
  const exec::Activation act = exec::fused_activation(n);
  switch (act.kind) {
    case exec::Activation::None:
      e->out.act = OutputEpilogue::Act::None;
      break;
    case exec::Activation::Relu:
      e->out.act = OutputEpilogue::Act::Relu;
      break;
    case exec::Activation::Clip:
      e->out.act = OutputEpilogue::Act::Clip;
      break;
  }
  e->out.lo = act.lo;
  e->out.hi = act.hi;
  const std::optional<size_t> at = ops::weighted_operands(n.op_type).value().bias;
  if (!at || !exec::has_input(n, *at)) return e;
  std::vector<float> bias = exec::const_floats(g, n, *at, "bias");
  const float scale = ops::gemm_view(n) == ops::GemmView::Gemm
                          ? static_cast<float>(n.attr_float("beta", 1.0))
                          : 1.0f;
  if (bias.size() == 1) bias.assign(static_cast<size_t>(cols), bias[0]);
  if (static_cast<int64_t>(bias.size()) != cols)
    throw user_error("node '", n.name, "': analog execution supports a bias of ", cols,
                     " values (one per output) or a scalar, got ", bias.size());
  e->shift.resize(bias.size());
  for (size_t c = 0; c < bias.size(); ++c) e->shift[c] = scale * bias[c];
  e->out.shift = e->shift;
  return e;
}

}  // namespace

CrossbarBackend::CrossbarBackend(Chip chip, std::vector<std::string> nodes, uint64_t read_seed)
    : chip_(std::move(chip)), nodes_(std::move(nodes)), read_rng_(read_seed) {}

std::vector<std::string> CrossbarBackend::capability(const graph::Graph& g) {
  ModelLayers layers = crossbar_layers(g);
  std::map<std::string, CrossbarMatrix> mappable;
  for (CrossbarMatrix& m : layers.mapped) mappable.emplace(m.node, std::move(m));
  pending_.clear();
  std::vector<std::string> out;
  for (const std::string& name : nodes_) {
    const int index = g.node_index(name);
    if (index < 0)
      throw user_error("model '", g.name, "': no node '", name, "' to run on the chip");
    const graph::Node& n = g.nodes[static_cast<size_t>(index)];
    auto it = mappable.find(name);
    if (it == mappable.end())
      throw user_error("model '", g.name, "': node '", name, "' (", n.op_type,
                       ") cannot run on a crossbar: expected a Conv (groups = 1), Gemm or MatMul "
                       "with constant weights");
    if (ops::gemm_view(n) == ops::GemmView::Gemm && n.attr_int("transA", 0) != 0)
      throw user_error("node '", name, "': analog Gemm needs transA = 0");
    if (pending_.count(name)) continue;
    pending_.emplace(name, std::move(it->second));
    mappable.erase(it);
    out.push_back(name);
  }
  return out;
}

exec::BackendKernel CrossbarBackend::compile(const graph::Graph& g, const graph::Node& n) {
  auto it = pending_.find(n.name);
  HETCIM_ASSERT(it != pending_.end(), "compile of node '", n.name, "' outside the capability");
  const CrossbarMatrix m = std::move(it->second);
  pending_.erase(it);
  auto layer = std::make_shared<const ProgrammedLayer>(
      chip_.program(n.name, m.weights.data(), m.rows, m.cols));
  layers_.push_back(layer);
  const int64_t K = m.rows, N = m.cols;
  const std::shared_ptr<const Epilogue> epi = epilogue_of(g, n, N);
  exec::BackendKernel k;
  k.impl = "xbar:" + chip_.profile().name;
  Rng* rng = &read_rng_;
  ForwardStats* stats = &stats_;
  if (ops::gemm_view(n) == ops::GemmView::Conv) {
    const exec::Window2d w = exec::conv_window(g, n, n.inputs[0], n.inputs[1], n.outputs[0]);
    const Conv2dGeometry geo = conv_geometry(w);
    check_geometry(geo);
    HETCIM_ASSERT(geo.patch_size() == K && w.oc == N, "conv crossbar shape of ", n.name);
    const int64_t rows = w.n * w.oh * w.ow;
    k.input_layout = exec::BackendLayout::ChannelsLast;
    k.output_layout = exec::BackendLayout::ChannelsLast;
    // The im2col rows are made chunk by chunk inside the simulator, into a buffer that stays in
    // cache for the DAC (the same bytes as the whole matrix: ProgrammedLayer::forward_rows).
    k.run = [layer, epi, geo, rows, rng, stats](const float* x, float* y) {
      layer->forward_rows([x, &geo](int64_t first, int64_t n,
                                    float* out) { im2col_nhwc_rows(x, geo, first, n, out); },
                          rows, y, *rng, stats, &epi->out);
    };
    return k;
  }
  const graph::TensorInfo* xi = g.info(n.inputs[0]);
  if (xi == nullptr || !xi->shape || graph::element_count(*xi->shape) < 0)
    throw user_error("node '", n.name, "': the shape of its input '", n.inputs[0],
                     "' is not known");
  const graph::Shape& xs = *xi->shape;
  if (xs.size() < 2 || xs.back() != K)
    throw user_error("node '", n.name, "': input ", graph::shape_str(xs), " does not end in ", K,
                     " (the crossbar's rows)");
  const int64_t rows = graph::element_count(xs) / K;
  k.run = [layer, epi, rows, rng, stats](const float* x, float* y) {
    layer->forward(x, rows, y, *rng, stats, &epi->out);
  };
  return k;
}

std::vector<MappingAudit> CrossbarBackend::audits() const {
  std::vector<MappingAudit> out;
  out.reserve(layers_.size());
  for (const auto& l : layers_) out.push_back(l->audit());
  return out;
}

}  // namespace hetcim::xbar
