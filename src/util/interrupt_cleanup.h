// What an interrupted hetcim leaves behind: nothing. Every temporary file (files.h, output_set.h)
// and every child process (process.h) is registered here while it lives. The CLI calls
// install_interrupt_cleanup() first thing in main(): it blocks SIGINT, SIGTERM and SIGHUP in the
// calling thread, so every thread started later (DSE workers, CBC, oneDNN, libtorch) inherits the
// block, and starts one thread that waits for them with sigwait(). On a signal that thread (an
// ordinary thread, so no async-signal-safety limits apply) takes the registry lock for good, kills
// and reaps the registered children, removes the registered files and ends the process with
// _exit(128 + signal): 130 for SIGINT, 143 for SIGTERM. Threads that exist before main() (the
// OpenBLAS pool starts while libraries load) do not block the signals, so a handler that only
// forwards the signal to that thread (pthread_kill) is installed for the rare case one of them
// receives it. Signals ignored at start (nohup) stay ignored.
// Library code only registers; without install_interrupt_cleanup() (unit tests, the Python
// binding) the registry is harmless bookkeeping.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace hetcim {

// Starts the signal thread; call once, before any other thread exists.
void install_interrupt_cleanup();

// Runs `f` holding the registry lock, so an interrupt waits until `f` returns and cannot observe a
// half-done step: f creates a temporary file or a child and registers it (the *_locked calls), or
// commits a set of outputs by renames. Returns false without running f when the process is
// already being ended by a signal.
bool with_cleanup_lock(const std::function<void()>& f);

// Only inside with_cleanup_lock.
void register_temp_file_locked(const std::string& path);
void register_child_locked(pid_t pid);
void unregister_temp_file_locked(const std::string& path);
void unregister_child_locked(pid_t pid);

void unregister_temp_file(const std::string& path);

}  // namespace hetcim
