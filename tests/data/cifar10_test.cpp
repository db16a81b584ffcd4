#include "data/cifar10.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;

// A synthetic batch: record i has label i % 10 and pixel p of channel c equal to (i + c + p) % 256.
std::vector<uint8_t> synthetic(int records) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < records; ++i) {
    bytes.push_back(static_cast<uint8_t>(i % 10));
    for (int c = 0; c < 3; ++c)
      for (int p = 0; p < 1024; ++p) bytes.push_back(static_cast<uint8_t>((i + c + p) % 256));
  }
  return bytes;
}

class Cifar10Test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetcim_cifar_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  fs::path dir_;
};

TEST_F(Cifar10Test, ReadsRecordsChannelPlanesAndLabels) {
  const ImageDataset d = read_cifar10_file(write("test_batch.bin", synthetic(7)));
  EXPECT_EQ(d.count, 7);
  EXPECT_EQ(d.channels, 3);
  EXPECT_EQ(d.height, 32);
  EXPECT_EQ(d.width, 32);
  EXPECT_EQ(d.labels[6], 6);
  // Image 5, channel 2 (blue), row 1, col 3 -> p = 35: (5 + 2 + 35) % 256 = 42.
  EXPECT_EQ(d.images[((5 * 3 + 2) * 32 + 1) * 32 + 3], 42);
  validate(d);
}

TEST_F(Cifar10Test, TrainSplitConcatenatesFiveBatches) {
  for (int i = 1; i <= 5; ++i) write("data_batch_" + std::to_string(i) + ".bin", synthetic(i));
  const ImageDataset d = load_cifar10(Split::Train, dir_.string());
  EXPECT_EQ(d.count, 1 + 2 + 3 + 4 + 5);
  EXPECT_EQ(d.name, "cifar10/train");
  EXPECT_EQ(d.labels[1], 0);  // first record of batch 2
  EXPECT_EQ(load_dataset("cifar10", Split::Train, dir_.string()).count, 15);
}

TEST_F(Cifar10Test, Errors) {
  auto bytes = synthetic(2);
  bytes.pop_back();
  const std::string bad = write("bad.bin", bytes);
  try {
    (void)read_cifar10_file(bad);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("3073"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("bad.bin"), std::string::npos);
  }
  auto labels = synthetic(2);
  labels[3073] = 11;
  EXPECT_THROW((void)read_cifar10_file(write("label.bin", labels)), UserError);
  EXPECT_THROW((void)read_cifar10_file(write("empty.bin", {})), UserError);
  try {
    (void)load_cifar10(Split::Test, dir_.string());
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("test_batch.bin"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetcim::data
