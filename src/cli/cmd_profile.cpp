// hetcim profile: per-operator host latency (median, min, p90 after warm-up) on this CPU with the
// oneDNN engine, plus the whole-model latency measured separately; writes the documented host
// profile format (cost/host_profile.h) that the partitioner reads.
#include <cstdio>
#include <memory>

#include "api/profile.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "cost/host_profile.h"
#include "report/provenance.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
namespace {

struct ProfileArgs {
  ModelSource model;
  api::ProfileRequest request;
  std::string csv, json;
  bool quiet = false;
};

void run(ProfileArgs a, const Provenance& prov) {
  a.request.validate();
  // Output paths and formats are checked before the measurement, and written together after it.
  for (const std::string* path : {&a.csv, &a.json})
    if (!path->empty()) {
      (void)resolve_output_path(*path);
      (void)cost::host_profile_text(*path, {});
    }
  const api::Model model = load_api_model(a.model);
  Progress progress("measuring " + model.spec + " on this CPU", "runs",
                    static_cast<size_t>(a.request.warmup + a.request.runs), !a.quiet);
  a.request.progress = [&](size_t done, size_t) { progress.update(done); };
  const api::ProfileResult r = api::profile(model, a.request);
  progress.finish();
  cost::HostProfile p = r.profile;
  p.date = prov.date_utc;
  p.command = prov.command_line;
  const cost::ProfileQuality& quality = r.quality;
  // A noisy measurement is a result, not an error: it is written, flagged in the file, and
  // warned about on stderr (also with --quiet).
  if (quality.noisy) std::fprintf(stderr, "hetcim: warning: %s\n", quality.text.c_str());
  OutputSet out;
  if (!a.csv.empty()) out.add(a.csv, cost::host_profile_text(a.csv, p));
  if (!a.json.empty()) out.add(a.json, cost::host_profile_text(a.json, p));
  out.commit();
  Provenance pv = prov;  // the table is printed with --quiet too (progress only)
  pv.set("host source", "measured on " + p.machine);
  pv.set("library", p.library);
  pv.set("seeds", p.seeds);
  pv.set("quality", quality.text);
  std::printf("# %s, %s, batch %lld, %d thread%s, %d warm-up + %d runs\n%s", p.model.c_str(),
              p.precision.c_str(), static_cast<long long>(p.batch), p.threads,
              p.threads == 1 ? "" : "s", p.warmup, p.runs,
              report::provenance_text(pv, "# ").c_str());
  std::printf("%-48s %-26s %11s %11s %11s %9s\n", "operator", "op", "median_us", "min_us", "p90_us",
              "GMAC/s");
  for (const cost::HostProfileOp& o : p.ops)
    std::printf("%-48s %-26s %11.1f %11.1f %11.1f %9.1f\n", o.name.c_str(), o.op_type.c_str(),
                o.median_s * 1e6, o.min_s * 1e6, o.p90_s * 1e6, o.gmacs);
  const double dev =
      p.model_median_s > 0 ? (p.op_median_sum_s / p.model_median_s - 1.0) * 100.0 : 0.0;
  std::printf(
      "operators: %zu; sum of operator medians %.3f ms; whole model median %.3f ms "
      "(min %.3f, p90 %.3f); sum/model %+.1f %%%s\n",
      p.ops.size(), p.op_median_sum_s * 1e3, p.model_median_s * 1e3, p.model_min_s * 1e3,
      p.model_p90_s * 1e3, dev, quality.noisy ? " (NOISY: see the warning)" : "");
  std::printf(
      "fused plan (%d operators executed inside another's kernel), measured in the same rounds: "
      "whole model median %.3f ms (min %.3f); fused/sum of operator medians %+.1f %%\n",
      r.fused_operators, r.fused_model_median_s * 1e3, r.fused_model_min_s * 1e3,
      p.op_median_sum_s > 0 ? (r.fused_model_median_s / p.op_median_sum_s - 1.0) * 100.0 : 0.0);
}

}  // namespace

void register_profile(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Per-operator host latency on this CPU (median/min/p90 after warm-up) and the "
      "whole-model latency; writes a host profile (CSV or JSON) for the partitioner");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  // The request's fields from api::profile_fields() (--weight-seed, with --seed its deprecated
  // spelling).
  options::add_fields(cmd, api::profile_fields(), a->request);
  cmd->add_option("--csv", a->csv, "Write the host profile as CSV");
  cmd->add_option("--json", a->json, "Write the host profile as JSON");
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &provenance] {
    if (!a->csv.empty() && !a->csv.ends_with(".csv"))
      throw user_error("--csv: the file name must end in .csv");
    if (!a->json.empty() && !a->json.ends_with(".json"))
      throw user_error("--json: the file name must end in .json");
    run(*a, provenance);
  });
}

}  // namespace hetcim::cli
