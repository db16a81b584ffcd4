#include "data/fashion_mnist.h"

#include <filesystem>

#include "data/idx.h"
#include "util/error.h"

namespace hetcim::data {

ImageDataset read_idx_dataset(const std::string& images_path, const std::string& labels_path,
                              const std::string& name, int64_t classes) {
  IdxArray images = read_idx(images_path);
  IdxArray labels = read_idx(labels_path);
  if (images.dims.size() != 3)
    throw user_error(images_path,
                     ": expected an images file of rank 3 (count x rows x cols), got rank ",
                     images.dims.size());
  if (labels.dims.size() != 1)
    throw user_error(labels_path, ": expected a labels file of rank 1, got rank ",
                     labels.dims.size());
  if (images.dims[0] != labels.dims[0])
    throw user_error(images_path, " has ", images.dims[0], " images but ", labels_path, " has ",
                     labels.dims[0], " labels");
  ImageDataset d;
  d.name = name;
  d.count = images.dims[0];
  d.channels = 1;
  d.height = images.dims[1];
  d.width = images.dims[2];
  d.classes = classes;
  d.images = std::move(images.data);
  d.labels = std::move(labels.data);
  for (int64_t i = 0; i < d.count; ++i) {
    if (d.labels[static_cast<size_t>(i)] >= classes)
      throw user_error(labels_path, ": label ", int(d.labels[static_cast<size_t>(i)]), " of image ",
                       i, " is not a class in [0, ", classes - 1, "]");
  }
  return d;
}

ImageDataset load_fashion_mnist(Split split, const std::string& dir) {
  const std::string prefix = split == Split::Train ? "train" : "t10k";
  const std::filesystem::path base(dir);
  const std::string images = (base / (prefix + "-images-idx3-ubyte.gz")).string();
  const std::string labels = (base / (prefix + "-labels-idx1-ubyte.gz")).string();
  for (const auto& f : {images, labels}) {
    if (!std::filesystem::exists(f))
      throw user_error(f,
                       ": Fashion-MNIST file not found (install Debian's dataset-fashion-mnist "
                       "package, or pass the directory that holds the four .gz IDX files)");
  }
  ImageDataset d =
      read_idx_dataset(images, labels, "fashion-mnist/" + std::string(split_name(split)), 10);
  if (d.height != 28 || d.width != 28)
    throw user_error(images, ": Fashion-MNIST images must be 28x28, got ", d.height, "x", d.width);
  return d;
}

}  // namespace hetcim::data
