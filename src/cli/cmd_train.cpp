// hetcim train race-cnn: trains seed 002's CNN with libtorch and writes it as ONNX.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "data/dataset.h"
#include "onnxio/export.h"
#include "train/train.h"
#include "util/error.h"

namespace hetcim::cli {
namespace {

// One line on stderr, redrawn in place: epoch, bar, batches, running loss/accuracy, lr, time.
void draw_progress(const train::TrainProgress& p) {
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * p.batch / p.batches);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\repoch %d/%d [%s] %lld/%lld  loss %.4f  acc %5.2f%%  lr %.2e  %.0fs",
               p.epoch, p.epochs, bar.c_str(), static_cast<long long>(p.batch),
               static_cast<long long>(p.batches), p.loss, 100.0 * p.accuracy, p.lr, p.seconds);
  std::fflush(stderr);
}

}  // namespace

void register_train(CLI::App& app) {
  struct Args {
    std::string model;
    std::string dataset = "fashion-mnist";
    std::string data_dir;
    std::string out;
    int64_t crop_padding = -1;
    bool no_flip = false;
    bool quiet = false;
    train::TrainOptions options;
  };
  auto a = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "train",
      "Train seed 002's CNN (race-cnn) with libtorch: AdamW, cosine schedule, random "
      "crop and flip; writes the trained model as ONNX");
  cmd->add_option("model", a->model, "Model to train (race-cnn)")
      ->required()
      ->check(CLI::IsMember({"race-cnn"}));
  cmd->add_option("--dataset", a->dataset, "Data set: fashion-mnist or cifar10")
      ->check(CLI::IsMember({"fashion-mnist", "cifar10"}))
      ->capture_default_str();
  cmd->add_option(
      "--data-dir", a->data_dir,
      "Directory of the data set files (fashion-mnist: /usr/share/datasets/fashion-mnist "
      "by default; cifar10: the cifar-10-batches-bin directory)");
  cmd->add_option("--out", a->out, "Output ONNX file")->required();
  train::TrainOptions& o = a->options;
  cmd->add_option("--epochs", o.epochs, "Epochs")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--batch-size", o.batch_size, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--lr", o.lr, "Peak learning rate (cosine annealed to 0)")
      ->check(finite_range(1e-12, 10.0))
      ->capture_default_str();
  cmd->add_option("--weight-decay", o.weight_decay, "AdamW weight decay")
      ->check(finite_range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--crop-padding", a->crop_padding,
                  "Random-crop zero padding per side (default 2 for 28x28 images, 4 for 32x32)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--no-flip", a->no_flip, "Disable the random horizontal flip");
  cmd->add_option("--seed", o.seed, "Seed of initialization, shuffling and augmentation")
      ->capture_default_str();
  cmd->add_option("--train-limit", o.train_limit, "Train on the first N images only (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--test-limit", o.test_limit,
                  "Measure accuracy on the first N test images (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--threads", o.threads, "libtorch threads (0: libtorch's default)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress bar");
  cmd->callback([a] {
    train::TrainOptions o = a->options;
    const data::ImageDataset train_set =
        data::load_dataset(a->dataset, data::Split::Train, a->data_dir);
    const data::ImageDataset test_set =
        data::load_dataset(a->dataset, data::Split::Test, a->data_dir);
    o.crop_padding = a->crop_padding >= 0 ? a->crop_padding : (train_set.height >= 32 ? 4 : 2);
    o.flip = !a->no_flip;
    if (!a->quiet) o.progress = draw_progress;
    const bool quiet = a->quiet;
    o.epoch_done = [quiet](int epoch, const train::EpochStats& e) {
      if (!quiet) std::fputc('\n', stderr);
      std::printf(
          "epoch %d: train loss %.4f, train accuracy %.2f%%, test accuracy %.2f%%, %.0f s\n", epoch,
          e.train_loss, 100.0 * e.train_accuracy, 100.0 * e.test_accuracy, e.seconds);
      std::fflush(stdout);
    };
    const train::TrainResult r = train::train_race_cnn(train_set, test_set, o);
    onnxio::export_onnx(r.model, a->out);
    std::printf("wrote %s: race_cnn for %s, clean test accuracy %.2f%%\n", a->out.c_str(),
                a->dataset.c_str(), 100.0 * r.test_accuracy);
  });
}

}  // namespace hetcim::cli
