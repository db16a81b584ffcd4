// hetcim analog serve: seed 002's online path. Loads a frozen policy written by `hetcim analog
// select --policy-out`, checks that the model and the chip are the ones it was certified for, runs
// one analog inference per query on the selected chip, and routes each query (accept / fallback /
// abstain) through select::Controller, with running coverage and modelled energy. Queries come
// from a data set, an .npy file, or an .npy streamed on stdin (`--input -`: the header, then the
// records, answered one batch of the policy's batch size at a time as they arrive, `--decisions -`
// printing each batch's routes at once); every source goes through one train::RaceCnnEvaluator in
// the same batches, so the same images take the same decisions.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
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

// An empty data set of uint8 images N x H x W or N x C x H x W, from an .npy header.
data::ImageDataset images_of_shape(const std::string& origin, graph::DType dtype,
                                   const graph::Shape& shape, int64_t classes) {
  if (dtype != graph::DType::UInt8)
    throw user_error(origin, ": expected uint8 images (N x H x W or N x C x H x W), got dtype ",
                     graph::dtype_name(dtype));
  data::ImageDataset d;
  d.name = origin;
  d.classes = classes;
  if (shape.size() == 3) {
    d.count = shape[0];
    d.channels = 1;
    d.height = shape[1];
    d.width = shape[2];
  } else if (shape.size() == 4) {
    d.count = shape[0];
    d.channels = shape[1];
    d.height = shape[2];
    d.width = shape[3];
  } else {
    throw user_error(origin, ": expected N x H x W or N x C x H x W images, got shape ",
                     graph::shape_str(shape));
  }
  if (d.count < 1) throw user_error(origin, ": no images");
  if (d.image_size() < 1)
    throw user_error(origin, ": empty images, shape ", graph::shape_str(shape));
  return d;
}

// Queries from an .npy file of uint8 images, all at once.
data::ImageDataset images_from_npy(const std::string& file, int64_t classes) {
  exec::Tensor t = exec::read_npy(file);
  data::ImageDataset d = images_of_shape(file, t.dtype, t.shape, classes);
  d.images = std::move(t.bytes);
  d.labels.assign(static_cast<size_t>(d.count), 0);
  return d;
}

// Up to n bytes from stdin (fewer only at its end).
std::string read_stdin(size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const size_t k = std::fread(out.data() + got, 1, n - got, stdin);
    if (k == 0) break;
    got += k;
  }
  out.resize(got);
  return out;
}

// Queries streamed on stdin as an .npy (docs: `hetcim analog serve --input -`): the header first,
// then N records of C x H x W uint8 pixels, read one batch at a time as they arrive.
class NpyStream {
 public:
  explicit NpyStream(int64_t classes) {
    std::string head = read_stdin(exec::kNpyPrefixBytes);
    const size_t size = exec::npy_header_size(head, kOrigin);
    if (size > head.size()) head += read_stdin(size - head.size());
    const exec::NpyHeader h = exec::parse_npy_header(head, kOrigin);
    shape_ = images_of_shape(kOrigin, h.dtype, h.shape, classes);
    // Bytes past the header that the prefix read already took (a header shorter than 12 bytes).
    pending_ = head.substr(h.data_offset);
  }
  [[nodiscard]] int64_t count() const { return shape_.count; }
  // The next `n` records (UserError when the stream ends before them).
  data::ImageDataset next(int64_t n) {
    data::ImageDataset d = shape_;
    d.count = n;
    const size_t bytes = static_cast<size_t>(n * d.image_size());
    std::string got = pending_;
    pending_.clear();
    if (got.size() < bytes) got += read_stdin(bytes - got.size());
    if (got.size() < bytes)
      throw user_error(kOrigin, ": the stream ended after ",
                       read_ + static_cast<int64_t>(got.size()) / d.image_size(), " of ",
                       shape_.count, " records its header announces");
    read_ += n;
    d.images.assign(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(bytes));
    d.labels.assign(static_cast<size_t>(n), 0);
    return d;
  }

