// CIFAR-10 in its binary version (cifar-10-batches-bin): each record is one label byte (0-9)
// followed by 3072 pixel bytes, the 1024 red, then green, then blue values of a 32x32 image in
// row-major order. data_batch_1.bin .. data_batch_5.bin hold 50000 training images and
// test_batch.bin 10000 test images. Not packaged by Debian: users point to their own copy.
#pragma once

#include <string>

#include "data/dataset.h"

namespace hetcim::data {

// One binary batch file. UserError naming the file when it is missing, empty, not a whole number
// of 3073-byte records, or has a label above 9.
[[nodiscard]] ImageDataset read_cifar10_file(const std::string& path);

// The split from `dir` (the cifar-10-batches-bin directory).
[[nodiscard]] ImageDataset load_cifar10(Split split, const std::string& dir);

}  // namespace hetcim::data
