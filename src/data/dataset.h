// An image classification data set in memory: raw 8-bit pixels in NCHW order and one label per
// image. Loaders (idx.h, fashion_mnist.h, cifar10.h) validate files once at the boundary; code
// that receives an ImageDataset trusts its shape.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hetcim::data {

enum class Split { Train, Test };

[[nodiscard]] std::string_view split_name(Split s);
// "train" / "test"; UserError otherwise.
[[nodiscard]] Split parse_split(std::string_view text);

struct ImageDataset {
  std::string name;  // e.g. "fashion-mnist/test"
  int64_t count = 0;
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t classes = 0;
  std::vector<uint8_t> images;  // count x channels x height x width
  std::vector<uint8_t> labels;  // count, each < classes

  [[nodiscard]] int64_t image_size() const { return channels * height * width; }
};

// Images [begin, begin + n) as a new data set (UserError when out of range).
[[nodiscard]] ImageDataset slice(const ImageDataset& d, int64_t begin, int64_t n);

// Pixels of images [begin, begin + n) as floats (x / 255 - mean[c]) / std[c], NCHW. `mean` and
// `std` have one entry per channel (UserError otherwise, or when a std is not positive).
[[nodiscard]] std::vector<float> normalized_pixels(const ImageDataset& d, int64_t begin, int64_t n,
                                                   const std::vector<float>& mean,
                                                   const std::vector<float>& std);

// Checks count, shape and label range; throws UserError naming the data set.
void validate(const ImageDataset& d);

// A data set by name ("fashion-mnist" or "cifar10") from `dir` ("" = the name's default
// directory: Debian's /usr/share/datasets/fashion-mnist; cifar10 has none and needs one).
[[nodiscard]] ImageDataset load_dataset(std::string_view name, Split split,
                                        const std::string& dir = "");

}  // namespace hetcim::data
