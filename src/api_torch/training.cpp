#include "api_torch/training.h"

#include <cstdio>
#include <filesystem>

#include "data/dataset.h"
#include "data/holdout.h"
#include "onnxio/export.h"
#include "train/evaluate.h"
#include "util/error.h"
#include "util/files.h"
#include "util/provenance.h"

namespace hetcim::api {
namespace {

nlohmann::json options_json(const TrainJob& job, const train::TrainOptions& o) {
  nlohmann::json j = {{"preset", job.preset},
                      {"epochs", o.epochs},
                      {"lr", o.lr},
                      {"batch_size", o.batch_size},
                      {"weight_decay", o.weight_decay},
                      {"crop_padding", o.crop_padding},
                      {"flip", o.flip},
                      {"seed", o.seed},
                      {"train_limit", o.train_limit},
                      {"threads", o.threads}};
  // Only when set, so that the records of plain models stay as they were.
  if (!job.hardware_aware.empty()) {
    j["hardware_aware"] = job.hardware_aware;
    j["hardware_aware_time"] = o.hardware_aware_time;
  }
  return j;
}

}  // namespace

TrainOutcome train_to_files(const TrainJob& job) {
  train::TrainOptions o = job.options;
  const data::ImageDataset all_train =
      data::load_dataset(job.dataset, data::Split::Train, job.data_dir);
  const data::ImageDataset test_set =
      data::load_dataset(job.dataset, data::Split::Test, job.data_dir);
  const data::Holdout h = data::make_holdout(all_train.count, job.holdout, job.holdout_seed);
  if (h.train.empty())
    throw user_error("--holdout ", job.holdout, ": nothing of the ", all_train.count,
                     " training images is left to train on");
  const data::ImageDataset train_set =
      job.holdout > 0 ? data::gather(all_train, h.train, all_train.name + " (not held out)")
                      : all_train;
  const data::ImageDataset held_out =
      job.holdout > 0 ? data::gather(all_train, h.held_out, all_train.name + " (held out)")
                      : test_set;
  if (o.crop_padding < 0) o.crop_padding = train_set.height >= 32 ? 4 : 2;
  const train::TrainResult r = train::train_race_cnn(train_set, held_out, o);
  TrainOutcome out;
  out.eval_accuracy = r.eval_accuracy;
  // The official test set, once, for description.
  train::EvalOptions eo;
  eo.threads = o.threads;
  out.test_accuracy =
      job.holdout > 0 ? train::evaluate_race_cnn(r.model, test_set, eo).accuracy : r.eval_accuracy;

  nlohmann::json epochs = nlohmann::json::array();
  for (const train::EpochStats& e : r.epochs)
    epochs.push_back({{"train_loss", e.train_loss},
                      {"train_accuracy", e.train_accuracy},
                      {"eval_accuracy", e.eval_accuracy},
                      {"seconds", e.seconds}});
  const nlohmann::json record = {
      {"model", "race_cnn"},
      {"dataset", job.dataset},
      {"dataset_content", data::content_hash(all_train)},
      {"holdout", {{"images", job.holdout}, {"seed", job.holdout_seed}, {"of", all_train.count}}},
      {"train_images",
       o.train_limit > 0 ? std::min(o.train_limit, train_set.count) : train_set.count},
      {"eval_set", job.holdout > 0 ? "held-out training images" : "official test set"},
      {"options", options_json(job, o)},
      {"epochs", epochs},
      {"eval_accuracy", r.eval_accuracy},
      {"test_accuracy", out.test_accuracy},
      {"test_accuracy_source",
       data::has_separate_test_split(job.dataset)
           ? "measured once after training on the official test set, clean digital model; not "
             "used for any choice"
           : "measured once after training, clean digital model, on the SAME images as training: "
             "the data set has no separate test split (images:DIR without train/ and test/ "
             "subfolders, or npy: with one pair)"},
      {"version", version_string()},
      {"machine", machine_description()}};
  onnxio::export_onnx(r.model, job.out);
  write_file_atomically(job.out + ".train.json", record.dump(1) + "\n");
  if (!o.checkpoint.empty()) std::filesystem::remove(o.checkpoint);  // the model is saved
  return out;
}

std::string record_mismatch(const nlohmann::json& rec, const TrainJob& job) {
  train::TrainOptions o = job.options;
  nlohmann::json want = {{"dataset", job.dataset},
                         {"holdout.images", job.holdout},
                         {"holdout.seed", job.holdout_seed}};
  const nlohmann::json opts = options_json(job, o);
  for (const char* k :
       {"epochs", "lr", "batch_size", "weight_decay", "flip", "seed", "train_limit"})
    want[std::string("options.") + k] = opts.at(k);
  if (opts.contains("hardware_aware")) {
    want["options.hardware_aware"] = opts.at("hardware_aware");
    want["options.hardware_aware_time"] = opts.at("hardware_aware_time");
  } else if (rec.contains("options") && rec.at("options").contains("hardware_aware")) {
    return "field 'options.hardware_aware' = " + rec.at("options").at("hardware_aware").dump() +
           ", this run trains without noise injection";
  }
  for (const auto& item : want.items()) {
    const std::string field = item.key();  // a plain name: the lambda below captures it
    const nlohmann::json& value = item.value();
    const nlohmann::json::json_pointer ptr("/" + [&] {
      std::string p = field;
      for (char& c : p)
        if (c == '.') c = '/';
      return p;
    }());
    if (!rec.contains(ptr)) return "field '" + field + "' is missing";
    if (rec.at(ptr) != value)
      return "field '" + field + "' = " + rec.at(ptr).dump() + ", this run asks for " +
             value.dump();
  }
  return "";
}

}  // namespace hetcim::api
