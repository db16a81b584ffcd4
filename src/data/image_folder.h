// A user's own labelled images: a folder with one subfolder per class holding PNG or JPEG files,
// decoded by stb_image (Debian's libstb-dev). The rules, stated once (also in --help and
// src/data/README.md):
//
//  * classes: the subfolders' names in byte order; class index i is the i-th name (at most 256
//    classes, the labels are 8-bit). Files directly in the folder, and empty class folders, are
//    errors; names starting with '.' are skipped everywhere.
//  * files: `.png`, `.jpg`, `.jpeg` (any case); another file in a class folder is an error naming
//    it. A file stb cannot decode is an error naming the file and stb's reason.
//  * size: every image must have the size of the first one (no resizing: a mismatch is an error
//    naming the file, its size and the expected one).
//  * channels: 1 when every file is grey (grey or grey + alpha), else 3 (RGB; grey files are
//    replicated to RGB by stb); alpha is dropped. The model must take that many channels (its
//    check names both when they differ).
//  * pixels: the decoded 8-bit values (16-bit PNGs reduced to 8 bits by stb); the model sees
//    pixel / 255, as for Fashion-MNIST and CIFAR-10 (no mean/std normalization).
//  * order: round-robin over the classes (the first file of every class in class order, then the
//    second, ...; files by name within a class), so that any prefix of the set (commands that take
//    the first N images) holds every class.
#pragma once

#include <string>

#include "data/dataset.h"

namespace hetcim::data {

// The folder `dir` as a data set named `name`. UserError naming the folder or file as above.
[[nodiscard]] ImageDataset read_image_folder(const std::string& dir, const std::string& name);

// The sorted class names of `dir` (the subfolders not starting with '.'); UserError when `dir`
// is not a directory.
[[nodiscard]] std::vector<std::string> image_folder_classes(const std::string& dir);

}  // namespace hetcim::data
