// RACE-AIMC's CNN on a simulated chip through the libtorch front door (hetcim::api_torch): train a
// small model on the first images of Fashion-MNIST, then evaluate it digitally and with its
// classifier on one chip profile, on the first LIMIT test images.
//   analog_eval CHIPS.yaml:PROFILE OUT_DIR [LIMIT] [TRAIN_IMAGES]
// Needs the Fashion-MNIST files (Debian's package, the data set's default directory).
#include <hetcim/analog.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CHIPS.yaml:PROFILE OUT_DIR [LIMIT] [TRAIN_IMAGES]\n", argv[0]);
    return 2;
  }
  try {
    const int64_t limit = argc > 3 ? std::stoll(argv[3]) : 500;
    const int64_t train_images = argc > 4 ? std::stoll(argv[4]) : 5000;

    // One epoch on the first TRAIN_IMAGES training images; holdout 0: the model is evaluated on
    // the first LIMIT test images, the same images analog_eval reads below.
    hetcim::api::TrainRequest t;
    t.out = std::string(argv[2]) + "/race_cnn.onnx";
    t.preset = "fast";
    t.epochs = 1;
    t.holdout = 0;
    t.options.train_limit = train_images;
    t.options.eval_limit = limit;
    t.options.seed = 1;
    const hetcim::api::TrainResult trained = hetcim::api::train_race_cnn(t);
    std::printf(
        "trained %s: 1 epoch on %lld images, test accuracy %.4f on the first %lld test "
        "images (measured while training)\n",
        t.out.c_str(), static_cast<long long>(train_images), trained.outcome.test_accuracy,
        static_cast<long long>(limit));

    // The written model read back: digitally, then with its classifier layers on the chip.
    hetcim::api::AnalogEvalRequest q;
    q.model = t.out;
    q.chip = argv[1];
    q.digital = true;
    q.eval.limit = limit;
    const hetcim::api::AnalogEvalResult r = hetcim::api::analog_eval(q);
    for (const auto& run : r.runs) {
      std::printf("%s: accuracy %.4f on %lld images (%s)\n",
                  run.chip ? run.chip->name.c_str() : "digital", run.result.accuracy,
                  static_cast<long long>(run.result.count),
                  hetcim::api::status_text(r.status).c_str());
    }
    std::printf("hetcim %s (commit %s)\n", r.provenance.version.c_str(),
                r.provenance.commit.c_str());
  } catch (const hetcim::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {  // std::stoll on a bad LIMIT
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return 0;
}
