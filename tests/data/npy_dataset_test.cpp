// The .npy data set (data/npy_dataset.h, `--dataset npy:X.npy,Y.npy`): files written by exec's
// .npy writer, values checked exactly; bad files give errors naming them.
#include "data/npy_dataset.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "data/dataset.h"
#include "exec/npy.h"
#include "user_error_message.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;
using hetcim::testing::message_of;

template <typename T>
exec::Tensor tensor(graph::DType dtype, const graph::Shape& shape, const std::vector<T>& v) {
  exec::Tensor t = exec::Tensor::zeros(dtype, shape);
  EXPECT_EQ(t.bytes.size(), v.size() * sizeof(T));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

class NpyDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetcim_npyds_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const exec::Tensor& t) {
    const std::string p = (dir_ / name).string();
    exec::write_npy(p, t);
    return p;
  }
  fs::path dir_;
};

TEST_F(NpyDatasetTest, Uint8ImagesAndInt64LabelsAreReadAsWritten) {
  std::vector<uint8_t> px(3 * 2 * 2 * 2);
  for (size_t i = 0; i < px.size(); ++i) px[i] = static_cast<uint8_t>(i * 9 + 1);
  const std::string x = write("x.npy", tensor(graph::DType::UInt8, {3, 2, 2, 2}, px));
  const std::string y = write("y.npy", tensor<int64_t>(graph::DType::Int64, {3}, {2, 0, 4}));
  const ImageDataset d = read_npy_dataset(x, y, "mine");
  validate(d);
  EXPECT_EQ(d.count, 3);
  EXPECT_EQ(d.channels, 2);
  EXPECT_EQ(d.height, 2);
  EXPECT_EQ(d.width, 2);
  EXPECT_EQ(d.classes, 5);  // the largest label + 1
  EXPECT_EQ(d.images, px);
  EXPECT_EQ(d.labels, (std::vector<uint8_t>{2, 0, 4}));
}

TEST_F(NpyDatasetTest, Float32ImagesAreStoredAsRound255x) {
  const std::vector<float> v = {0.0f, 1.0f, 0.5f, 0.1f, 0.998f, 0.002f};
  const std::string x = write("x.npy", tensor(graph::DType::Float32, {2, 1, 3}, v));  // N x H x W
  const std::string y = write("y.npy", tensor<int32_t>(graph::DType::Int32, {2}, {1, 0}));
  const ImageDataset d = read_npy_dataset(x, y, "mine");
  EXPECT_EQ(d.channels, 1);
  // round(255 x): 0, 255, 127.5 -> 128, 25.5 -> 26, 254.49 -> 254, 0.51 -> 1.
  EXPECT_EQ(d.images, (std::vector<uint8_t>{0, 255, 128, 26, 254, 1}));
}

TEST_F(NpyDatasetTest, BadFilesAreErrorsNamingTheFile) {
  const std::string x = write(
      "x.npy", tensor<uint8_t>(graph::DType::UInt8, {2, 1, 2, 2}, std::vector<uint8_t>(8, 3)));
  const std::string y3 = write("y3.npy", tensor<int64_t>(graph::DType::Int64, {3}, {0, 1, 1}));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(x, y3, "m"); }),
            x + " holds 2 images but " + y3 + " holds 3 labels (expected one label per image)");
  const std::string neg = write("neg.npy", tensor<int64_t>(graph::DType::Int64, {2}, {0, -1}));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(x, neg, "m"); }),
            neg +
                ": label -1 of row 1 is out of range (expected 0 .. 255: labels are class "
                "indices, at most 256 classes)");
  const std::string y = write("y.npy", tensor<int64_t>(graph::DType::Int64, {2}, {0, 7}));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(x, y, "m", 5); }),
            y + ": label 7 of row 1 is not a class in [0, 4]");
  const std::string fx =
      write("fx.npy", tensor(graph::DType::Float32, {2, 1, 1}, std::vector<float>{0.5f, 1.5f}));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(fx, y, "m"); }),
            fx + ": element 1 is 1.5 (float32 images are the model's input scale: expected values "
                 "in [0, 1], pixel / 255)");
  const std::string fy =
      write("fy.npy", tensor(graph::DType::Float32, {2}, std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(x, fy, "m"); }),
            fy + ": expected int64, int32 or uint8 labels, got float32");
  const std::string x2 =
      write("x2.npy", tensor<uint8_t>(graph::DType::UInt8, {8}, std::vector<uint8_t>(8, 0)));
  EXPECT_EQ(message_of([&] { (void)read_npy_dataset(x2, y, "m"); }),
            x2 + ": expected images of shape N x C x H x W (or N x H x W), got 8");
  // A corrupt .npy is exec's reader's error, naming the file.
  const std::string bad = (dir_ / "bad.npy").string();
  std::FILE* f = std::fopen(bad.c_str(), "wb");
  std::fputs("not numpy", f);
  std::fclose(f);
  EXPECT_NE(message_of([&] { (void)read_npy_dataset(bad, y, "m"); }).find(bad), std::string::npos);
}

TEST_F(NpyDatasetTest, FourFilesAreTrainThenTestWithClassesOverBoth) {
  const std::string x = write(
      "x.npy", tensor<uint8_t>(graph::DType::UInt8, {2, 1, 2, 2}, std::vector<uint8_t>(8, 3)));
  const std::string y = write("y.npy", tensor<int64_t>(graph::DType::Int64, {2}, {0, 1}));
  const std::string xt = write(
      "xt.npy", tensor<uint8_t>(graph::DType::UInt8, {1, 1, 2, 2}, std::vector<uint8_t>(4, 9)));
  const std::string yt = write("yt.npy", tensor<int64_t>(graph::DType::Int64, {1}, {3}));
  const std::string name = "npy:" + x + "," + y + "," + xt + "," + yt;
  const ImageDataset train = load_dataset(name, Split::Train);
  const ImageDataset test = load_dataset(name, Split::Test);
  EXPECT_EQ(train.count, 2);
  EXPECT_EQ(test.count, 1);
  EXPECT_EQ(train.classes, 4);  // label 3 of the test file
  EXPECT_EQ(test.classes, 4);
  EXPECT_EQ(test.images, std::vector<uint8_t>(4, 9));
  EXPECT_EQ(test.name, name + "/test");
  EXPECT_TRUE(has_separate_test_split(name));
  const std::string pair = "npy:" + x + "," + y;
  EXPECT_EQ(load_dataset(pair, Split::Test).images, load_dataset(pair, Split::Train).images);
  EXPECT_FALSE(has_separate_test_split(pair));
  // The content hash follows shape, pixels, labels and classes: the same files give the same
  // hash, other pixels or another class count (the pair alone has 2 classes, not 4) another.
  EXPECT_EQ(content_hash(train), content_hash(load_dataset(name, Split::Train)));
  EXPECT_NE(content_hash(train), content_hash(test));
  EXPECT_EQ(load_dataset(pair, Split::Train).classes, 2);
  EXPECT_NE(content_hash(train), content_hash(load_dataset(pair, Split::Train)));
}

}  // namespace
}  // namespace hetcim::data
