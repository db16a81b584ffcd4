#include "accuracy/chip_eval.h"

#include <algorithm>
#include <memory>
#include <string_view>
#include <unordered_set>

#include "accuracy/paired.h"
#include "data/holdout.h"
#include "exec/weights.h"
#include "hybrid/chip_runner.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "util/hash.h"
#include "xbar/model_layers.h"
#include "xbar/rng.h"

namespace hetcim::accuracy {
namespace {

const graph::Shape& known_shape(const graph::Graph& g, const std::string& tensor) {
  const graph::TensorInfo* t = g.info(tensor);
  if (!t || !t->shape)
    throw user_error("model '", g.name, "': tensor '", tensor, "' has no known shape");
  return *t->shape;
}

const graph::Shape& input_shape(const graph::Graph& g) {
  return known_shape(g, g.inputs.at(0));
}

int64_t classes_of(const graph::Graph& g) {
  return known_shape(g, g.outputs.at(0)).at(1);
}

int64_t sample_size_of(const graph::Graph& g) {
  const graph::Shape& s = input_shape(g);
  int64_t n = 1;
  for (size_t i = 1; i < s.size(); ++i) n *= s[i];
  return n;
}

}  // namespace

graph::Graph prepare_model(const graph::Graph& model, uint64_t weight_seed) {
  graph::Graph g = hybrid::lower_for_chip(model, weight_seed);
  if (g.inputs.size() != 1 || g.outputs.size() != 1)
    throw user_error("model '", g.name, "': accuracy needs one input and one output, it has ",
                     g.inputs.size(), " and ", g.outputs.size());
  const graph::Shape& s = input_shape(g);
  if (s.size() < 2 || std::any_of(s.begin(), s.end(), [](int64_t d) { return d <= 0; }))
    throw user_error("model '", g.name, "': input '", g.inputs[0], "' has shape ",
                     graph::shape_str(s), ", expected known dimensions with a batch first");
  const graph::TensorInfo* out = g.info(g.outputs[0]);
  if (!out || !out->shape || out->shape->size() != 2 || (*out->shape)[0] != s[0] ||
      (*out->shape)[1] <= 0)
    throw user_error("model '", g.name, "': output '", g.outputs[0],
                     "' is not [batch, classes] logits");
  return g;
}

CalibrationSet dataset_set(const graph::Graph& prepared, const data::ImageDataset& data,
                           int64_t samples) {
  const int64_t size = sample_size_of(prepared);
  if (data.image_size() != size)
    throw user_error("data set ", data.name, ": images of ", data.channels, "x", data.height, "x",
                     data.width, " do not fit the input '", prepared.inputs[0], "' of model '",
                     prepared.name, "' (", graph::shape_str(input_shape(prepared)), ")");
  if (samples < 1 || samples > data.count)
    throw user_error("samples: ", samples, ", expected 1..", data.count, " (the size of ",
                     data.name, ")");
  const int64_t classes = classes_of(prepared);
  if (data.classes > classes)
    throw user_error("data set ", data.name, " has ", data.classes, " classes, model '",
                     prepared.name, "' outputs ", classes);
  CalibrationSet set;
  set.description = data.name + ", first " + std::to_string(samples) + " images, pixels / 255";
  set.count = samples;
  set.sample_size = size;
  const std::vector<float> mean(static_cast<size_t>(data.channels), 0.0f),
      sd(static_cast<size_t>(data.channels), 1.0f);
  set.inputs = data::normalized_pixels(data, 0, samples, mean, sd);
  set.labels.assign(data.labels.begin(), data.labels.begin() + samples);
  set.classes = classes;
  set.source.split = "test";
  return set;
}

CalibrationSet heldout_set(const graph::Graph& prepared, const data::ImageDataset& train,
                           int64_t samples, int64_t holdout, uint64_t seed,
                           const std::string& record) {
  const data::Holdout h = data::make_holdout(train.count, holdout, seed);
  if (samples < 1 || samples > holdout)
    throw user_error("samples: ", samples, ", expected 1..", holdout, " (the images held out of ",
                     train.name, record.empty() ? "" : " by the training record " + record, ")");
  const std::vector<int64_t> rows(h.held_out.begin(), h.held_out.begin() + samples);
  CalibrationSet set = dataset_set(prepared, data::gather(train, rows, train.name), samples);
  set.description = train.name + ", first " + std::to_string(samples) + " of " +
                    std::to_string(holdout) + " held-out training images (seed " +
                    std::to_string(seed) + ", data/holdout.h; " +
                    (record.empty() ? "no training record beside the model: a seeded subset of "
                                      "the training split, which the model may have trained on"
                                    : "held out of training by " + record) +
                    "), pixels / 255";
  set.source.split = "holdout";
  set.source.holdout = holdout;
  set.source.holdout_seed = seed;
  set.source.record = record;
  return set;
}

CalibrationSet synthetic_set(const graph::Graph& prepared, int64_t samples, uint64_t seed) {
  if (samples < 1 || samples > (int64_t{1} << 24))
    throw user_error("samples: ", samples, ", expected 1..", int64_t{1} << 24);
  CalibrationSet set;
  set.synthetic = true;
  set.source = {"synthetic", "synthetic", 0, 0, ""};
  set.count = samples;
  set.sample_size = sample_size_of(prepared);
  set.classes = classes_of(prepared);
  set.description = std::to_string(samples) +
                    " synthetic inputs uniform in [-1, 1) (SplitMix64, seed " +
                    std::to_string(seed) + "), labelled by the fp32 model's own top-1";
  SplitMix64 rng{seed};
  set.inputs.resize(static_cast<size_t>(samples * set.sample_size));
  for (float& x : set.inputs) x = static_cast<float>(2.0 * rng.uniform01() - 1.0);
  set.labels.assign(static_cast<size_t>(samples), 0);
  const std::vector<int64_t> top =
      top1(evaluate_on_chip(prepared, set, ChipRun{}, {}), set.classes);
  set.labels = top;
  return set;
}

int64_t shared_inputs(const CalibrationSet& a, const CalibrationSet& b) {
  if (a.sample_size != b.sample_size || a.sample_size <= 0) return 0;
  const auto bytes = static_cast<size_t>(a.sample_size) * sizeof(float);
  const auto view = [&](const CalibrationSet& s, int64_t i) {
    return std::string_view(reinterpret_cast<const char*>(s.inputs.data() + i * s.sample_size),
                            bytes);
  };
  std::unordered_set<std::string_view> seen;
  for (int64_t i = 0; i < a.count; ++i) seen.insert(view(a, i));
  int64_t shared = 0;
  for (int64_t i = 0; i < b.count; ++i) shared += seen.count(view(b, i)) > 0 ? 1 : 0;
  return shared;
}

std::vector<float> evaluate_on_chip(const graph::Graph& prepared, const CalibrationSet& set,
                                    const ChipRun& chip,
                                    const std::vector<std::string>& analog_nodes) {
  const int64_t size = sample_size_of(prepared);
  if (set.sample_size != size)
    throw user_error("calibration set (", set.description, "): ", set.sample_size,
                     " values per image, model '", prepared.name, "' takes ", size);
  hybrid::ChipRunner runner(prepared, {chip.profile, analog_nodes, chip.chip_seed, chip.read_seed});
  std::vector<float> logits(static_cast<size_t>(set.count * runner.classes()));
  runner.run(
      set.count,
      [&](int64_t first, int64_t n, float* x) {
        std::copy_n(set.inputs.begin() + first * size, n * size, x);
      },
      logits.data());
  return logits;
}

std::vector<std::string> chip_capable_nodes(const graph::Graph& prepared) {
  std::vector<std::string> out;
  for (const xbar::CrossbarMatrix& m : xbar::crossbar_layers(prepared).mapped)
    out.push_back(m.node);
  return out;
}

}  // namespace hetcim::accuracy
