#include "train/evaluate.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "train/race_cnn_net.h"
#include "util/cancel.h"
#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/layout.h"
#include "xbar/rng.h"

namespace hetcim::train {
namespace {

constexpr const char* kGemmLayers[] = {"classifier.0", "classifier.2"};

torch::nn::Linear linear_of(RaceCnnNet& net, const std::string& name) {
  const size_t index = name == "classifier.0" ? 0 : 2;
  return net->classifier[index]->as<torch::nn::Linear>()
             ? torch::nn::Linear(net->classifier->ptr<torch::nn::LinearImpl>(index))
             : throw internal_error("classifier layer ", name, " is not Linear");
}

}  // namespace

struct RaceCnnEvaluator::Impl {
  RaceCnnNet net;
  std::map<std::string, xbar::ProgrammedLayer> analog;
  xbar::Rng read_rng;
  int64_t batch_size = 0;
  Impl(RaceCnnNet n, uint64_t read_seed) : net(std::move(n)), read_rng(read_seed) {}
};

RaceCnnEvaluator::RaceCnnEvaluator(const graph::Graph& model, const EvalOptions& o) {
  if (o.batch_size < 1) throw user_error("evaluate: batch size must be >= 1, got ", o.batch_size);
  if (o.limit < 0) throw user_error("evaluate: limit must be >= 0, got ", o.limit);
  if (o.threads < 0) throw user_error("evaluate: threads must be >= 0, got ", o.threads);
  impl_ = std::make_unique<Impl>(from_graph(model), o.read_seed);
  impl_->batch_size = o.batch_size;
  if (o.threads > 0) torch::set_num_threads(o.threads);
  // Program the analog layers once: the chip's persistent state.
  if (o.chip) {
    const xbar::Chip chip(*o.chip, o.chip_seed);
    for (const std::string& name : o.analog_layers) {
      if (std::find(std::begin(kGemmLayers), std::end(kGemmLayers), name) == std::end(kGemmLayers))
        throw user_error("analog layer '", name,
                         "' is not a Gemm layer of RACE-AIMC's CNN (known: "
                         "classifier.0, classifier.2)");
      if (impl_->analog.count(name) != 0) continue;
      const torch::Tensor w = linear_of(impl_->net, name)->weight.detach().contiguous();
      const std::vector<float> xbar_w =
          xbar::linear_to_crossbar(w.data_ptr<float>(), w.size(0), w.size(1));
      xbar::ProgramOptions po;
      po.read_time = o.read_time;
      po.drift_compensation = o.drift_compensation;
      impl_->analog.emplace(name, chip.program(name, xbar_w.data(), w.size(1), w.size(0), po));
    }
  }
  impl_->net->eval();
}

RaceCnnEvaluator::~RaceCnnEvaluator() = default;

void RaceCnnEvaluator::logits(const data::ImageDataset& d, int64_t first, int64_t count,
                              float* logits) {
  if (first < 0 || count < 0 || first + count > d.count)
    throw internal_error("evaluator: images [", first, ", ", first + count, ") of ", d.count);
  check_fits(impl_->net, d);
  torch::NoGradGuard no_grad;
  RaceCnnNet& net = impl_->net;
  for (int64_t b0 = first; b0 < first + count; b0 += impl_->batch_size) {
    throw_if_cancelled();  // Ctrl-C in Python (util/cancel.h): stop between batches
    const int64_t m = std::min(impl_->batch_size, first + count - b0);
    torch::Tensor h = net->features_of(images_tensor(d, b0, m)).contiguous();
    for (const char* name : kGemmLayers) {
      torch::nn::Linear lin = linear_of(net, name);
      auto it = impl_->analog.find(name);
      if (it == impl_->analog.end()) {
        h = torch::linear(h, lin->weight, lin->bias);
      } else {
        torch::Tensor out = torch::empty({m, lin->weight.size(0)}, torch::kFloat32);
        it->second.forward(h.data_ptr<float>(), m, out.data_ptr<float>(), impl_->read_rng);
        h = out + lin->bias;
      }
      if (std::string(name) == "classifier.0") h = torch::relu(h).contiguous();
    }
    h = h.contiguous();
    std::copy(h.data_ptr<float>(), h.data_ptr<float>() + m * d.classes,
              logits + (b0 - first) * d.classes);
  }
}

std::vector<xbar::MappingAudit> RaceCnnEvaluator::audits() const {
  std::vector<xbar::MappingAudit> out;
  for (const char* name : kGemmLayers)
    if (auto it = impl_->analog.find(name); it != impl_->analog.end())
      out.push_back(it->second.audit());
  return out;
}

EvalResult evaluate_race_cnn(const graph::Graph& model, const data::ImageDataset& d,
                             const EvalOptions& o) {
  data::validate(d);
  const auto start = std::chrono::steady_clock::now();
  RaceCnnEvaluator ev(model, o);
  EvalResult r;
  r.count = o.limit > 0 ? std::min(o.limit, d.count) : d.count;
  r.logits.resize(static_cast<size_t>(r.count * d.classes));
  r.labels.assign(d.labels.begin(), d.labels.begin() + r.count);
  ev.logits(d, 0, r.count, r.logits.data());
  int64_t correct = 0;
  for (int64_t i = 0; i < r.count; ++i) {
    const float* row = r.logits.data() + i * d.classes;
    const int64_t pred = std::max_element(row, row + d.classes) - row;
    correct += pred == d.labels[static_cast<size_t>(i)];
  }
  r.accuracy = r.count > 0 ? static_cast<double>(correct) / static_cast<double>(r.count) : 0.0;
  r.audits = ev.audits();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace hetcim::train
