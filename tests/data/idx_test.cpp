#include "data/idx.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "data/fashion_mnist.h"
#include "util/error.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;

class IdxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetcim_idx_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string error_of(const std::string& p) {
    try {
      (void)read_idx(p);
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  }
  void write_raw(const std::string& name, const std::vector<uint8_t>& bytes) const {
    std::ofstream(path(name), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  fs::path dir_;
};

TEST_F(IdxTest, RoundTripPlainAndGzip) {
  IdxArray a{{2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 200}};
  for (bool gz : {false, true}) {
    const std::string p = path(gz ? "a.gz" : "a.idx");
    write_idx(p, a, gz);
    const IdxArray b = read_idx(p);
    EXPECT_EQ(b.dims, a.dims);
    EXPECT_EQ(b.data, a.data);
  }
  // The gzip file is really compressed: it starts with the gzip magic 1f 8b.
  std::ifstream in(path("a.gz"), std::ios::binary);
  EXPECT_EQ(in.get(), 0x1f);
  EXPECT_EQ(in.get(), 0x8b);
}

TEST_F(IdxTest, HeaderByHand) {
  // Magic 00 00 08 01, one dimension 0x00000003, then three bytes.
  write_raw("h.idx", {0, 0, 8, 1, 0, 0, 0, 3, 7, 8, 9});
  const IdxArray a = read_idx(path("h.idx"));
  EXPECT_EQ(a.dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{7, 8, 9}));
}

TEST_F(IdxTest, ErrorsNameTheFile) {
  std::string e = error_of(path("missing.gz"));
  EXPECT_NE(e.find("missing.gz"), std::string::npos);
  write_raw("short.idx", {0, 0});
  EXPECT_NE(error_of(path("short.idx")).find("header"), std::string::npos);
  write_raw("magic.idx", {1, 0, 8, 1, 0, 0, 0, 1, 5});
  EXPECT_NE(error_of(path("magic.idx")).find("two zero bytes"), std::string::npos);
  write_raw("float.idx", {0, 0, 0x0d, 1, 0, 0, 0, 1, 0, 0, 0, 0});
  EXPECT_NE(error_of(path("float.idx")).find("0xd"), std::string::npos);
  write_raw("trunc.idx", {0, 0, 8, 1, 0, 0, 0, 5, 1, 2});
  e = error_of(path("trunc.idx"));
  EXPECT_NE(e.find("truncated"), std::string::npos);
  EXPECT_NE(e.find("trunc.idx"), std::string::npos);
  write_raw("extra.idx", {0, 0, 8, 1, 0, 0, 0, 1, 1, 2});
  EXPECT_NE(error_of(path("extra.idx")).find("after"), std::string::npos);
}

TEST_F(IdxTest, DatasetPairChecksShapesAndLabels) {
  write_idx(path("i.gz"), {{2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 255}}, true);
  write_idx(path("l.gz"), {{2}, {3, 9}}, true);
  const ImageDataset d = read_idx_dataset(path("i.gz"), path("l.gz"), "tiny", 10);
  EXPECT_EQ(d.count, 2);
  EXPECT_EQ(d.height, 2);
  EXPECT_EQ(d.labels, (std::vector<uint8_t>{3, 9}));
  EXPECT_EQ(d.images[7], 255);
  write_idx(path("l3.gz"), {{3}, {1, 2, 3}}, true);
  EXPECT_THROW((void)read_idx_dataset(path("i.gz"), path("l3.gz"), "tiny", 10), UserError);
  write_idx(path("lbad.gz"), {{2}, {1, 10}}, true);
  try {
    (void)read_idx_dataset(path("i.gz"), path("lbad.gz"), "tiny", 10);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("label 10"), std::string::npos);
  }
  EXPECT_THROW((void)read_idx_dataset(path("l.gz"), path("l.gz"), "tiny", 10),
               UserError);  // rank 1
}

TEST_F(IdxTest, MissingFashionMnistDirectoryNamesThePackage) {
  try {
    (void)load_fashion_mnist(Split::Test, path("nowhere"));
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("t10k-images-idx3-ubyte.gz"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("dataset-fashion-mnist"), std::string::npos);
  }
}

TEST(Dataset, NormalizedPixelsAndSlice) {
  ImageDataset d;
  d.name = "t";
  d.count = 2;
  d.channels = 2;
  d.height = 1;
  d.width = 2;
  d.classes = 3;
  d.images = {0, 255, 51, 102, 255, 0, 0, 0};
  d.labels = {0, 2};
  validate(d);
  const auto x = normalized_pixels(d, 0, 1, {0.5f, 0.0f}, {0.5f, 1.0f});
  ASSERT_EQ(x.size(), 4u);
  EXPECT_FLOAT_EQ(x[0], -1.0f);  // (0 - 0.5) / 0.5
  EXPECT_FLOAT_EQ(x[1], 1.0f);   // (1 - 0.5) / 0.5
  EXPECT_FLOAT_EQ(x[2], 0.2f);
  EXPECT_FLOAT_EQ(x[3], 0.4f);
  const ImageDataset s = slice(d, 1, 1);
  EXPECT_EQ(s.count, 1);
  EXPECT_EQ(s.labels, (std::vector<uint8_t>{2}));
  EXPECT_EQ(s.images, (std::vector<uint8_t>{255, 0, 0, 0}));
  EXPECT_THROW((void)slice(d, 1, 2), UserError);
  EXPECT_THROW((void)normalized_pixels(d, 0, 1, {0.5f}, {0.5f}), UserError);
  d.labels[1] = 3;
  EXPECT_THROW(validate(d), UserError);
  EXPECT_EQ(parse_split("test"), Split::Test);
  EXPECT_THROW((void)parse_split("val"), UserError);
  EXPECT_THROW((void)load_dataset("mnist2", Split::Test), UserError);
  EXPECT_THROW((void)load_dataset("cifar10", Split::Test), UserError);  // no default directory
}

}  // namespace
}  // namespace hetcim::data
