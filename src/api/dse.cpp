#include "api/dse.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "api/common.h"
#include "api/hardware.h"
#include "api/model.h"
#include "api/options.h"
#include "api/partition.h"
#include "api/profile.h"
#include "cost/host_costs.h"
#include "dist/dist.h"
#include "passes/pipeline.h"
#include "results/dse_summary.h"
#include "util/error.h"
#include "util/units.h"

namespace hetcim::api {

const FieldTable<DseRequest>& dse_fields() {
  using R = DseRequest;
  static const FieldTable<R> table = concat(
      FieldTable<R>{
          field("bus", &R::bus,
                "Shared bus bandwidth for every host (unset: Klein et al. 2026's, 10.24GB/s for "
                "arm, 20.48GB/s otherwise)")
              .with_unit(Quantity::Bandwidth)
              .positive(),
          field("time_limit", &R::time_limit,
                "Wall-clock limit per exact solve (a point it stops keeps the best plan found, "
                "with its bound)")
              .with_unit(Quantity::Time)
              .range(1e-9, 1e6),  // max_magnitude(Time): what a time flag can say at all
          field("milp", &R::milp, "Also solve the paper's MILP (CBC) on every point"),
          field("milp_time_limit", &R::milp_time_limit, "Wall-clock limit per MILP")
              .with_unit(Quantity::Time)
              .range(1e-9, 1e6),
          field("threads", &R::threads, "Grid points solved in parallel").range(1, 1024),
          field("cache_dir", &R::cache_dir, "Result cache directory (none when empty)"),
      },
      problem_build_fields<R>());
  return table;
}

void DseRequest::validate() const {
  if (models.empty()) throw user_error("models: expected at least one model");
  if (crossbars.empty()) throw user_error("crossbars: expected at least one budget");
  for (const int64_t c : crossbars)
    if (c < 1) throw user_error("crossbars: expected whole numbers >= 1, got ", c);
  if (t_mvm.empty()) throw user_error("t_mvm: expected at least one latency");
  for (const double t : t_mvm)
    if (!(std::isfinite(t) && t > 0))
      throw user_error("t_mvm: expected positive times such as 50ns, got ", t, " s");
  if (hosts.empty()) throw user_error("hosts: expected at least one host");
  for (const std::string& h : hosts) {
    if (h == "this") continue;
    cost::Hardware probe;
    apply_host_choice(h, probe, "hosts");
  }
  check_fields(*this, dse_fields());
}

DseResult run_dse(const DseRequest& a, const DseCallbacks& callbacks) {
  a.validate();
  dse::DseOptions o;
  o.crossbars = a.crossbars;
  o.t_mvm = a.t_mvm;
  o.run_milp = a.milp;
  o.exact_time_limit = a.time_limit;
  o.milp_time_limit = a.milp_time_limit;
  o.threads = a.threads;
  o.build.max_replicas = a.replicas;
  o.build.transfer_model = a.transfers == "per-edge" ? partition::TransferModel::PerEdge
                                                     : partition::TransferModel::PerTensorDirection;
  o.build.bus_model =
      a.bus_model == "serial" ? partition::BusModel::Serial : partition::BusModel::Parallel;
  o.cache_dir = a.cache_dir;
  o.on_cache_warning = callbacks.cache_warning;
  o.over_ranks = true;

  // Every rank of an MPI run loads the models and hosts itself; a rank that cannot (a model file
  // missing or different on its node) ends every rank with its message (dist::agree).
  std::vector<Model> loaded;
  std::vector<dse::DseModel> models;
  std::vector<dse::DseHost> hosts;
  std::exception_ptr setup_failure;
  try {
    if (dist::size() > 1 && std::find(a.hosts.begin(), a.hosts.end(), "this") != a.hosts.end())
      throw user_error("hosts: 'this' would measure a different CPU on every MPI rank; measure ",
                       "once with `hetcim profile MODEL --csv FILE.csv` and pass the files as a ",
                       "host (the path with {model} for several models)");
    for (const std::string& m : a.models) {
      loaded.push_back(load_model(m, 1));
      // Every host below is a seed 000 preset: one crossbar geometry and element width, theirs.
      const cost::Hardware geometry = cost::hardware_preset("seed000-arm");
      const graph::Graph lowered = passes::lower(loaded.back().graph, {});
      models.push_back({std::filesystem::path(m).stem().string(),
                        workload::analyze(lowered, cost::workload_options(geometry.cim))});
    }
    for (const std::string& h : a.hosts) {
      dse::DseHost host;
      host.name = h.ends_with(".csv") || h.ends_with(".json")
                      ? "profile:" + std::filesystem::path(h).filename().string()
                      : h;
      host.hardware = cost::hardware_preset(h == "arm" || h == "arm-cortex-a72" ? "seed000-arm"
                                                                                : "seed000-x86");
      if (a.bus) {
        host.hardware.bus_bandwidth = *a.bus;
        host.hardware.cim.bandwidth = *a.bus;
      }
      if (h == "this") {
        // Measured now, model by model, on the oneDNN engine; the x86 bus of seed 000.
        for (size_t k = 0; k < models.size(); ++k) {
          if (callbacks.measuring) callbacks.measuring(a.models[k]);
          host.costs.push_back(cost::host_costs_from_profile(
              models[k].workload, profile(loaded[k], a.host_measurement).profile, "this run",
              true));
        }
        host.source = "measured on " + machine_description() + " in this run (" +
                      describe(a.host_measurement) + "), Klein et al.'s x86 bus";
        hosts.push_back(std::move(host));
        continue;
      }
      apply_host_choice(h, host.hardware, "hosts");
      // A profile host names one file per model with "{model}" in its path.
      for (size_t k = 0; k < models.size(); ++k) {
        cost::HostSpec spec = host.hardware.host;
        if (const auto pos = spec.profile.find("{model}"); pos != std::string::npos) {
          spec.profile.replace(pos, 7, models[k].name);
        } else if (!spec.profile.empty() && models.size() > 1) {
          throw user_error("hosts: profile '", spec.profile, "' holds one model; with several ",
                           "models write the path with {model}, e.g. profiles/{model}.csv");
        }
        host.costs.push_back(cost::host_costs(models[k].workload, spec, true));
      }
      hosts.push_back(std::move(host));
    }
  } catch (...) {
    setup_failure = std::current_exception();
  }
  dist::agree(setup_failure);
  DseResult r;
  r.provenance = library_provenance();
  r.status.origin = Origin::Solved;
  if (callbacks.solving)
    callbacks.solving(models.size() * hosts.size() * o.crossbars.size() * o.t_mvm.size());
  r.points = dse::run_dse(models, hosts, o, callbacks.progress);
  if (!dist::is_root()) return r;  // rank 0 holds the points and writes the outputs
  const results::DseSummary sum = results::summarize_dse(r.points);
  r.cached = sum.cached;
  r.optimal = sum.optimal;
  r.solve_seconds = sum.solve_seconds;
  r.claim = results::dse_claim(r.points);
  for (const std::string& hs : sum.host_sources)
    r.host_sources += (r.host_sources.empty() ? "" : "; ") + hs;
  r.provenance.set("host source", r.host_sources);
  r.provenance.set("solver",
                   std::string("exact (hetcim, time limit ") +
                       format_quantity(o.exact_time_limit, Quantity::Time) + ")" +
                       (a.milp ? "; the paper's MILP on CBC (time limit " +
                                     format_quantity(o.milp_time_limit, Quantity::Time) + ")"
                               : ""));
  r.provenance.set("status", r.claim);
  r.provenance.set("cache", a.cache_dir.empty()
                                ? "off: every point solved in this run"
                                : o.cache_dir + ": " + std::to_string(sum.cached) + " of " +
                                      std::to_string(sum.points) +
                                      " points read from it (key: problem content, commit " +
                                      r.provenance.commit + ", solver options)");
  r.provenance.set(
      "seeds", "none (the DSE is deterministic)" +
                   std::string(std::find(a.hosts.begin(), a.hosts.end(), "this") != a.hosts.end()
                                   ? "; host 'this' measured with " + describe(a.host_measurement)
                                   : std::string()));
  return r;
}

}  // namespace hetcim::api
