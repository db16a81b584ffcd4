#include "util/output_set.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "util/error.h"
#include "util/files.h"
#include "util/interrupt_cleanup.h"

namespace hetcim {
namespace {

std::atomic<uint64_t> temp_counter{0};

constexpr std::string_view kTempPrefix = ".hetcim-", kTempSuffix = ".tmp";

bool is_temp_name(std::string_view n) {
  return n.size() > kTempPrefix.size() + kTempSuffix.size() && n.starts_with(kTempPrefix) &&
         n.ends_with(kTempSuffix);
}

// An open file description lock on the whole file: held until the descriptor is closed or the
// process ends, however it ends. 0, or the errno of a failure (EAGAIN: another holder).
int try_lock(int fd) {
  struct flock fl {};
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  return ::fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : errno;
}

// Removes the temporaries in `dir` whose writer is gone (their lock can be taken); once per
// directory per process.
void remove_stale_temporaries(const std::string& dir) {
  static std::mutex mutex;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!done.insert(dir).second) return;
  }
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (d == nullptr) return;
  const int dfd = ::dirfd(d);
  while (const dirent* e = ::readdir(d)) {
    if (!is_temp_name(e->d_name)) continue;
    const int fd =
        ::openat(dfd, e->d_name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) continue;
    struct stat st {
    }, now{};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && try_lock(fd) == 0 &&
        ::fstatat(dfd, e->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
        now.st_ino == st.st_ino)
      ::unlinkat(dfd, e->d_name, 0);
    ::close(fd);
  }
  ::closedir(d);
}

// The path a name hetcim makes itself replaces: the name itself, whatever non-directory is there.
std::string own_output_path(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return resolve_output_path(path);
  if (S_ISDIR(st.st_mode))
    throw user_error(shown_path(path),
                     ": is a directory, which hetcim does not delete to replace it; remove it");
  std::string parent = std::filesystem::path(path).parent_path().string();
  if (parent.empty()) parent = ".";
  if (::access(parent.c_str(), W_OK) != 0)
    throw user_error(shown_path(path), ": cannot write in directory '", parent,
                     "': ", std::strerror(errno));
  return path;
}

void check_not_input(const std::string& given, const std::string& target) {
  if (const std::string in = input_named_by(target); !in.empty())
    throw user_error(shown_path(given), ": is ", in,
                     " that this command reads; an output never replaces an input of its "
                     "command: choose another file name");
}

}  // namespace

OutputSet::~OutputSet() {
  if (!committed_) discard();
}

void OutputSet::close_locks() noexcept {
  for (Staged& s : staged_)
    if (s.lock_fd >= 0) {
      ::close(s.lock_fd);
      s.lock_fd = -1;
    }
}

void OutputSet::discard() noexcept {
  with_cleanup_lock([&] {
    for (const Staged& s : staged_) {
      ::unlink(s.temp.c_str());
      unregister_temp_file_locked(s.temp);
    }
  });
  close_locks();
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

OutputSet::Staged& OutputSet::new_temp(const std::string& given, const std::string& target) {
  for (const Staged& s : staged_)
    if (s.target == target)
      throw user_error(shown_path(given), ": named by two outputs of the same command");
  std::string dir = std::filesystem::path(target).parent_path().string();
  remove_stale_temporaries(dir);
  if (!dir.empty()) dir += '/';
  for (int attempt = 0;; ++attempt) {
    const std::string temp = dir + std::string(kTempPrefix) + std::to_string(::getpid()) + "-" +
                             std::to_string(temp_counter.fetch_add(1)) + std::string(kTempSuffix);
    int fd = -1, err = 0;
    if (!with_cleanup_lock([&] {
          fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
          err = errno;
          if (fd >= 0) register_temp_file_locked(temp);
        }))
      throw user_error("interrupted");
    if (fd < 0 && err == EEXIST && attempt < 100) continue;  // a live writer's of a reused PID
    if (fd < 0)
      throw user_error(shown_path(given), ": cannot create a file in '",
                       dir.empty() ? "." : dir.substr(0, dir.size() - 1),
                       "': ", std::strerror(err));
    // Locked, and still the file at that name: a cleaner that took it first removes it.
    const int lock_err = try_lock(fd);
    struct stat mine {
    }, named{};
    const bool ours = (lock_err == 0 || lock_err == EINVAL || lock_err == ENOLCK) &&
                      ::fstat(fd, &mine) == 0 && ::lstat(temp.c_str(), &named) == 0 &&
                      mine.st_dev == named.st_dev && mine.st_ino == named.st_ino;
    if (!ours && attempt < 100) {
      ::close(fd);
      unregister_temp_file(temp);
      continue;
    }
    if (!ours) {
      ::close(fd);
      unregister_temp_file(temp);
      throw user_error(shown_path(given), ": cannot keep a temporary file in '",
                       dir.empty() ? "." : dir.substr(0, dir.size() - 1), "'");
    }
    staged_.push_back({given, target, temp, fd});
    return staged_.back();
  }
}

void OutputSet::stage_content(const std::string& given, const std::string& target,
                              std::string_view content) {
  const int fd = new_temp(given, target).lock_fd;
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
  if (err != 0) throw user_error(shown_path(given), ": cannot write: ", std::strerror(err));
}

void OutputSet::add(const std::string& path, std::string_view content) {
  const std::string given = collapse_slashes(path);
  const std::string target = resolve_output_path(given);
  check_not_input(given, target);
  stage_content(given, target, content);
}

void OutputSet::add_own(const std::string& path, std::string_view content) {
  const std::string given = collapse_slashes(path);
  const std::string target = own_output_path(given);
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) check_not_input(given, target);
  stage_content(given, target, content);
}

std::string OutputSet::stage(const std::string& path) {
  const std::string given = collapse_slashes(path);
  const std::string target = resolve_output_path(given);
  check_not_input(given, target);
  return new_temp(given, target).temp;
}

void OutputSet::commit() {
  // An input read after its output was staged is caught here, before anything is renamed.
  for (const Staged& s : staged_) {
    struct stat st {};
    if (::lstat(s.target.c_str(), &st) == 0 && !S_ISLNK(st.st_mode))
      check_not_input(s.given, s.target);
  }
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
    std::erase_if(staged_, [](const Staged& s) {
      if (::access(s.temp.c_str(), F_OK) == 0) return false;
      if (s.lock_fd >= 0) ::close(s.lock_fd);
      return true;
    });
    throw UserError(failure);
  }
  close_locks();
  committed_ = true;
}

std::string OutputSet::staged_file(const std::string& path) const {
  const std::string given = collapse_slashes(path);
  for (const Staged& s : staged_)
    if (s.given == given) return s.temp;
  throw internal_error("OutputSet: nothing staged for '", path, "'");
}

std::vector<std::string> OutputSet::targets() const {
  std::vector<std::string> t;
  for (const Staged& s : staged_) t.push_back(s.given);
  return t;
}

}  // namespace hetcim
