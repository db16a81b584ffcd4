#include "api/reproduce.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <thread>

#include "api/common.h"
#include "api/hardware.h"
#include "api/model.h"
#include "api/profile.h"
#include "api/seed000_calibration.h"
#include "cluster/bottleneck_mapping.h"
#include "cluster/cluster_config.h"
#include "cluster/dw_engine.h"
#include "cluster/ima_model.h"
#include "cluster/roofline.h"
#include "cost/hardware.h"
#include "cost/host_costs.h"
#include "dse/dse.h"
#include "formats/race_study_file.h"
#include "formats/study_records.h"
#include "partition/build.h"
#include "partition/exact.h"
#include "passes/pipeline.h"
#include "select/energy.h"
#include "util/error.h"
#include "util/shipped_data.h"
#include "util/units.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

std::string paper_cpu(const std::string& host) {
  if (host == "arm") return "an ARM Cortex-A72 (1.5 GHz)";
  if (host == "x86") return "an AMD Ryzen 9 3900X (3.8 GHz)";
  return "the paper's hosts (ARM Cortex-A72, AMD Ryzen 9 3900X)";
}

std::string paper_dir(const ReproduceRequest& q) {
  return q.paper_data.empty() ? shipped_data_path("paper") : q.paper_data;
}

std::string chips_file(const ReproduceRequest& q) {
  return q.chips.empty() ? xbar::shipped_chips_file() : q.chips;
}

formats::PaperData paper_of(const ReproduceRequest& q, const std::string& seed) {
  q.validate();
  const std::string dir = paper_dir(q);
  if (!fs::is_directory(dir))
    throw user_error("paper_data: '", dir,
                     "' is not a directory (expected the repository's data/paper with "
                     "seed000.yaml ...)");
  return formats::load_paper_data(dir + "/" + seed + ".yaml");
}

Provenance start(const formats::PaperData& paper) {
  Provenance p = library_provenance();
  p.set("published numbers", paper.origin);
  return p;
}

}  // namespace

const FieldTable<ReproduceRequest>& reproduce_fields() {
  using R = ReproduceRequest;
  static const FieldTable<R> table = {
      field("quick", &R::quick,
            "Reduced grids (klein2026: 2 budgets x 2 MVM latencies, one MILP point per model) for "
            "a smoke run"),
      field("paper_data", &R::paper_data,
            "Directory of the published-numbers files seedNNN.yaml ('': the shipped data/paper)"),
      field("milp_time_limit", &R::milp_time_limit,
            "Wall-clock limit per MILP of Table I (unset: 5 s, 2 s with quick)")
          .with_unit(Quantity::Time)
          .positive(),
      field("cluster_config", &R::cluster_config,
            "garofalo2022: cluster description (YAML; '': the pulp-pcm-cluster preset)"),
      field("chips", &R::chips, "yousuf2026: chip profiles (YAML; '': the shipped chips.yaml)"),
      field("calibrate", &R::calibrate,
            "klein2026: also fit the ARM host model to the paper's ARM values (Fig. 5 latencies, "
            "Fig. 3/4 speedups) and draw every figure with it, labelled CALIBRATION"),
      field(
          "study", &R::study,
          "yousuf2026: the --out directory of a finished `hetcim analog study` (Table II, III and "
          "Fig. 2 a-c beside the paper's)"),
      field("threads", &R::threads,
            "klein2026: grid points solved in parallel (0: this machine's cores)")
          .range(0, 1024),
  };
  return table;
}

void ReproduceRequest::validate() const {
  check_fields(*this, reproduce_fields());
  if (hosts.empty() || std::ranges::any_of(hosts, [](const std::string& h) { return h.empty(); }))
    throw user_error("hosts: expected at least one host (arm, x86 or a profile file), none empty");
}

double ReproduceRequest::milp_limit_s() const {
  return milp_time_limit.value_or(quick ? 2.0 : 5.0);
}

