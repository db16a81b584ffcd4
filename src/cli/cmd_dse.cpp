// hetcim dse: seed 000's design-space exploration (models x hosts x crossbars x MVM latency).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/host_choice.h"
#include "cli/measure_host.h"
#include "cli/model_source.h"
#include "dse/dse.h"
#include "passes/pipeline.h"
#include "report/dse.h"
#include "report/provenance.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct DseArgs {
  std::vector<std::string> models = {"resnet18", "resnet50", "mobilenetv2", "yolov5n"};
  std::vector<int64_t> crossbars = {25, 50, 100, 200};
  std::vector<std::string> t_mvm = {"50ns", "100ns", "500ns", "1000ns"};
  std::vector<std::string> hosts = {"arm", "x86"};
  std::string bus;  // "": the seed-000 bus of the host (10.24 GB/s ARM, 20.48 GB/s otherwise)
  std::string out = "results";
  bool milp = false;
  std::string milp_time_limit = "60s";
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  int64_t replicas = 1;
  std::string transfers = "per-edge";
  std::string bus_model = "parallel";
  bool no_cache = false;
  bool no_figures = false;
  bool quiet = false;
};

void run(const DseArgs& a, const Provenance& provenance) {
  dse::DseOptions o;
  o.crossbars = a.crossbars;
  o.t_mvm.clear();
  for (const std::string& t : a.t_mvm)
    o.t_mvm.push_back(parse_positive_quantity(t, Quantity::Time, "--t-mvm"));
  o.run_milp = a.milp;
  o.milp_time_limit =
      parse_positive_quantity(a.milp_time_limit, Quantity::Time, "--milp-time-limit");
  o.threads = a.threads;
  o.build.max_replicas = a.replicas;
  o.build.transfer_model = a.transfers == "per-edge" ? partition::TransferModel::PerEdge
                                                     : partition::TransferModel::PerTensorDirection;
  o.build.bus_model =
      a.bus_model == "serial" ? partition::BusModel::Serial : partition::BusModel::Parallel;
  namespace fs = std::filesystem;
  const auto in_out = [&](const std::string& name) { return (fs::path(a.out) / name).string(); };
  o.cache_dir = a.no_cache ? "" : in_out("cache");
  o.on_cache_warning = [](const std::string& w) {
    std::fprintf(stderr, "\nhetcim: warning: %s\n", w.c_str());
  };

  std::vector<dse::DseModel> models;
  for (const std::string& m : a.models) {
    const graph::Graph lowered = passes::lower(load_model({m, 1, {}}), {});
    models.push_back({std::filesystem::path(m).stem().string(), workload::analyze(lowered)});
  }
  std::vector<dse::DseHost> hosts;
  for (const std::string& h : a.hosts) {
    dse::DseHost host;
    host.name = h.ends_with(".csv") || h.ends_with(".json")
                    ? "profile:" + std::filesystem::path(h).filename().string()
                    : h;
    host.hardware =
        cost::hardware_preset(h == "arm" || h == "arm-cortex-a72" ? "seed000-arm" : "seed000-x86");
    if (!a.bus.empty()) {
      host.hardware.bus_bandwidth = parse_positive_quantity(a.bus, Quantity::Bandwidth, "--bus");
      host.hardware.cim.bandwidth = host.hardware.bus_bandwidth;
    }
    if (h == "this") {
      // Measured now, model by model, on the oneDNN engine; the x86 bus of seed 000.
      MeasureOptions mo;
      mo.progress = !a.quiet;
      for (size_t k = 0; k < models.size(); ++k)
        host.costs.push_back(cost::host_costs_from_profile(
            models[k].workload, measure_host_profile({a.models[k], 1, {}}, mo), "this run", true));
      host.source = "measured on " + machine_description() + " in this run (" + describe(mo) +
                    "), seed 000's x86 bus";
      hosts.push_back(std::move(host));
      continue;
    }
    apply_host_choice(h, host.hardware);
    // A profile host names one file per model with "{model}" in its path.
    for (size_t k = 0; k < models.size(); ++k) {
      cost::HostSpec spec = host.hardware.host;
      if (const auto pos = spec.profile.find("{model}"); pos != std::string::npos) {
        spec.profile.replace(pos, 7, models[k].name);
      } else if (!spec.profile.empty() && models.size() > 1) {
        throw user_error("--hosts: profile '", spec.profile, "' holds one model; with several ",
                         "models write the path with {model}, e.g. profiles/{model}.csv");
      }
      host.costs.push_back(cost::host_costs(models[k].workload, spec, true));
    }
    hosts.push_back(std::move(host));
  }
  // Created only now that every model and host has been read: a bad one leaves no directory.
  OutputSet out;
  out.make_directory(a.out);
  std::vector<dse::DsePoint> points;
  {
    Progress progress(a.milp ? "DSE (exact solver + MILP)" : "DSE (exact solver)", "points",
                      models.size() * hosts.size() * o.crossbars.size() * o.t_mvm.size(), !a.quiet);
    points =
        dse::run_dse(models, hosts, o, [&progress](size_t done, size_t) { progress.update(done); });
  }
  const report::DseSummary sum = report::summarize_dse(points);
  Provenance prov = provenance;
  std::string sources;
  for (const std::string& hs : sum.host_sources) sources += (sources.empty() ? "" : "; ") + hs;
  prov.set("host source", sources);
  prov.set("solver", std::string("exact (hetcim, time limit ") +
                         format_quantity(o.exact_time_limit, Quantity::Time) + ")" +
                         (a.milp ? "; the paper's MILP on CBC (time limit " +
                                       format_quantity(o.milp_time_limit, Quantity::Time) + ")"
                                 : ""));
  prov.set("status", report::dse_claim(points));
  prov.set("cache", a.no_cache ? "off (--no-cache): every point solved in this run"
                               : o.cache_dir + ": " + std::to_string(sum.cached) + " of " +
                                     std::to_string(sum.points) +
                                     " points read from it (key: problem content, commit " +
                                     provenance.commit + ", solver options)");
  prov.set("seeds",
           "none (the DSE is deterministic)" +
               std::string(std::find(a.hosts.begin(), a.hosts.end(), "this") != a.hosts.end()
                               ? "; host 'this' measured with " + describe(MeasureOptions{})
                               : std::string()));
  out.add(in_out("dse.csv"), report::dse_csv(points, prov));
  out.add(in_out("dse.json"), report::dse_json(points, prov));
  if (!a.no_figures) (void)report::write_dse_report(out, points, a.out, prov);
  // The previous run's report goes just before this run's outputs land, so a directory never
  // mixes runs (and with --no-figures it holds no report of an earlier run).
  report::remove_dse_report(a.out);
  out.commit();
  std::printf("%s\n", report::dse_claim(points).c_str());
  std::printf("%.3f s in the exact solver in this run; hosts: %s\n", sum.solve_seconds,
              sources.c_str());
  std::printf("%s", report::provenance_text(provenance).c_str());
  std::printf("%-12s %-6s %9s %8s %10s %8s %8s %5s %-10s %s\n", "model", "host", "crossbars",
              "T_mvm", "latency", "speedup", "host/cim", "xbars", "status", "cached");
  for (const auto& p : points)
    std::printf("%-12s %-6s %9lld %5.0f ns %7.2f ms %7.2fx %4d/%-3d %5lld %-10s %s\n",
                p.model.c_str(), p.host.c_str(), static_cast<long long>(p.crossbars), p.t_mvm * 1e9,
                p.latency * 1e3, p.speedup, p.host_ops, p.cim_ops,
                static_cast<long long>(p.crossbars_used), p.status.c_str(),
                p.cached ? "yes" : "no");
  std::printf(
      "wrote %s, %s%s\n", in_out("dse.csv").c_str(), in_out("dse.json").c_str(),
      a.no_figures ? "" : (", " + in_out("figures") + "/, " + in_out("report.html")).c_str());
}

}  // namespace

