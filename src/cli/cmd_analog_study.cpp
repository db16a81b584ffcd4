// hetcim analog study: seed 002's experiments end to end. Trains (or reuses) N models with a
// held-out calibration subset of the training set, simulates each chip of the pool once per model
// into a logit cache, replays the protocol and its ablations from the cache (select/study.h) and
// writes Table II / Table III / ablation tables, Fig. 2 a-d analogues and report.html.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_torch/study.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/torch_flags.h"
#include "formats/race_study_file.h"
#include "report/race_study.h"
#include "util/files.h"
#include "util/output_set.h"

namespace hetcim::cli {

void register_analog_study(CLI::App& analog) {
  auto a = std::make_shared<AnalogStudyArgs>();
  add_analog_study(analog, *a)->callback([a] {
    api::AnalogStudyRequest q = a->request;
    q.design_risks = api::parse_design_risks(a->design_risks);
    q.over_ranks = true;  // the simulations of every model over the MPI ranks of the run
    if (!a->quiet)
      q.on_training = [](size_t i, size_t n, int epochs) {
        std::fprintf(stderr, "training model %zu of %zu (%d epochs)...\n", i + 1, n, epochs);
      };
    q.on_simulation = options::stderr_lines(a->quiet);
    const api::AnalogStudyResult r = api::analog_study(q);
    if (!r.root) return;  // rank 0 writes the outputs
    const std::string text = report::race_study_text(r.study, r.info);
    OutputSet outputs;
    const std::vector<report::Figure> figs =
        report::write_race_study_figures(outputs, r.study, r.info, &r.paper, q.out, a->drawing);
    report::write_race_study_html(outputs, r.study, r.info, figs, q.out);
    const nlohmann::json j = formats::race_study_json(r.study, r.info, r.options);
    outputs.add(join_path(q.out, "study.json"), j.dump(1) + "\n");
    outputs.add(join_path(q.out, "study.txt"), text);
    outputs.commit();
    std::fputs(text.c_str(), stdout);
  });
}

}  // namespace hetcim::cli
