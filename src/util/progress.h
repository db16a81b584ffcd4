// Progress of a long command on stderr, with an estimate of the time left: one helper shared by
// every command that can run longer than a few seconds (DSE, MILP, profile, host measurement,
// select, training). The CLI owns it; `--quiet` constructs it disabled. Library code reports its
// steps through callbacks and never prints.
//
// On a terminal the line is redrawn in place (at most five times a second); otherwise (a log
// file, a pipe) one full line is written at most every ten seconds and at the end, so logs stay
// readable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace hetcim {

// Work counted in steps: "DSE: 12/64 points (19 %), 8 s elapsed, about 34 s left".
class Progress {
 public:
  // `unit` names a step in the plural ("points", "runs"); total may be 0 (unknown: no estimate).
  Progress(std::string what, std::string unit, size_t total, bool enabled, std::FILE* out = stderr);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Thread-safe; `done` of `total` steps are finished. `detail` (e.g. "epoch 2/5, loss 0.41") is
  // appended to the line.
  void update(size_t done, const std::string& detail = "");
  // Changes the total (e.g. warm-up + timed runs become known) without printing.
  void set_total(size_t total);
  // Ends the line (also done by the destructor).
  void finish();

  // The line update() prints, without the carriage return (exposed for tests).
  [[nodiscard]] static std::string line(const std::string& what, const std::string& unit,
                                        size_t done, size_t total, double elapsed_seconds);

 private:
  std::string what_, unit_;
  size_t total_;
  bool enabled_, tty_, open_ = false, finished_ = false;
  std::FILE* out_;
  std::chrono::steady_clock::time_point start_, last_;
  std::mutex mutex_;
};

// Work without countable steps but with a time limit (a MILP on CBC, the exact solver): a thread
// prints "MILP (CBC): 12 s elapsed, at most 600 s (time limit)" until the object is destroyed.
class ProgressTicker {
 public:
  ProgressTicker(std::string what, double limit_seconds, bool enabled, std::FILE* out = stderr);
  ~ProgressTicker();
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  [[nodiscard]] static std::string line(const std::string& what, double elapsed_seconds,
                                        double limit_seconds);

 private:
  std::string what_;
  double limit_;
  std::FILE* out_;
  bool tty_ = false, printed_ = false;
  bool stop_ = false;  // guarded by mutex_; set by the destructor, which wakes the thread
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace hetcim
