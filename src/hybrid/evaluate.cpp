#include "hybrid/evaluate.h"

#include <algorithm>
#include <chrono>
#include <ctime>

#include "hybrid/chip_runner.h"
#include "util/error.h"

namespace hetcim::hybrid {
namespace {

using clock = std::chrono::steady_clock;

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double since(clock::time_point t0) {
  return std::chrono::duration<double>(clock::now() - t0).count();
}

}  // namespace

EvaluateResult evaluate(const graph::Graph& model, const data::ImageDataset& d,
                        const EvaluateOptions& o) {
  if (o.threads < 1) throw user_error("threads: expected >= 1, got ", o.threads);
  if (o.limit < 0) throw user_error("limit: expected >= 0, got ", o.limit);
  data::validate(d);
  const auto t0 = clock::now();
  EvaluateResult r;
  const graph::Graph g = lower_for_chip(model, o.weight_seed, &r.seeded_weights);
  if (g.inputs.size() != 1 || g.outputs.empty())
    throw user_error("model '", model.name, "': expected one input and an output, got ",
                     g.inputs.size(), " inputs");
  const std::string& in = g.inputs[0];
  const graph::TensorInfo* ti = g.info(in);
  const graph::Shape want{-1, d.channels, d.height, d.width};
  if (ti == nullptr || ti->dtype != graph::DType::Float32 || !ti->shape || ti->shape->size() != 4 ||
      (*ti->shape)[0] < 1 ||
      !std::equal(ti->shape->begin() + 1, ti->shape->end(), want.begin() + 1))
    throw user_error(
        "model '", model.name, "': input '", in, "' is ",
        ti && ti->shape ? graph::shape_str(*ti->shape) : std::string("of unknown shape"),
        "; data set ", d.name, " has images of ", d.channels, "x", d.height, "x", d.width,
        " (float32 N x ", d.channels, " x ", d.height, " x ", d.width, " expected)");
  const int64_t batch = (*ti->shape)[0];
  const std::string& out = g.outputs[0];
  const graph::TensorInfo* to = g.info(out);
  if (to == nullptr || !to->shape || *to->shape != graph::Shape{batch, d.classes})
    throw user_error(
        "model '", model.name, "': output '", out, "' is ",
        to && to->shape ? graph::shape_str(*to->shape) : std::string("of unknown shape"),
        "; data set ", d.name, " has ", d.classes, " classes (", batch, " x ", d.classes,
        " expected)");
  ChipRunner runner(g, {o.chip, o.analog_nodes, o.chip_seed, o.read_seed, o.threads});
  r.audits = runner.audits();
  r.build_seconds = since(t0);

  const auto t1 = clock::now();
  const double c1 = cpu_now();
  const int64_t count = o.limit > 0 ? std::min(o.limit, d.count) : d.count;
  const int64_t image = d.image_size();
  r.count = count;
  r.classes = d.classes;
  r.batch = batch;
  r.logits.resize(static_cast<size_t>(count * d.classes));
  r.labels.assign(d.labels.begin(), d.labels.begin() + count);
  r.prediction.resize(static_cast<size_t>(count));
  runner.run(
      count,
      [&](int64_t first, int64_t n, float* x) {
        for (int64_t i = 0; i < n * image; ++i)
          x[i] = static_cast<float>(d.images[static_cast<size_t>(first * image + i)]) / 255.0f;
      },
      r.logits.data());
  for (int64_t i = 0; i < count; ++i) {
    const float* row = r.logits.data() + i * d.classes;
    const auto best = static_cast<uint8_t>(std::max_element(row, row + d.classes) - row);
    r.prediction[static_cast<size_t>(i)] = best;
    if (best == d.labels[static_cast<size_t>(i)]) ++r.correct;
  }
  r.run_seconds = since(t1);
  r.run_cpu_seconds = cpu_now() - c1;
  r.accuracy = count > 0 ? static_cast<double>(r.correct) / static_cast<double>(count) : 0.0;
  r.conversions = runner.stats();
  return r;
}

}  // namespace hetcim::hybrid
