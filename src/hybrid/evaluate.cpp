#include "hybrid/evaluate.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>

#include "exec/engine.h"
#include "exec/weights.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/crossbar_backend.h"

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
  graph::Graph g = model;
  r.seeded_weights = exec::materialize_weights(g, o.weight_seed);
  passes::PipelineOptions lowering;
  lowering.precision = passes::Precision::Fp32;
  g = passes::lower(g, lowering);
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
  exec::EngineOptions eo;
  eo.threads = o.threads;
  std::shared_ptr<xbar::CrossbarBackend> backend;
  if (o.chip && !o.analog_nodes.empty()) {
    backend = std::make_shared<xbar::CrossbarBackend>(xbar::Chip(*o.chip, o.chip_seed),
                                                      o.analog_nodes, o.read_seed);
    eo.backend = backend;
  }
  exec::Engine engine(g, eo);
  if (backend) r.audits = backend->audits();
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
  exec::Tensor x = exec::Tensor::zeros(graph::DType::Float32, *ti->shape);
  float* xp = x.data<float>();
  for (int64_t b0 = 0; b0 < count; b0 += batch) {
    const int64_t m = std::min(batch, count - b0);
    for (int64_t i = 0; i < m * image; ++i)
      xp[i] = static_cast<float>(d.images[static_cast<size_t>(b0 * image + i)]) / 255.0f;
    std::fill(xp + m * image, xp + batch * image, 0.0f);
    engine.set_inputs({{in, x}});
    engine.execute();
    const exec::Tensor y = engine.read(out);
    const float* yp = y.data<float>();
    std::memcpy(r.logits.data() + b0 * d.classes, yp, static_cast<size_t>(m * d.classes) * 4);
    for (int64_t i = 0; i < m; ++i) {
      const float* row = yp + i * d.classes;
      const auto best = static_cast<uint8_t>(std::max_element(row, row + d.classes) - row);
      r.prediction[static_cast<size_t>(b0 + i)] = best;
      if (best == d.labels[static_cast<size_t>(b0 + i)]) ++r.correct;
    }
  }
  r.run_seconds = since(t1);
  r.run_cpu_seconds = cpu_now() - c1;
  r.accuracy = count > 0 ? static_cast<double>(r.correct) / static_cast<double>(count) : 0.0;
  if (backend) r.conversions = backend->stats();
  return r;
}

}  // namespace hetcim::hybrid
