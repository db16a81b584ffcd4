// The image-folder data set (data/image_folder.h, `--dataset images:DIR`): PNG and JPEG files the
// test writes with stb_image_write, decoded values checked against the pixels written.
#include "data/image_folder.h"

#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <filesystem>
#include <fstream>

#include "data/dataset.h"
#include "user_error_message.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;
using hetcim::testing::message_of;

// Pixel (y, x, c) of image `seed`: distinct for every image, position and channel.
uint8_t pixel(int seed, int y, int x, int c) {
  return static_cast<uint8_t>((seed * 37 + y * 11 + x * 5 + c * 71) % 256);
}

class ImageFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("hetcim_images_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A PNG of w x h with `comp` interleaved channels from pixel(seed, ...); returns its path.
  std::string png(const std::string& rel, int seed, int w, int h, int comp) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::vector<uint8_t> px(static_cast<size_t>(w * h * comp));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < comp; ++c)
          px[static_cast<size_t>((y * w + x) * comp + c)] = pixel(seed, y, x, c);
    EXPECT_NE(stbi_write_png(p.string().c_str(), w, h, comp, px.data(), w * comp), 0);
    return p.string();
  }
  std::string file(const std::string& rel, const std::string& bytes) {
    const fs::path p = dir_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  fs::path dir_;
};

TEST_F(ImageFolderTest, GreyPngsDecodeExactlyInRoundRobinClassOrder) {
  // Classes by sorted name: ant = 0, cat = 1; ant has two files, cat one.
  png("cat/z.png", 1, 5, 3, 1);
  png("ant/b.png", 2, 5, 3, 1);
  png("ant/a.png", 3, 5, 3, 1);
  const ImageDataset d = read_image_folder(dir_.string(), "mine");
  validate(d);
  EXPECT_EQ(d.name, "mine");
  EXPECT_EQ(d.count, 3);
  EXPECT_EQ(d.channels, 1);
  EXPECT_EQ(d.height, 3);
  EXPECT_EQ(d.width, 5);
  EXPECT_EQ(d.classes, 2);
  // Round robin: ant/a (seed 3), cat/z (seed 1), ant/b (seed 2).
  const int seeds[] = {3, 1, 2};
  const uint8_t labels[] = {0, 1, 0};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(d.labels[static_cast<size_t>(i)], labels[i]) << "image " << i;
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        ASSERT_EQ(d.images[static_cast<size_t>((i * 3 + y) * 5 + x)], pixel(seeds[i], y, x, 0))
            << "image " << i << " y " << y << " x " << x;
  }
}

TEST_F(ImageFolderTest, AnyColourFileMakesRgbPlanesGreyReplicatedAlphaDropped) {
  png("a/grey.png", 4, 2, 2, 1);
  png("b/rgba.png", 5, 2, 2, 4);
  const ImageDataset d = read_image_folder(dir_.string(), "mine");
  ASSERT_EQ(d.channels, 3);
  ASSERT_EQ(d.count, 2);
  const int64_t plane = 4;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 2; ++x)
      for (int c = 0; c < 3; ++c) {
        // Image 0 (grey): the one value in every plane; image 1: its own R, G, B planes.
        EXPECT_EQ(d.images[static_cast<size_t>(c * plane + y * 2 + x)], pixel(4, y, x, 0));
        EXPECT_EQ(d.images[static_cast<size_t>((3 + c) * plane + y * 2 + x)], pixel(5, y, x, c));
      }
}

TEST_F(ImageFolderTest, JpegDecodesNearlyExactlyOnAFlatImage) {
  // JPEG is lossy: a flat 8x8 grey block at quality 100 keeps its value to within 1.
  const fs::path p = dir_ / "only" / "flat.jpg";
  fs::create_directories(p.parent_path());
  std::vector<uint8_t> px(64, 77);
  ASSERT_NE(stbi_write_jpg(p.string().c_str(), 8, 8, 1, px.data(), 100), 0);
  const ImageDataset d = read_image_folder(dir_.string(), "mine");
  ASSERT_EQ(d.count, 1);
  for (uint8_t v : d.images) EXPECT_NEAR(v, 77, 1);
}

