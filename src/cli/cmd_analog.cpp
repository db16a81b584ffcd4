// hetcim analog eval | audit | run | select in hetcim-torch: RACE-AIMC's CNN with chosen layers on
// simulated chips, the per-layer mapping report of any model's weights on a chip profile, any
// model with chosen nodes on a chip, and RACE-AIMC's certified selective inference over a pool of
// chips. The flags are cli/torch_flags.h's (hetcim declares the same); each run is api request ->
// one api call (api/analog_chip.h, api_torch/analog.h) -> report/ text.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "api/common.h"
#include "api_torch/analog.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/torch_flags.h"
#include "exec/npy.h"
#include "report/analog.h"
#include "report/provenance.h"
#include "report/race_select.h"
#include "util/output_set.h"
#include "util/progress.h"

namespace hetcim::cli {
namespace {

void register_analog_eval(CLI::App& analog, const Provenance& provenance) {
  auto a = std::make_shared<AnalogEvalArgs>();
  add_analog_eval(analog, *a)->callback([a, &provenance] {
    api::AnalogEvalRequest q = a->request;
    q.one_run = !a->logits.empty();
    Progress progress("analog eval", "chips", 0, !a->quiet);
    const api::AnalogEvalResult r = api::analog_eval(q, [&](size_t done, size_t total) {
      progress.set_total(total);
      progress.update(done);
    });
    const std::vector<results::AnalogEvalRow> rows = api::analog_eval_rows(r);
    const Provenance prov = api::with_caller(r.provenance, provenance);
    OutputSet outputs;
    if (!a->logits.empty())
      outputs.add(a->logits, exec::npy_bytes(exec::Tensor::from_floats(
                                 {r.runs[0].result.count, r.classes}, r.runs[0].result.logits)));
    if (!a->json.empty())
      outputs.add(a->json, report::analog_eval_json(rows, q.dataset, q.split, prov).dump(1) + "\n");
    outputs.commit();
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    std::fputs(report::analog_eval_text(rows).c_str(), stdout);
  });
}

void register_analog_select(CLI::App& analog, const Provenance& provenance) {
  auto a = std::make_shared<AnalogSelectArgs>();
  add_analog_select(analog, *a)->callback([a, &provenance] {
    api::AnalogSelectRequest q = a->request;
    q.on_simulation = options::stderr_lines(a->quiet);
    q.on_cache_warning = [](const std::string& w) {  // --quiet or not: a cache entry was refused
      std::fprintf(stderr, "hetcim: warning: %s\n", w.c_str());
    };
    // Under MPI (`mpirun -np N hetcim analog select ...`) the simulations are split over the
    // ranks; rank 0 alone reads and writes the cache, runs the protocol and writes the outputs.
    q.over_ranks = true;
    const api::AnalogSelectResult r = api::analog_select(q);
    if (!r.root) return;
    std::printf("data: %s\n", r.data.c_str());
    if (!r.cache_dir.empty())
      std::printf("logits: %lld simulated now, %lld from the cache %s\n",
                  static_cast<long long>(r.simulated), static_cast<long long>(r.cached),
                  r.cache_dir.c_str());
    std::fputs(report::race_select_text(r.race, r.options).c_str(), stdout);
    const Provenance prov = api::with_caller(r.provenance, provenance);
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    OutputSet outputs;
    if (!a->policy.empty()) outputs.add(a->policy, api::policy_json(q, r).dump(1) + "\n");
    if (!a->json.empty()) {
      std::vector<uint64_t> chip_seeds, read_seeds;
      for (const api::PoolUnit& u : r.units) {
        chip_seeds.push_back(u.chip_seed);
        read_seeds.push_back(u.read_seed);
      }
      outputs.add(a->json, report::race_select_json(r.race, r.options, chip_seeds, read_seeds, prov,
                                                    r.data, {r.simulated, r.cached, r.cache_dir})
                                   .dump(1) +
                               "\n");
    }
    outputs.commit();
  });
}

}  // namespace

void register_analog(CLI::App& app, const Provenance& provenance) {
  CLI::App* analog = add_analog_group(app);
  register_analog_eval(*analog, provenance);
  auto audit = std::make_shared<api::AnalogAuditRequest>();
  add_analog_audit(*analog, *audit)->callback([audit] { run_analog_audit(*audit); });
  auto run = std::make_shared<AnalogRunArgs>();
  add_analog_run(*analog, *run)->callback([run] { run_analog_run(*run); });
  register_analog_select(*analog, provenance);
  register_analog_study(*analog);
  register_analog_serve(*analog);
  register_analog_drift(*analog, provenance);
}

}  // namespace hetcim::cli
