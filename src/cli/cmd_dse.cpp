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
#include "util/error.h"
#include "util/files.h"
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
};

void run(const DseArgs& a) {
  dse::DseOptions o;
  o.crossbars = a.crossbars;
  o.t_mvm.clear();
  for (const std::string& t : a.t_mvm)
    o.t_mvm.push_back(parse_quantity(t, Quantity::Time, "--t-mvm"));
  o.run_milp = a.milp;
  o.milp_time_limit = parse_quantity(a.milp_time_limit, Quantity::Time, "--milp-time-limit");
  o.threads = a.threads;
  o.build.max_replicas = a.replicas;
  o.build.transfer_model = a.transfers == "per-edge" ? partition::TransferModel::PerEdge
                                                     : partition::TransferModel::PerTensorDirection;
  o.build.bus_model =
      a.bus_model == "serial" ? partition::BusModel::Serial : partition::BusModel::Parallel;
  o.cache_dir = a.no_cache ? "" : a.out + "/cache";
  std::filesystem::create_directories(a.out);

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
      host.hardware.bus_bandwidth = parse_quantity(a.bus, Quantity::Bandwidth, "--bus");
      host.hardware.cim.bandwidth = host.hardware.bus_bandwidth;
    }
    if (h == "this") {
      // Measured now, model by model, on the oneDNN engine; the x86 bus of seed 000.
      for (size_t k = 0; k < models.size(); ++k) {
        std::fprintf(stderr, "measuring %s on this machine\n", a.models[k].c_str());
        host.costs.push_back(cost::host_costs_from_profile(
            models[k].workload, measure_host_profile({a.models[k], 1, {}}, {}), "this machine",
            true));
      }
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
  const auto points = dse::run_dse(models, hosts, o, [](size_t done, size_t total) {
    const int width = 40;
    const int filled = static_cast<int>(width * done / total);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(width - filled), '.').c_str(), done, total);
    if (done == total) std::fputc('\n', stderr);
  });
  write_file_atomically(a.out + "/dse.csv", report::dse_csv(points));
  write_file_atomically(a.out + "/dse.json", report::dse_json(points));
  if (!a.no_figures) (void)report::write_dse_report(points, a.out);
  size_t cached = 0, optimal = 0;
  double solve = 0;
  for (const auto& p : points) {
    cached += p.cached;
    optimal += p.status == "optimal";
    solve += p.cached ? 0 : p.seconds;
  }
  std::printf("%zu points (%zu from the cache), %zu proven optimal, %.3f s in the exact solver\n",
              points.size(), cached, optimal, solve);
  std::printf("%-12s %-6s %9s %8s %10s %8s %8s %5s\n", "model", "host", "crossbars", "T_mvm",
              "latency", "speedup", "host/cim", "xbars");
  for (const auto& p : points)
    std::printf("%-12s %-6s %9lld %5.0f ns %7.2f ms %7.2fx %4d/%-3d %5lld\n", p.model.c_str(),
                p.host.c_str(), static_cast<long long>(p.crossbars), p.t_mvm * 1e9, p.latency * 1e3,
                p.speedup, p.host_ops, p.cim_ops, static_cast<long long>(p.crossbars_used));
  std::printf("wrote %s/dse.csv, %s/dse.json%s\n", a.out.c_str(), a.out.c_str(),
              a.no_figures ? "" : (", " + a.out + "/figures/, " + a.out + "/report.html").c_str());
}

}  // namespace

void register_dse(CLI::App& app) {
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
  cmd->add_flag("--no-figures", a->no_figures, "Skip figures and the HTML report");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
