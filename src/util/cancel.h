// A request to stop the current long call early, from another thread: the Python binding sets it
// when Ctrl-C arrives while a call runs (python/interrupt.h); the searches poll it where they poll
// their wall clock (partition/deadline.h) and stop as at a time limit, and the binding then raises
// KeyboardInterrupt instead of returning the result. Process-wide, as the signal it stands for is
// (the CLI ends the process on a signal instead: util/interrupt_cleanup.h); cleared by whoever set
// it once the call has returned.
#pragma once

#include <atomic>
#include <exception>

namespace hetcim {

namespace detail {
inline std::atomic<bool>& cancel_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}
}  // namespace detail

inline void request_cancel() {
  detail::cancel_flag().store(true, std::memory_order_relaxed);
}
inline void clear_cancel() {
  detail::cancel_flag().store(false, std::memory_order_relaxed);
}
[[nodiscard]] inline bool cancel_requested() {
  return detail::cancel_flag().load(std::memory_order_relaxed);
}

// What a job without a search throws at its next step once a stop was requested: the analog
// simulations per batch of images (train/evaluate.cpp, so `analog select`, `study`, `eval`,
// `drift`, `serve` from Python) and training per batch (train/train.cpp). Not an Error: it is no
// failure, and only the Python binding asks for it (python/interrupt.h raises KeyboardInterrupt).
struct Cancelled : std::exception {
  [[nodiscard]] const char* what() const noexcept override { return "stopped on request"; }
};
inline void throw_if_cancelled() {
  if (cancel_requested()) throw Cancelled{};
}

}  // namespace hetcim
