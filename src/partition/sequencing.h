// Exact sequencing for a fixed assignment. Jobs are the operators of a (sub-)DAG with fixed
// latencies, plus the transfers over serial links; each job runs on one of `machines` machines
// (one job at a time each) or on none (it starts as soon as its inputs arrive); every edge carries
// a delay (a transfer on a parallel link, or 0). Seed 000's two-device problem uses machines 0
// (the host) and 1 (a serial bus), its accelerator jobs none; the K-engine solver
// (multi_exact.cpp) one machine per one-at-a-time engine, exclusive group and serial link. With
// one machine this is 1|prec(l_ij)|Cmax with heads and tails (NP-hard); with more, a job shop
// with general precedences. Both are solved by depth-first branch-and-bound over active schedules
// (Giffler-Thompson: on the machine of the earliest possible completion, branch on the jobs that
// can start before it) with Jackson's preemptive bound per machine, critical-path bounds, and
// dominance between partial schedules with the same scheduled jobs. The search keeps one state and
// applies and undoes each branch (a trail of the values it changed) instead of copying states; the
// dominance memo is keyed by an incremental (Zobrist) hash of the set of determined jobs; children
// are bounded lazily (sequencing.cpp: a child no worse than its parent's bound is searched at
// once).
#pragma once

#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "partition/deadline.h"

namespace hetcim::partition {

struct SeqEdge {
  int from = 0, to = 0;  // from < to: jobs are numbered in a topological order
  double delay = 0.0;
};

inline constexpr int8_t kNoMachine = -1, kHostMachine = 0, kBusMachine = 1;
inline constexpr int kMaxSeqMachines = 127;  // machine numbers are int8_t

struct SeqInput {
  std::vector<double> duration;
  std::vector<int8_t> machine;  // per job: kNoMachine or 0 .. machines - 1 (seed 000: host, bus)
  std::vector<SeqEdge> edges;
  int machines = 2;  // 1 .. kMaxSeqMachines
};

class SeqCache;

struct SeqOptions {
  // Only schedules with makespan < cutoff are of interest; with a finite cutoff the search may
  // report found = false (no such schedule exists).
  double cutoff = std::numeric_limits<double>::infinity();
  int64_t max_nodes = -1;  // < 0: unlimited; otherwise stop after that many nodes (proven = false)
  const Deadline* deadline = nullptr;  // charged every node; stops with proven = false
  SeqCache* cache = nullptr;           // answers of earlier calls with the same input (or none)
};

struct SeqOutput {
  bool found = false;  // a schedule with makespan < cutoff was found (the best one is returned)
  bool proven = true;  // the search finished: found ? optimal : none below the cutoff exists
  double makespan = std::numeric_limits<double>::infinity();
  std::vector<std::vector<int>> orders;  // per machine: its jobs in execution order
  std::vector<double> start;             // per job, semi-active schedule of the orders
  int64_t nodes = 0;
  // No schedule has a makespan below this: the search's root bound (computed only up to the
  // cutoff); 0 when the answer came from the cache. Orders unfinished searches (segment_front.cpp).
  double root_bound = 0.0;
};

// What earlier searches proved about the inputs they were given: the exact solver sequences the
// same leaf again and again with different cutoffs (segment_front and segment_best of one solve,
// and every solve of a latency-energy front), and leaves that differ only in how long their free
// jobs (kNoMachine: accelerator operators, whose replica counts change their durations) take. A
// search run to the end either found a schedule below its cutoff -- then the one it returns is
// the best of all schedules, an optimum -- or proved that none is below its cutoff. The optimal
// makespan never falls when a job gets longer (every schedule's makespan is a longest path in a
// DAG of its durations), so an entry whose free jobs are each no longer than the input's answers
// for it:
//   - nothing is below its optimum (or its proven bound): every cutoff no larger is answered;
//   - its optimal orders replayed with the input's durations (sequencing.cpp: semi-active, as the
//     search builds them) give a schedule; if its makespan equals the entry's optimum, that
//     schedule is optimal for the input too (the same input is the case of equal durations).
// A pure function memo of the input, valid across problems; not thread safe (one per solve, or
// per front). Inputs are grouped by everything but their free jobs' durations (hash()). Keeps the
// searches that cost at least kMinNodes nodes, up to about kMaxBytes of inputs and schedules
// (then stops storing: same calls, same answers).
class SeqCache {
 public:
  static constexpr int64_t kMinNodes = 64;
  static constexpr size_t kMaxBytes = size_t{8} << 20;

  struct Entry {
    bool optimal = false;     // `best` is an optimum (found and proven)
    double none_below = 0.0;  // !optimal: no schedule has a makespan below this
    SeqOutput best;
    // Nothing is below this: best.makespan when optimal, else none_below.
    [[nodiscard]] double bound() const { return optimal ? best.makespan : none_below; }
  };
  // Inputs equal but for their free jobs' durations (those of `input` are its first entry's).
  // The entries' free durations lie in one array (entry i's at free[i * jobs ...]), scanned by
  // every lookup.
  struct Family {
    SeqInput input;
    size_t jobs = 0;                  // free jobs per entry
    std::vector<double> free;         // entries.size() x jobs, in job order
    std::vector<uint64_t> free_hash;  // per entry, of its free durations (finds an equal one)
    std::vector<Entry> entries;
  };
  // What the entries of `in`'s family prove for `in` at `cutoff` (hash from hash()): true and
  // `out` set (nodes 0) when they answer it, false otherwise.
  [[nodiscard]] bool answer(const SeqInput& in, uint64_t hash, double cutoff, SeqOutput& out);
  // Records what a finished search (proven) with `cutoff` found.
  void record(const SeqInput& in, uint64_t hash, double cutoff, const SeqOutput& out);
  // Of everything but the free jobs' durations.
  [[nodiscard]] static uint64_t hash(const SeqInput& in);
  [[nodiscard]] int64_t hits() const { return hits_; }

 private:
  Family* find(const SeqInput& in, uint64_t hash);

  std::unordered_map<uint64_t, std::vector<Family>> map_;
  std::vector<double> mine_;  // scratch: the free durations of the input at hand
  size_t bytes_ = 0;
  int64_t hits_ = 0;
};

// The semi-active schedule of one job order per machine (each job as early as its predecessors,
// their delays and the job before it on its machine allow): start times into `start`, the
// makespan returned; infinity when the orders contradict the precedences.
[[nodiscard]] double replay_orders(const SeqInput& in, const std::vector<std::vector<int>>& orders,
                                   std::vector<double>& start);

[[nodiscard]] SeqOutput sequence(const SeqInput& in, const SeqOptions& opt = {});

}  // namespace hetcim::partition