Reproduction<results::Seed000Run> reproduce_seed000(const ReproduceRequest& q) {
  Reproduction<results::Seed000Run> out;
  out.paper = paper_of(q, "seed000");
  results::Seed000Run& run = out.run;
  run.quick = q.quick;
  const std::vector<std::string> model_names = {"resnet18", "resnet50", "mobilenetv2", "yolov5n"};
  std::vector<dse::DseModel> models;
  std::vector<Model> loaded;  // for host "this", measured model by model
  for (const std::string& m : model_names) {
    loaded.push_back(load_model(m));
    const graph::Graph lowered = passes::lower(loaded.back().graph, {});
    models.push_back({m, workload::analyze(lowered)});
    const workload::Workload& w = models.back().workload;
    results::Seed000ModelInfo info;
    info.operators = w.totals.operators;
    info.offloadable = w.totals.offloadable;
    info.crossbars_all = w.totals.crossbars;
    for (const auto& op : w.ops)
      info.largest_operator = std::max(info.largest_operator, op.crossbars);
    info.milp_variables = w.totals.milp_variables;
    info.milp_constraints = w.totals.milp_constraints;
    run.models[m] = info;
  }
  std::vector<dse::DseHost> hosts;
  for (const std::string& h : q.hosts) {
    dse::DseHost host;
    host.name = h.ends_with(".csv") || h.ends_with(".json")
                    ? "profile:" + fs::path(h).filename().string()
                    : h;
    host.hardware =
        cost::hardware_preset(h == "x86" || h == "this" ? "seed000-x86" : "seed000-arm");
    if (h == "this") {
      // Measured now on the oneDNN engine, int8, one thread, model by model; compared with the
      // paper's x86 host (a Ryzen 9 3900X measured with ONNX Runtime), with its bus.
      ProfileRequest pr;
      if (q.quick) pr.warmup = 2, pr.runs = 10;
      for (size_t k = 0; k < models.size(); ++k)
        host.costs.push_back(cost::host_costs_from_profile(
            models[k].workload, profile(loaded[k], pr).profile, "this run", true));
      host.source = "measured on " + machine_description() + " in this run (" + describe(pr) +
                    "), Klein et al.'s x86 bus";
      run.hosts[host.name] = {"measured: " + host.source, false, paper_cpu("x86"), "x86", false};
      hosts.push_back(std::move(host));
      continue;
    }
    apply_host_choice(h, host.hardware, "hosts");
    for (const dse::DseModel& m : models) {
      cost::HostSpec spec = host.hardware.host;
      if (const auto pos = spec.profile.find("{model}"); pos != std::string::npos)
        spec.profile.replace(pos, 7, m.name);
      else if (!spec.profile.empty())
        throw user_error("hosts: profile '", spec.profile,
                         "' holds one model; write the path with {model}, e.g. "
                         "profiles/{model}.csv");
      host.costs.push_back(cost::host_costs(m.workload, spec, true));
    }
    run.hosts[host.name] = {host.costs.front().source, host.costs.front().modelled, paper_cpu(h),
                            h == "arm-cortex-a72" ? "arm"
                            : h == "ryzen9-3900x" ? "x86"
                                                  : "",
                            false};
    hosts.push_back(std::move(host));
  }
  dse::DseOptions o;
  o.crossbars = q.quick ? std::vector<int64_t>{25, 100} : std::vector<int64_t>{25, 50, 100, 200};
  o.t_mvm = q.quick ? std::vector<double>{50e-9, 1000e-9}
                    : std::vector<double>{50e-9, 100e-9, 500e-9, 1000e-9};
  o.threads = q.threads > 0 ? q.threads
                            : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  o.cache_dir = q.cache_dir;
  if (q.calibrate) {  // the ARM host model fitted to the paper's ARM values: a CALIBRATION
    const cost::Hardware arm = cost::hardware_preset("seed000-arm");
    Seed000CalibrationRequest cq;
    cq.crossbars = o.crossbars;
    cq.t_mvm = o.t_mvm;
    cq.threads = o.threads;
    cq.build = o.build;
    cq.max_evaluations = q.quick ? 30 : 60;
    results::Seed000Calibration cal = calibrate_seed000_arm(models, arm, out.paper, cq);
    dse::DseHost host;
    host.name = cal.host;
    host.hardware = arm;
    for (const dse::DseModel& m : models)
      host.costs.push_back(cost::host_costs_from_model(m.workload, cal.fit.fitted, true));
    host.source = cal.fit.fitted.description;
    run.hosts[host.name] = {"modelled: " + host.source, true, paper_cpu("arm"), "arm", true};
    const auto arm_at = std::find_if(hosts.begin(), hosts.end(),
                                     [](const dse::DseHost& x) { return x.name == "arm"; });
    hosts.insert(arm_at == hosts.end() ? hosts.end() : arm_at + 1, std::move(host));
    run.calibration = std::move(cal);
  }
  run.points = dse::run_dse(models, hosts, o);
  // Table I: the paper's MILP on CBC for the first host at the smallest MVM latency.
  dse::DseOptions mo = o;
  mo.run_milp = true;
  mo.milp_time_limit = q.milp_limit_s();
  mo.crossbars = q.quick ? std::vector<int64_t>{100} : std::vector<int64_t>{25, 50, 100, 200};
  mo.t_mvm = {50e-9};
  run.milp_time_limit = mo.milp_time_limit;
  run.milp_points = dse::run_dse(models, {hosts.front()}, mo);
  // One optimal schedule as a Gantt chart: ResNet-18 on the first host, 100 crossbars, 50 ns.
  {
    cost::Hardware hw = hosts.front().hardware;
    hw.cim.crossbars = 100;
    hw.cim.t_mvm = 50e-9;
    results::Seed000Gantt g;
    g.model = models.front().name;
    g.host = hosts.front().name;
    g.crossbars = hw.cim.crossbars;
    g.t_mvm = hw.cim.t_mvm;
    g.problem =
        partition::build_problem(models.front().workload, hosts.front().costs.front(), hw, o.build);
    g.schedule = partition::solve_exact(g.problem).schedule;
    run.gantt = std::move(g);
  }

  size_t cached = 0;
  const size_t total = run.points.size() + run.milp_points.size();
  for (const auto& p : run.points) cached += p.cached;
  for (const auto& p : run.milp_points) cached += p.cached;
  out.status.origin = cached == total ? Origin::Cached : Origin::Solved;
  Provenance& prov = out.provenance = start(out.paper);
  for (const auto& [name, h] : run.hosts) prov.set("host source (" + name + ")", h.source);
  prov.set("grid", std::to_string(models.size()) + " models x " + std::to_string(hosts.size()) +
                       " hosts x " + std::to_string(o.crossbars.size()) + " crossbar budgets x " +
                       std::to_string(o.t_mvm.size()) + " MVM latencies" +
                       (q.quick ? " (quick)" : ""));
  prov.set("solvers",
           "exact (hetcim, proven optimal) on every point; the paper's MILP on "
           "COIN-OR CBC for Table I on " +
               std::to_string(run.milp_points.size()) + " points of host " + hosts.front().name +
               " at 50 ns, limit " + format_quantity(mo.milp_time_limit, Quantity::Time) + " each");
  prov.set("cache", o.cache_dir.empty() ? "off (every point solved in this run)"
                                        : std::to_string(cached) + " of " + std::to_string(total) +
                                              " points from " + o.cache_dir +
                                              " (their solve times were measured when cached)");
  if (run.calibration) {
    const cost::HostFitResult& f = run.calibration->fit;
    char b[200];
    std::snprintf(b, sizeof b,
                  ": %zu published ARM values, sum of squared log ratios %.4g (preset) -> %.4g, "
                  "%d evaluations (Nelder-Mead, cost/host_fit.h)",
                  f.targets.size(), f.objective_start, f.objective, f.evaluations);
    prov.set("calibration", "host " + run.calibration->host + ": " + f.fitted.description + b);
  }
  prov.set("seeds", "none needed: no random process (deterministic solvers, fixed inputs)");
  return out;
}

