#include "util/progress.h"

#include <unistd.h>

#include <cmath>

namespace hetcim {
namespace {

std::string duration(double s) {
  char b[32];
  if (s < 90)
    std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < 5400)
    std::snprintf(b, sizeof b, "%.0f min", s / 60);
  else
    std::snprintf(b, sizeof b, "%.1f h", s / 3600);
  return b;
}

bool is_tty(std::FILE* f) {
  return f != nullptr && ::isatty(::fileno(f)) == 1;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

Progress::Progress(std::string what, std::string unit, size_t total, bool enabled, std::FILE* out)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled && out != nullptr),
      tty_(is_tty(out)),
      out_(out),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  finish();
}

std::string Progress::line(const std::string& what, const std::string& unit, size_t done,
                           size_t total, double elapsed) {
  std::string s = what + ": " + std::to_string(done);
  if (total > 0) {
    char pct[16];
    std::snprintf(pct, sizeof pct, " (%.0f %%)",
                  100.0 * static_cast<double>(done) / static_cast<double>(total));
    s += "/" + std::to_string(total) + " " + unit + pct;
  } else {
    s += " " + unit;
  }
  s += ", " + duration(elapsed) + " elapsed";
  if (total > 0 && done > 0 && done < total) {
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    s += ", about " + duration(left) + " left";
  }
  return s;
}

void Progress::set_total(size_t total) {
  std::lock_guard lock(mutex_);
  total_ = total;
}

void Progress::update(size_t done, const std::string& detail) {
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  const bool last = total_ > 0 && done >= total_;
  if (!last && since < (tty_ ? 0.2 : 10.0)) return;
  last_ = now;
  const std::string l = line(what_, unit_, done, total_, seconds_since(start_)) +
                        (detail.empty() ? "" : "; " + detail);
  if (tty_)
    std::fprintf(out_, "\r%s\033[K", l.c_str());
  else
    std::fprintf(out_, "%s\n", l.c_str());
  open_ = tty_;
  std::fflush(out_);
}

void Progress::finish() {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  finished_ = true;
  if (enabled_ && open_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

std::string ProgressTicker::line(const std::string& what, double elapsed, double limit) {
  std::string s = what + ": " + duration(elapsed) + " elapsed";
  if (limit > 0 && std::isfinite(limit)) s += ", at most " + duration(limit) + " (time limit)";
  return s;
}

ProgressTicker::ProgressTicker(std::string what, double limit_seconds, bool enabled, std::FILE* out)
    : what_(std::move(what)), limit_(limit_seconds), out_(out), tty_(is_tty(out)) {
  if (!enabled || out == nullptr) return;
  thread_ = std::thread([this] {
    const auto start = std::chrono::steady_clock::now();
    // First line after 2 s (short solves print nothing), then every second on a terminal or
    // every 10 s in a log.
    double next = 2.0;
    std::unique_lock lock(mutex_);
    for (;;) {
      // Woken at once by the destructor: a short command does not wait out a polling period.
      if (wake_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) return;
      const double t = seconds_since(start);
      if (t < next) continue;
      next = t + (tty_ ? 1.0 : 10.0);
      const std::string l = line(what_, t, limit_);
      if (tty_)
        std::fprintf(out_, "\r%s\033[K", l.c_str());
      else
        std::fprintf(out_, "%s\n", l.c_str());
      std::fflush(out_);
      printed_ = true;
    }
  });
}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (printed_ && tty_) {
    std::fputc('\n', out_);
    std::fflush(out_);
  }
}

}  // namespace hetcim
