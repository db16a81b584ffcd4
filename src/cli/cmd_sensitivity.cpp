// hetcim sensitivity: the accuracy a network loses per operator on a simulated analog chip
// (issue 13), with additivity checks; writes the sensitivity file `hetcim partition
// --sensitivity` reads.
#include <cstdio>
#include <memory>

#include "api/accuracy.h"
#include "api/common.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "report/accuracy.h"
#include "util/files.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
namespace {

struct SensitivityArgs {
  ModelSource model;
  api::SensitivityRequest request;
  std::string out;
  bool quiet = false;
};

void run(SensitivityArgs a, const Provenance& provenance) {
  api::SensitivityRequest& q = a.request;
  q.validate();
  const api::Model model = load_api_model(a.model);
  OutputSet files;
  if (!a.out.empty()) (void)resolve_output_path(a.out);
  api::SensitivityResult r;
  {
    Progress progress("sensitivity of " + model.spec + " on " + q.setup.chip, "network runs", 0,
                      !a.quiet);
    q.progress = [&](size_t done, size_t total) {
      progress.set_total(total);
      progress.update(done);
    };
    r = api::sensitivity(model, q);
    q.progress = nullptr;
  }
  const Provenance prov = api::with_caller(r.provenance, provenance);
  if (!a.out.empty()) files.add(a.out, api::sensitivity_file_json(r, prov).dump(1) + "\n");
  files.commit();
  std::fputs(report::sensitivity_text(r.sensitivity, model.spec, q.setup.chip, prov).c_str(),
             stdout);  // with --quiet too: it silences progress only
}

}  // namespace

void register_sensitivity(CLI::App& app, const Provenance& provenance) {
  auto a = std::make_shared<SensitivityArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sensitivity",
      "Measure the accuracy each offloadable operator loses on a simulated analog chip (alone, "
      "then greedy and pairwise sets to check additivity); write the file `partition "
      "--sensitivity` reads");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  // The images, chip, seeds and checks (api::sensitivity_fields); the operators by hand.
  options::add_fields(cmd, api::sensitivity_fields(), a->request);
  cmd->get_option("--chip")->required();
  cmd->add_option("--operators", a->request.operators,
                  "Only these operators (default: every operator the chip can run)")
      ->delimiter(',');
  cmd->add_option("--out", a->out, "Write the sensitivity file (JSON)");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size of a zoo model")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, &provenance] { run(*a, provenance); });
}

}  // namespace hetcim::cli