Reproduction<results::Seed001Run> reproduce_seed001(const ReproduceRequest& q) {
  Reproduction<results::Seed001Run> out;
  out.paper = paper_of(q, "seed001");
  results::Seed001Run& run = out.run;
  run.config = q.cluster_config.empty() ? cluster::cluster_preset("seed001")
                                        : cluster::load_cluster(q.cluster_config);
  // Fig. 7 a-c: 500 MHz sequential, 250 MHz sequential, 250 MHz pipelined.
  cluster::RooflineOptions ro;
  if (q.quick) ro.utilizations = {0.05, 0.25, 1.0};
  const auto all = cluster::roofline(run.config, ro);
  const std::pair<double, cluster::ImaExecution> panels[] = {
      {500e6, cluster::ImaExecution::Sequential},
      {250e6, cluster::ImaExecution::Sequential},
      {250e6, cluster::ImaExecution::Pipelined}};
  for (const auto& [f, e] : panels)
    for (const auto& p : all)
      if (p.frequency == f && p.execution == e) run.roofline.push_back(p);
  if (run.roofline.empty())
    throw user_error(
        "reproduce garofalo2022: the cluster has no 500 MHz / 250 MHz operating points "
        "(Fig. 7 needs both)");
  run.bottleneck =
      cluster::bottleneck_study(run.config, zoo::BottleneckShape{}, cluster::paper_mappings());
  const zoo::BottleneckShape s;
  run.dw = cluster::dw_engine_cost(run.config.dw,
                                   {s.height, s.width, s.c_in * s.expansion, 3, s.stride, 1});
  run.dw_software_macs_per_cycle = run.config.cores.depthwise_mac_per_cycle;
  run.peak_ops = cluster::ima_peak_ops(run.config.ima);
  for (const auto& p : run.roofline)
    if (p.frequency == 250e6 && p.execution == cluster::ImaExecution::Pipelined &&
        p.bus_width_bits == 128 && p.utilization >= 0.999)
      run.attained_250_128_pipelined = p.attained;
  Provenance& prov = out.provenance = start(out.paper);
  prov.set("model", "hetcim's analytical cluster model (src/cluster), configuration " +
                        (q.cluster_config.empty() ? std::string("preset pulp-pcm-cluster")
                                                  : q.cluster_config) +
                        "; assumptions and calibrations: src/cluster/README.md");
  prov.set("seeds", "none needed: closed-form model, no random process");
  prov.set("cache", "not used (every figure computed in this run)");
  return out;
}

