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
#include "report/analog.h"
#include "select/controller.h"
#include "util/output_set.h"

namespace hetcim::cli {
void register_analog_serve(CLI::App& analog) {
  struct Args {
    std::string policy, model, chips, input, dataset, data_dir, split = "test", json, decisions;
    int64_t limit = 0, batch_size = 0;
    bool abstain = false, quiet = false;
    uint64_t read_seed = 0;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = analog.add_subcommand(
      "serve",
      "Seed 002 online: apply a frozen policy (from `analog select --policy-out`) query by query: "
      "one "
      "analog inference on the selected chip, then accept, fallback or abstain; coverage and "
      "modelled energy");
  cmd->add_option("policy", a->policy, "Policy file written by `hetcim analog select --policy-out`")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--model", a->model, "ONNX model (default: the policy's; must hash the same)");
  cmd->add_option("--chips", a->chips,
                  "Chip profiles file (default: the policy's; the unit's profile must match)");
  cmd->add_option("--input", a->input,
                  "Queries: uint8 images as .npy (N x H x W or N x C x H x W); '-': the .npy "
                  "streamed on stdin, read and answered one batch at a time as it arrives");
  cmd->add_option("--dataset", a->dataset,
                  "Queries from a data set instead: fashion-mnist, cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}));
  cmd->add_option("--data-dir", a->data_dir, "Directory of the data set files");
  cmd->add_option("--split", a->split, "train or test")
      ->check(CLI::IsMember({"train", "test"}))
      ->capture_default_str();
  cmd->add_option("--limit", a->limit, "First N queries only (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--read-seed", a->read_seed,
                  "Read-noise seed (default: the policy's test-set stream, so serving the "
                  "official test set reproduces the offline test split)");
  cmd->add_flag("--abstain", a->abstain, "Deferred queries abstain instead of using the fallback");
  cmd->add_option("--decisions", a->decisions,
                  "Write one CSV row per query: route, label, score ('-': to stdout, each batch "
                  "as soon as it is decided; the summary then goes to stderr)");
  cmd->add_option("--batch-size", a->batch_size,
                  "Queries per analog read (default: the policy's; decisions equal the offline "
                  "evaluation's only with its batch size, read noise is drawn per read)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--json", a->json, "Write the counts, coverage and energy as JSON");
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, cmd] {
    api::AnalogServeRequest q;
    q.policy = a->policy;
    q.model = a->model;
    q.chips = a->chips;
    q.input = a->input;
    q.dataset = a->dataset;
    q.data_dir = a->data_dir;
    q.split = a->split;
    q.limit = a->limit;
    if (cmd->count("--read-seed") > 0) q.read_seed = a->read_seed;
    if (a->batch_size > 0) q.batch_size = a->batch_size;
    q.abstain = a->abstain;
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
    OutputSet outputs;
    if (!a->decisions.empty() && !rows_to_stdout) outputs.add(a->decisions, csv);
    if (!a->json.empty()) outputs.add(a->json, report::analog_serve_json(r.summary).dump(1) + "\n");
    outputs.commit();
  });
}

}  // namespace hetcim::cli
