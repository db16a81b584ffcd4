#include "data/dataset.h"

#include <cinttypes>
#include <cstdio>
#include <filesystem>

#include "data/cifar10.h"
#include "data/fashion_mnist.h"
#include "data/image_folder.h"
#include "data/npy_dataset.h"
#include "util/error.h"
#include "util/hash.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kImages = "images:";
constexpr std::string_view kNpy = "npy:";

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// The comma-separated paths of an npy: name: 2 or 4 non-empty ones, or empty when malformed.
std::vector<std::string> npy_paths(std::string_view name) {
  std::vector<std::string> paths;
  std::string_view rest = name.substr(kNpy.size());
  while (true) {
    const size_t comma = rest.find(',');
    paths.emplace_back(rest.substr(0, comma));
    if (paths.back().empty()) return {};
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  if (paths.size() != 2 && paths.size() != 4) return {};
  return paths;
}

// True when DIR's only subfolders (not starting with '.') are `test` and `train`.
bool split_layout(const std::string& dir) {
  return image_folder_classes(dir) == std::vector<std::string>{"test", "train"};
}

ImageDataset load_image_folder(std::string_view name, Split split) {
  const std::string dir(name.substr(kImages.size()));
  if (!split_layout(dir)) return read_image_folder(dir, std::string(name));
  const std::string train = (fs::path(dir) / "train").string();
  const std::string test = (fs::path(dir) / "test").string();
  if (image_folder_classes(train) != image_folder_classes(test))
    throw user_error(train, " and ", test,
                     " hold different class subfolders (the two splits of one data set need the "
                     "same class names)");
  return read_image_folder(split == Split::Train ? train : test,
                           std::string(name) + "/" + std::string(split_name(split)));
}

ImageDataset load_npy(std::string_view name, Split split) {
  const std::vector<std::string> p = npy_paths(name);
  if (p.empty()) check_dataset_name("dataset", name);  // throws the grammar's message
  int64_t classes = 0;
  for (size_t i = 1; i < p.size(); i += 2) classes = std::max(classes, npy_label_classes(p[i]));
  const size_t at = p.size() == 4 && split == Split::Test ? 2 : 0;
  return read_npy_dataset(
      p[at], p[at + 1],
      std::string(name) + (p.size() == 4 ? "/" + std::string(split_name(split)) : ""), classes);
}

}  // namespace

void check_dataset_name(std::string_view field, std::string_view name) {
  if (name == "fashion-mnist" || name == "cifar10") return;
  if (starts_with(name, kImages) && name.size() > kImages.size()) return;
  if (starts_with(name, kNpy) && !npy_paths(name).empty()) return;
  throw user_error(field, ": expected ", kDatasetForms, ", got '", name, "'");
}

bool is_user_dataset(std::string_view name) {
  return starts_with(name, kImages) || starts_with(name, kNpy);
}

bool has_separate_test_split(std::string_view name) {
  if (starts_with(name, kNpy)) return npy_paths(name).size() == 4;
  if (starts_with(name, kImages)) return split_layout(std::string(name.substr(kImages.size())));
  return true;
}

std::string content_hash(const ImageDataset& d) {
  Fnv1a h;
  const int64_t dims[] = {d.count, d.channels, d.height, d.width, d.classes};
  h.update(dims, sizeof dims);
  h.update(d.images.data(), d.images.size());
  h.update(d.labels.data(), d.labels.size());
  char b[20];
  std::snprintf(b, sizeof b, "%016" PRIx64, h.h);
  return b;
}

std::string_view split_name(Split s) {
  return s == Split::Train ? "train" : "test";
}

Split parse_split(std::string_view text) {
  if (text == "train") return Split::Train;
  if (text == "test") return Split::Test;
  throw user_error("split '", text, "': expected 'train' or 'test'");
}

void validate(const ImageDataset& d) {
  if (d.count < 0 || d.channels < 1 || d.height < 1 || d.width < 1 || d.classes < 1)
    throw user_error(d.name, ": invalid data set shape ", d.count, "x", d.channels, "x", d.height,
                     "x", d.width, " with ", d.classes, " classes");
  if (static_cast<int64_t>(d.images.size()) != d.count * d.image_size() ||
      static_cast<int64_t>(d.labels.size()) != d.count)
    throw user_error(d.name, ": holds ", d.images.size(), " pixel bytes and ", d.labels.size(),
                     " labels for ", d.count, " images of ", d.image_size(), " bytes");
  for (int64_t i = 0; i < d.count; ++i)
    if (d.labels[static_cast<size_t>(i)] >= d.classes)
      throw user_error(d.name, ": label of image ", i, " is out of [0, ", d.classes - 1, "]");
}

ImageDataset slice(const ImageDataset& d, int64_t begin, int64_t n) {
  if (begin < 0 || n < 0 || begin + n > d.count)
    throw user_error(d.name, ": images [", begin, ", ", begin + n, ") are outside [0, ", d.count,
                     ")");
  ImageDataset s = d;
  s.count = n;
  const int64_t px = d.image_size();
  s.images.assign(d.images.begin() + begin * px, d.images.begin() + (begin + n) * px);
  s.labels.assign(d.labels.begin() + begin, d.labels.begin() + begin + n);
  return s;
}

std::vector<float> normalized_pixels(const ImageDataset& d, int64_t begin, int64_t n,
                                     const std::vector<float>& mean,
                                     const std::vector<float>& std) {
  if (static_cast<int64_t>(mean.size()) != d.channels ||
      static_cast<int64_t>(std.size()) != d.channels)
    throw user_error(d.name, ": normalization needs one mean and one std per channel (", d.channels,
                     "), got ", mean.size(), " and ", std.size());
  for (float s : std)
    if (!(s > 0.0f)) throw user_error(d.name, ": normalization std must be > 0, got ", s);
  if (begin < 0 || n < 0 || begin + n > d.count)
    throw user_error(d.name, ": images [", begin, ", ", begin + n, ") are outside [0, ", d.count,
                     ")");
  const int64_t plane = d.height * d.width;
  std::vector<float> out(static_cast<size_t>(n * d.image_size()));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < d.channels; ++c) {
      const uint8_t* src = d.images.data() + ((begin + i) * d.channels + c) * plane;
      float* dst = out.data() + (i * d.channels + c) * plane;
      const float scale = 1.0f / (255.0f * std[static_cast<size_t>(c)]);
      const float shift = mean[static_cast<size_t>(c)] / std[static_cast<size_t>(c)];
      for (int64_t p = 0; p < plane; ++p) dst[p] = static_cast<float>(src[p]) * scale - shift;
    }
  return out;
}

ImageDataset load_dataset(std::string_view name, Split split, const std::string& dir) {
  if (is_user_dataset(name)) {
    check_dataset_name("dataset", name);
    if (!dir.empty())
      throw user_error("data directory '", dir, "' given for data set '", name,
                       "': images: and npy: name their files themselves (--data-dir is for "
                       "fashion-mnist and cifar10)");
    return starts_with(name, kImages) ? load_image_folder(name, split) : load_npy(name, split);
  }
  if (name == "fashion-mnist")
    return load_fashion_mnist(split, dir.empty() ? kFashionMnistDir : dir);
  if (name == "cifar10") {
    if (dir.empty())
      throw user_error(
          "data set 'cifar10' has no default location: pass the directory of its "
          "binary version (cifar-10-batches-bin)");
    return load_cifar10(split, dir);
  }
  throw user_error("unknown data set '", name, "' (expected ", kDatasetForms, ")");
}

}  // namespace hetcim::data
