#include "util/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "util/error.h"
#include "util/interrupt_cleanup.h"

extern char** environ;

namespace hetcim {
namespace {

struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0)
      throw user_error("cannot create a pipe: ", std::strerror(errno));
  }
  ~Pipe() {
    close_end(0);
    close_end(1);
  }
  void close_end(int i) {
    if (fd[i] >= 0) ::close(fd[i]);
    fd[i] = -1;
  }
};

// SIGPIPE (the child closed its stdin early) is blocked in this thread while we write, and a
// pending one is consumed afterwards: the write fails with EPIPE instead of killing hetcim.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&old_, SIGPIPE)) {
      const timespec zero{0, 0};
      ::sigtimedwait(&set_, nullptr, &zero);
    }
    ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_, old_;
};

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, std::string_view stdin_data) {
  if (argv.empty()) throw internal_error("run_process: empty argument vector");
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  Pipe in, out;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  pid_t pid = -1;
  int spawn_error = 0;
  const bool live = with_cleanup_lock([&] {
    spawn_error = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
    if (spawn_error == 0) register_child_locked(pid);
  });
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (!live) throw user_error("interrupted");
  ProcessResult r;
  if (spawn_error == ENOENT || spawn_error == EACCES || spawn_error == ENOEXEC) return r;
  if (spawn_error != 0)
    throw user_error("cannot start '", argv[0], "': ", std::strerror(spawn_error));
  r.started = true;
  in.close_end(0);
  out.close_end(1);

  {
    SigpipeBlock no_sigpipe;
    size_t written = 0;
    if (stdin_data.empty()) in.close_end(1);
    char buf[4096];
    while (in.fd[1] >= 0 || out.fd[0] >= 0) {
      pollfd fds[2];
      nfds_t n = 0;
      if (out.fd[0] >= 0) fds[n++] = {out.fd[0], POLLIN, 0};
      if (in.fd[1] >= 0) fds[n++] = {in.fd[1], POLLOUT, 0};
      if (::poll(fds, n, -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (nfds_t i = 0; i < n; ++i) {
        if (fds[i].revents == 0) continue;
        if (fds[i].fd == out.fd[0]) {
          const ssize_t k = ::read(out.fd[0], buf, sizeof buf);
          if (k > 0) {
            r.output.append(buf, static_cast<size_t>(k));
          } else if (k == 0 || errno != EINTR) {
            out.close_end(0);
          }
        } else {
          const ssize_t k =
              ::write(in.fd[1], stdin_data.data() + written, stdin_data.size() - written);
          if (k > 0) written += static_cast<size_t>(k);
          if ((k < 0 && errno != EINTR && errno != EAGAIN) || written == stdin_data.size())
            in.close_end(1);
        }
      }
    }
  }

  // Wait without reaping, then reap and unregister in one step, so the interrupt thread never
  // signals a pid that has already been reused.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  int status = 0;
  with_cleanup_lock([&] {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    unregister_child_locked(pid);
  });
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace hetcim
