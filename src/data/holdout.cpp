#include "data/holdout.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/files.h"
#include "util/hash.h"

namespace hetcim::data {

Holdout make_holdout(int64_t count, int64_t held_out, uint64_t seed) {
  if (count < 0) throw internal_error("make_holdout: negative count ", count);
  if (held_out < 0 || held_out > count)
    throw user_error("--holdout: ", held_out, " images held out, but the data set has ", count,
                     " (expected 0 .. ", count, ")");
  // "holdout" xor'ed in: a stream apart from other uses of the same seed.
  const std::vector<int64_t> perm = seeded_permutation(count, seed ^ 0x686f6c646f7574ull);
  Holdout h;
  h.held_out.assign(perm.begin(), perm.begin() + held_out);
  h.train.assign(perm.begin() + held_out, perm.end());
  std::sort(h.held_out.begin(), h.held_out.end());
  std::sort(h.train.begin(), h.train.end());
  return h;
}

ImageDataset gather(const ImageDataset& d, const std::vector<int64_t>& indices,
                    const std::string& name) {
  ImageDataset s = d;
  s.name = name;
  s.count = static_cast<int64_t>(indices.size());
  const int64_t px = d.image_size();
  s.images.resize(static_cast<size_t>(s.count * px));
  s.labels.resize(indices.size());
  for (size_t i = 0; i < indices.size(); ++i) {
    const int64_t k = indices[i];
    if (k < 0 || k >= d.count)
      throw user_error(d.name, ": image ", k, " is outside [0, ", d.count, ")");
    std::copy_n(d.images.begin() + k * px, px, s.images.begin() + static_cast<int64_t>(i) * px);
    s.labels[i] = d.labels[static_cast<size_t>(k)];
  }
  return s;
}

std::optional<TrainRecord> read_train_record(const std::string& model_path) {
  const std::string file = model_path + ".train.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  TrainRecord t;
  t.file = file;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_input_file(file, "training record"));
    t.dataset = j.at("dataset").get<std::string>();
    t.holdout = j.at("holdout").at("images").get<int64_t>();
    t.holdout_seed = j.at("holdout").at("seed").get<uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw user_error(file,
                     ": not a training record of `hetcim train` (expected fields 'dataset', "
                     "'holdout.images', 'holdout.seed'): ",
                     e.what());
  }
  if (t.holdout < 0)
    throw user_error(file, ": field 'holdout.images' is ", t.holdout, ", expected >= 0");
  return t;
}

}  // namespace hetcim::data
