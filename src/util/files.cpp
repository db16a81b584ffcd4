#include "util/files.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <vector>

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

namespace {

struct InputRecord {
  dev_t dev;
  ino_t ino;
  std::string path, what;
};

struct Inputs {
  std::mutex mutex;
  bool on = false;
  std::vector<InputRecord> files;
};

Inputs& inputs() {
  static Inputs* i = new Inputs;  // never destroyed: worker threads may read files at exit
  return *i;
}

void note_input_stat(const struct stat& st, const std::string& path, std::string_view what) {
  Inputs& in = inputs();
  std::lock_guard<std::mutex> lock(in.mutex);
  if (!in.on) return;
  for (const InputRecord& r : in.files)
    if (r.dev == st.st_dev && r.ino == st.st_ino) return;
  in.files.push_back({st.st_dev, st.st_ino, path, std::string(what)});
}

// Reads exactly `size` bytes from the descriptor into `out` (UserError when it ends first).
void read_exactly(int fd, char* out, size_t size, const std::string& p, std::string_view what) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : 0;
      throw user_error(p, ": cannot read the ", what, err ? ": " : " (it shrank while read)",
                       err ? std::strerror(err) : "");
    }
    done += static_cast<size_t>(n);
  }
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string join_path(std::string_view dir, std::string_view name) {
  std::string j(dir);
  while (j.size() > 1 && j.back() == '/') j.pop_back();
  while (!name.empty() && name.front() == '/' && !j.empty()) name.remove_prefix(1);
  if (!j.empty() && j.back() != '/') j += '/';
  return j + std::string(name);
}

std::string collapse_slashes(std::string_view path) {
  std::string c;
  c.reserve(path.size());
  for (const char ch : path)
    if (ch != '/' || c.empty() || c.back() != '/') c += ch;
  return c;
}

std::string read_input_file(const std::string& path, std::string_view what, int64_t max_bytes) {
  InputCheck check;
  check.max_bytes = max_bytes;
  return read_input_file(path, what, check);
}

std::string read_input_file(const std::string& path, std::string_view what,
                            const InputCheck& check) {
  const std::string p = shown_path(path);
  if (path.empty()) throw user_error(what, ": the file name is empty");
  // "expected a host profile file", and "a sensitivity file", not "... file file".
  const std::string_view file = what.ends_with(" file") ? "" : " file";
  const auto check_kind = [&](const struct stat& st) {
    if (S_ISDIR(st.st_mode)) throw user_error(p, ": is a directory; expected a ", what, file);
    if (!S_ISREG(st.st_mode))
      throw user_error(p, ": is ", kind_of(st.st_mode), "; expected a ", what, file);
  };
  // A device or FIFO is refused before it is opened (opening some devices acts on them); the
  // open does not block (a FIFO swapped in meanwhile would wait for a writer) and the kind is
  // checked again on the descriptor, the file that is then read.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw user_error(p, ": cannot open the ", what, ": ", std::strerror(errno));
  check_kind(st);
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0)
    throw user_error(p, ": cannot open the ", what, ": ", std::strerror(errno));
  check_kind(st);
  if (st.st_size > check.max_bytes)
    throw user_error(p, ": ", st.st_size, " bytes is more than the ", check.max_bytes, " bytes a ",
                     what, " may have");
  if (check.is_input) note_input_stat(st, path, what);
  const auto size = static_cast<size_t>(st.st_size);
  std::string head;
  if (!check.magic.empty()) {  // before the whole file is allocated or read
    head.resize(std::min(size, check.magic.size()));
    read_exactly(f.fd, head.data(), head.size(), p, what);
    if (head != check.magic)
      throw user_error(p, ": not a ", what, " file (it does not start with ",
                       check.magic_name.empty() ? "the expected bytes" : check.magic_name, ")");
  }
  std::string text(size, '\0');
  std::copy(head.begin(), head.end(), text.begin());
  read_exactly(f.fd, text.data() + head.size(), size - head.size(), p, what);
  return text;
}

CacheFile read_cache_file(const std::string& path, std::string_view what, int64_t max_bytes) {
  CacheFile c;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return c;
    c.found = true;
    c.problem = std::strerror(errno);
    return c;
  }
  c.found = true;
  if (S_ISDIR(st.st_mode))
    throw user_error(what, " ", shown_path(path),
                     " is a directory, which hetcim does not delete to replace it: remove it, or "
                     "use another cache directory");
  if (S_ISLNK(st.st_mode)) {
    c.problem = "a symbolic link, which hetcim does not follow in its cache";
    return c;
  }
  if (!S_ISREG(st.st_mode)) {
    c.problem = std::string(kind_of(st.st_mode)) + ", not a file hetcim wrote";
    return c;
  }
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
  if (f.fd < 0 || ::fstat(f.fd, &st) != 0) {  // replaced since the lstat: judged as it is now
    c.problem = errno == ELOOP ? "a symbolic link, which hetcim does not follow in its cache"
                               : std::strerror(errno);
    return c;
  }
  if (!S_ISREG(st.st_mode)) {
    c.problem = S_ISDIR(st.st_mode) ? "a directory" : kind_of(st.st_mode);
    return c;
  }
  if (st.st_size > max_bytes) {
    c.problem = std::to_string(st.st_size) + " bytes, more than the " + std::to_string(max_bytes) +
                " an entry may have";
    return c;
  }
  c.text.assign(static_cast<size_t>(st.st_size), '\0');
  try {
    read_exactly(f.fd, c.text.data(), c.text.size(), shown_path(path), what);
  } catch (const UserError& e) {
    c.text.clear();
    c.problem = e.what();
    return c;
  }
  c.usable = true;
  return c;
}

void write_cache_file(const std::string& path, std::string_view content) {
  OutputSet out;
  out.add_own(path, content);
  out.commit();
}

void track_command_inputs() {
  Inputs& in = inputs();
  std::lock_guard<std::mutex> lock(in.mutex);
  in.on = true;
}

void note_input(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) note_input_stat(st, path, what);
}

std::string input_named_by(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  Inputs& in = inputs();
  std::lock_guard<std::mutex> lock(in.mutex);
  for (const InputRecord& r : in.files)
    if (r.dev == st.st_dev && r.ino == st.st_ino) return "the " + r.what + " " + shown_path(r.path);
  return "";
}

void write_file_atomically(const std::string& path, std::string_view content) {
  OutputSet out;
  out.add(path, content);
  out.commit();
}

}  // namespace hetcim
