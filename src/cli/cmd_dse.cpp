// hetcim dse: seed 000's design-space exploration (models x hosts x crossbars x MVM latency).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "api/common.h"
#include "api/dse.h"
#include "api/platform.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "dist/dist.h"
#include "report/dse.h"
#include "report/platform_dse.h"
#include "report/provenance.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"
#include "util/units.h"

namespace hetcim::cli {
namespace {

struct DseArgs {
  api::DseRequest request;
  std::vector<std::string> t_mvm = {"50ns", "100ns", "500ns", "1000ns"};
  std::string out = "results";
  bool no_cache = false;
  bool no_figures = false;
  report::FigureOptions figures;
  bool quiet = false;
  // Platform mode (issue 12): --platform, --sweep, --imas, --objective (and --time-limit, the
  // request's, for both modes).
  api::PlatformDseRequest platform;
  bool platform_given = false;
};

// hetcim dse --platform P --sweep KEY=v1,v2 ...: a grid over platform parameters, each point
// mapped by the exact solver its shape calls for (api::run_platform_dse).
void run_platform(DseArgs a, const Provenance& provenance, const CLI::App& cmd) {
  for (const char* flag : {"--hosts", "--bus", "--milp", "--milp-time-limit", "--transfers"})
    if (cmd.count(flag) > 0)
      throw user_error(flag, " does not apply with --platform (sweep platform parameters with ",
                       "--sweep KEY=v1,v2; see docs/platforms.md)");
  api::PlatformDseRequest& q = a.platform;
  // Seed 000's grid axes, given, are the platform's sweep axes of the same meaning (first, in
  // the two-device grid's order; a key also given with --sweep is then swept twice: an error).
  std::vector<std::string> axes;
  const auto joined = [](const auto& values, const auto& text) {
    std::string s;
    for (const auto& v : values) s += (s.empty() ? "" : ",") + text(v);
    return s;
  };
  if (cmd.count("--crossbars") > 0)
    axes.push_back("crossbars=" +
                   joined(a.request.crossbars, [](int64_t n) { return std::to_string(n); }));
  if (cmd.count("--t-mvm") > 0)
    axes.push_back("t_mvm=" + joined(a.t_mvm, [](const std::string& t) { return t; }));
  if (cmd.count("--bus-model") > 0) {
    if (a.request.bus_model != "parallel" && a.request.bus_model != "serial")
      throw user_error("--bus-model: expected parallel or serial, got '", a.request.bus_model, "'");
    axes.push_back(std::string("serial=") + (a.request.bus_model == "serial" ? "true" : "false"));
  }
  if (cmd.count("--replicas") > 0) axes.push_back("replicas=" + std::to_string(a.request.replicas));
  q.sweeps.insert(q.sweeps.begin(), axes.begin(), axes.end());
  if (cmd.count("--models") > 0) q.models = a.request.models;
  q.threads = a.request.threads;
  q.time_limit = a.request.time_limit;
  namespace fs = std::filesystem;
  const auto in_out = [&](const std::string& name) { return (fs::path(a.out) / name).string(); };
  q.cache_dir = a.no_cache ? "" : in_out("cache");
  q.validate();
  const bool root = dist::is_root();
  if (!root) a.quiet = true;
  OutputSet out;
  if (root) out.make_directory(a.out);
  std::unique_ptr<Progress> grid;
  const api::PlatformDseResult r = api::run_platform_dse(
      q,
      [&](size_t done, size_t total) {
        if (!grid)
          grid =
              std::make_unique<Progress>("platform DSE (exact solver)", "points", total, !a.quiet);
        grid->update(done);
      },
      [](const std::string& w) { std::fprintf(stderr, "\nhetcim: warning: %s\n", w.c_str()); });
  grid.reset();
  if (!root) return;
  Provenance prov = api::with_caller(r.provenance, provenance);
  if (a.no_cache) prov.set("cache", "off (--no-cache): every point solved in this run");
  const report::PlatformDseRun run{q.platform, &r.axes, &r.points, prov};
  out.add(in_out("platform_dse.csv"), report::platform_dse_csv(run));
  out.add(in_out("platform_dse.json"), report::platform_dse_json(run));
  if (!a.no_figures)
    (void)report::write_platform_dse_figure(out, in_out("figures"), run, a.figures);
  out.commit();
  // The result is printed with --quiet too (it silences progress only).
  std::printf("%s", report::provenance_text(prov, "# ").c_str());
  std::printf(
      "%zu of %zu points proven optimal, %zu read from the cache; %.3f s in the exact "
      "solver in this run\n",
      r.optimal, r.points.size(), r.cached, r.solve_seconds);
  std::printf("%s", report::platform_dse_text(run).c_str());
  for (const std::string& note : r.notes) std::printf("%s\n", note.c_str());
  std::printf("wrote %s, %s%s\n", in_out("platform_dse.csv").c_str(),
              in_out("platform_dse.json").c_str(),
              a.no_figures ? "" : (", " + in_out("figures") + "/platform_dse_latency.*").c_str());
}

void run(DseArgs a, const Provenance& provenance) {
  api::DseRequest& q = a.request;
  q.t_mvm.clear();
  for (const std::string& t : a.t_mvm)
    q.t_mvm.push_back(parse_positive_quantity(t, Quantity::Time, "--t-mvm"));
  namespace fs = std::filesystem;
  const auto in_out = [&](const std::string& name) { return (fs::path(a.out) / name).string(); };
  q.cache_dir = a.no_cache ? "" : in_out("cache");
  q.validate();
  // Under MPI (`mpirun -np N hetcim dse ...`) every rank runs this command; rank 0 alone shows
  // progress, writes the cache and the outputs and prints (dist/dist.h).
  const bool root = dist::is_root();
  if (!root) a.quiet = true;
  // The directory is created now (the cache lives in it); a DSE that fails (a bad model or host)
  // removes it again if it is still empty (util/output_set.h).
  OutputSet out;
  if (root) out.make_directory(a.out);
  api::DseCallbacks callbacks;
  std::unique_ptr<Progress> measuring;
  callbacks.measuring = [&](const std::string& m) {
    measuring = std::make_unique<Progress>(
        "measuring " + m + " on this CPU", "runs",
        static_cast<size_t>(q.host_measurement.warmup + q.host_measurement.runs), !a.quiet);
  };
  q.host_measurement.progress = [&](size_t done, size_t) {
    if (measuring) measuring->update(done);
  };
  callbacks.cache_warning = [](const std::string& w) {
    std::fprintf(stderr, "\nhetcim: warning: %s\n", w.c_str());
  };
  std::unique_ptr<Progress> grid;
  callbacks.solving = [&](size_t total) {
    measuring.reset();
    grid = std::make_unique<Progress>(q.milp ? "DSE (exact solver + MILP)" : "DSE (exact solver)",
                                      "points", total, !a.quiet);
  };
  callbacks.progress = [&](size_t done, size_t) {
    if (grid) grid->update(done);
  };
  const api::DseResult r = api::run_dse(q, callbacks);
  measuring.reset();
  grid.reset();
  if (!root) return;
  const auto& points = r.points;
  Provenance prov = api::with_caller(r.provenance, provenance);
  if (a.no_cache) prov.set("cache", "off (--no-cache): every point solved in this run");
  out.add(in_out("dse.csv"), report::dse_csv(points, prov));
  out.add(in_out("dse.json"), report::dse_json(points, prov));
  if (!a.no_figures) (void)report::write_dse_report(out, points, a.out, prov, a.figures);
  // The previous run's report goes just before this run's outputs land, so a directory never
  // mixes runs (and with --no-figures it holds no report of an earlier run).
  report::remove_dse_report(a.out);
  out.commit();
  std::printf("%s\n", r.claim.c_str());
  std::printf("%.3f s in the exact solver in this run; hosts: %s\n", r.solve_seconds,
              r.host_sources.c_str());
  if (dist::size() > 1) {
    std::vector<size_t> per_rank(static_cast<size_t>(dist::size()));
    for (const auto& p : points)
      if (!p.cached) ++per_rank[static_cast<size_t>(p.rank)];
    std::string counts;
    for (const size_t n : per_rank) counts += (counts.empty() ? "" : ", ") + std::to_string(n);
    std::printf(
        "solved on %s x %d threads (points solved per rank: %s); rank 0 read the cache "
        "and wrote the files\n",
        dist::describe().c_str(), q.threads, counts.c_str());
  }
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
  a->request.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CLI::App* cmd = app.add_subcommand(
      "dse",
      "Design-space exploration of Klein et al. 2026 ('Optimizing ML Workload Partitioning "
      "between CPUs and CIM Accelerators for Heterogeneous Computing'): partition every model on "
      "every host for every crossbar budget and MVM latency; CSV, JSON, figures and an HTML "
      "report");
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
  cmd->add_option("--out", a->out, "Output directory")->capture_default_str();
  // The request's scalars (bus, MILP, problem building) from api::dse_fields(); --threads is
  // declared here for its default (this machine's cores, not the request's 1) and the cache
  // directory is --out's.
  options::add_fields(cmd, api::dse_fields(), a->request, {"threads", "cache_dir"});
  cmd->add_option("--threads", a->request.threads,
                  "Grid points solved in parallel (default: this machine's cores). Range [1, 1024]")
      ->capture_default_str();
  cmd->add_flag("--no-cache", a->no_cache, "Solve every point again");
  cmd->add_flag("--no-figures", a->no_figures,
                "Skip figures and the HTML report (and remove those of an earlier run in --out)");
  options::figure_flags(cmd, a->figures);
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->add_option("--platform", a->platform.platform,
                  "Sweep a K-engine platform instead (cortex-a72-rram, ryzen9-rram, "
                  "pulp-pcm-cluster, or a platform YAML file): every model on every --sweep grid "
                  "point, mapped by "
                  "the exact solver (the two-device one on a host + crossbar + one bus "
                  "platform, the K-engine one otherwise); --crossbars, --t-mvm, --bus-model and "
                  "--replicas, given, are the sweep axes crossbars, t_mvm, serial and replicas")
      ->each([a](const std::string&) { a->platform_given = true; });
  std::string keys;
  for (const platform::SweepKey& k : platform::sweep_keys()) keys += "; " + k.name + ": " + k.what;
  cmd->add_option("--sweep", a->platform.sweeps,
                  "With --platform: KEY=v1,v2,... (repeat for a grid)" + keys);
  cmd->add_option_function<int64_t>(
         "--imas", [a](const int64_t& n) { a->platform.imas = n; },
         "With --platform: crossbars of the crossbar engine (pulp-pcm-cluster: IMA crossbars)")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}));
  cmd->add_option("--objective", a->platform.objective, "With --platform: latency or energy")
      ->check(CLI::IsMember({"latency", "energy"}))
      ->capture_default_str();
  cmd->callback([a, cmd, &provenance] {
    if (a->platform_given) {
      run_platform(*a, provenance, *cmd);
      return;
    }
    for (const char* flag : {"--sweep", "--imas", "--objective"})
      if (cmd->count(flag) > 0) throw user_error(flag, " applies with --platform only");
    run(*a, provenance);
  });
}

}  // namespace hetcim::cli
