#include "util/output_set.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "util/error.h"
#include "util/files.h"
#include "util/interrupt_cleanup.h"

namespace hetcim {
namespace {

std::atomic<uint64_t> temp_counter{0};

}  // namespace

OutputSet::~OutputSet() {
  if (!committed_) discard();
}

void OutputSet::discard() noexcept {
  with_cleanup_lock([&] {
    for (const Staged& s : staged_) {
      ::unlink(s.temp.c_str());
      unregister_temp_file_locked(s.temp);
    }
  });
  staged_.clear();
  for (auto it = created_dirs_.rbegin(); it != created_dirs_.rend(); ++it) ::rmdir(it->c_str());
  created_dirs_.clear();
}

void OutputSet::make_directory(const std::string& dir) {
  if (dir.empty()) throw user_error("output directory is empty; expected a directory name");
  if (dir.size() >= PATH_MAX)
    throw user_error("output directory ", shown_path(dir), " is too long: the limit is ",
                     PATH_MAX - 1, " characters");
  std::string prefix;
  for (size_t b = 0; b <= dir.size();) {
    size_t e = dir.find('/', b);
    if (e == std::string::npos) e = dir.size();
    prefix = dir.substr(0, e);
    b = e + 1;
    if (prefix.empty() || prefix.back() == '/') continue;
    struct stat st {};
    if (::stat(prefix.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        throw user_error("output directory ", shown_path(dir), ": ", shown_path(prefix),
                         " exists and is not a directory");
      continue;
    }
    if (errno != ENOENT || ::mkdir(prefix.c_str(), 0777) != 0)
      throw user_error("cannot create output directory ", shown_path(prefix), ": ",
                       std::strerror(errno));
    created_dirs_.push_back(prefix);
  }
  if (::access(dir.c_str(), W_OK) != 0)
    throw user_error("cannot write in output directory ", shown_path(dir), ": ",
                     std::strerror(errno));
}

std::string OutputSet::new_temp(const std::string& target) {
  for (const Staged& s : staged_)
    if (s.target == target)
      throw user_error(shown_path(target), ": named by two outputs of the same command");
  std::string dir = std::filesystem::path(target).parent_path().string();
  if (!dir.empty()) dir += '/';
  const std::string temp = dir + ".hetcim-" + std::to_string(::getpid()) + "-" +
                           std::to_string(temp_counter.fetch_add(1)) + ".tmp";
  int fd = -1, err = 0;
  if (!with_cleanup_lock([&] {
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        err = errno;
        if (fd >= 0) register_temp_file_locked(temp);
      }))
    throw user_error("interrupted");
  if (fd < 0)
    throw user_error(shown_path(target), ": cannot create a file in '", dir.empty() ? "." : dir,
                     "': ", std::strerror(err));
  ::close(fd);
  return temp;
}

void OutputSet::add(const std::string& path, std::string_view content) {
  const std::string target = resolve_output_path(path);
  const std::string temp = new_temp(target);
  staged_.push_back({path, target, temp});
  const int fd = ::open(temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) throw user_error(shown_path(path), ": cannot write: ", std::strerror(errno));
  size_t done = 0;
  int err = 0;
  while (done < content.size() && err == 0) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n >= 0)
      done += static_cast<size_t>(n);
    else if (errno != EINTR)
      err = errno;
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw user_error(shown_path(path), ": cannot write: ", std::strerror(err));
}

std::string OutputSet::stage(const std::string& path) {
  const std::string target = resolve_output_path(path);
  const std::string temp = new_temp(target);
  staged_.push_back({path, target, temp});
  return temp;
}

void OutputSet::commit() {
  std::string failure;
  if (!with_cleanup_lock([&] {
        for (const Staged& s : staged_) {
          if (failure.empty() && ::rename(s.temp.c_str(), s.target.c_str()) != 0)
            failure = shown_path(s.given) +
                      ": cannot move the finished file into place: " + std::strerror(errno);
          if (failure.empty()) unregister_temp_file_locked(s.temp);
        }
      }))
    throw user_error("interrupted");
  if (!failure.empty()) {
    // The renamed ones are unregistered; discard() removes the rest.
    std::erase_if(staged_, [](const Staged& s) { return ::access(s.temp.c_str(), F_OK) != 0; });
    throw UserError(failure);
  }
  committed_ = true;
}

std::string OutputSet::staged_file(const std::string& path) const {
  for (const Staged& s : staged_)
    if (s.given == path) return s.temp;
  throw internal_error("OutputSet: nothing staged for '", path, "'");
}

std::vector<std::string> OutputSet::targets() const {
  std::vector<std::string> t;
  for (const Staged& s : staged_) t.push_back(s.given);
  return t;
}

}  // namespace hetcim
