#include "util/files.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "util/error.h"
#include "util/output_set.h"

namespace hetcim {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

}  // namespace

std::string shown_path(std::string_view path) {
  constexpr size_t kShown = 120;
  if (path.size() <= kShown) return "'" + std::string(path) + "'";
  return "'" + std::string(path.substr(0, kShown)) + "...' (" + std::to_string(path.size()) +
         " characters)";
}

std::string resolve_output_path(const std::string& path) {
  if (path.empty()) throw user_error("output path is empty; expected a file name");
  const std::string p = shown_path(path);
  if (path.size() >= PATH_MAX)
    throw user_error("output path ", p, " is too long: the limit is ", PATH_MAX - 1, " characters");
  for (size_t b = 0; b < path.size();) {
    size_t e = path.find('/', b);
    if (e == std::string::npos) e = path.size();
    if (e - b > NAME_MAX)
      throw user_error("output path ", p, ": a name in it has ", e - b,
                       " characters; the limit is ", NAME_MAX);
    b = e + 1;
  }
  if (path.back() == '/') throw user_error(p, ": names a directory; expected a file name");
  std::string target = path;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      char buf[PATH_MAX];
      if (::realpath(path.c_str(), buf) == nullptr)
        throw user_error(p, ": a symbolic link whose target cannot be used (", std::strerror(errno),
                         "); links are written through only to existing files");
      target = buf;
      if (::stat(buf, &st) != 0) throw user_error(p, ": ", std::strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) throw user_error(p, ": is a directory; expected a file name");
    if (!S_ISREG(st.st_mode))
      throw user_error(p, ": is ", kind_of(st.st_mode),
                       "; hetcim writes outputs only to regular files");
  } else if (errno == ENOTDIR) {
    throw user_error(p, ": a directory in this path is a file");
  } else if (errno != ENOENT) {
    throw user_error(p, ": ", std::strerror(errno));
  }
  std::string parent = std::filesystem::path(target).parent_path().string();
  if (parent.empty()) parent = ".";
  if (::stat(parent.c_str(), &st) != 0) {
    if (errno == ENOENT) throw user_error(p, ": directory '", parent, "' does not exist");
    throw user_error(p, ": directory '", parent, "': ", std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) throw user_error(p, ": '", parent, "' is not a directory");
  if (::access(parent.c_str(), W_OK) != 0)
    throw user_error(p, ": cannot write in directory '", parent, "': ", std::strerror(errno));
  return target;
}

std::string read_input_file(const std::string& path, std::string_view what, int64_t max_bytes) {
  const std::string p = shown_path(path);
  if (path.empty()) throw user_error(what, ": the file name is empty");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw user_error(p, ": cannot open the ", what, ": ", std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw user_error(p, ": is a directory; expected a ", what, " file");
  if (!S_ISREG(st.st_mode))
    throw user_error(p, ": is ", kind_of(st.st_mode), "; expected a ", what, " file");
  if (st.st_size > max_bytes)
    throw user_error(p, ": ", st.st_size, " bytes is more than the ", max_bytes, " bytes a ", what,
                     " may have");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw user_error(p, ": cannot open the ", what, ": ", std::strerror(errno));
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      ::close(fd);
      throw user_error(p, ": cannot read the ", what, err ? ": " : " (it shrank while read)",
                       err ? std::strerror(err) : "");
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return text;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  OutputSet out;
  out.add(path, content);
  out.commit();
}

}  // namespace hetcim
