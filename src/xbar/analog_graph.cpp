#include "xbar/analog_graph.h"

#include <algorithm>
#include <map>
#include <set>

#include "exec/op_params.h"
#include "ops/registry.h"
#include "util/error.h"
#include "xbar/layout.h"
#include "xbar/model_layers.h"

namespace hetcim::xbar {
namespace {

// The digital subgraph of nodes [begin, end): its inputs are the non-constant tensors it reads but
// does not produce, its outputs the tensors it produces that later nodes or the graph need.
graph::Graph segment_of(const graph::Graph& g, size_t begin, size_t end) {
  graph::Graph s;
  s.name = g.name + "/segment" + std::to_string(begin);
  s.opset = g.opset;
  std::set<std::string> produced;
  std::set<std::string> inputs;
  for (size_t i = begin; i < end; ++i) {
    const graph::Node& n = g.nodes[i];
    for (const std::string& t : n.inputs) {
      if (t.empty()) continue;
      if (g.is_initializer(t)) {
        s.initializers[t] = g.initializers.at(t);
      } else if (!produced.count(t) && inputs.insert(t).second) {
        s.inputs.push_back(t);
      }
    }
    for (const std::string& t : n.outputs)
      if (!t.empty()) produced.insert(t);
    s.nodes.push_back(n);
  }
  std::set<std::string> needed(g.outputs.begin(), g.outputs.end());
  for (size_t i = end; i < g.nodes.size(); ++i)
    for (const std::string& t : g.nodes[i].inputs) needed.insert(t);
  for (size_t i = begin; i < end; ++i)
    for (const std::string& t : g.nodes[i].outputs)
      if (!t.empty() && needed.count(t)) s.outputs.push_back(t);
  for (const auto& [name, info] : g.values)
    if (produced.count(name) || inputs.count(name)) s.values[name] = info;
  return s;
}

std::vector<float> bias_of(const graph::Graph& g, const graph::Node& n, int64_t cols,
                           float& scale) {
  scale = 1.0f;
  const std::optional<size_t> at = ops::weighted_operands(n.op_type).value().bias;
  if (!at || !exec::has_input(n, *at)) return {};
  std::vector<float> b = exec::const_floats(g, n, *at, "bias");
  if (ops::gemm_view(n) == ops::GemmView::Gemm)
    scale = static_cast<float>(n.attr_float("beta", 1.0));
  if (b.size() == 1) b.assign(static_cast<size_t>(cols), b[0]);
  if (static_cast<int64_t>(b.size()) != cols)
    throw user_error("node '", n.name, "': analog execution supports a bias of ", cols,
                     " values (one per output) or a scalar, got ", b.size());
  return b;
}

}  // namespace

AnalogGraph::AnalogGraph(graph::Graph g, const Chip& chip,
                         const std::vector<std::string>& analog_nodes)
    : g_(std::move(g)) {
  const ModelLayers layers = crossbar_layers(g_);
  std::map<std::string, const CrossbarMatrix*> mappable;
  for (const CrossbarMatrix& m : layers.mapped) mappable[m.node] = &m;
  std::set<size_t> analog;
  for (const std::string& name : analog_nodes) {
    const int index = g_.node_index(name);
    if (index < 0)
      throw user_error("model '", g_.name, "': no node '", name, "' to run on the chip");
    auto it = mappable.find(name);
    if (it == mappable.end())
      throw user_error(
          "model '", g_.name, "': node '", name, "' (",
          g_.nodes[static_cast<size_t>(index)].op_type,
          ") cannot run on a crossbar: expected a Conv (groups = 1), Gemm or MatMul with "
          "constant weights");
    const graph::Node& n = g_.nodes[static_cast<size_t>(index)];
    if (ops::gemm_view(n) == ops::GemmView::Gemm && n.attr_int("transA", 0) != 0)
      throw user_error("node '", name, "': analog Gemm needs transA = 0");
    if (!analog.insert(static_cast<size_t>(index)).second) continue;
    const CrossbarMatrix& m = *it->second;
    AnalogOp op{
        static_cast<size_t>(index), chip.program(name, m.weights.data(), m.rows, m.cols), {}, 1.0f};
    op.bias = bias_of(g_, n, m.cols, op.bias_scale);
    ops_.push_back(std::move(op));
  }
  std::sort(ops_.begin(), ops_.end(),
            [](const AnalogOp& a, const AnalogOp& b) { return a.node < b.node; });
  size_t begin = 0, next_op = 0;
  for (size_t i = 0; i <= g_.nodes.size(); ++i) {
    const bool is_analog = i < g_.nodes.size() && analog.count(i);
    if (i == g_.nodes.size() || is_analog) {
      if (i > begin) steps_.push_back({false, 0, segment_of(g_, begin, i)});
      if (is_analog) steps_.push_back({true, next_op++, {}});
      begin = i + 1;
    }
  }
}

std::vector<MappingAudit> AnalogGraph::audits() const {
  std::vector<MappingAudit> out;
  for (const AnalogOp& op : ops_) out.push_back(op.layer.audit());
  return out;
}

exec::TensorMap AnalogGraph::run(const exec::TensorMap& inputs, Rng& read_rng,
                                 ForwardStats* stats) const {
  exec::check_inputs(g_, inputs);
  exec::TensorMap env = inputs;
  ForwardStats local;
  for (const Step& step : steps_) {
    if (step.analog) {
      run_analog(ops_[step.op], env, read_rng, local);
      continue;
    }
    exec::TensorMap in;
    for (const std::string& t : step.segment.inputs) in[t] = env.at(t);
    for (auto& [name, tensor] : exec::run_reference(step.segment, in))
      env[name] = std::move(tensor);
  }
  if (stats != nullptr) {
    stats->dac_conversions += local.dac_conversions;
    stats->adc_conversions += local.adc_conversions;
    stats->adc_clipped += local.adc_clipped;
  }
  exec::TensorMap out;
  for (const std::string& o : g_.outputs) out[o] = env.at(o);
  return out;
}

void AnalogGraph::run_analog(const AnalogOp& op, exec::TensorMap& env, Rng& read_rng,
                             ForwardStats& stats) const {
  const graph::Node& n = g_.nodes[op.node];
  const exec::Tensor& x = env.at(n.inputs[0]);
  if (x.dtype != graph::DType::Float32)
    throw user_error("node '", n.name, "': analog execution takes float32 inputs, got ",
                     graph::dtype_name(x.dtype));
  const std::vector<float> xf = x.floats();
  const ProgrammedLayer& layer = op.layer;
  const int64_t K = layer.rows(), N = layer.cols();
  const exec::Activation act = exec::fused_activation(n);
  auto epilogue = [&](std::vector<float>& rows) {
    for (size_t i = 0; i < rows.size(); ++i) {
      float v = rows[i];
      if (!op.bias.empty()) v += op.bias_scale * op.bias[i % static_cast<size_t>(N)];
      rows[i] = act.apply(v);
    }
  };
  exec::Tensor y;
  y.dtype = graph::DType::Float32;
  if (ops::gemm_view(n) == ops::GemmView::Conv) {
    const exec::Window2d w = exec::conv_window(g_, n, n.inputs[0], n.inputs[1], n.outputs[0]);
    const Conv2dGeometry geo = conv_geometry(w);
    HETCIM_ASSERT(geo.patch_size() == K && w.oc == N, "conv crossbar shape of ", n.name);
    const std::vector<float> cols = im2col(xf.data(), geo);
    const int64_t rows = w.n * w.oh * w.ow;
    std::vector<float> out(static_cast<size_t>(rows * N));
    layer.forward(cols.data(), rows, out.data(), read_rng, &stats);
    epilogue(out);
    y.shape = {w.n, w.oc, w.oh, w.ow};
    const std::vector<float> nchw = rows_to_nchw(out.data(), w.n, w.oc, w.oh, w.ow);
    y = exec::Tensor::from_floats(y.shape, nchw);
  } else {
    if (x.shape.size() < 2 || x.shape.back() != K)
      throw user_error("node '", n.name, "': input ", graph::shape_str(x.shape),
                       " does not end in ", K, " (the crossbar's rows)");
    const int64_t rows = x.numel() / K;
    std::vector<float> out(static_cast<size_t>(rows * N));
    layer.forward(xf.data(), rows, out.data(), read_rng, &stats);
    epilogue(out);
    graph::Shape s = x.shape;
    s.back() = N;
    y = exec::Tensor::from_floats(s, out);
  }
  env[n.outputs[0]] = std::move(y);
}

}  // namespace hetcim::xbar
