// Fashion-MNIST (Xiao et al. 2017): 28x28 grey images of 10 clothing classes, 60000 for training
// and 10000 for testing, in gzip'd IDX files. Debian's dataset-fashion-mnist package installs them
// in /usr/share/datasets/fashion-mnist; they are read directly (no unpacking step).
#pragma once

#include <string>

#include "data/dataset.h"

namespace hetcim::data {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Reads {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz from `dir`. UserError naming the file
// (and the Debian package) when it is missing; UserError when shapes or labels are off.
[[nodiscard]] ImageDataset load_fashion_mnist(Split split,
                                              const std::string& dir = kFashionMnistDir);

// An images file (rank 3: count x rows x cols) and a labels file (rank 1) as one data set.
[[nodiscard]] ImageDataset read_idx_dataset(const std::string& images_path,
                                            const std::string& labels_path, const std::string& name,
                                            int64_t classes);

}  // namespace hetcim::data
