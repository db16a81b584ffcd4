#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace hetcim {

void write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path() && !fs::is_directory(target.parent_path()))
    throw user_error(path, ": directory '", target.parent_path().string(), "' does not exist");
  const std::string tmp = path + ".tmp-hetcim";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw user_error(path, ": cannot open for writing (", std::strerror(errno), ")");
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw user_error(path, ": write failed (", std::strerror(errno), ")");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw user_error(path, ": cannot rename the finished file into place (", ec.message(), ")");
  }
}

}  // namespace hetcim
