#include "util/shipped_data.h"

#include <dlfcn.h>

#include <filesystem>
#include <system_error>

namespace hetcim {

std::string shipped_data_path(std::string_view relative) {
  namespace fs = std::filesystem;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&shipped_data_path), &info) != 0 &&
      info.dli_fname != nullptr) {
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(fs::path(info.dli_fname), ec).parent_path();
    for (int up = 0; up < 5 && !dir.empty(); ++up, dir = dir.parent_path()) {
      const fs::path candidate = fs::path(dir) / HETCIM_INSTALLED_DATA_DIR / relative;
      if (fs::exists(candidate, ec)) return candidate.string();
      if (dir == dir.root_path()) break;
    }
  }
  return (fs::path(HETCIM_SOURCE_DATA_DIR) / relative).string();
}

std::string cited_data_path(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path root = fs::path(shipped_data_path("")).lexically_normal();
  if (!root.has_filename()) root = root.parent_path();  // ".../data/" -> ".../data"
  const fs::path rel = fs::path(path).lexically_normal().lexically_relative(root);
  if (path.empty() || rel.empty() || *rel.begin() == "..") return path;
  return "hetcim's data/" + rel.generic_string();
}

}  // namespace hetcim
