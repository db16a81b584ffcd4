// hetcim profile: per-operator host latency (median, min, p90 after warm-up) on this CPU with the
// oneDNN engine, plus the whole-model latency measured separately; writes the documented host
// profile format (cost/host_profile.h) that the partitioner reads.
#include <cstdio>
#include <memory>

#include "api/profile.h"
#include "cli/commands.h"
#include "cost/host_profile.h"
#include "util/error.h"

namespace hetcim::cli {
namespace {

struct ProfileArgs {
  std::string model;
  int64_t batch = 1;
  api::ProfileRequest request;
  std::string csv, json;
  bool quiet = false;
};

void run(const ProfileArgs& a) {
  a.request.validate();
  const cost::HostProfile p = api::profile(api::load_model(a.model, a.batch), a.request).profile;
  if (!a.csv.empty()) cost::write_host_profile(a.csv, p);
  if (!a.json.empty()) cost::write_host_profile(a.json, p);
  if (a.quiet) return;
  std::printf(
      "# %s, %s, batch %lld, %d thread%s, %d warm-up + %d runs\n# machine: %s\n# library: %s\n",
      p.model.c_str(), p.precision.c_str(), static_cast<long long>(p.batch), p.threads,
      p.threads == 1 ? "" : "s", p.warmup, p.runs, p.machine.c_str(), p.library.c_str());
  std::printf("%-48s %-26s %11s %11s %11s %9s\n", "operator", "op", "median_us", "min_us", "p90_us",
              "GMAC/s");
  for (const cost::HostProfileOp& o : p.ops)
    std::printf("%-48s %-26s %11.1f %11.1f %11.1f %9.1f\n", o.name.c_str(), o.op_type.c_str(),
                o.median_s * 1e6, o.min_s * 1e6, o.p90_s * 1e6, o.gmacs);
  const double dev =
      p.model_median_s > 0 ? (p.op_median_sum_s / p.model_median_s - 1.0) * 100.0 : 0.0;
  std::printf(
      "operators: %zu; sum of operator medians %.3f ms; whole model median %.3f ms "
      "(min %.3f, p90 %.3f); sum/model %+.1f %%\n",
      p.ops.size(), p.op_median_sum_s * 1e3, p.model_median_s * 1e3, p.model_min_s * 1e3,
      p.model_p90_s * 1e3, dev);
}

}  // namespace

void register_profile(CLI::App& app) {
  auto a = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Per-operator host latency on this CPU (median/min/p90 after warm-up) and the "
      "whole-model latency; writes a host profile (CSV or JSON) for the partitioner");
  cmd->add_option("model", a->model, "Zoo model name or ONNX file")->required();
  cmd->add_option("--precision", a->request.precision,
                  "fp32, or int8 (calibrated static quantization)")
      ->check(CLI::IsMember({"int8", "fp32"}))
      ->capture_default_str();
  cmd->add_option("--threads", a->request.threads, "CPU threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--warmup", a->request.warmup, "Warm-up runs")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--runs", a->request.runs, "Timed runs")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--csv", a->csv, "Write the host profile as CSV");
  cmd->add_option("--json", a->json, "Write the host profile as JSON");
  cmd->add_option("--seed", a->request.weight_seed, "Seed for weights the model does not carry")
      ->capture_default_str();
  cmd->add_option("--input-seed", a->request.input_seed, "Seed for the random input")
      ->capture_default_str();
  cmd->add_option("--calibration-seed", a->request.calibration_seed,
                  "Seed for int8 calibration inputs")
      ->capture_default_str();
  cmd->add_option("--calibration-samples", a->request.calibration_samples,
                  "Random inputs for int8 calibration")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--batch", a->batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "Do not print the table");
  cmd->callback([a] {
    if (!a->csv.empty() && !a->csv.ends_with(".csv"))
      throw user_error("--csv: the file name must end in .csv");
    if (!a->json.empty() && !a->json.ends_with(".json"))
      throw user_error("--json: the file name must end in .json");
    run(*a);
  });
}

}  // namespace hetcim::cli
