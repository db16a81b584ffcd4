// hetcim dse: seed 000's design-space exploration (models x hosts x crossbars x MVM latency).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "api/dse.h"
#include "cli/commands.h"
#include "report/dse.h"
#include "util/error.h"
#include "util/files.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct DseArgs {
  api::DseRequest request;
  std::vector<std::string> t_mvm = {"50ns", "100ns", "500ns", "1000ns"};
  std::string bus;  // "": the seed-000 bus of the host (10.24 GB/s ARM, 20.48 GB/s otherwise)
  std::string out = "results";
  std::string milp_time_limit = "60s";
  bool no_cache = false;
  bool no_figures = false;
};

void run(DseArgs a) {
  api::DseRequest& q = a.request;
  q.t_mvm.clear();
  for (const std::string& t : a.t_mvm)
    q.t_mvm.push_back(parse_quantity(t, Quantity::Time, "--t-mvm"));
  if (!a.bus.empty()) q.bus = parse_quantity(a.bus, Quantity::Bandwidth, "--bus");
  q.milp_time_limit = parse_quantity(a.milp_time_limit, Quantity::Time, "--milp-time-limit");
  q.cache_dir = a.no_cache ? "" : a.out + "/cache";
  q.validate();
  std::filesystem::create_directories(a.out);
  api::DseCallbacks callbacks;
  callbacks.measuring = [](const std::string& m) {
    std::fprintf(stderr, "measuring %s on this machine\n", m.c_str());
  };
  callbacks.progress = [](size_t done, size_t total) {
    const int width = 40;
    const int filled = static_cast<int>(width * done / total);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu", std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(width - filled), '.').c_str(), done, total);
    if (done == total) std::fputc('\n', stderr);
  };
  const api::DseResult r = api::run_dse(q, callbacks);
  const auto& points = r.points;
  write_file_atomically(a.out + "/dse.csv", report::dse_csv(points));
  write_file_atomically(a.out + "/dse.json", report::dse_json(points));
  if (!a.no_figures) (void)report::write_dse_report(points, a.out);
  std::printf("%zu points (%zu from the cache), %zu proven optimal, %.3f s in the exact solver\n",
              points.size(), r.cached, r.optimal, r.solve_seconds);
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
  a->request.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CLI::App* cmd = app.add_subcommand(
      "dse",
      "Design-space exploration of seed 000: partition every model on every host for every "
      "crossbar budget and MVM latency; CSV, JSON, figures and an HTML report");
  cmd->add_option("--models", a->request.models, "Zoo models or ONNX files")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--crossbars", a->request.crossbars, "Crossbar budgets")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--t-mvm", a->t_mvm, "MVM latencies")->delimiter(',')->capture_default_str();
  cmd->add_option("--hosts", a->request.hosts,
                  "Hosts: arm, x86, host model names, profile files (.csv/.json, {model} in the "
                  "path), or this "
                  "(measure this CPU now)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option(
      "--bus", a->bus,
      "Shared bus bandwidth for every host (default: 10.24GB/s for arm, 20.48GB/s otherwise)");
  cmd->add_option("--out", a->out, "Output directory")->capture_default_str();
  cmd->add_flag("--milp", a->request.milp, "Also solve the paper's MILP (CBC) on every point");
  cmd->add_option("--milp-time-limit", a->milp_time_limit, "Wall-clock limit per MILP")
      ->capture_default_str();
  cmd->add_option("--threads", a->request.threads, "Grid points solved in parallel")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--replicas", a->request.replicas,
                  "Allow up to R weight copies per operator (beyond the paper)")
      ->check(CLI::Range(int64_t{1}, int64_t{64}))
      ->capture_default_str();
  cmd->add_option("--transfers", a->request.transfers, "per-edge (the paper) or per-tensor")
      ->check(CLI::IsMember({"per-edge", "per-tensor"}))
      ->capture_default_str();
  cmd->add_option("--bus-model", a->request.bus_model,
                  "parallel (the paper: transfers overlap) or serial (the shared bus carries one "
                  "transfer at a time)")
      ->check(CLI::IsMember({"parallel", "serial"}))
      ->capture_default_str();
  cmd->add_flag("--no-cache", a->no_cache, "Solve every point again");
  cmd->add_flag("--no-figures", a->no_figures, "Skip figures and the HTML report");
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
