// Internal to dist: the queue of one run as threads of one process see it, shared by the
// one-process queue (dist.cpp) and rank 0 of the MPI backend (mpi_backend.cpp), and the interface
// of that backend, a shared object loaded only when an MPI launcher started this process
// (dist.cpp), so that hetcim neither loads MPI's libraries nor needs them to start otherwise.
#pragma once

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "dist/dist.h"

namespace hetcim::dist::detail {

// The queue of one run: the tasks in the order they are handed out, the failure that stops it,
// and the lock under which `done` is called.
struct Queue {
  std::vector<Task> order;
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  std::mutex mutex;
  std::exception_ptr failure;
  int failure_rank = 0;

  explicit Queue(std::vector<Task> tasks) : order(std::move(tasks)) {
    std::stable_sort(order.begin(), order.end(), [](const Task& a, const Task& b) {
      return a.cost != b.cost ? a.cost > b.cost : a.id < b.id;
    });
  }
  std::optional<size_t> take() {
    if (stopped) return std::nullopt;
    const size_t i = next++;
    if (i >= order.size()) return std::nullopt;
    return order[i].id;
  }
  void fail(std::exception_ptr e, int rank) {
    std::lock_guard lock(mutex);
    if (!failure) failure = std::move(e), failure_rank = rank;
    stopped = true;
  }
  void deliver(size_t id, std::string&& result,
               const std::function<void(size_t, std::string&&)>& done, int rank) {
    try {
      std::lock_guard lock(mutex);
      if (!stopped) done(id, std::move(result));
    } catch (...) {
      fail(std::current_exception(), rank);
    }
  }
};

// A worker thread of this process taking from `q` directly (every thread of a single process,
// and rank 0's own threads beside its coordinator).
inline void local_worker(Queue& q, int rank, const std::function<std::string(size_t)>& work,
                         const std::function<void(size_t, std::string&&)>& done) {
  while (const std::optional<size_t> id = q.take()) {
    std::string result;
    try {
      result = work(*id);
    } catch (...) {
      q.fail(std::current_exception(), rank);
      return;
    }
    q.deliver(*id, std::move(result), done, rank);
  }
}

inline std::vector<std::thread> start_local_workers(
    Queue& q, int threads, int rank, const std::function<std::string(size_t)>& work,
    const std::function<void(size_t, std::string&&)>& done) {
  std::vector<std::thread> pool;
  for (int k = 0; k < threads; ++k)
    pool.emplace_back([&, rank] { local_worker(q, rank, work, done); });
  return pool;
}

// The kind and message of an exception (every exception a task may throw).
inline std::pair<ErrorKind, std::string> describe_exception(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return {x.kind(), x.what()};
  } catch (const std::exception& x) {
    return {ErrorKind::Internal, std::string("internal error: ") + x.what()};
  } catch (...) {
    return {ErrorKind::Internal, "internal error: an unknown exception"};
  }
}

class Backend {
 public:
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  virtual ~Backend() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  virtual void agree(const std::exception_ptr& local) = 0;
  virtual void run_queue(const std::vector<Task>& tasks, int threads,
                         const std::function<std::string(size_t)>& work,
                         const std::function<void(size_t, std::string&&)>& done) = 0;
  // Whether MPI is initialised and not yet finalised.
  [[nodiscard]] virtual bool active() const = 0;
  virtual void abort(int exit_code) = 0;
};

}  // namespace hetcim::dist::detail

// The entry point of the backend's shared object (libhetcim_mpi.so): MPI initialised.
extern "C" hetcim::dist::detail::Backend* hetcim_dist_mpi_backend();