 private:
  static constexpr const char* kOrigin = "<stdin>";
  data::ImageDataset shape_;
  std::string pending_;
  int64_t read_ = 0;
};

}  // namespace

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

    // The queries: a data set or an .npy file in memory, or an .npy streamed on stdin and read
    // batch by batch as it arrives. Either way they go through one RaceCnnEvaluator in batches of
    // the policy's batch size, so the same images take the same decisions from every source.
    const bool streaming = a->input == "-";
    std::optional<NpyStream> stream;
    data::ImageDataset q;
    if (streaming) {
      stream.emplace(fp.classes);
      q.name = "<stdin>";
      q.classes = fp.classes;
      q.count = stream->count();
    } else {
      q = a->input.empty()
              ? data::load_dataset(a->dataset, data::parse_split(a->split), a->data_dir)
              : images_from_npy(a->input, fp.classes);
    }
    if (a->limit > 0 && a->limit < q.count) {
      if (streaming)
        q.count = a->limit;
      else
        q = data::slice(q, 0, a->limit);
    }
    if (q.classes != fp.classes)
      throw user_error(q.name, ": ", q.classes, " classes, the policy has ", fp.classes);
    const bool labelled = !a->dataset.empty();
    const bool rows_to_stdout = a->decisions == "-";
    std::FILE* summary_out = rows_to_stdout ? stderr : stdout;

    train::EvalOptions e;
    e.batch_size = a->batch_size > 0 ? a->batch_size : get<int64_t>(pol, "eval.batch_size", pf);
    e.threads = get<int>(pol, "eval.threads", pf);
    e.chip = profile;
    e.chip_seed = chip_seed;
    e.read_seed = read_seed;
    std::optional<train::RaceCnnEvaluator> evaluator;
    if (profile) {
      if (!a->quiet)
        std::fprintf(stderr, "analog inference of %lld queries on %s%s...\n",
                     static_cast<long long>(q.count), fp.unit.c_str(),
                     streaming ? " as they arrive on stdin" : "");
      evaluator.emplace(onnxio::import_onnx(model), e);
    }
    // Monitors: label-free coverage shift against the certificate's coverage, and with labelled
    // queries the anytime-valid audit bound on the accepted error rate.
    select::CoverageMonitor coverage_monitor({get<int64_t>(pol, "certificate.split.accepted", pf),
                                              get<int64_t>(pol, "certificate.split.rows", pf), 0.05,
                                              0.05});
    select::AuditMonitor audit({get<double>(pol, "certificate.risk_target", pf), 0.05});
    int64_t shifted_at = -1, broken_at = -1;
    const std::string csv_header = "query,route,label,score\n";
    std::string csv = csv_header;
    if (rows_to_stdout) std::fputs(csv_header.c_str(), stdout);
    int64_t accepted_wrong = 0;
    std::vector<float> logits;
    for (int64_t b0 = 0; b0 < q.count; b0 += e.batch_size) {
      const int64_t m = std::min(e.batch_size, q.count - b0);
      const data::ImageDataset batch = streaming ? stream->next(m) : data::slice(q, b0, m);
      logits.assign(static_cast<size_t>(m * fp.classes), 0.0f);  // no unit: nothing on a chip
      if (evaluator) evaluator->logits(batch, 0, m, logits.data());
      std::string rows;
      for (int64_t k = 0; k < m; ++k) {
        const int64_t i = b0 + k;
        const select::Decision d = controller.decide(std::span<const float>(logits).subspan(
            static_cast<size_t>(k * fp.classes), static_cast<size_t>(fp.classes)));
        if (d.route == select::Route::Accept && labelled) {
          const bool wrong = d.label != batch.labels[static_cast<size_t>(k)];
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
        rows += row;
      }
      if (rows_to_stdout) {  // each batch's decisions as soon as they are taken
        std::fputs(rows.c_str(), stdout);
        std::fflush(stdout);
      } else {
        csv += rows;
      }
    }
    const select::ControllerCounts& c = controller.counts();
    std::fprintf(
        summary_out,
        "policy %s: unit %s, threshold %.6g (%s)\n"
        "%lld queries: %lld accepted (coverage %.2f%%), %lld to the fallback, %lld abstained\n"
        "energy (modelled, the policy's energy model): %.4f uJ per query\n",
        pf.c_str(), fp.unit.empty() ? "none" : fp.unit.c_str(), fp.threshold,
        std::string(select::confidence_score_name(fp.score)).c_str(),
        static_cast<long long>(c.queries), static_cast<long long>(c.accepted), 100.0 * c.coverage(),
        static_cast<long long>(c.fallback), static_cast<long long>(c.abstained),
        c.energy / static_cast<double>(c.queries) * 1e6);
    if (labelled && c.accepted > 0)
      std::fprintf(summary_out,
                   "accepted answers wrong: %lld (%.2f%%, measured against %s labels)\n",
                   static_cast<long long>(accepted_wrong),
                   100.0 * static_cast<double>(accepted_wrong) / static_cast<double>(c.accepted),
                   q.name.c_str());
    std::fprintf(
        summary_out,
        "coverage monitor (label-free): running coverage %.2f%%, anytime 95%% interval [%.2f, "
        "%.2f]%%, certified [%.2f, %.2f]%%: %s\n",
        100.0 * coverage_monitor.coverage(), 100.0 * coverage_monitor.lower_bound(),
        100.0 * coverage_monitor.upper_bound(), 100.0 * coverage_monitor.reference_lower(),
        100.0 * coverage_monitor.reference_upper(),
        shifted_at >= 0
            ? ("SHIFTED (first at query " + std::to_string(shifted_at) + "): re-calibrate").c_str()
            : "consistent");
    if (labelled)
      std::fprintf(
          summary_out,
          "audit (labelled, every accepted query): accepted error rate anytime 95%% bounds "
          "[%.2f, %.2f]%% against r = %.2f%%: %s\n",
          100.0 * audit.lower_bound(), 100.0 * audit.upper_bound(),
          100.0 * get<double>(pol, "certificate.risk_target", pf),
          broken_at >= 0
              ? ("BROKEN (first at query " + std::to_string(broken_at) + "): re-calibrate").c_str()
              : "not broken");
    OutputSet outputs;
    if (!a->decisions.empty() && !rows_to_stdout) outputs.add(a->decisions, csv);
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
