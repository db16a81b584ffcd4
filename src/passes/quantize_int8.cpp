#include "passes/quantize_int8.h"

#include <utility>

#include "ops/registry.h"
#include "passes/quantized_ops.h"
#include "passes/rewrite.h"

namespace hetcim::passes {
namespace {

bool is_float(const graph::Graph& g, const std::string& t) {
  const graph::TensorInfo* ti = g.info(t);
  return ti && (ti->dtype == graph::DType::Float32 || ti->dtype == graph::DType::Float64);
}

}  // namespace

graph::Graph quantize_int8(graph::Graph in) {
  for (const graph::Node& n : in.nodes)
    if (ops::qdq_of(n.op_type) != ops::Qdq::None || is_quantized(in, n)) return in;
  graph::Graph g = std::move(in);
  // 1. Precision per node.
  std::vector<bool> int8(g.nodes.size(), false);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    graph::Node& n = g.nodes[i];
    bool ok = has_int8_kernel(n.op_type);
    for (const std::string& t : n.inputs)  // some float activation input is needed
      ok = ok && (t.empty() || g.is_initializer(t) || is_float(g, t));
    if (!ok) continue;
    int8[i] = true;
    n.attrs["precision"] = std::string("int8");
  }
  // 2. For each activation tensor, the precision it is produced in and the precisions it is read
  // in.
  const auto uses = consumers(g);
  std::vector<graph::Node> added;
  auto add_qdq = [&](bool quantize, const std::string& t, graph::DType out_type) {
    const std::string op = quantize ? "QuantizeLinear" : "DequantizeLinear";
    const std::string base = t + (quantize ? "_quantized" : "_dequantized");
    const std::string out = fresh_name(g, base);
    const std::string scale = fresh_name(g, t + "_scale");
    const std::string zp = fresh_name(g, t + "_zero_point");
    g.initializers[scale] = graph::Initializer::shape_only(graph::DType::Float32, {});
    g.initializers[zp] = graph::Initializer::shape_only(graph::DType::UInt8, {});
    const graph::TensorInfo* ti = g.info(t);
    g.values[out] = {out_type, ti ? ti->shape : std::nullopt};
    added.push_back({fresh_name(g, t + "/" + op), op, "", {t, scale, zp}, {out}, {}});
    // fresh_name consults nodes: make the new node visible to later calls.
    g.nodes.push_back(added.back());
    return out;
  };
  const size_t original = g.nodes.size();
  // Producers of the original nodes' outputs, looked up once each (producer() scans every node).
  const std::unordered_map<std::string, int> producer_of = producers(g);
  auto produced_int8 = [&](const std::string& t) {
    const auto found = producer_of.find(t);
    const int p = found == producer_of.end() ? -1 : found->second;
    return p >= 0 && static_cast<size_t>(p) < original && int8[static_cast<size_t>(p)];
  };
  std::set<std::string> activations(g.inputs.begin(), g.inputs.end());
  for (size_t i = 0; i < original; ++i)
    for (const std::string& o : g.nodes[i].outputs) activations.insert(o);
  for (const std::string& t : activations) {
    if (!is_float(g, t)) continue;
    const bool src_int8 = produced_int8(t);
    std::string converted;  // the tensor in the other precision, created on first need
    auto reader_needs = [&](bool reader_int8) { return reader_int8 != src_int8; };
    auto it = uses.find(t);
    if (it != uses.end()) {
      for (size_t c : it->second) {
        if (c >= original || !reader_needs(int8[c])) continue;
        if (converted.empty())
          converted = src_int8 ? add_qdq(false, t, graph::DType::Float32)
                               : add_qdq(true, t, graph::DType::UInt8);
        for (std::string& x : g.nodes[c].inputs)
          if (x == t) x = converted;
      }
    }
    for (std::string& out : g.outputs) {
      if (out != t || !src_int8) continue;
      if (converted.empty()) converted = add_qdq(false, t, graph::DType::Float32);
      out = converted;
    }
  }
  // 3. Tensors written by int8 ops hold uint8 activations.
  for (size_t i = 0; i < original; ++i)
    if (int8[i])
      for (const std::string& o : g.nodes[i].outputs)
        if (auto v = g.values.find(o); v != g.values.end() && is_float(g, o))
          v->second.dtype = graph::DType::UInt8;
  graph::validate(g);
  return g;
}

}  // namespace hetcim::passes
