#include "data/dataset.h"

#include "data/cifar10.h"
#include "data/fashion_mnist.h"
#include "util/error.h"

namespace hetcim::data {

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
  if (name == "fashion-mnist")
    return load_fashion_mnist(split, dir.empty() ? kFashionMnistDir : dir);
  if (name == "cifar10") {
    if (dir.empty())
      throw user_error(
          "data set 'cifar10' has no default location: pass the directory of its "
          "binary version (cifar-10-batches-bin)");
    return load_cifar10(split, dir);
  }
  throw user_error("unknown data set '", name, "' (known: fashion-mnist, cifar10)");
}

}  // namespace hetcim::data