TEST_F(ImageFolderTest, BadFilesAreErrorsNamingTheFile) {
  png("a/one.png", 1, 4, 4, 1);
  const std::string other = png("b/two.png", 2, 4, 5, 1);
  EXPECT_EQ(message_of([&] { (void)read_image_folder(dir_.string(), "m"); }),
            other + ": image of 4x5 pixels, but " + (dir_ / "a/one.png").string() +
                " has 4x4 (every image of a data set must have the same size; hetcim does not "
                "resize)");
  fs::remove(other);
  const std::string corrupt = file("b/two.png", "\x89PNG\r\n\x1a\n not really a png");
  EXPECT_EQ(message_of([&] {
              (void)read_image_folder(dir_.string(), "m");
            }).rfind(corrupt + ": not a decodable PNG or JPEG image (stb_image: ", 0),
            0u);
  fs::remove(corrupt);
  const std::string text = file("b/notes.txt", "hello");
  EXPECT_EQ(message_of([&] { (void)read_image_folder(dir_.string(), "m"); }),
            text + ": not an image file (a class folder holds .png, .jpg or .jpeg files only)");
  fs::remove(text);
  EXPECT_EQ(
      message_of([&] { (void)read_image_folder(dir_.string(), "m"); }),
      (dir_ / "b").string() + ": class folder without images (expected .png, .jpg or .jpeg files)");
  fs::remove(dir_ / "b");
  const std::string loose = file("README", "x");
  EXPECT_EQ(message_of([&] { (void)read_image_folder(dir_.string(), "m"); }),
            loose +
                ": a file directly in the image folder (expected only one subfolder per class, "
                "the images inside them)");
  EXPECT_EQ(message_of([&] { (void)read_image_folder((dir_ / "none").string(), "m"); }),
            (dir_ / "none").string() +
                ": not a directory (expected a folder with one subfolder of PNG/JPEG images per "
                "class)");
}

TEST_F(ImageFolderTest, TrainAndTestSubfoldersAreTheSplits) {
  png("train/x/1.png", 1, 3, 3, 1);
  png("train/y/1.png", 2, 3, 3, 1);
  png("test/x/1.png", 3, 3, 3, 1);
  png("test/y/1.png", 4, 3, 3, 1);
  png("test/y/2.png", 5, 3, 3, 1);
  const std::string name = "images:" + dir_.string();
  const ImageDataset train = load_dataset(name, Split::Train);
  const ImageDataset test = load_dataset(name, Split::Test);
  EXPECT_EQ(train.count, 2);
  EXPECT_EQ(test.count, 3);
  EXPECT_EQ(test.name, name + "/test");
  EXPECT_EQ(test.images[0], pixel(3, 0, 0, 0));
  EXPECT_TRUE(has_separate_test_split(name));
  EXPECT_EQ(message_of([&] { (void)load_dataset(name, Split::Test, "/usr/share"); }),
            "data directory '/usr/share' given for data set '" + name +
                "': images: and npy: name their files themselves (--data-dir is for "
                "fashion-mnist and cifar10)");
  png("test/z/1.png", 6, 3, 3, 1);
  EXPECT_EQ(message_of([&] { (void)load_dataset(name, Split::Test); }),
            (dir_ / "train").string() + " and " + (dir_ / "test").string() +
                " hold different class subfolders (the two splits of one data set need the same "
                "class names)");
}

TEST_F(ImageFolderTest, AFolderOfClassesServesEverySplit) {
  png("x/1.png", 1, 3, 3, 1);
  png("y/1.png", 2, 3, 3, 1);
  const std::string name = "images:" + dir_.string();
  EXPECT_EQ(load_dataset(name, Split::Train).images, load_dataset(name, Split::Test).images);
  EXPECT_FALSE(has_separate_test_split(name));
  EXPECT_TRUE(is_user_dataset(name));
}

TEST(DatasetName, TheGrammarOfEveryForm) {
  for (const char* ok :
       {"fashion-mnist", "cifar10", "images:d", "images:/a/b/", "npy:x.npy,y.npy", "npy:a,b,c,d"})
    EXPECT_NO_THROW(check_dataset_name("dataset", ok)) << ok;
  for (const char* bad :
       {"mnist", "images:", "npy:x.npy", "npy:x.npy,", "npy:a,b,c", "npy:,b", "npy:a,b,c,d,e,f"})
    EXPECT_EQ(message_of([&] { check_dataset_name("dataset", bad); }),
              std::string("dataset: expected fashion-mnist, cifar10, images:DIR or "
                          "npy:X.npy,Y.npy[,XTEST.npy,YTEST.npy], got '") +
                  bad + "'")
        << bad;
  EXPECT_FALSE(is_user_dataset("fashion-mnist"));
  EXPECT_TRUE(has_separate_test_split("cifar10"));
}

}  // namespace
}  // namespace hetcim::data
