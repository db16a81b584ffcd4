// One command over several processes: MPI ranks on one or many machines (Open MPI's mpirun, or
// Slurm's srun), or a single process. This is the one place of hetcim that knows MPI: the rank of
// this process, an agreement of every rank on its setup, and a work queue with dynamic load
// balancing. Built without MPI, or not started by an MPI launcher, every function is the serial
// case (rank 0 of 1, threads only), so hetcim behaves as it did before MPI existed.
//
// MPI is initialised on the first call of rank(), size(), agree() or run_queue() in a process
// started by a launcher (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in the environment) and
// finalised at exit. The Python binding and the unit tests are never started by one.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "util/error.h"

namespace hetcim::dist {

[[nodiscard]] int rank();
[[nodiscard]] int size();
[[nodiscard]] inline bool is_root() {
  return rank() == 0;
}

// A failure that every rank knows of (thrown on every rank by agree() and run_queue()). Rank 0
// reports it; the other ranks end with the same exit code without repeating it.
class SharedFailure : public Error {
 public:
  using Error::Error;
};

// Every rank tells whether its part succeeded (`local`: null, or the exception it caught). When
// some rank failed, every rank throws SharedFailure with the message of the lowest failing rank,
// prefixed "rank N: " in a run of several ranks; with one process the exception is rethrown as is.
void agree(const std::exception_ptr& local);

struct Task {
  size_t id = 0;
  double cost = 0;  // an estimate, used only to hand out the costliest tasks first
};

// Runs `work(id)` once for every task of `tasks`, the costliest first (ties by id), on `threads`
// worker threads in every rank. Rank 0 hands tasks out one at a time as workers become free
// (dynamic load balancing over MPI point-to-point messages; its own threads take from the same
// queue), gets each result back and calls `done(id, result)` for each, one call at a time, in the
// order they arrive. Only rank 0 reads `tasks` and calls `done`. A task that throws ends the
// queue: no new task is handed out, the tasks in flight finish, and every rank throws (with one
// process: the task's own exception; with several: SharedFailure "rank N: ..." with its kind).
void run_queue(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t id)>& work,
               const std::function<void(size_t id, std::string&& result)>& done);

// Whether this process is one of several MPI ranks (for error paths: false unless an MPI launcher
// started it; then MPI is initialised if it was not yet, so that abort_all can reach every rank).
[[nodiscard]] bool distributed_now();

// The one-process queue (what run_queue does without MPI or with one rank), whatever the
// launcher: never touches MPI. For work that each process does whole.
void run_local(const std::vector<Task>& tasks, int threads,
               const std::function<std::string(size_t id)>& work,
               const std::function<void(size_t id, std::string&& result)>& done);

// After an error that only this rank knows of (so that the others would wait for it forever):
// ends every rank of the run (MPI_Abort) with `exit_code`. Does nothing in a run of one process.
void abort_all(int exit_code);

// "1 process" or "N MPI ranks".
[[nodiscard]] std::string describe();

}  // namespace hetcim::dist
