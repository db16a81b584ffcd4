// A user's own labelled data as NumPy arrays: images x.npy and labels y.npy, read by exec's .npy
// reader (exec/npy.h). The rules, stated once (also in --help and src/data/README.md):
//
//  * x: N x C x H x W (or N x H x W, one channel), uint8 or float32. uint8 values are pixels and
//    the model sees x / 255, as for Fashion-MNIST and CIFAR-10. float32 values are the model's
//    input scale itself and must lie in [0, 1]; they are stored on the same 8-bit grid as an
//    image, round(255 x) (moving a value by at most 1/510): a float outside [0, 1] or not finite
//    is an error naming the file and the element.
//  * y: N labels, int64, int32 or uint8, each in [0, 255] (8-bit labels).
//  * classes: the largest label + 1 over every label file of the data set (`classes` below).
#pragma once

#include <cstdint>
#include <string>

#include "data/dataset.h"

namespace hetcim::data {

// x and y as a data set named `name` with `classes` classes (0: the largest label of y + 1).
// UserError naming the file: a shape or dtype other than above, N of x and y differing, a label
// negative or >= classes (or above 255), a float pixel outside [0, 1].
[[nodiscard]] ImageDataset read_npy_dataset(const std::string& x_path, const std::string& y_path,
                                            const std::string& name, int64_t classes = 0);

// The largest label of a labels file + 1 (checks y as read_npy_dataset does).
[[nodiscard]] int64_t npy_label_classes(const std::string& y_path);

}  // namespace hetcim::data
