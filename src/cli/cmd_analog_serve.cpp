// hetcim analog serve: seed 002's online path. Loads a frozen policy written by `hetcim analog
// select --policy-out`, checks that the model and the chip are the ones it was certified for, runs
// one analog inference per query on the selected chip, and routes each query (accept / fallback /
// abstain) through select::Controller, with running coverage and modelled energy.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "api_torch/policy.h"
#include "api_torch/pool.h"
#include "cli/commands.h"
#include "data/dataset.h"
#include "exec/npy.h"
#include "onnxio/import.h"
#include "select/audit.h"
#include "select/controller.h"
#include "train/evaluate.h"
#include "util/error.h"
#include "util/files.h"
#include "util/output_set.h"
#include "xbar/chips_yaml.h"

namespace hetcim::cli {
namespace {

template <typename T>
T get(const nlohmann::json& j, const std::string& path, const std::string& file) {
  return api::policy_get<T>(j, path, file);
}

// Queries from an .npy of uint8 images, N x H x W or N x C x H x W.
data::ImageDataset images_from_npy(const std::string& file, int64_t classes) {
  std::string stdin_bytes;
  if (file == "-") {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    stdin_bytes = ss.str();
  }
  const exec::Tensor t =
      file == "-" ? exec::parse_npy(stdin_bytes, "<stdin>") : exec::read_npy(file);
  if (t.dtype != graph::DType::UInt8)
    throw user_error(file, ": expected uint8 images (N x H x W or N x C x H x W), got dtype ",
                     graph::dtype_name(t.dtype));
  data::ImageDataset d;
  d.name = file;
  d.classes = classes;
  if (t.shape.size() == 3) {
    d.count = t.shape[0];
    d.channels = 1;
    d.height = t.shape[1];
    d.width = t.shape[2];
  } else if (t.shape.size() == 4) {
    d.count = t.shape[0];
    d.channels = t.shape[1];
    d.height = t.shape[2];
    d.width = t.shape[3];
  } else {
    throw user_error(file, ": expected N x H x W or N x C x H x W images, got shape ",
                     graph::shape_str(t.shape));
  }
  if (d.count < 1) throw user_error(file, ": no images");
  d.images = t.bytes;
  d.labels.assign(static_cast<size_t>(d.count), 0);
  return d;
}

}  // namespace

void register_analog_serve(CLI::App& analog) {
  struct Args {
    std::string policy, model, chips, input, dataset, data_dir, split = "test", json, decisions;
    int64_t limit = 0;
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
                  "Queries: uint8 images as .npy (N x H x W or N x C x H x W)");
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
  cmd->add_option("--decisions", a->decisions, "Write one CSV row per query: route, label, score");
  cmd->add_option("--json", a->json, "Write the counts, coverage and energy as JSON");
  cmd->add_flag("--quiet", a->quiet, "No progress on stderr");
  cmd->callback([a, cmd] {
    if (a->input.empty() == a->dataset.empty())
      throw user_error("analog serve: give the queries as --input FILE.npy or --dataset NAME");
    const api::LoadedPolicy lp = api::load_policy(a->policy, a->model, a->chips);
    const std::string& pf = lp.file;
    const nlohmann::json& pol = lp.json;
    const select::FrozenPolicy& fp = lp.frozen;
    const std::string& model = lp.model;
    const std::optional<xbar::ChipProfile>& profile = lp.profile;
    const uint64_t chip_seed = lp.chip_seed;
    const uint64_t read_seed = cmd->count("--read-seed") > 0 ? a->read_seed : lp.test_read_seed;
    select::Controller controller(fp, a->abstain);  // checks the policy's consistency

    data::ImageDataset q =
        a->input.empty() ? data::load_dataset(a->dataset, data::parse_split(a->split), a->data_dir)
                         : images_from_npy(a->input, fp.classes);
    if (a->limit > 0 && a->limit < q.count) q = data::slice(q, 0, a->limit);
    if (q.classes != fp.classes)
      throw user_error(q.name, ": ", q.classes, " classes, the policy has ", fp.classes);
    const bool labelled = !a->dataset.empty();

    std::vector<float> logits;
    if (profile) {
      train::EvalOptions e;
      e.batch_size = get<int64_t>(pol, "eval.batch_size", pf);
      e.threads = get<int>(pol, "eval.threads", pf);
      e.chip = profile;
      e.chip_seed = chip_seed;
      e.read_seed = read_seed;
      if (!a->quiet)
        std::fprintf(stderr, "analog inference of %lld queries on %s...\n",
                     static_cast<long long>(q.count), fp.unit.c_str());
      logits = train::evaluate_race_cnn(onnxio::import_onnx(model), q, e).logits;
    } else {
      logits.assign(static_cast<size_t>(q.count * fp.classes), 0.0f);  // nothing runs on a chip
    }
    // Monitors: label-free coverage shift against the certificate's coverage, and with labelled
    // queries the anytime-valid audit bound on the accepted error rate.
    select::CoverageMonitor coverage_monitor({get<int64_t>(pol, "certificate.split.accepted", pf),
                                              get<int64_t>(pol, "certificate.split.rows", pf), 0.05,
                                              0.05});
    select::AuditMonitor audit({get<double>(pol, "certificate.risk_target", pf), 0.05});
    int64_t shifted_at = -1, broken_at = -1;
    std::string csv = "query,route,label,score\n";
    int64_t accepted_wrong = 0;
    for (int64_t i = 0; i < q.count; ++i) {
      const select::Decision d = controller.decide(std::span<const float>(logits).subspan(
          static_cast<size_t>(i * fp.classes), static_cast<size_t>(fp.classes)));
      if (d.route == select::Route::Accept && labelled) {
        const bool wrong = d.label != q.labels[static_cast<size_t>(i)];
        accepted_wrong += wrong;
        audit.observe(wrong);
        if (broken_at < 0 && audit.broken()) broken_at = i;
      }
      coverage_monitor.observe(d.route == select::Route::Accept);
      if (shifted_at < 0 && !fp.unit.empty() && coverage_monitor.shifted()) shifted_at = i;
      char row[96];
      std::snprintf(row, sizeof row, "%lld,%s,%d,%.9g\n", static_cast<long long>(i),
                    select::route_name(d.route), d.route == select::Route::Accept ? d.label : -1,
                    d.score);
      csv += row;
    }
    const select::ControllerCounts& c = controller.counts();
    std::printf(
        "policy %s: unit %s, threshold %.6g (%s)\n"
        "%lld queries: %lld accepted (coverage %.2f%%), %lld to the fallback, %lld abstained\n"
        "energy (modelled, the policy's energy model): %.4f uJ per query\n",
        pf.c_str(), fp.unit.empty() ? "none" : fp.unit.c_str(), fp.threshold,
        std::string(select::confidence_score_name(fp.score)).c_str(),
        static_cast<long long>(c.queries), static_cast<long long>(c.accepted), 100.0 * c.coverage(),
        static_cast<long long>(c.fallback), static_cast<long long>(c.abstained),
        c.energy / static_cast<double>(c.queries) * 1e6);
    if (labelled && c.accepted > 0)
      std::printf("accepted answers wrong: %lld (%.2f%%, measured against %s labels)\n",
                  static_cast<long long>(accepted_wrong),
                  100.0 * static_cast<double>(accepted_wrong) / static_cast<double>(c.accepted),
                  q.name.c_str());
    std::printf(
        "coverage monitor (label-free): running coverage %.2f%%, anytime 95%% interval [%.2f, "
        "%.2f]%%, certified [%.2f, %.2f]%%: %s\n",
        100.0 * coverage_monitor.coverage(), 100.0 * coverage_monitor.lower_bound(),
        100.0 * coverage_monitor.upper_bound(), 100.0 * coverage_monitor.reference_lower(),
        100.0 * coverage_monitor.reference_upper(),
        shifted_at >= 0
            ? ("SHIFTED (first at query " + std::to_string(shifted_at) + "): re-calibrate").c_str()
            : "consistent");
    if (labelled)
      std::printf(
          "audit (labelled, every accepted query): accepted error rate anytime 95%% bounds "
          "[%.2f, %.2f]%% against r = %.2f%%: %s\n",
          100.0 * audit.lower_bound(), 100.0 * audit.upper_bound(),
          100.0 * get<double>(pol, "certificate.risk_target", pf),
          broken_at >= 0
              ? ("BROKEN (first at query " + std::to_string(broken_at) + "): re-calibrate").c_str()
              : "not broken");
    OutputSet outputs;
    if (!a->decisions.empty()) outputs.add(a->decisions, csv);
    if (!a->json.empty()) {
      nlohmann::json j = {{"policy", pf},
                          {"unit", fp.unit},
                          {"queries", c.queries},
                          {"accepted", c.accepted},
                          {"fallback", c.fallback},
                          {"abstained", c.abstained},
                          {"coverage", c.coverage()},
                          {"energy_uJ_per_query", c.energy / static_cast<double>(c.queries) * 1e6},
                          {"energy_source", "modelled: the policy's energy model"}};
      j["coverage_monitor"] = {
          {"lower", coverage_monitor.lower_bound()},
          {"upper", coverage_monitor.upper_bound()},
          {"certified_lower", coverage_monitor.reference_lower()},
          {"certified_upper", coverage_monitor.reference_upper()},
          {"shifted_at", shifted_at >= 0 ? nlohmann::json(shifted_at) : nlohmann::json(nullptr)}};
      if (labelled) {
        j["accepted_wrong"] = accepted_wrong;
        j["audit"] = {
            {"lower", audit.lower_bound()},
            {"upper", audit.upper_bound()},
            {"broken_at", broken_at >= 0 ? nlohmann::json(broken_at) : nlohmann::json(nullptr)}};
      }
      outputs.add(a->json, j.dump(1) + "\n");
    }
    outputs.commit();
  });
}

}  // namespace hetcim::cli
