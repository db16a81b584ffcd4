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
#include "cli/options.h"
#include "cli/torch_flags.h"
#include "report/provenance.h"
#include "train/train.h"
#include "util/error.h"
#include "util/progress.h"

namespace hetcim::cli {

void register_train(CLI::App& app, const Provenance& /*provenance*/) {
  auto a = std::make_shared<TrainArgs>();
  add_train_command(app, *a)->callback([a] {
    api::TrainRequest& q = a->request;
    q.validate();  // before any output
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
    const char* eval_name = q.holdout > 0 ? "held-out accuracy" : "test accuracy";
    q.options.epoch_done = [quiet, eval_name](int epoch, const train::EpochStats& e) {
      if (!quiet) std::fputc('\n', stderr);
      std::printf("epoch %d: train loss %.4f, train accuracy %.2f%%, %s %.2f%%, %.0f s\n", epoch,
                  e.train_loss, 100.0 * e.train_accuracy, eval_name, 100.0 * e.eval_accuracy,
                  e.seconds);
      std::fflush(stdout);
    };
    if (q.holdout == 0)
      std::fprintf(stderr,
                   "note: --holdout 0: the per-epoch accuracy is on the official test set; do not "
                   "make training choices on it\n");
    const api::TrainResult r = api::train_race_cnn(q);
    progress->finish();
    std::printf(
        "wrote %s (+ .train.json): race_cnn for %s%s%s, %s %.2f%%, clean test accuracy %.2f%%\n",
        q.out.c_str(), q.dataset.c_str(), q.hardware_aware.empty() ? "" : ", hardware-aware on ",
        q.hardware_aware.c_str(), r.eval_set.c_str(), 100.0 * r.outcome.eval_accuracy,
        100.0 * r.outcome.test_accuracy);
  });
}

}  // namespace hetcim::cli
