#include "data/cifar10.h"

#include <filesystem>
#include <fstream>

#include "util/error.h"
#include "util/files.h"
#include "util/limits.h"

namespace hetcim::data {
namespace {

constexpr int64_t kPixels = 3 * 32 * 32;
constexpr int64_t kRecord = 1 + kPixels;

}  // namespace

ImageDataset read_cifar10_file(const std::string& path) {
  const std::string text = read_input_file(path, "CIFAR-10 batch", kMaxDataFileBytes);
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  const auto size = static_cast<int64_t>(bytes.size());
  if (size == 0 || size % kRecord != 0)
    throw user_error(path,
                     ": a CIFAR-10 binary batch holds whole 3073-byte records (1 label + 3072 "
                     "pixels), but the file has ",
                     size, " bytes");
  ImageDataset d;
  d.name = "cifar10/" + std::filesystem::path(path).filename().string();
  d.count = size / kRecord;
  d.channels = 3;
  d.height = 32;
  d.width = 32;
  d.classes = 10;
  d.images.resize(static_cast<size_t>(d.count * kPixels));
  d.labels.resize(static_cast<size_t>(d.count));
  for (int64_t i = 0; i < d.count; ++i) {
    const uint8_t* rec = bytes.data() + i * kRecord;
    if (rec[0] > 9)
      throw user_error(path, ": record ", i, " has label ", int(rec[0]), ", expected 0-9");
    d.labels[static_cast<size_t>(i)] = rec[0];
    std::copy(rec + 1, rec + kRecord, d.images.begin() + i * kPixels);
  }
  return d;
}

ImageDataset load_cifar10(Split split, const std::string& dir) {
  std::vector<std::string> files;
  if (split == Split::Train) {
    for (int i = 1; i <= 5; ++i) files.push_back("data_batch_" + std::to_string(i) + ".bin");
  } else {
    files.push_back("test_batch.bin");
  }
  ImageDataset all;
  for (const auto& name : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    if (!std::filesystem::exists(path))
      throw user_error(path,
                       ": CIFAR-10 file not found (expected the binary version, "
                       "cifar-10-batches-bin, in ",
                       dir, ")");
    ImageDataset part = read_cifar10_file(path);
    if (all.count == 0) {
      all = std::move(part);
    } else {
      all.images.insert(all.images.end(), part.images.begin(), part.images.end());
      all.labels.insert(all.labels.end(), part.labels.begin(), part.labels.end());
      all.count += part.count;
    }
  }
  all.name = "cifar10/" + std::string(split_name(split));
  return all;
}

}  // namespace hetcim::data
