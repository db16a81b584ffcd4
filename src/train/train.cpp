#include "train/train.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "train/noise_injection.h"
#include "train/race_cnn_net.h"
#include "util/cancel.h"
#include "util/error.h"
#include "xbar/rng.h"

namespace hetcim::train {
namespace {

void check_options(const TrainOptions& o) {
  if (o.epochs < 1) throw user_error("train: epochs must be >= 1, got ", o.epochs);
  if (o.batch_size < 1) throw user_error("train: batch size must be >= 1, got ", o.batch_size);
  if (!(o.lr > 0.0) || !std::isfinite(o.lr))
    throw user_error("train: learning rate must be > 0, got ", o.lr);
  if (!(o.weight_decay >= 0.0) || !std::isfinite(o.weight_decay))
    throw user_error("train: weight decay must be >= 0, got ", o.weight_decay);
  if (o.crop_padding < 0)
    throw user_error("train: crop padding must be >= 0, got ", o.crop_padding);
  if (o.train_limit < 0 || o.eval_limit < 0) throw user_error("train: image limits must be >= 0");
  if (o.threads < 0) throw user_error("train: threads must be >= 0, got ", o.threads);
}

// One augmented batch: for each image a random crop of the zero-padded image (offsets in
// [-pad, pad]) and, with probability 1/2, a horizontal flip; pixels / 255.
void fill_batch(const data::ImageDataset& d, const std::vector<int64_t>& order, int64_t start,
                int64_t n, const TrainOptions& o, xbar::Rng& rng, float* x, int64_t* labels) {
  const int64_t C = d.channels, H = d.height, W = d.width;
  const int64_t span = 2 * o.crop_padding + 1;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t idx = order[static_cast<size_t>(start + i)];
    const int64_t dy =
        o.crop_padding > 0 ? static_cast<int64_t>(rng.next_u64() % span) - o.crop_padding : 0;
    const int64_t dx =
        o.crop_padding > 0 ? static_cast<int64_t>(rng.next_u64() % span) - o.crop_padding : 0;
    const bool flip = o.flip && (rng.next_u64() & 1);
    labels[i] = d.labels[static_cast<size_t>(idx)];
    const uint8_t* src = d.images.data() + idx * d.image_size();
    float* dst = x + i * d.image_size();
    for (int64_t c = 0; c < C; ++c)
      for (int64_t yy = 0; yy < H; ++yy)
        for (int64_t xx = 0; xx < W; ++xx) {
          const int64_t sy = yy + dy;
          const int64_t sx = (flip ? W - 1 - xx : xx) + dx;
          dst[(c * H + yy) * W + xx] = (sy >= 0 && sy < H && sx >= 0 && sx < W)
                                           ? static_cast<float>(src[(c * H + sy) * W + sx]) / 255.0f
                                           : 0.0f;
        }
  }
}

double accuracy(RaceCnnNet& net, const data::ImageDataset& d, int64_t n, int64_t batch) {
  torch::NoGradGuard no_grad;
  net->eval();
  int64_t correct = 0;
  for (int64_t b0 = 0; b0 < n; b0 += batch) {
    const int64_t m = std::min(batch, n - b0);
    const torch::Tensor pred = net->forward(images_tensor(d, b0, m)).argmax(1);
    const auto* p = pred.data_ptr<int64_t>();
    for (int64_t i = 0; i < m; ++i) correct += p[i] == d.labels[static_cast<size_t>(b0 + i)];
  }
  return n > 0 ? static_cast<double>(correct) / static_cast<double>(n) : 0.0;
}

}  // namespace

