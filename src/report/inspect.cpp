#include "report/inspect.h"

#include <cstdio>

namespace hetcim::report {
namespace {

std::string group_digits(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

}  // namespace

std::string inspect_table(const InspectHeader& h, const workload::Workload& w,
                          const workload::WorkloadOptions& o) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "model %s, precision %s, crossbars %lldx%lld, b_elem %lld B\n\n",
                h.model.c_str(), h.precision.c_str(), static_cast<long long>(o.xbar_rows),
                static_cast<long long>(o.xbar_cols), static_cast<long long>(o.elem_bytes));
  out += line;
  std::snprintf(line, sizeof line, "%4s  %-36s %-24s %-16s %14s %11s %8s %10s %10s %5s %s\n", "#",
                "operator", "op", "output", "MACs", "M_v x N_v", "N_mvm", "in B", "out B", "xbars",
                "cim");
  out += line;
  for (size_t i = 0; i < w.ops.size(); ++i) {
    const workload::OpWorkload& op = w.ops[i];
    std::string name = op.name.size() > 36 ? "..." + op.name.substr(op.name.size() - 33) : op.name;
    std::string mv = op.offloadable ? std::to_string(op.rows) + "x" + std::to_string(op.cols) : "-";
    // The reason a weighted operator stays on the host (attention's activation x activation
    // MatMuls); other operators have no weight matrix to offload and just say "no".
    std::string cim = op.offloadable ? "yes" : "no";
    if (!op.offloadable && op.host_only_reason != "no weight matrix")
      cim += " (" + op.host_only_reason + ")";
    std::snprintf(line, sizeof line, "%4zu  %-36s %-24s %-16s %14s %11s %8s %10s %10s %5s %s\n", i,
                  name.c_str(), op.op_type.c_str(), graph::shape_str(op.out_shape).c_str(),
                  op.macs ? group_digits(op.macs).c_str() : "-", mv.c_str(),
                  op.offloadable ? std::to_string(op.n_mvm).c_str() : "-",
                  group_digits(op.in_bytes).c_str(), group_digits(op.out_bytes).c_str(),
                  op.offloadable ? std::to_string(op.crossbars).c_str() : "-", cim.c_str());
    out += line;
  }
  const workload::Totals& t = w.totals;
  out += "\ntotals\n";
  auto row = [&](const char* k, const std::string& v) {
    std::snprintf(line, sizeof line, "  %-34s %s\n", k, v.c_str());
    out += line;
  };
  row("parameters (as published)", group_digits(h.params_before_lowering));
  row("parameters (after lowering)", group_digits(t.params));
  row("MACs", group_digits(t.macs));
  row("MACs of offloadable operators", group_digits(t.offloadable_macs));
  row("operators N", group_digits(t.operators));
  row("edges |E|", group_digits(t.edges));
  row("parallel pairs |P|", group_digits(t.parallel_pairs));
  row("cut nodes", group_digits(t.cut_nodes));
  row("offloadable operators |V_acc|", group_digits(t.offloadable));
  row("crossbars (eq. 1)", group_digits(t.crossbars));
  row("MILP binaries N+|P| (Table I)", group_digits(t.milp_variables));
  row("MILP constraints (Table I)", group_digits(t.milp_constraints));
  return out;
}

nlohmann::json inspect_json(const InspectHeader& h, const workload::Workload& w,
                            const workload::WorkloadOptions& o) {
  // Built by assignment and moves: a braced list deep-copies every element it holds, which for a
  // 100,000-operator chain was a fifth of `inspect`'s time (bench/import/chain.sh).
  nlohmann::json ops = nlohmann::json::array();
  ops.get_ref<nlohmann::json::array_t&>().reserve(w.ops.size());
  for (const workload::OpWorkload& op : w.ops) {
    nlohmann::json e = nlohmann::json::object();
    e["name"] = op.name;
    e["op_type"] = op.op_type;
    e["output_shape"] = op.out_shape;
    e["quantized"] = op.quantized;
    e["macs"] = op.macs;
    e["offloadable"] = op.offloadable;
    e["host_only_reason"] = op.host_only_reason;
    e["M_v"] = op.rows;
    e["N_v"] = op.cols;
    e["N_mvm"] = op.n_mvm;
    e["in_bytes"] = op.in_bytes;
    e["out_bytes"] = op.out_bytes;
    e["crossbars"] = op.crossbars;
    e["params"] = op.params;
    ops.push_back(std::move(e));
  }
  nlohmann::json edges = nlohmann::json::array();
  edges.get_ref<nlohmann::json::array_t&>().reserve(w.dag.edges.size());
  for (auto [u, v] : w.dag.edges) {
    nlohmann::json e = nlohmann::json::array();
    e.push_back(u);
    e.push_back(v);
    edges.push_back(std::move(e));
  }
  const workload::Totals& t = w.totals;
  nlohmann::json j = {{"model", h.model},
                      {"precision", h.precision},
                      {"crossbar", {{"rows", o.xbar_rows}, {"cols", o.xbar_cols}}},
                      {"elem_bytes", o.elem_bytes},
                      {"totals",
                       {{"params_published", h.params_before_lowering},
                        {"params", t.params},
                        {"macs", t.macs},
                        {"offloadable_macs", t.offloadable_macs},
                        {"operators", t.operators},
                        {"edges", t.edges},
                        {"parallel_pairs", t.parallel_pairs},
                        {"cut_nodes", t.cut_nodes},
                        {"offloadable", t.offloadable},
                        {"crossbars", t.crossbars},
                        {"milp_variables", t.milp_variables},
                        {"milp_constraints", t.milp_constraints}}}};
  j["operators"] = std::move(ops);
  j["edges"] = std::move(edges);
  return j;
}

}  // namespace hetcim::report
