// hetcim train race-cnn: trains seed 002's CNN with libtorch and writes it as ONNX.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/flags.h"
#include "data/dataset.h"
#include "onnxio/export.h"
#include "report/provenance.h"
#include "train/train.h"
#include "util/error.h"
#include "util/progress.h"

namespace hetcim::cli {

void register_train(CLI::App& app, const Provenance& provenance) {
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
  cmd->callback([a, &provenance] {
    train::TrainOptions o = a->options;
    const data::ImageDataset train_set =
        data::load_dataset(a->dataset, data::Split::Train, a->data_dir);
    const data::ImageDataset test_set =
        data::load_dataset(a->dataset, data::Split::Test, a->data_dir);
    o.crop_padding = a->crop_padding >= 0 ? a->crop_padding : (train_set.height >= 32 ? 4 : 2);
    o.flip = !a->no_flip;
    // Batches over all epochs, with the running loss, accuracy and learning rate; the estimate
    // assumes every batch costs the same.
    auto progress = std::make_shared<Progress>("training race-cnn", "batches", 0, !a->quiet);
    o.progress = [progress](const train::TrainProgress& p) {
      const auto total = static_cast<size_t>(p.epochs) * static_cast<size_t>(p.batches);
      progress->set_total(total);
      char detail[128];
      std::snprintf(detail, sizeof detail, "epoch %d/%d, loss %.4f, acc %.2f %%, lr %.2e", p.epoch,
                    p.epochs, p.loss, 100.0 * p.accuracy, p.lr);
      progress->update(static_cast<size_t>(p.epoch - 1) * static_cast<size_t>(p.batches) +
                           static_cast<size_t>(p.batch),
                       detail);
    };
    o.epoch_done = [](int epoch, const train::EpochStats& e) {
      std::printf(
          "epoch %d: train loss %.4f, train accuracy %.2f%%, test accuracy %.2f%%, %.0f s\n", epoch,
          e.train_loss, 100.0 * e.train_accuracy, 100.0 * e.test_accuracy, e.seconds);
      std::fflush(stdout);
    };
    const train::TrainResult r = train::train_race_cnn(train_set, test_set, o);
    progress->finish();
    onnxio::export_onnx(r.model, a->out);
    Provenance prov = provenance;
    prov.set("source", "trained and measured in this run on " + a->dataset +
                           " (libtorch); accuracies on the test split");
    prov.set("seeds", "training " + std::to_string(o.seed));
    std::fputs(report::provenance_text(prov, "# ").c_str(), stdout);
    std::printf("wrote %s: race_cnn for %s, clean test accuracy %.2f%%\n", a->out.c_str(),
                a->dataset.c_str(), 100.0 * r.test_accuracy);
  });
}

}  // namespace hetcim::cli