TrainResult train_race_cnn(const data::ImageDataset& train, const data::ImageDataset& eval,
                           const TrainOptions& o) {
  check_options(o);
  data::validate(train);
  data::validate(eval);
  if (train.channels != eval.channels || train.height != eval.height || train.width != eval.width ||
      train.classes != eval.classes)
    throw user_error("train: '", train.name, "' and '", eval.name,
                     "' differ in image shape or classes");
  if (train.height != train.width || train.height < 16)
    throw user_error("train: seed 002's CNN needs square images of at least 16x16, '", train.name,
                     "' has ", train.height, "x", train.width);
  const int64_t n_train = o.train_limit > 0 ? std::min(o.train_limit, train.count) : train.count;
  const int64_t n_eval = o.eval_limit > 0 ? std::min(o.eval_limit, eval.count) : eval.count;
  if (n_train == 0) throw user_error("train: '", train.name, "' has no images");
  if (o.threads > 0) torch::set_num_threads(o.threads);

  RaceCnnNet net(zoo::RaceCnnInput{train.channels, train.height, train.width, train.classes});
  init_parameters(net, xbar::Rng::derive(o.seed, "init"));
  torch::optim::AdamW optimizer(net->parameters(),
                                torch::optim::AdamWOptions(o.lr).weight_decay(o.weight_decay));
  xbar::Rng rng(xbar::Rng::derive(o.seed, "data"));
  std::optional<NoiseInjector> injector;
  if (o.hardware_aware)
    injector.emplace(*o.hardware_aware, xbar::Rng::derive(o.seed, "hardware-aware"),
                     o.hardware_aware_time);

  const int64_t batches = (n_train + o.batch_size - 1) / o.batch_size;
  const int64_t total_steps = batches * o.epochs;
  std::vector<int64_t> order(static_cast<size_t>(n_train));
  std::vector<float> x(static_cast<size_t>(o.batch_size * train.image_size()));
  std::vector<int64_t> labels(static_cast<size_t>(o.batch_size));
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  TrainResult result;
  int64_t step = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    std::iota(order.begin(), order.end(), 0);
    for (int64_t i = n_train - 1; i > 0; --i)  // Fisher-Yates
      std::swap(order[static_cast<size_t>(i)],
                order[static_cast<size_t>(rng.next_u64() % static_cast<uint64_t>(i + 1))]);
    net->train();
    double loss_sum = 0.0;
    int64_t seen = 0, correct = 0;
    for (int64_t b = 0; b < batches; ++b, ++step) {
      throw_if_cancelled();  // Ctrl-C in Python (util/cancel.h): stop between batches
      const double lr =
          0.5 * o.lr * (1.0 + std::cos(M_PI * static_cast<double>(step) / total_steps));
      for (auto& group : optimizer.param_groups())
        static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
      const int64_t m = std::min(o.batch_size, n_train - b * o.batch_size);
      fill_batch(train, order, b * o.batch_size, m, o, rng, x.data(), labels.data());
      const torch::Tensor xt = torch::from_blob(
          x.data(), {m, train.channels, train.height, train.width}, torch::kFloat32);
      const torch::Tensor yt = torch::from_blob(labels.data(), {m}, torch::kInt64);
      optimizer.zero_grad();
      const torch::Tensor logits =
          injector ? hardware_aware_forward(net, xt, *injector) : net->forward(xt);
      const torch::Tensor loss = torch::nn::functional::cross_entropy(logits, yt);
      loss.backward();
      optimizer.step();
      loss_sum += loss.item<double>() * static_cast<double>(m);
      correct += logits.argmax(1).eq(yt).sum().item<int64_t>();
      seen += m;
      if (o.progress) {
        TrainProgress p;
        p.epoch = epoch;
        p.epochs = o.epochs;
        p.batch = b + 1;
        p.batches = batches;
        p.loss = loss_sum / static_cast<double>(seen);
        p.accuracy = static_cast<double>(correct) / static_cast<double>(seen);
        p.lr = lr;
        p.seconds = elapsed();
        o.progress(p);
      }
    }
    EpochStats e;
    e.train_loss = loss_sum / static_cast<double>(seen);
    e.train_accuracy = static_cast<double>(correct) / static_cast<double>(seen);
    e.eval_accuracy = accuracy(net, eval, n_eval, 500);
    e.seconds = elapsed();
    result.epochs.push_back(e);
    if (o.epoch_done) o.epoch_done(epoch, e);
  }
  result.eval_accuracy = result.epochs.back().eval_accuracy;
  result.model = to_graph(net);
  return result;
}

}  // namespace hetcim::train
