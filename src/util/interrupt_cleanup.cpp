#include "util/interrupt_cleanup.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include "util/error.h"

namespace hetcim {
namespace {

struct Registry {
  std::mutex mutex;
  bool ending = false;
  std::set<std::string> files, dirs;
  std::set<pid_t> children;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: the signal thread may outlive main()
  return *r;
}

[[noreturn]] void end_process(int sig) {
  Registry& r = registry();
  r.mutex.lock();  // held until _exit: nothing registers, renames or creates after this point
  r.ending = true;
  for (pid_t pid : r.children) ::kill(pid, SIGKILL);
  for (pid_t pid : r.children) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (const std::string& f : r.files) ::unlink(f.c_str());
  for (const std::string& d : r.dirs) ::rmdir(d.c_str());
  ::_exit(128 + sig);
}

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

}  // namespace

void install_interrupt_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    if (const int e = ::pthread_sigmask(SIG_BLOCK, &set, nullptr); e != 0)
      throw internal_error("pthread_sigmask: error ", e);
    std::thread([set] {
      for (;;) {
        int sig = 0;
        if (::sigwait(&set, &sig) == 0) end_process(sig);
      }
    }).detach();
  });
}

bool with_cleanup_lock(const std::function<void()>& f) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.ending) return false;
  f();
  return true;
}

void register_temp_file_locked(const std::string& path) {
  registry().files.insert(path);
}

void register_child_locked(pid_t pid) {
  registry().children.insert(pid);
}

void unregister_temp_file_locked(const std::string& path) {
  registry().files.erase(path);
}

void unregister_child_locked(pid_t pid) {
  registry().children.erase(pid);
}

void register_temp_dir_locked(const std::string& path) {
  registry().dirs.insert(path);
}

void unregister_temp_dir(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.dirs.erase(path);
}

void unregister_temp_file(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.files.erase(path);
}

void unregister_child(pid_t pid) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.children.erase(pid);
}

}  // namespace hetcim
