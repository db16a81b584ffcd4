#include "api_torch/serve.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "api/common.h"
#include "api_torch/policy.h"
#include "data/dataset.h"
#include "exec/npy.h"
#include "onnxio/import.h"
#include "select/audit.h"
#include "train/evaluate.h"
#include "util/error.h"
#include "util/limits.h"

namespace hetcim::api {
namespace {

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
  // One image's size bounded before a batch of them is allocated (a hostile header's shape).
  (void)checked_elements(std::vector<int64_t>{d.channels, d.height, d.width}, kMaxTensorElements,
                         origin + ": one image of shape " + graph::shape_str(shape));
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
    const size_t bytes = static_cast<size_t>(
        checked_elements(std::vector<int64_t>{n, d.channels, d.height, d.width}, kMaxTensorElements,
                         std::string(kOrigin) + ": a batch of images"));
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

void AnalogServeRequest::validate() const {
  if (policy.empty()) throw user_error("policy: required (a file of `analog select --policy-out`)");
  if (input.empty() == dataset.empty())
    throw user_error("analog serve: give the queries as --input FILE.npy or --dataset NAME");
  check_fields(*this, analog_serve_fields());
  if (!dataset.empty()) data::check_dataset_name("dataset", dataset);
}

AnalogServeResult analog_serve(const AnalogServeRequest& a) {
  a.validate();
  const LoadedPolicy lp = load_policy(a.policy, a.model, a.chips);
  const std::string& pf = lp.file;
  const select::FrozenPolicy& fp = lp.frozen;
  const std::optional<xbar::ChipProfile>& profile = lp.profile;
  const uint64_t read_seed = a.read_seed.value_or(lp.test_read_seed);
  select::Controller controller(fp, a.abstain);  // checks the policy's consistency

  // The queries: a data set or an .npy file in memory, or an .npy streamed on stdin and read
  // batch by batch as it arrives. Either way they go through one RaceCnnEvaluator in batches of
  // the policy's batch size, so the same images take the same decisions from every source.
  const bool streaming = a.input == "-";
  std::optional<NpyStream> stream;
  data::ImageDataset q;
  if (streaming) {
    stream.emplace(fp.classes);
    q.name = "<stdin>";
    q.classes = fp.classes;
    q.count = stream->count();
  } else {
    q = a.input.empty() ? data::load_dataset(a.dataset, data::parse_split(a.split), a.data_dir)
                        : images_from_npy(a.input, fp.classes);
  }
  if (a.limit > 0 && a.limit < q.count) {
    if (streaming)
      q.count = a.limit;
    else
      q = data::slice(q, 0, a.limit);
  }
  if (q.classes != fp.classes)
    throw user_error(q.name, ": ", q.classes, " classes, the policy has ", fp.classes);
  const bool labelled = !a.dataset.empty();

  train::EvalOptions e;
  e.batch_size = a.batch_size ? *a.batch_size : lp.batch_size;
  e.threads = lp.threads;
  e.chip = profile;
  e.chip_seed = lp.chip_seed;
  e.read_seed = read_seed;
  std::optional<train::RaceCnnEvaluator> evaluator;
  if (profile) {
    if (a.on_start)
      a.on_start("analog inference of " + std::to_string(q.count) + " queries on " + fp.unit +
                 (streaming ? " as they arrive on stdin" : "") + "...");
    evaluator.emplace(onnxio::import_onnx(lp.model), e);
  }
  // Monitors: label-free coverage shift against the certificate's coverage, and with labelled
  // queries the anytime-valid audit bound on the accepted error rate.
  select::CoverageMonitor coverage_monitor({lp.certified_accepted, lp.certified_rows, 0.05, 0.05});
  const double risk_target = lp.risk_target;
  select::AuditMonitor audit({risk_target, 0.05});
  AnalogServeResult r;
  results::AnalogServeSummary& s = r.summary;
  std::vector<float> logits;
  std::vector<select::Decision> decisions;
  if (a.on_decisions) a.on_decisions(0, decisions);
  for (int64_t b0 = 0; b0 < q.count; b0 += e.batch_size) {
    const int64_t m = std::min(e.batch_size, q.count - b0);
    const data::ImageDataset batch = streaming ? stream->next(m) : data::slice(q, b0, m);
    logits.assign(static_cast<size_t>(m * fp.classes), 0.0f);  // no unit: nothing on a chip
    if (evaluator) evaluator->logits(batch, 0, m, logits.data());
    decisions.clear();
    for (int64_t k = 0; k < m; ++k) {
      const int64_t i = b0 + k;
      const select::Decision d = controller.decide(std::span<const float>(logits).subspan(
          static_cast<size_t>(k * fp.classes), static_cast<size_t>(fp.classes)));
      if (d.route == select::Route::Accept && labelled) {
        const bool wrong = d.label != batch.labels[static_cast<size_t>(k)];
        s.accepted_wrong += wrong;
        audit.observe(wrong);
        if (s.broken_at < 0 && audit.broken()) s.broken_at = i;
      }
      coverage_monitor.observe(d.route == select::Route::Accept);
      if (s.shifted_at < 0 && !fp.unit.empty() && coverage_monitor.shifted()) s.shifted_at = i;
      decisions.push_back(d);
    }
    if (a.on_decisions) a.on_decisions(b0, decisions);
  }
  s.policy_file = pf;
  s.unit = fp.unit;
  s.threshold = fp.threshold;
  s.score = std::string(select::confidence_score_name(fp.score));
  s.counts = controller.counts();
  s.queries = q.name;
  s.labelled = labelled;
  s.coverage = coverage_monitor.coverage();
  s.coverage_lower = coverage_monitor.lower_bound();
  s.coverage_upper = coverage_monitor.upper_bound();
  s.certified_lower = coverage_monitor.reference_lower();
  s.certified_upper = coverage_monitor.reference_upper();
  s.audit_lower = audit.lower_bound();
  s.audit_upper = audit.upper_bound();
  s.risk_target = risk_target;
  r.status.origin = Origin::Measured;
  r.provenance = library_provenance();
  r.provenance.set("source", "decisions of policy " + pf + " on " + q.name +
                                 " with the classifier on a simulated chip (hetcim's crossbar "
                                 "simulator); energies modelled (the policy's energy model)");
  r.certified = lp.certified;
  r.certificate_bound = lp.upper_bound;
  r.risk_target = lp.risk_target;
  r.provenance.set("certificate", lp.certified ? "certified (the policy's bound within its risk "
                                                 "target)"
                                               : "NOT certified (the policy's bound exceeds its "
                                                 "risk target)");
  r.provenance.set("seeds", "chip " + std::to_string(lp.chip_seed) + ", read noise " +
                                std::to_string(read_seed));
  return r;
}

}  // namespace hetcim::api
