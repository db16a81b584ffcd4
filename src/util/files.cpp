#include "util/files.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace hetcim {
namespace {

void write_all(int fd, std::string_view bytes, const std::string& tmp) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw user_error("cannot write '", tmp, "': ", std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path() && !fs::is_directory(target.parent_path()))
    throw user_error(path, ": directory '", target.parent_path().string(), "' does not exist");
  // A name no other writer (thread or process) uses, created exclusively.
  static std::atomic<uint64_t> counter{0};
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    throw user_error(path, ": cannot create temporary file '", tmp, "': ", std::strerror(errno));
  bool fd_open = true;
  try {
    write_all(fd, content, tmp);
    if (::fsync(fd) != 0) throw user_error("cannot flush '", tmp, "': ", std::strerror(errno));
    fd_open = false;
    if (::close(fd) != 0) throw user_error("cannot close '", tmp, "': ", std::strerror(errno));
  } catch (const UserError& e) {
    if (fd_open) ::close(fd);
    ::unlink(tmp.c_str());
    throw UserError(path + ": " + e.what());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw user_error(path, ": cannot move '", tmp, "' into place: ", std::strerror(err));
  }
}

}  // namespace hetcim
