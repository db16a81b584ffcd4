// The real files of Debian's dataset-fashion-mnist package: published sizes (60000 training and
// 10000 test images of 28x28, 10 classes) and class balance (6000 / 1000 images per class).
#include "data/fashion_mnist.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "require_data.h"

namespace hetcim::data {
namespace {

TEST(FashionMnist, PublishedSizesAndBalance) {
  HETCIM_REQUIRE_DATA_OR_SKIP(
      std::filesystem::exists(std::string(kFashionMnistDir) + "/t10k-images-idx3-ubyte.gz"),
      "dataset-fashion-mnist");
  for (Split s : {Split::Test, Split::Train}) {
    const ImageDataset d = load_fashion_mnist(s);
    const int64_t n = s == Split::Train ? 60000 : 10000;
    EXPECT_EQ(d.count, n);
    EXPECT_EQ(d.channels, 1);
    EXPECT_EQ(d.height, 28);
    EXPECT_EQ(d.width, 28);
    std::array<int64_t, 10> per_class{};
    for (uint8_t l : d.labels) ++per_class[l];
    for (int64_t c : per_class) EXPECT_EQ(c, n / 10);
    validate(d);
  }
}

}  // namespace
}  // namespace hetcim::data
