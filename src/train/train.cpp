#include "train/train.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <sstream>

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

// ---- checkpoints (TrainOptions::checkpoint)

// What must be equal for a checkpoint to continue a training: the options that shape its
// trajectory and the two data sets by name and size, as "; "-separated fields.
std::string checkpoint_key(const data::ImageDataset& train, const data::ImageDataset& eval,
                           const TrainOptions& o, int64_t n_train, int64_t n_eval) {
  std::ostringstream k;
  k.precision(17);
  k << "race_cnn checkpoint 1; train images " << train.name << " " << n_train << " of "
    << train.count << "; evaluation images " << eval.name << " " << n_eval << "; epochs "
    << o.epochs << "; batch size " << o.batch_size << "; lr " << o.lr << "; weight decay "
    << o.weight_decay << "; crop padding " << o.crop_padding << "; flip " << o.flip << "; seed "
    << o.seed << "; threads " << o.threads;
  if (o.hardware_aware)
    k << "; hardware-aware " << o.hardware_aware->name << " at " << o.hardware_aware_time << " s";
  return k.str();
}

// The first "; "-separated field where two keys differ.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string fa, fb;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(x, fa, ';'));
    const bool more_b = static_cast<bool>(std::getline(y, fb, ';'));
    if (!more_a && !more_b) return "";
    // A field without its leading blank; "" for none (a damaged file's key may hold any text).
    auto field = [](bool more, const std::string& f) {
      const size_t i = f.find_first_not_of(' ');
      return more && i != std::string::npos ? f.substr(i) : std::string();
    };
    if (fa != fb || more_a != more_b)
      return "the checkpoint has '" + field(more_a, fa) + "', this run '" + field(more_b, fb) + "'";
    fa.clear();
    fb.clear();
  }
}

struct TrainState {
  RaceCnnNet& net;
  torch::optim::AdamW& optimizer;
  std::vector<xbar::Rng*> streams;  // the data stream, then the noise injector's
  int64_t step = 0;
  std::vector<EpochStats> epochs;
};

void save_checkpoint(const std::string& path, const std::string& key, TrainState& s) {
  torch::serialize::OutputArchive ar, net, optimizer;
  ar.write("key", c10::IValue(key));
  ar.write("step", c10::IValue(s.step));
  s.net->save(net);
  ar.write("net", net);
  s.optimizer.save(optimizer);
  ar.write("optimizer", optimizer);
  std::vector<int64_t> rng;
  for (const xbar::Rng* r : s.streams)
    for (uint64_t w : r->state()) rng.push_back(static_cast<int64_t>(w));
  ar.write("rng", torch::tensor(rng, torch::kInt64));
  std::vector<double> stats;
  for (const EpochStats& e : s.epochs)
    stats.insert(stats.end(), {e.train_loss, e.train_accuracy, e.eval_accuracy, e.seconds});
  ar.write("epochs", torch::tensor(stats, torch::kFloat64));
  const std::string tmp = path + ".tmp";
  ar.save_to(tmp);
  std::filesystem::rename(tmp, path);
}

// Restores `s` from the checkpoint at `path`; UserError when it belongs to another training or
// cannot be read.
void load_checkpoint(const std::string& path, const std::string& key, TrainState& s) {
  torch::serialize::InputArchive ar, net, optimizer;
  c10::IValue stored_key, step;
  torch::Tensor rng, stats;
  try {
    ar.load_from(path);
    ar.read("key", stored_key);
  } catch (const c10::Error&) {
    throw user_error(path, ": not a training checkpoint hetcim can read; remove it");
  }
  if (!stored_key.isString() || stored_key.toStringRef() != key)
    throw user_error(
        path, ": a checkpoint of another training (",
        stored_key.isString() ? first_difference(stored_key.toStringRef(), key) : "no key",
        "); remove it or choose another output");
  try {
    ar.read("step", step);
    ar.read("net", net);
    ar.read("optimizer", optimizer);
    ar.read("rng", rng);
    ar.read("epochs", stats);
    s.net->load(net);
    s.optimizer.load(optimizer);
  } catch (const c10::Error&) {
    throw user_error(path, ": a damaged training checkpoint; remove it");
  }
  if (!step.isInt() || rng.numel() != 4 * static_cast<int64_t>(s.streams.size()) ||
      stats.numel() % 4 != 0 || stats.numel() == 0)
    throw user_error(path, ": a damaged training checkpoint; remove it");
  s.step = step.toInt();
  const auto* w = rng.data_ptr<int64_t>();
  for (size_t i = 0; i < s.streams.size(); ++i) {
    std::array<uint64_t, 4> st{};
    for (size_t j = 0; j < 4; ++j) st[j] = static_cast<uint64_t>(w[4 * i + j]);
    s.streams[i]->set_state(st);
  }
  const auto* e = stats.data_ptr<double>();
  s.epochs.clear();
  for (int64_t i = 0; i < stats.numel(); i += 4)
    s.epochs.push_back({e[i], e[i + 1], e[i + 2], e[i + 3]});
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
    throw user_error("train: RACE-AIMC's CNN needs square images of at least 16x16, '", train.name,
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

  TrainState state{net, optimizer, {&rng}, 0, {}};
  if (injector)
    for (xbar::Rng* r : injector->streams()) state.streams.push_back(r);
  const std::string key = checkpoint_key(train, eval, o, n_train, n_eval);
  // A checkpoint of every epoch (a run stopped before its caller saved the model) trains no more.
  if (!o.checkpoint.empty() && std::filesystem::exists(o.checkpoint))
    load_checkpoint(o.checkpoint, key, state);
  // Seconds since training first started: a resumed run adds the checkpoint's.
  const double earlier = state.epochs.empty() ? 0.0 : state.epochs.back().seconds;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return earlier +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  int64_t& step = state.step;
  TrainResult result;
  for (int epoch = static_cast<int>(state.epochs.size()) + 1; epoch <= o.epochs; ++epoch) {
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
    state.epochs.push_back(e);
    if (!o.checkpoint.empty()) save_checkpoint(o.checkpoint, key, state);
    if (o.epoch_done) o.epoch_done(epoch, e);
  }
  result.epochs = state.epochs;
  result.eval_accuracy = result.epochs.back().eval_accuracy;
  result.model = to_graph(net);
  return result;
}

}  // namespace hetcim::train
