#include "hybrid/chip_runner.h"

#include <algorithm>

#include "exec/engine.h"
#include "exec/weights.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/crossbar_backend.h"

namespace hetcim::hybrid {

graph::Graph lower_for_chip(const graph::Graph& model, uint64_t weight_seed, size_t* seeded) {
  graph::Graph g = model;
  const size_t n = exec::materialize_weights(g, weight_seed);
  if (seeded) *seeded = n;
  passes::PipelineOptions lowering;
  lowering.precision = passes::Precision::Fp32;
  return passes::lower(g, lowering);
}

ChipRunner::ChipRunner(const graph::Graph& g, const ChipSetup& setup) {
  if (setup.threads < 1) throw user_error("threads: expected >= 1, got ", setup.threads);
  outputs_ = g.outputs;
  if (!g.inputs.empty() && !g.outputs.empty()) {
    input_ = g.inputs[0];
    output_ = g.outputs[0];
    const graph::TensorInfo* ti = g.info(input_);
    const graph::TensorInfo* to = g.info(output_);
    if (ti && ti->shape && !ti->shape->empty() && to && to->shape && to->shape->size() >= 2) {
      input_shape_ = *ti->shape;
      batch_ = input_shape_[0];
      sample_size_ = 1;
      for (size_t i = 1; i < input_shape_.size(); ++i) sample_size_ *= input_shape_[i];
      classes_ = (*to->shape)[1];
    }
  }
  exec::EngineOptions eo;
  eo.threads = setup.threads;
  // The oneDNN engine with the crossbar simulator as its delegate for the chosen nodes (issue 13,
  // item 1); a digital run has no delegate.
  if (setup.chip && !setup.analog_nodes.empty()) {
    backend_ = std::make_shared<xbar::CrossbarBackend>(xbar::Chip(*setup.chip, setup.chip_seed),
                                                       setup.analog_nodes, setup.read_seed);
    eo.backend = backend_;
  }
  engine_ = std::make_unique<exec::Engine>(g, eo);
}

ChipRunner::~ChipRunner() = default;

void ChipRunner::run(int64_t count, const FillSamples& fill, float* logits) {
  HETCIM_ASSERT(batch_ > 0 && classes_ > 0, "chip runner: no input N x ... and output N x classes");
  exec::Tensor x = exec::Tensor::zeros(graph::DType::Float32, input_shape_);
  float* xp = x.data<float>();
  for (int64_t first = 0; first < count; first += batch_) {
    const int64_t n = std::min(batch_, count - first);
    fill(first, n, xp);
    std::fill(xp + n * sample_size_, xp + batch_ * sample_size_, 0.0f);  // the last batch padded
    engine_->set_inputs({{input_, x}});
    engine_->execute();
    const exec::Tensor y = engine_->read(output_);
    std::copy_n(y.data<float>(), n * classes_, logits + first * classes_);
  }
}

exec::TensorMap ChipRunner::outputs(const exec::TensorMap& inputs) {
  engine_->set_inputs(inputs);
  engine_->execute();
  exec::TensorMap out;
  for (const std::string& name : outputs_) out.emplace(name, engine_->read(name));
  return out;
}

std::vector<xbar::MappingAudit> ChipRunner::audits() const {
  return backend_ ? backend_->audits() : std::vector<xbar::MappingAudit>{};
}

xbar::ForwardStats ChipRunner::stats() const {
  return backend_ ? backend_->stats() : xbar::ForwardStats{};
}

}  // namespace hetcim::hybrid
