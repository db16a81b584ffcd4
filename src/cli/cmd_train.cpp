// hetcim train race-cnn: trains seed 002's CNN with libtorch and writes it as ONNX, beside it a
// record of how (`<out>.train.json`: data set, held-out subset, options, per-epoch figures).
//
// Protocol (seed 002, Sec. IV-A): `--holdout N` images of the training split (a seeded random
// subset, data/holdout.h) are kept out of training; the per-epoch accuracy that a user may look at
// to make training choices is measured on them, and `hetcim analog select --holdout N` draws its
// H/P/C splits from the same images. The official test set is measured once at the end, for
// description only.
#include <cstdio>
#include <memory>
#include <string>

#include "api_torch/analog.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "report/provenance.h"
#include "train/train.h"
#include "util/error.h"
#include "util/progress.h"

namespace hetcim::cli {

void register_train(CLI::App& app, const Provenance& /*provenance*/) {
  struct Args {
    std::string model;
    std::string dataset = "fashion-mnist";
    std::string data_dir;
    std::string out;
    std::string preset = "paper";
    int epochs = 0;
    double lr = 0.0;
    int64_t holdout = 10000;
    uint64_t holdout_seed = 1;
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
  cmd->add_option("--preset", a->preset,
                  "paper: 30 epochs, lr 2e-3 (seed 002, Sec. IV-A); fast: 2 epochs, lr 2e-3 (for "
                  "tests and development; --epochs and --lr override either)")
      ->check(CLI::IsMember({"paper", "fast"}))
      ->capture_default_str();
  cmd->add_option("--epochs", a->epochs, "Epochs (default: the preset's)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--holdout", a->holdout,
                  "Training images held out of training (seeded random subset): the evaluation "
                  "set of training choices and the calibration pool of `analog select "
                  "--holdout`; 0 trains on all")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--holdout-seed", a->holdout_seed, "Seed of the held-out subset")
      ->capture_default_str();
  cmd->add_option("--batch-size", o.batch_size, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "Peak learning rate, cosine annealed to 0 (default: the preset's)")
      ->check(finite_range(1e-12, 10.0));
  cmd->add_option("--weight-decay", o.weight_decay, "AdamW weight decay")
      ->check(finite_range(0.0, 10.0))
      ->capture_default_str();
  cmd->add_option("--crop-padding", a->crop_padding,
                  "Random-crop zero padding per side (default 2 for 28x28 images, 4 for 32x32)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag("--no-flip", a->no_flip, "Disable the random horizontal flip");
  cmd->add_option("--seed", o.seed, "Seed of initialization, shuffling and augmentation")
      ->capture_default_str();
  cmd->add_option("--train-limit", o.train_limit,
                  "Train on the first N images not held out only (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--eval-limit", o.eval_limit,
                  "Per-epoch accuracy on the first N held-out images only (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--threads", o.threads, "libtorch threads (0: libtorch's default)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "No progress bar");
  cmd->callback([a] {
    api::TrainRequest q;
    q.dataset = a->dataset;
    q.data_dir = a->data_dir;
    q.out = a->out;
    q.preset = a->preset;
    if (a->epochs > 0) q.epochs = a->epochs;
    if (a->lr > 0.0) q.lr = a->lr;
    q.holdout = a->holdout;
    q.holdout_seed = a->holdout_seed;
    q.crop_padding = a->crop_padding;
    q.options = a->options;
    q.options.flip = !a->no_flip;
    // Batches over all epochs, with the running loss, accuracy and learning rate; the estimate
    // assumes every batch costs the same.
    auto progress = std::make_shared<Progress>("training race-cnn", "batches", 0, !a->quiet);
    q.options.progress = [progress](const train::TrainProgress& p) {
      const auto total = static_cast<size_t>(p.epochs) * static_cast<size_t>(p.batches);
      progress->set_total(total);
      char detail[128];
      std::snprintf(detail, sizeof detail, "epoch %d/%d, loss %.4f, acc %.2f %%, lr %.2e", p.epoch,
                    p.epochs, p.loss, 100.0 * p.accuracy, p.lr);
      progress->update(static_cast<size_t>(p.epoch - 1) * static_cast<size_t>(p.batches) +
                           static_cast<size_t>(p.batch),
                       detail);
    };
    const bool quiet = a->quiet;
    const char* eval_name = a->holdout > 0 ? "held-out accuracy" : "test accuracy";
    q.options.epoch_done = [quiet, eval_name](int epoch, const train::EpochStats& e) {
      if (!quiet) std::fputc('\n', stderr);
      std::printf("epoch %d: train loss %.4f, train accuracy %.2f%%, %s %.2f%%, %.0f s\n", epoch,
                  e.train_loss, 100.0 * e.train_accuracy, eval_name, 100.0 * e.eval_accuracy,
                  e.seconds);
      std::fflush(stdout);
    };
    q.validate();
    if (a->holdout == 0)
      std::fprintf(stderr,
                   "note: --holdout 0: the per-epoch accuracy is on the official test set; do not "
                   "make training choices on it\n");
    const api::TrainResult r = api::train_race_cnn(q);
    progress->finish();
    std::printf(
        "wrote %s (+ .train.json): race_cnn for %s, %s %.2f%%, clean test accuracy %.2f%%\n",
        a->out.c_str(), a->dataset.c_str(), r.eval_set.c_str(), 100.0 * r.outcome.eval_accuracy,
        100.0 * r.outcome.test_accuracy);
  });
}

}  // namespace hetcim::cli
