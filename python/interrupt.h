// Long calls from Python, shared by both modules (_hetcim, _hetcim_torch): Ctrl-C and progress.
// The call runs on a worker thread while the calling thread, without the GIL, wakes every 50 ms to
// run Python's signal handlers (PyErr_CheckSignals, which only the main thread may do) and to hand
// the job's latest (done, total) to a Python progress callback; so every callback runs on the
// caller's thread with the GIL, and the C++ side only stores two counters. On Ctrl-C (any
// exception a handler or the progress callback raises) the call is asked to stop
// (util/cancel.h): the searches stop at their next clock reading (partition/deadline.h) and the
// progress callbacks the job reports through throw Interrupted at their next step; the worker is
// always joined, the result dropped and the Python exception (KeyboardInterrupt) raised.
// Jobs without steps or a search poll the stop request themselves and throw Cancelled
// (util/cancel.h: the analog simulations and training, per batch), taken here like Interrupted.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>

#include "util/cancel.h"

namespace hetcim::python {

namespace py = pybind11;

// Thrown by a progress callback of a cancelled call; never reaches Python.
struct Interrupted {};

class LongCall {
 public:
  // `progress`: a Python callable progress(done, total), or None. Taken from the call's keywords
  // (the key "progress", removed so that apply_kwargs does not see it).
  explicit LongCall(py::object progress) : progress_(std::move(progress)) {}
  static LongCall from_kwargs(const py::kwargs& kw) {
    py::object p = py::none();
    if (kw.contains("progress")) p = kw.attr("pop")("progress");
    if (!p.is_none() && !PyCallable_Check(p.ptr()))
      throw py::type_error("progress: expected a callable progress(done, total) or None");
    return LongCall(std::move(p));
  }

  // What the C++ job calls after each step: stores the counts; throws Interrupted once the call
  // was cancelled (so a job with steps stops at its next step).
  [[nodiscard]] std::function<void(size_t, size_t)> callback() {
    return [this](size_t done, size_t total) {
      total_.store(total, std::memory_order_relaxed);
      done_.store(done, std::memory_order_relaxed);
      if (cancel_requested()) throw Interrupted{};
    };
  }
  // The same, for jobs whose progress must not throw (a step finished inside a worker pool).
  [[nodiscard]] std::function<void(size_t, size_t)> counter() {
    return [this](size_t done, size_t total) {
      total_.store(total, std::memory_order_relaxed);
      done_.store(done, std::memory_order_relaxed);
    };
  }

  // Runs f() (which must not touch Python objects) on a worker thread; called with the GIL held.
  template <typename F>
  auto run(F&& f) -> std::invoke_result_t<F&> {
    using T = std::invoke_result_t<F&>;
    using Slot = std::conditional_t<std::is_void_v<T>, bool, std::optional<T>>;
    Slot result{};
    std::exception_ptr failure;
    std::atomic<bool> finished{false}, interrupted{false};
    PyObject *type = nullptr, *value = nullptr, *trace = nullptr;  // the Python exception
    {
      py::gil_scoped_release release;
      std::thread worker([&] {
        try {
          if constexpr (std::is_void_v<T>) {
            f();
          } else {
            result.emplace(f());
          }
        } catch (const Interrupted&) {
          interrupted.store(true, std::memory_order_relaxed);  // by another call's Ctrl-C
        } catch (const Cancelled&) {  // a job's own stop point (util/cancel.h)
          interrupted.store(true, std::memory_order_relaxed);
        } catch (...) {
          failure = std::current_exception();
        }
        finished.store(true, std::memory_order_release);
      });
      size_t reported = static_cast<size_t>(-1);
      while (!finished.load(std::memory_order_acquire)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms_));
        if (type != nullptr || finished.load(std::memory_order_acquire)) continue;
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() == 0) report(reported);
        if (PyErr_Occurred() != nullptr) {
          PyErr_Fetch(&type, &value, &trace);
          request_cancel();
        }
      }
      worker.join();
    }
    if (type != nullptr) {
      clear_cancel();
      PyErr_Restore(type, value, trace);
      throw py::error_already_set();
    }
    if (interrupted.load(std::memory_order_relaxed)) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
      throw py::error_already_set();
    }
    if (failure) std::rethrow_exception(failure);
    size_t none = static_cast<size_t>(-1);
    report(none);
    if (PyErr_Occurred() != nullptr) throw py::error_already_set();
    if constexpr (!std::is_void_v<T>) return std::move(*result);
  }

 private:
  // Calls progress(done, total) when the counts changed since `reported` (GIL held); a raised
  // exception is left set for the caller.
  void report(size_t& reported) {
    const size_t total = total_.load(std::memory_order_relaxed);
    const size_t done = done_.load(std::memory_order_relaxed);
    if (progress_.is_none() || total == 0 || done == reported) return;
    reported = done;
    PyObject* r = PyObject_CallFunction(progress_.ptr(), "nn", static_cast<Py_ssize_t>(done),
                                        static_cast<Py_ssize_t>(total));
    Py_XDECREF(r);
  }

  py::object progress_;
  std::atomic<size_t> done_{0}, total_{0};
  static constexpr int poll_ms_ = 50;
};

}  // namespace hetcim::python
