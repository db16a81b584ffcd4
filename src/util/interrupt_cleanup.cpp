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
  std::set<std::string> files;
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

// Threads started before main() (OpenBLAS starts its pool while libraries load) do not block
// the signals; one of them may receive a signal sent to the process. This handler, the only
// one installed, forwards it to the cleanup thread (pthread_kill is async-signal-safe).
pthread_t cleanup_thread;

extern "C" void forward_to_cleanup_thread(int sig) {
  ::pthread_kill(cleanup_thread, sig);
}

}  // namespace

void install_interrupt_cleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    const sigset_t set = interrupt_signals();
    if (const int e = ::pthread_sigmask(SIG_BLOCK, &set, nullptr); e != 0)
      throw internal_error("pthread_sigmask: error ", e);
    std::thread t([set] {
      for (;;) {
        int sig = 0;
        if (::sigwait(&set, &sig) == 0) end_process(sig);
      }
    });
    cleanup_thread = t.native_handle();
    t.detach();
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      ::sigaction(sig, nullptr, &old);
      if (old.sa_handler == SIG_IGN) continue;  // e.g. started by nohup: stays ignored
      struct sigaction sa {};
      sa.sa_handler = forward_to_cleanup_thread;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_RESTART;
      ::sigaction(sig, &sa, nullptr);
    }
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

void unregister_temp_file(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.files.erase(path);
}

}  // namespace hetcim
