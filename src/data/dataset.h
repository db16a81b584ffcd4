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

// The data set names every command's --dataset takes (the one grammar, checked by
// check_dataset_name and read by load_dataset):
//   fashion-mnist                 Debian's package, or the IDX files in `dir`
//   cifar10                       the binary version in `dir` (cifar-10-batches-bin)
//   images:DIR                    a folder of one subfolder of PNG/JPEG files per class
//                                 (data/image_folder.h: classes, size, channels, pixel rules);
//                                 when DIR's only subfolders are `train` and `test`, each is such
//                                 a folder and the split picks one (same class names required),
//                                 otherwise DIR serves every split
//   npy:X.npy,Y.npy               images and labels (data/npy_dataset.h), serving every split
//   npy:X.npy,Y.npy,XT.npy,YT.npy training pair, then test pair
// Every form gives the model pixel / 255 (float32 .npy images are that scale already).
inline constexpr const char* kDatasetForms =
    "fashion-mnist, cifar10, images:DIR or npy:X.npy,Y.npy[,XTEST.npy,YTEST.npy]";
inline constexpr const char* kDatasetHelp =
    "The data set: fashion-mnist, cifar10, images:DIR (one subfolder of PNG/JPEG files per class, "
    "classes in sorted order, all images of one size, grey -> 1 channel else RGB; DIR/train and "
    "DIR/test as the splits when those are its only subfolders) or npy:X.npy,Y.npy[,XTEST.npy,"
    "YTEST.npy] (X: N x C x H x W uint8 pixels, or float32 in [0, 1]; Y: int64/int32 labels); "
    "the model sees pixel / 255, no mean/std normalization";

// UserError "<field>: expected <kDatasetForms>, got '<name>'" unless `name` has one of the forms
// above (syntax only: no file is read).
void check_dataset_name(std::string_view field, std::string_view name);

// True for images: and npy: data sets (a user's own files, which may change under the same name:
// callers that cache results by name add content_hash).
[[nodiscard]] bool is_user_dataset(std::string_view name);

// False when every split of the data set is the same images (images:DIR without train/test
// subfolders, npy: with one pair): a "test" accuracy on it is not on unseen images.
[[nodiscard]] bool has_separate_test_split(std::string_view name);

// FNV-1a over shape, pixels and labels, as 16 hex digits.
[[nodiscard]] std::string content_hash(const ImageDataset& d);

// A data set by name (the forms above) from `dir` ("" = the name's default directory: Debian's
// /usr/share/datasets/fashion-mnist; cifar10 has none and needs one; images: and npy: name their
// files themselves and take no `dir`).
[[nodiscard]] ImageDataset load_dataset(std::string_view name, Split split,
                                        const std::string& dir = "");

}  // namespace hetcim::data
