// hetcim analog serve: seed 002's online path. Loads a frozen policy written by `hetcim analog
// select --policy-out`, checks that the model and the chip are the ones it was certified for, runs
// one analog inference per query on the selected chip, and routes each query (accept / fallback /
// abstain) through select::Controller, with running coverage and modelled energy. Queries come
// from a data set, an .npy file, or an .npy streamed on stdin (`--input -`: the header, then the
// records, answered one batch of the policy's batch size at a time as they arrive, `--decisions -`
// printing each batch's routes at once); every source goes through one train::RaceCnnEvaluator in
// the same batches, so the same images take the same decisions.
#include <cstdio>
#include <memory>
#include <span>
#include <string>

#include "api_torch/serve.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/torch_flags.h"
#include "report/analog.h"
#include "select/controller.h"
#include "util/output_set.h"

namespace hetcim::cli {
void register_analog_serve(CLI::App& analog) {
  auto a = std::make_shared<AnalogServeArgs>();
  add_analog_serve(analog, *a)->callback([a] {
    api::AnalogServeRequest q = a->request;
    q.on_start = options::stderr_lines(a->quiet);
    const bool rows_to_stdout = a->decisions == "-";
    std::string csv = report::analog_serve_csv_header();
    bool started = false;
    q.on_decisions = [&](int64_t first, std::span<const select::Decision> decisions) {
      if (!started && rows_to_stdout) std::fputs(csv.c_str(), stdout);
      started = true;
      const std::string rows = report::analog_serve_rows(first, decisions);
      if (rows_to_stdout) {  // each batch's decisions as soon as they are taken
        std::fputs(rows.c_str(), stdout);
        std::fflush(stdout);
      } else {
        csv += rows;
      }
    };
    const api::AnalogServeResult r = api::analog_serve(q);
    std::fputs(report::analog_serve_text(r.summary).c_str(), rows_to_stdout ? stderr : stdout);
    if (!r.certified)  // a warning even with --quiet: the decisions carry no guarantee
      std::fprintf(stderr,
                   "warning: %s: field 'certificate.certified' is false (bound %g > risk target "
                   "%g): these decisions carry no certified risk guarantee\n",
                   q.policy.c_str(), r.certificate_bound, r.risk_target);
    OutputSet outputs;
    if (!a->decisions.empty() && !rows_to_stdout) outputs.add(a->decisions, csv);
    if (!a->json.empty()) outputs.add(a->json, report::analog_serve_json(r.summary).dump(1) + "\n");
    outputs.commit();
  });
}

}  // namespace hetcim::cli
