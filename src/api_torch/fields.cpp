// The option tables of seed 002's libtorch jobs (eval, select, study, serve, drift, train): plain
// data over the requests' fields, no libtorch. In their own library (hetcim_api_torch_fields) so
// that `hetcim`, which never loads libtorch, declares `train` and `analog` with their flags and
// --help from the same tables (cli/torch_flags.h) and hands only a run to hetcim-torch.
#include "api/options.h"
#include "api_torch/analog.h"
#include "api_torch/drift.h"
#include "api_torch/serve.h"
#include "api_torch/study.h"
#include "data/dataset.h"

namespace hetcim::api {

const FieldTable<AnalogEvalRequest>& analog_eval_fields() {
  using R = AnalogEvalRequest;
  using E = train::EvalOptions;
  static const FieldTable<E> eval = {
      field("limit", &E::limit, "First N images only (0: all)").at_least(0),
      field("batch_size", &E::batch_size,
            "Images per analog read (reference mode shares noise per batch)")
          .range(1, 1 << 20),
      field("threads", &E::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>(
      {
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files").alias("--dataset-dir"),
          field("split", &R::split, "The split").one_of({"train", "test"}),
          field("chip", &R::chip,
                "FILE:PROFILE (one chip) or FILE (every profile of the file); '' = none"),
          field("digital", &R::digital, "Also report the clean digital accuracy"),
          field("mode", &R::mode, "Override the profiles' simulation mode ('': their own)")
              .one_of({"", "physical", "reference"}),
          field("layers", &R::layers, "'classifier' or a comma-separated list of Gemm nodes")
              .flag("--analog-layers"),
          field("chip_seed", &R::chip_seed, "Chip seed: the persistent programmed state")
              .alias("--seed"),
          field("read_seed", &R::read_seed, "Seed of the read noise"),
      },
      nested(&R::eval, eval));
  return table;
}

const FieldTable<AnalogSelectRequest>& analog_select_fields() {
  using R = AnalogSelectRequest;
  using E = train::EvalOptions;
  using M = select::EnergyModel;
  constexpr double kRows = 0x1p40;
  static const FieldTable<M> energy = {
      field("fallback_energy", &M::fallback, "Energy of the digital fallback per deferred query")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("communication_energy", &M::communication, "Communication cost C per activated chip")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("controller_energy", &M::controller, "Controller energy per activated chip")
          .with_unit(Quantity::Energy)
          .at_least(0),
      field("class_energy", &M::per_class, "Energy per fused class output")
          .with_unit(Quantity::Energy)
          .at_least(0),
  };
  static const FieldTable<E> eval = {
      field("batch_size", &E::batch_size,
            "Images per analog read (reference mode shares noise per batch)")
          .range(1, 1 << 20),
      field("threads", &E::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>({
      {
          field("chips", &R::chips, "Chip profiles file (e.g. data/chips.yaml)"),
          field("pool", &R::pool,
                "Comma-separated units: a profile name (A0) or distinct units of one profile "
                "(A0#1,A0#2); '': every profile of the file with an energy"),
          field("mode", &R::mode, "Override the profiles' simulation mode ('': their own)")
              .one_of({"", "physical", "reference"}),
          field("chip_seed", &R::chip_seed,
                "Base chip seed; a unit's chip seed is derived from it and the unit's name")
              .alias("--seed"),
          field("read_seed", &R::read_seed,
                "Base read-noise seed; derived per unit name like --chip-seed"),
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files").alias("--dataset-dir"),
          field("calibration", &R::calibration,
                "holdout: H/P/C from training images held out of training, T = the official "
                "test set (the paper's protocol; default when the model's .train.json "
                "records a holdout); test: all four roles from --split")
              .one_of({"holdout", "test"}),
          field("holdout", &R::holdout,
                "Held-out training images (default: the model's .train.json; must match it)")
              .range(1, kRows),
          field("holdout_seed", &R::holdout_seed,
                "Seed of the held-out subset (default: the model's .train.json)"),
          field("split", &R::split,
                "--calibration test: the data set split the four roles are drawn from")
              .one_of({"train", "test"}),
          field("limit", &R::limit, "First N calibration images only (0: all)").at_least(0),
          field("risk", &R::risk, "Deployment risk target r for the certificate")
              .flag("--alpha")
              .between(0, 1),
          field("certificate_delta", &R::certificate_delta,
                "Certificate: the bound holds with confidence 1 - delta")
              .flag("--delta")
              .between(0, 1),
          field("design_risk", &R::design_risk,
                "Design risk r_d of the threshold fit (r_d < r leaves slack)")
              .flag("--design-alpha")
              .between(0, 1),
          field("design_delta", &R::design_delta, "delta_d of the threshold fit").between(0, 1),
          field("score", &R::score,
                "Confidence score: logit_margin, max_softmax, probability_margin, log_odds, "
                "negative_entropy"),
          field("bias_correction", &R::bias_correction,
                "Bias correction, eq. (6), on the hardware split H (without it H is unused)"),
          field("hardware_rows", &R::hardware_rows,
                "Rows of the hardware split H (default 3000 with --calibration holdout, 2000 "
                "otherwise)")
              .flag("--hardware")
              .range(0, kRows),
          field("policy_rows", &R::policy_rows,
                "Rows of the policy split P (thresholds, selection)")
              .flag("--policy")
              .range(1, kRows),
          field("certificate_rows", &R::certificate_rows,
                "Rows of the certificate split C (default 5000 with --calibration holdout, "
                "4000 otherwise)")
              .flag("--certificate")
              .range(1, kRows),
          field("test_rows", &R::test_rows,
                "Rows of the test split T: drawn with H/P/C under --calibration test "
                "(default 2000); the first N official test images under --calibration "
                "holdout (default all)")
              .flag("--test")
              .range(0, kRows),
          field("split_seed", &R::split_seed, "Seed of the random split into H, P, C (, T)"),
      },
      nested(&R::energy, energy),
      nested(&R::eval, eval),
      {
          field("cache", &R::cache_dir,
                "Logit cache directory: reuse the logits of earlier simulations, store new ones"),
          field("logits", &R::replay_dir,
                "Replay from this logit cache only (no simulation; an error names what is "
                "missing)"),
      },
  });
  return table;
}

const FieldTable<AnalogStudyRequest>& analog_study_fields() {
  using R = AnalogStudyRequest;
  using O = select::RaceOptions;
  using S = select::SplitSizes;
  using M = select::EnergyModel;
  constexpr double kImages = 0x1p40;
  static const FieldTable<S> splits = {
      field("hardware_rows", &S::hardware, "Rows of H").flag("--hardware").range(0, kImages),
      field("policy_rows", &S::policy, "Rows of P").flag("--policy").range(1, kImages),
      field("certificate_rows", &S::certificate, "Rows of C")
          .flag("--certificate")
          .range(1, kImages),
  };
  static const FieldTable<O> split = concat<O>({
      {field("split_seed", &O::split_seed, "Run i splits H/P/C with split-seed + i - 1")},
      nested(&O::splits, splits),
  });
  static const FieldTable<M> fallback = {
      field("fallback_energy", &M::fallback, "Operating point of the fallback cost F")
          .with_unit(Quantity::Energy)
          .at_least(0),
  };
  static const FieldTable<R> table = concat<R>({
      {
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files"),
          field("models", &R::models, "Independently trained models (runs); model i has seed i")
              .range(1, 1000),
          field("preset", &R::preset, "Training: paper (30 epochs, lr 2e-3) or fast (2 epochs)")
              .one_of({"paper", "fast"}),
          field("epochs", &R::epochs, "Epochs (0: the preset's)").range(0, 100000),
          field("lr", &R::lr, "Peak learning rate (0: the preset's; else at least 1e-12)")
              .range(0, 10),
          field("train_limit", &R::train_limit, "Train on the first N images not held out (0: all)")
              .range(0, kImages),
          field("holdout", &R::holdout, "Training images held out: the calibration pool")
              .range(1, kImages),
          field("holdout_seed", &R::holdout_seed, "Seed of the held-out subset"),
          field("chips", &R::chips, "Chip profiles file (e.g. data/chips.yaml)"),
          field("pool", &R::pool,
                "Comma-separated units, mildest first (availability drops the first ones); '': "
                "every profile of the file with an energy"),
          field("mode", &R::mode, "Override the profiles' simulation mode ('': their own)")
              .one_of({"", "physical", "reference"}),
          field("seed", &R::seed,
                "Run i (1-based) trains with seed + i - 1 and simulates chips with base chip "
                "and read seeds seed + i - 1 (derived per unit name)"),
      },
      nested(&R::race, split),
      {
          field("test_rows", &R::test_images, "First N official test images as T (-1: all)")
              .flag("--test")
              .range(-1, kImages),
          field("availability", &R::availability, "Drop the first 1..N units of the pool (Fig. 2c)")
              .range(0, 100),
      },
      nested(&R::race, nested(&O::energy, fallback)),
      {
          field("batch_size", &R::batch_size, "Images per analog read").range(1, 1 << 20),
          field("threads", &R::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
          field("out", &R::out, "Output directory: models/ and cache/ are written here"),
          field("paper_data", &R::paper_data,
                "The paper's published values, drawn as markers in Fig. 2 a-d ('': the shipped "
                "data/paper/seed002.yaml)"),
      },
  });
  return table;
}

const FieldTable<AnalogServeRequest>& analog_serve_fields() {
  using R = AnalogServeRequest;
  constexpr double kQueries = 0x1p40;
  static const FieldTable<R> table = {
      field("model", &R::model, "ONNX model ('': the policy's; must hash the same)"),
      field("chips", &R::chips,
            "Chip profiles file ('': the policy's; the unit's profile must match)"),
      field("input", &R::input,
            "Queries: uint8 images as .npy (N x H x W or N x C x H x W); '-': the .npy streamed "
            "on stdin, read and answered one batch at a time as it arrives"),
      field("dataset", &R::dataset,
            std::string("Queries from a data set instead (labelled): ") + data::kDatasetForms),
      field("data_dir", &R::data_dir, "Directory of the data set files"),
      field("split", &R::split, "The split").one_of({"train", "test"}),
      field("limit", &R::limit, "First N queries only (0: all)").range(0, kQueries),
      field("read_seed", &R::read_seed,
            "Read-noise seed (default: the policy's test-set stream, so serving the official "
            "test set reproduces the offline test split)"),
      field("abstain", &R::abstain, "Deferred queries abstain instead of using the fallback"),
      field("batch_size", &R::batch_size,
            "Queries per analog read (default: the policy's; decisions equal the offline "
            "evaluation's only with its batch size, read noise is drawn per read)")
          .range(1, kQueries),
  };
  return table;
}

const FieldTable<AnalogDriftRequest>& analog_drift_fields() {
  using R = AnalogDriftRequest;
  using E = train::EvalOptions;
  static const FieldTable<E> limit = {
      field("limit", &E::limit, "First N images only (0: all)").at_least(0)};
  static const FieldTable<E> threads = {
      field("threads", &E::threads, "libtorch threads (0: libtorch's default)").range(0, 1024)};
  static const FieldTable<R> table = concat<R>({
      {
          field("chip", &R::chip, "FILE:PROFILE, a profile with drift fields (not with --policy)"),
          field("policy", &R::policy,
                "A frozen policy (`analog select --policy-out`) for this model: its chip and "
                "seeds, and its coverage and accepted error rate at each time"),
          field("times", &R::times,
                "Read times after programming, increasing (units s, min, h, d, w, mo, y)"),
          field("compensation", &R::compensation,
                "Without (none) or with (global) global drift compensation, or both")
              .one_of({"none", "global", "both"}),
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir, "Directory of the data set files").alias("--dataset-dir"),
          field("split", &R::split, "The split").one_of({"train", "test"}),
      },
      nested(&R::eval, limit),
      {
          field("chip_seed", &R::chip_seed,
                "Chip seed: programming noise, stuck devices, drift exponents (default 1; with "
                "--policy the policy's)")
              .alias("--seed"),
          field("read_seed", &R::read_seed,
                "Seed of the read noise, the same at every time (default 1; with --policy the "
                "policy's test-set stream)"),
          field("batch_size", &R::batch_size,
                "Images per analog read (default 128; with --policy the policy's)")
              .range(1, 1 << 20),
      },
      nested(&R::eval, threads),
      {
          field("audit", &R::audit,
                "With --policy: a labelled audit of the first N accepted queries at each time "
                "(anytime-valid upper bound on the accepted error rate; 0: none)")
              .range(0, 0x1p40),
      },
  });
  return table;
}

const FieldTable<TrainRequest>& train_fields() {
  using R = TrainRequest;
  using O = train::TrainOptions;
  static const FieldTable<O> options = {
      field("batch_size", &O::batch_size, "Batch size").range(1, 1 << 20),
      field("weight_decay", &O::weight_decay, "AdamW weight decay").range(0, 10),
      field("flip", &O::flip, "The random horizontal flip, on by default"),
      field("seed", &O::seed, "Seed of initialization, shuffling and augmentation"),
      field("train_limit", &O::train_limit,
            "Train on the first N images not held out only (0: all)")
          .at_least(0),
      field("eval_limit", &O::eval_limit,
            "Per-epoch accuracy on the first N held-out images only (0: all)")
          .at_least(0),
      field("threads", &O::threads, "libtorch threads (0: libtorch's default)").range(0, 1024),
  };
  static const FieldTable<R> table = concat<R>(
      {
          field("dataset", &R::dataset, data::kDatasetHelp),
          field("data_dir", &R::data_dir,
                "Directory of the data set files ('': fashion-mnist's "
                "/usr/share/datasets/fashion-mnist; cifar10: the cifar-10-batches-bin "
                "directory)"),
          field("out", &R::out, "Output ONNX file (its training record: + .train.json)"),
          field("preset", &R::preset,
                "paper: 30 epochs, lr 2e-3 (RACE-AIMC, Sec. IV-A); fast: 2 epochs, lr 2e-3 (for "
                "tests and development; epochs and lr override either)")
              .one_of({"paper", "fast"}),
          field("epochs", &R::epochs, "Epochs (unset: the preset's)").range(1, 100000),
          field("lr", &R::lr, "Peak learning rate, cosine annealed to 0 (unset: the preset's)")
              .range(1e-12, 10),
          field("holdout", &R::holdout,
                "Training images held out of training (seeded random subset): the evaluation "
                "set of training choices and the calibration pool of `analog select "
                "--holdout`; 0 trains on all")
              .range(0, 0x1p40),
          field("holdout_seed", &R::holdout_seed, "Seed of the held-out subset"),
          field("crop_padding", &R::crop_padding,
                "Random-crop zero padding per side (-1: 2 for 28x28 images, 4 for 32x32)")
              .range(-1, 64),
          field("hardware_aware", &R::hardware_aware,
                "Hardware-aware training: the chip profile FILE:PROFILE (e.g. data/chips.yaml:A3) "
                "whose programming noise, stuck devices, read noise and DAC/ADC quantization the "
                "classifier's forward pass injects, a fresh chip per batch, straight-through "
                "gradients (src/train/README.md); '': plain training"),
          field("hardware_aware_time", &R::hardware_aware_time,
                "With --hardware-aware: the time after programming at which the injected chips "
                "are read (drift when later than the profile's drift_t0); 0: at t0")
              .with_unit(Quantity::Time)
              .range(0, 1e6),
      },
      nested(&R::options, options));
  return table;
}

}  // namespace hetcim::api
