#include "platform/build.h"

#include <algorithm>
#include <cmath>

#include "cluster/cluster_config.h"
#include "cluster/dw_engine.h"
#include "cluster/ima_model.h"
#include "cost/cim_model.h"
#include "cost/energy_model.h"
#include "cost/hardware.h"
#include "cost/host_choice.h"
#include "cost/host_costs.h"
#include "partition/build.h"
#include "util/error.h"
#include "util/paper_names.h"
#include "util/units.h"

namespace hetcim::platform {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int64_t cycles_at(double work, double per_cycle) {
  return static_cast<int64_t>(std::ceil(work / per_cycle - 1e-9));
}

// A 3x3 depth-wise convolution: its shape for the DW engine and the IMA's c_job slices.
struct Depthwise {
  bool is = false;
  cluster::DwLayer layer;
  int64_t out_pixels = 0;
};

Depthwise depthwise_of(const graph::Graph& g, const graph::Node& n,
                       const workload::OpWorkload& op) {
  Depthwise d;
  if (n.op_type != "Conv" && n.op_type != "QLinearConv") return d;
  const int64_t group = n.attr_int("group", 1);
  const std::vector<int64_t> k = n.attr_ints("kernel_shape", {});
  if (group <= 1 || op.out_shape.size() != 4 || op.out_shape[1] != group || k.size() != 2 ||
      k[0] != 3 || k[1] != 3 || op.rows != 9)
    return d;
  const std::vector<int64_t> strides = n.attr_ints("strides", {1, 1});
  const std::vector<int64_t> pads = n.attr_ints("pads", {1, 1, 1, 1});
  const auto it = g.values.find(n.inputs.at(0));
  if (it == g.values.end() || !it->second.shape || it->second.shape->size() != 4) return d;
  const graph::Shape& in = *it->second.shape;
  d.is = true;
  d.layer = {in[2], in[3], group, 3, strides.empty() ? 1 : strides[0], pads.empty() ? 0 : pads[0]};
  d.out_pixels = op.out_shape[2] * op.out_shape[3];
  return d;
}

// Work of an operator on the cores: (amount, throughput per cycle).
std::pair<double, double> cores_work(const std::string& type, const workload::OpWorkload& op,
                                     bool depthwise, const cluster::CoresConfig& c) {
  if (op.macs > 0)
    return {static_cast<double>(op.macs),
            depthwise ? c.depthwise_mac_per_cycle : c.pointwise_mac_per_cycle};
  static const std::vector<std::string> views = {"Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                                 "Identity"};
  if (std::find(views.begin(), views.end(), type) != views.end()) return {0.0, 1.0};
  if (type.find("Pool") != std::string::npos)
    return {static_cast<double>(op.in_elems), c.eltwise_per_cycle};
  static const std::vector<std::string> eltwise = {
      "Add",     "QLinearAdd",     "Mul",         "QLinearMul", "Sub", "Relu", "Clip",
      "Sigmoid", "QLinearSigmoid", "HardSigmoid", "HardSwish",  "Div", "Max",  "Min"};
  if (std::find(eltwise.begin(), eltwise.end(), type) != eltwise.end())
    return {static_cast<double>(op.out_elems), c.eltwise_per_cycle};
  // Data movement (quantize, layout transposes, concat, resize, ...): bytes at the marshaling rate.
  return {static_cast<double>(op.in_bytes), c.marshal_bytes_per_cycle};
}

cluster::ClusterConfig resolve_cluster(const std::string& name) {
  const auto names = cluster::cluster_preset_names();
  if (std::find(names.begin(), names.end(), name) != names.end())
    return cluster::cluster_preset(name);
  return cluster::load_cluster(name);
}

cost::Hardware resolve_hw(const std::string& name) {
  const auto names = cost::hardware_preset_names();
  if (std::find(names.begin(), names.end(), name) != names.end())
    return cost::hardware_preset(name);
  return cost::load_hardware(name);
}

}  // namespace

PlatformProblem build_platform_problem(const graph::Graph& lowered, const Platform& pf,
                                       const std::string& objective) {
  validate(pf, pf.name);
  if (objective != "latency" && objective != "energy")
    throw user_error("objective: expected latency or energy, got '", objective, "'");
  bool uses_cluster = false, uses_hw = false;
  for (const EngineSpec& e : pf.engines) {
    uses_cluster = uses_cluster || e.cost.starts_with("seed001");
    uses_hw = uses_hw || e.cost.starts_with("seed000");
  }
  cluster::ClusterConfig cl =
      uses_cluster ? resolve_cluster(pf.cluster) : cluster::cluster_preset("seed001");
  if (pf.bus_width_bits) {
    cl.ima.bus_width_bits = *pf.bus_width_bits;
    cluster::validate(cl, "platform '" + preset_shown(pf.name) + "' (bus_width)");
  }
  cost::Hardware hw = uses_hw ? resolve_hw(pf.hardware) : cost::hardware_preset("seed000-arm");
  if (pf.t_mvm) hw.cim.t_mvm = *pf.t_mvm;
  if (pf.host) cost::apply_host_choice(*pf.host, hw, "host");
  // One crossbar geometry for the workload: the hardware's when seed 000's costs are used (eq. 1
  // counts crossbars with it), the cluster's otherwise.
  for (const EngineSpec& e : pf.engines)
    if (e.cost == "seed000-cim") hw.cim.crossbars = *e.crossbars;
  if (uses_hw && uses_cluster &&
      (hw.cim.xbar_rows != cl.ima.rows || hw.cim.xbar_cols != cl.ima.cols))
    throw user_error("platform '", preset_shown(pf.name), "': the hardware's ", hw.cim.xbar_rows,
                     "x", hw.cim.xbar_cols, " crossbars differ from the cluster's ", cl.ima.rows,
                     "x", cl.ima.cols);
  workload::WorkloadOptions wo = cost::workload_options(hw.cim);
  if (!uses_hw) {
    wo.xbar_rows = cl.ima.rows;
    wo.xbar_cols = cl.ima.cols;
  }
  const workload::Workload w = workload::analyze(lowered, wo);
  const size_t n = w.ops.size();

  // Seed 000's columns, exactly as partition::build_problem makes them.
  partition::Problem two;
  partition::BuildOptions bo;
  bo.max_replicas = pf.replicas.value_or(1);
  std::string host_source;  // a profile's host costs are measured, not modelled: say which
  if (uses_hw) {
    const cost::HostCosts host = cost::host_costs(w, hw.host, true);
    host_source = host.source;
    two = partition::build_problem(w, host, hw, bo);
  }
  const cost::HostPower host_power = cost::host_power(hw.host);

  const double f = cl.clock.frequency;
  const double p_cores = cluster::scale_power(cl.cores.power, cl, cl.clock);
  const double p_ima = cluster::scale_power(cl.ima.power, cl, cl.clock);
  const double p_dw = cluster::scale_power(cl.dw.power, cl, cl.clock);
  const double p_base = cluster::scale_power(cl.base_power, cl, cl.clock);

  PlatformProblem out;
  partition::MultiProblem& p = out.problem;
  p.dag = w.dag;
  out.frequency = uses_cluster ? f : 0.0;
  for (const EngineSpec& e : pf.engines) {
    partition::MultiEngine g;
    g.name = e.name;
    g.one_at_a_time = e.one_at_a_time.value_or(e.cost != "seed000-cim");
    g.capacity = e.kind == "crossbar" ? *e.crossbars : -1;
    if (e.reprogramming && e.reprogramming->enabled) {
      g.endurance = e.reprogramming->endurance;
      g.endurance_source = e.reprogramming->source;
    }
    if (e.cost == "seed001-cores") g.static_power = p_base;
    if (e.cost == "seed000-cim") g.static_power = hw.cim.static_power;
    if (e.cost == "seed000-host") g.idle_power = host_power.idle;
    if (e.static_power) g.static_power = *e.static_power;
    if (e.idle_power) g.idle_power = *e.idle_power;
    p.engines.push_back(g);
  }
  const auto index_of = [&](const std::string& name) {
    for (size_t i = 0; i < pf.engines.size(); ++i)
      if (pf.engines[i].name == name) return static_cast<int>(i);
    throw internal_error("platform: engine '", name, "' vanished");
  };
  for (const auto& group : pf.exclusive) {
    std::vector<int> g;
    for (const std::string& e : group) g.push_back(index_of(e));
    p.exclusive.push_back(g);
  }
  for (const LinkSpec& l : pf.links) {
    partition::MultiLink k{l.name, {}, l.latency, l.bandwidth, l.serial, l.e_byte};
    for (const std::string& e : l.engines) k.engines.push_back(index_of(e));
    p.links.push_back(k);
  }
  for (auto [u, v] : p.dag.edges)
    p.edge_bytes.push_back(static_cast<double>(w.ops[static_cast<size_t>(u)].out_bytes));

  out.cycles.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const workload::OpWorkload& op = w.ops[i];
    const graph::Node& node = lowered.nodes[i];
    const Depthwise dw = depthwise_of(lowered, node, op);
    p.names.push_back(op.name);
    std::vector<partition::MultiOption> opts;
    std::vector<int64_t> cyc;
    // A crossbar option with its footprint gets a reprogrammed twin on an engine that allows it:
    // the write before the run (time and cells' energy added; cycles -1: not a cycle-model
    // figure any more).
    const auto add = [&](int engine, double seconds, double energy, int64_t capacity,
                         std::string label, int64_t cycles, const WriteFootprint& wf = {}) {
      opts.push_back({engine, seconds, energy, capacity, label});
      cyc.push_back(cycles);
      const std::optional<ReprogrammingSpec>& r =
          pf.engines[static_cast<size_t>(engine)].reprogramming;
      if (capacity < 1 || !r || !r->enabled) return;
      const WriteCost w = write_cost(*r, wf);
      partition::MultiOption o{engine, seconds + w.seconds, energy + w.joules, capacity,
                               label + " reprog"};
      o.reprogram = true;
      o.cells_written = wf.cells;
      o.write_seconds = w.seconds;
      o.write_energy = w.joules;
      opts.push_back(o);
      cyc.push_back(-1);
    };
    for (size_t e = 0; e < pf.engines.size(); ++e) {
      const EngineSpec& spec = pf.engines[e];
      const int ei = static_cast<int>(e);
      if (spec.cost == "seed001-cores") {
        const auto [work, rate] = cores_work(node.op_type, op, dw.is, cl.cores);
        const int64_t c = cycles_at(work, rate);
        const double t = static_cast<double>(c) / f;
        add(ei, t, spec.power.value_or(p_cores) * t, 0, "cores", c);
      } else if (spec.cost == "seed000-host") {
        const double power = spec.power.value_or(host_power.active);
        add(ei, two.t_host[i], spec.power ? power * two.t_host[i] : two.e_host[i], 0, "host", -1);
      } else if (spec.cost == "seed000-cim") {
        // One option per number of weight copies (one without replicas), as seed 000's modes.
        for (const partition::AccMode& m : two.acc[i]) {
          const int64_t copies = m.crossbars / two.acc[i].front().crossbars;
          const int64_t col_tiles = ceil_div(op.cols, hw.cim.xbar_cols);
          add(ei, m.t_acc, m.energy, m.crossbars,
              copies == 1 ? "cim" : "cim x" + std::to_string(copies) + " copies", -1,
              {copies * op.rows * col_tiles, copies * op.rows * op.cols, m.crossbars});
        }
      } else if (spec.cost == "seed001-ima") {
        const double pw = spec.power.value_or(p_ima);
        if (dw.is) {
          for (int64_t c_job : {int64_t{8}, int64_t{16}}) {
            if (9 * c_job > cl.ima.rows || c_job > cl.ima.cols) continue;
            const cluster::ImaLayer l =
                cluster::depthwise_ima_layer(cl.ima, dw.layer.channels, 3, c_job, dw.out_pixels);
            const cluster::ImaLayerCost k = cluster::ima_layer_cost(cl.ima, f, l);
            const int64_t per_xbar = (cl.ima.rows / (9 * c_job)) * (cl.ima.cols / c_job);
            const int64_t xbars =
                ceil_div(static_cast<int64_t>(l.jobs_per_vector.size()), per_xbar);
            if (xbars > *spec.crossbars) continue;
            const double t = static_cast<double>(k.cycles) / f;
            // Written slice by slice: 9c rows of c cells each (an upper bound on the rows when
            // slices share rows).
            const auto slices = static_cast<int64_t>(l.jobs_per_vector.size());
            add(ei, t, pw * t + cluster::ima_job_energy(cl) * static_cast<double>(k.jobs), xbars,
                "ima-cjob" + std::to_string(c_job), k.cycles,
                {slices * 9 * c_job, slices * 9 * c_job * c_job, xbars});
          }
        } else if (op.offloadable && op.rows > 0 && op.cols > 0 && op.n_mvm > 0) {
          const cluster::ImaLayer l = cluster::dense_ima_layer(cl.ima, op.rows, op.cols, op.n_mvm);
          const int64_t xbars = ceil_div(op.rows, cl.ima.rows) * ceil_div(op.cols, cl.ima.cols);
          if (xbars <= *spec.crossbars) {
            const cluster::ImaLayerCost k = cluster::ima_layer_cost(cl.ima, f, l);
            // Row-tile partial sums, added by the cores after the jobs (charged to this option).
            const int64_t psum =
                l.partial_sum_adds > 0
                    ? cycles_at(static_cast<double>(l.partial_sum_adds), cl.cores.eltwise_per_cycle)
                    : 0;
            const double t = static_cast<double>(k.cycles + psum) / f;
            add(ei, t,
                pw * static_cast<double>(k.cycles) / f + p_cores * static_cast<double>(psum) / f +
                    cluster::ima_job_energy(cl) * static_cast<double>(k.jobs),
                xbars, xbars > 1 ? "ima x" + std::to_string(xbars) + " tiles" : "ima",
                k.cycles + psum,
                {op.rows * ceil_div(op.cols, cl.ima.cols), op.rows * op.cols, xbars});
          }
        }
      } else if (spec.cost == "seed001-dw") {
        if (dw.is && dw.layer.kernel == cl.dw.kernel) {
          const cluster::DwCost d = cluster::dw_engine_cost(cl.dw, dw.layer);
          const double t = static_cast<double>(d.cycles) / f;
          add(ei, t, spec.power.value_or(p_dw) * t, 0, "dw", d.cycles);
        }
      }
    }
    if (opts.empty())
      throw user_error("platform '", preset_shown(pf.name), "': no engine supports operator '",
                       op.name, "' (", node.op_type,
                       "); add a cpu engine or one of a kind that runs it");
    p.options.push_back(std::move(opts));
    out.cycles[i] = std::move(cyc);
  }
  if (objective == "energy") {
    p.latency_weight = 0.0;
    p.energy_weight = 1.0;
  }
  out.costs =
      std::string("modelled: ") +
      (uses_cluster
           ? "Garofalo et al. 2022's cluster '" + preset_shown(cl.name) +
                 "' cycle models (cluster/) at " + format_quantity(f, Quantity::Frequency) +
                 (pf.bus_width_bits ? ", IMA bus width " + std::to_string(*pf.bus_width_bits) +
                                          " bit (overridden)"
                                    : "")
           : "") +
      (uses_cluster && uses_hw ? "; " : "") +
      (uses_hw ? "Klein et al. 2026's hardware '" + preset_shown(hw.name) + "' (cost/), host " +
                     (hw.host.profile.empty() ? hw.host.model : "costs " + host_source) +
                     (bo.max_replicas > 1
                          ? ", up to " + std::to_string(bo.max_replicas) + " weight copies"
                          : "")
               : "");
  p.validate();
  return out;
}

}  // namespace hetcim::platform