void register_dse(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<DseArgs>();
  CLI::App* cmd = app.add_subcommand(
      "dse",
      "Design-space exploration of seed 000: partition every model on every host for every "
      "crossbar budget and MVM latency; CSV, JSON, figures and an HTML report");
  cmd->add_option("--models", a->models, "Zoo models or ONNX files")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--crossbars", a->crossbars, "Crossbar budgets")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--t-mvm", a->t_mvm, "MVM latencies")->delimiter(',')->capture_default_str();
  cmd->add_option("--hosts", a->hosts,
                  "Hosts: arm, x86, host model names, profile files (.csv/.json, {model} in the "
                  "path), or this "
                  "(measure this CPU now)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option(
      "--bus", a->bus,
      "Shared bus bandwidth for every host (default: 10.24GB/s for arm, 20.48GB/s otherwise)");
  cmd->add_option("--out", a->out, "Output directory")->capture_default_str();
  cmd->add_flag("--milp", a->milp, "Also solve the paper's MILP (CBC) on every point");
  cmd->add_option("--milp-time-limit", a->milp_time_limit, "Wall-clock limit per MILP")
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "Grid points solved in parallel")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--replicas", a->replicas,
                  "Allow up to R weight copies per operator (beyond the paper)")
      ->check(CLI::Range(int64_t{1}, int64_t{64}))
      ->capture_default_str();
  cmd->add_option("--transfers", a->transfers, "per-edge (the paper) or per-tensor")
      ->check(CLI::IsMember({"per-edge", "per-tensor"}))
      ->capture_default_str();
  cmd->add_option("--bus-model", a->bus_model,
                  "parallel (the paper: transfers overlap) or serial (the shared bus carries one "
                  "transfer at a time)")
      ->check(CLI::IsMember({"parallel", "serial"}))
      ->capture_default_str();
  cmd->add_flag("--no-cache", a->no_cache, "Solve every point again");
  cmd->add_flag("--no-figures", a->no_figures,
                "Skip figures and the HTML report (and remove those of an earlier run in --out)");
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &provenance] { run(*a, provenance); });
}

}  // namespace hetcim::cli