Reproduction<results::Seed002Run> reproduce_seed002(const ReproduceRequest& q) {
  Reproduction<results::Seed002Run> out;
  out.paper = paper_of(q, "seed002");
  const formats::PaperData& paper = out.paper;
  results::Seed002Run& run = out.run;
  const std::string chips = chips_file(q);
  run.chips_origin = chips;
  std::vector<double> pool;  // activation energies of A0..A5
  for (const xbar::ChipProfile& c : xbar::load_chip_profiles(chips)) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    run.chips.push_back({c.name, c.read_noise, c.write_noise, c.stuck_fraction,
                         c.energy.value_or(nan), c.latency.value_or(nan)});
    if (paper.need_table("table1").find(c.name, "energy_uJ")) {
      if (!c.energy)
        throw user_error(chips, ": profile '", c.name, "' has no 'energy' (Table I's E)");
      pool.push_back(*c.energy);
    }
  }
  if (pool.size() != paper.need_table("table1").rows.size())
    throw user_error(chips, ": expected the profiles ",
                     paper.need_table("table1").rows.front().first, "..",
                     paper.need_table("table1").rows.back().first,
                     " of RACE-AIMC's Table I, found ", pool.size());
  // The energy model of Sec. IV-C at the paper's mean test coverage (Table II): the study of
  // hetcim's own chips comes with `hetcim analog study`.
  select::EnergyModel m;
  m.communication = paper.need_value("e_communication") * 1e-6;
  m.controller = paper.need_value("e_controller") * 1e-6;
  m.per_class = paper.need_value("e_per_fused_class") * 1e-6;
  m.fallback = paper.need_value("e_fallback") * 1e-6;
  const auto classes = static_cast<int64_t>(paper.need_value("classes"));
  // The paper's energy figures are at the test coverage (select/energy.h).
  const formats::PaperValue* cov = paper.need_table("table2").find("mean", "test_coverage");
  if (!cov || !cov->present) throw user_error(paper.origin, ": table2 has no mean test_coverage");
  run.coverage = cov->value / 100;
  run.coverage_source = "Table II mean test coverage (the paper's), typed from the paper";
  run.fallback = m.fallback;
  run.activation = select::activation_energy(pool.front(), classes, m);  // A0, the paper's pick
  run.ensemble = select::ensemble_energy(pool, classes, m);
  run.selective = select::selective_energy(run.activation, run.coverage, m);
  run.break_even = select::break_even_fallback(run.activation, run.coverage, run.ensemble);
  for (int k = 0; k <= 50; ++k) {
    select::EnergyModel s = m;
    s.fallback = 25e-6 * k / 50;
    run.sweep_fallback.push_back(s.fallback);
    run.sweep_selective.push_back(select::selective_energy(run.activation, run.coverage, s));
  }
  // Table II / III, Fig. 2 a-c and the energy rows: the study records of --study, else the
  // shipped record (data/seed002-study) when there is one, checked against the paper's targets.
  std::string study_dir = q.study;
  if (study_dir.empty() && formats::has_study_records(shipped_data_path("seed002-study"))) {
    study_dir = shipped_data_path("seed002-study");
    run.study_shipped = true;
  }
  if (!study_dir.empty()) {
    formats::StudyRecords rec = formats::read_study_records(study_dir, paper);
    results::RaceStudyFile f = std::move(rec.merged);
    const std::string file = f.origin;
    for (const auto& [field, paper_id] :
         {std::pair{"risk", "risk_target"}, std::pair{"design_risk", "design_risk"}}) {
      const nlohmann::json* v = f.options.contains(field) ? &f.options.at(field) : nullptr;
      if (v == nullptr || !v->is_number())
        throw user_error(file, ": field 'options.", field, "': missing or not a number");
      const double want = paper.need_value(paper_id) / 100;
      if (!(std::fabs(v->get<double>() - want) < 1e-9))
        throw user_error(file, ": field 'options.", field, "' is ", v->get<double>(),
                         "; RACE-AIMC's Table II is at ", want, " (", paper.origin, ": ", paper_id,
                         "): run `hetcim analog study` with the paper's protocol");
    }
    // The energy rows at the study's own test coverages (the report computes them per run).
    double phi = 0;
    for (const select::RunFigures& r : f.study.base.runs)
      phi += r.test_coverage / static_cast<double>(f.study.base.runs.size());
    run.coverage = phi;
    run.coverage_source = "the mean test coverage of the study: " + rec.label;
    run.selective = select::selective_energy(run.activation, run.coverage, m);
    run.break_even = select::break_even_fallback(run.activation, run.coverage, run.ensemble);
    for (size_t k = 0; k < run.sweep_fallback.size(); ++k) {
      select::EnergyModel s = m;
      s.fallback = run.sweep_fallback[k];
      run.sweep_selective[k] = select::selective_energy(run.activation, run.coverage, s);
    }
    run.study_label = rec.label;
    run.study = std::move(f);
  }
  run.study_command =
      "hetcim analog study --preset paper --dataset fashion-mnist --chips " + chips +
      " --models 5 --pool A0,A1,A2,A3,A4,A5 --out study/\nhetcim reproduce yousuf2026 --study "
      "study/"
      "\n(or copy study/study.json into data/seed002-study/ to ship it as the default record)";
  Provenance& prov = out.provenance = start(paper);
  prov.set("chip profiles", chips);
  if (run.study) {
    out.status.origin = Origin::Cached;
    for (const auto& [k, v] : run.study->info.provenance)
      if (k != "version" && k != "machine") prov.set("study " + k, v);
    std::string version = "an unknown version";
    for (const auto& [k, v] : run.study->info.provenance)
      if (k == "version") version = v;
    prov.set("study", run.study->origin + " (written by " + version + ")" +
                          (run.study_shipped ? ", the shipped record" : ""));
    prov.set("study record", run.study_label);
  }
  prov.set("energy model", "select/energy.h with Sec. IV-C's costs (typed from the paper)");
  char coverage[32];
  std::snprintf(coverage, sizeof coverage, "%.4g", run.coverage * 100);
  prov.set("coverage",
           run.study ? std::string("energy section: per run at the test coverages of the study (") +
                           run.study_label + "; mean " + coverage + " %)"
                     : std::string("energy section: per run at the test coverages of the paper's "
                                   "Table II (mean ") +
                           coverage + " %), typed from the paper");
  prov.set("seeds", run.study ? "those of the study (study seeds above); none here"
                              : "none needed: arithmetic on typed and configured values");
  prov.set("cache",
           run.study ? "the study's figures as written in " + run.study->origin : "not used");
  return out;
}

}  // namespace hetcim::api
