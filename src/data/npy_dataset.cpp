#include "data/npy_dataset.h"

#include <cmath>

#include "exec/npy.h"
#include "util/error.h"

namespace hetcim::data {
namespace {

constexpr int64_t kMaxLabel = 255;  // labels are 8-bit

// The labels of y as int64, checked for rank, dtype and range [0, 255].
std::vector<int64_t> read_labels(const std::string& path) {
  const exec::Tensor y = exec::read_npy(path);
  if (y.shape.size() != 1)
    throw user_error(path, ": expected labels of shape (N,), got ", graph::shape_str(y.shape));
  if (y.dtype != graph::DType::Int64 && y.dtype != graph::DType::Int32 &&
      y.dtype != graph::DType::UInt8)
    throw user_error(path, ": expected int64, int32 or uint8 labels, got ",
                     graph::dtype_name(y.dtype));
  std::vector<int64_t> labels(static_cast<size_t>(y.numel()));
  for (int64_t i = 0; i < y.numel(); ++i) {
    const auto v = static_cast<int64_t>(y.at(i));
    if (v < 0 || v > kMaxLabel)
      throw user_error(path, ": label ", v, " of row ", i, " is out of range (expected 0 .. ",
                       kMaxLabel, ": labels are class indices, at most 256 classes)");
    labels[static_cast<size_t>(i)] = v;
  }
  return labels;
}

}  // namespace

int64_t npy_label_classes(const std::string& y_path) {
  int64_t top = -1;
  for (int64_t v : read_labels(y_path)) top = std::max(top, v);
  if (top < 0) throw user_error(y_path, ": no labels");
  return top + 1;
}

ImageDataset read_npy_dataset(const std::string& x_path, const std::string& y_path,
                              const std::string& name, int64_t classes) {
  const exec::Tensor x = exec::read_npy(x_path);
  const std::vector<int64_t> labels = read_labels(y_path);
  ImageDataset d;
  d.name = name;
  if (x.shape.size() == 3) {
    d.count = x.shape[0];
    d.channels = 1;
    d.height = x.shape[1];
    d.width = x.shape[2];
  } else if (x.shape.size() == 4) {
    d.count = x.shape[0];
    d.channels = x.shape[1];
    d.height = x.shape[2];
    d.width = x.shape[3];
  } else {
    throw user_error(x_path, ": expected images of shape N x C x H x W (or N x H x W), got ",
                     graph::shape_str(x.shape));
  }
  if (d.count < 1) throw user_error(x_path, ": no images");
  if (d.channels < 1 || d.height < 1 || d.width < 1)
    throw user_error(x_path, ": empty images, shape ", graph::shape_str(x.shape));
  if (static_cast<int64_t>(labels.size()) != d.count)
    throw user_error(x_path, " holds ", d.count, " images but ", y_path, " holds ", labels.size(),
                     " labels (expected one label per image)");
  if (x.dtype == graph::DType::UInt8) {
    d.images = x.bytes;
  } else if (x.dtype == graph::DType::Float32) {
    d.images.resize(static_cast<size_t>(x.numel()));
    const float* v = x.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (!(v[i] >= 0.0f && v[i] <= 1.0f))
        throw user_error(x_path, ": element ", i, " is ", v[i],
                         " (float32 images are the model's input scale: expected values in [0, "
                         "1], pixel / 255)");
      d.images[static_cast<size_t>(i)] = static_cast<uint8_t>(std::lround(v[i] * 255.0f));
    }
  } else {
    throw user_error(x_path, ": expected uint8 or float32 images, got ",
                     graph::dtype_name(x.dtype));
  }
  int64_t top = 0;
  for (int64_t v : labels) top = std::max(top, v);
  d.classes = classes > 0 ? classes : top + 1;
  d.labels.resize(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] >= d.classes)
      throw user_error(y_path, ": label ", labels[i], " of row ", i, " is not a class in [0, ",
                       d.classes - 1, "]");
    d.labels[i] = static_cast<uint8_t>(labels[i]);
  }
  return d;
}

}  // namespace hetcim::data
