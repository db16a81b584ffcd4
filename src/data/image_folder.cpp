#include "data/image_folder.h"

#include <stb_image.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>

#include "util/error.h"
#include "util/files.h"
#include "util/limits.h"

namespace hetcim::data {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMaxClasses = 256;                    // labels are 8-bit
constexpr int64_t kMaxImageBytes = int64_t{256} << 20;  // one encoded file

bool hidden(const fs::path& p) {
  const std::string n = p.filename().string();
  return !n.empty() && n[0] == '.';
}

bool image_file(const fs::path& p) {
  std::string ext = p.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

struct FileInfo {
  std::string path;
  uint8_t label = 0;
  int width = 0, height = 0, comp = 0;
};

std::string stb_reason() {
  const char* r = stbi_failure_reason();
  return r ? r : "unknown reason";
}

const stbi_uc* as_stb(const std::string& bytes) {
  return reinterpret_cast<const stbi_uc*>(bytes.data());
}

int stb_length(const std::string& path, const std::string& bytes) {
  if (bytes.size() > static_cast<size_t>(kMaxImageBytes))
    throw user_error(path, ": image file of ", bytes.size(), " bytes, larger than the ",
                     kMaxImageBytes, " accepted");
  return static_cast<int>(bytes.size());
}

}  // namespace

std::vector<std::string> image_folder_classes(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw user_error(dir,
                     ": not a directory (expected a folder with one subfolder of PNG/JPEG "
                     "images per class)");
  std::vector<std::string> classes;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (hidden(e.path())) continue;
    if (!e.is_directory())
      throw user_error(e.path().string(),
                       ": a file directly in the image folder (expected only one subfolder per "
                       "class, the images inside them)");
    classes.push_back(e.path().filename().string());
  }
  std::sort(classes.begin(), classes.end());
  return classes;
}

ImageDataset read_image_folder(const std::string& dir, const std::string& name) {
  const std::vector<std::string> classes = image_folder_classes(dir);
  if (classes.empty())
    throw user_error(dir,
                     ": no class subfolders (expected one subfolder of PNG/JPEG images per "
                     "class)");
  if (static_cast<int64_t>(classes.size()) > kMaxClasses)
    throw user_error(dir, ": ", classes.size(), " class subfolders, at most ", kMaxClasses,
                     " are supported");

  // Per class, its files by name; then round-robin over the classes.
  std::vector<std::vector<std::string>> per_class(classes.size());
  size_t longest = 0;
  for (size_t c = 0; c < classes.size(); ++c) {
    const fs::path sub = fs::path(dir) / classes[c];
    for (const fs::directory_entry& e : fs::directory_iterator(sub)) {
      if (hidden(e.path())) continue;
      if (!e.is_regular_file() || !image_file(e.path()))
        throw user_error(e.path().string(),
                         ": not an image file (a class folder holds .png, .jpg or .jpeg files "
                         "only)");
      per_class[c].push_back(e.path().string());
    }
    if (per_class[c].empty())
      throw user_error(sub.string(),
                       ": class folder without images (expected .png, .jpg or "
                       ".jpeg files)");
    std::sort(per_class[c].begin(), per_class[c].end());
    longest = std::max(longest, per_class[c].size());
  }
  std::vector<FileInfo> files;
  for (size_t k = 0; k < longest; ++k)
    for (size_t c = 0; c < classes.size(); ++c)
      if (k < per_class[c].size())
        files.push_back({per_class[c][k], static_cast<uint8_t>(c), 0, 0, 0});

  // First pass: size and channels of every file, without decoding the pixels.
  bool colour = false;
  for (FileInfo& f : files) {
    const std::string bytes = read_input_file(f.path, "image", kMaxImageBytes);
    if (!stbi_info_from_memory(as_stb(bytes), stb_length(f.path, bytes), &f.width, &f.height,
                               &f.comp))
      throw user_error(f.path, ": not a decodable PNG or JPEG image (stb_image: ", stb_reason(),
                       ")");
    const FileInfo& first = files.front();
    if (f.width != first.width || f.height != first.height)
      throw user_error(f.path, ": image of ", f.width, "x", f.height, " pixels, but ", first.path,
                       " has ", first.width, "x", first.height,
                       " (every image of a data set must have the same size; hetcim does not "
                       "resize)");
    colour = colour || f.comp >= 3;
  }
  ImageDataset d;
  d.name = name;
  d.count = static_cast<int64_t>(files.size());
  d.channels = colour ? 3 : 1;
  d.height = files.front().height;
  d.width = files.front().width;
  d.classes = static_cast<int64_t>(classes.size());
  const int64_t plane = d.height * d.width;
  const int64_t dims[] = {d.count, d.channels, d.height, d.width};
  d.images.resize(
      static_cast<size_t>(checked_elements(dims, kMaxTensorElements, dir + " (image folder)")));
  d.labels.resize(files.size());

  // Second pass: decode to d.channels interleaved channels, stored as planes (NCHW).
  for (size_t i = 0; i < files.size(); ++i) {
    const FileInfo& f = files[i];
    const std::string bytes = read_input_file(f.path, "image", kMaxImageBytes);
    int w = 0, h = 0, comp = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> px(
        stbi_load_from_memory(as_stb(bytes), stb_length(f.path, bytes), &w, &h, &comp,
                              static_cast<int>(d.channels)),
        stbi_image_free);
    if (!px)
      throw user_error(f.path, ": not a decodable PNG or JPEG image (stb_image: ", stb_reason(),
                       ")");
    if (w != d.width || h != d.height)
      throw user_error(f.path, ": decoded as ", w, "x", h, " pixels, its header says ", d.width,
                       "x", d.height);
    uint8_t* dst = d.images.data() + static_cast<int64_t>(i) * d.channels * plane;
    for (int64_t c = 0; c < d.channels; ++c)
      for (int64_t p = 0; p < plane; ++p) dst[c * plane + p] = px.get()[p * d.channels + c];
    d.labels[i] = f.label;
  }
  return d;
}

}  // namespace hetcim::data
