// The MILP of the K-engine problem (multi_problem.h) on COIN-OR CBC, generalising seed 000's
// (milp.h) the way the exact solver (multi_exact.h) generalises exact.h. Columns: y_vk (operator
// v takes option k), s_v, f_v, C_max; per edge e and link l that may carry it, t_el in [0, 1];
// per parallel pair {u, v} that may share a machine, an order binary o_uv; per edge e on a serial
// link l, a transfer start b_el and per pair of such transfers whose order the DAG leaves open, an
// order binary q. A_v,g = sum of y_vk over v's options on engine g, A_v,M over machine M.
//   min  latency_weight C_max + energy_weight E
//   sum_k y_vk = 1                                           every operator
//   f_v = s_v + sum_k d_vk y_vk
//   sum_{v,k on g resident} c_vk y_vk + R_g <= C_g           every engine with a capacity
//   R_g >= c_vk y_vk                                         every reprogram option (v,k) on g
//     (R_g in [0, C_g] continuous, only on engines with reprogram options: the reserved area)
//   A_u,a + A_v,b <= 1                                       edge (u,v), engines a != b, no link
//   t_el >= A_u,a + sum_{b in l, b != a} A_v,b - 1           edge (u,v), link l, a in l
//   s_v >= f_u + sum_{l parallel} T_el t_el                  edge (u,v)   (T_el: latency +
//   bytes/bw) b_el >= f_u,  s_v >= b_el + T_el t_el                    edge (u,v), serial link l
//   s_v >= f_u - M (1 - o_uv) - M (2 - A_u,M - A_v,M)        parallel {u,v}, machine M
//   s_u >= f_v - M o_uv - M (2 - A_u,M - A_v,M)
//   b_e'l >= b_el + T_el - M (1 - q) - M (2 - t_el - t_e'l)   (and the reverse with q)
//   C_max >= f_v                                             every sink
//   E = sum y_vk e_vk + sum t_el E_el + sum_g static_g C_max + sum_g idle_g (C_max - busy_g)
//   M = sum_v max_k d_vk + sum_e max_l T_el
// The incumbent is replayed by multi_simulate with its jobs in the order of their MILP start
// times and checked by multi_check; the replayed objective is never above CBC's (a list schedule
// in start order starts no job later), and a disagreement is an InternalError.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "partition/cbc.h"
#include "partition/multi_problem.h"
#include "partition/multi_schedule.h"
#include "partition/status.h"

namespace hetcim::partition {

struct MultiMilpOptions {
  double time_limit_seconds = 60.0;  // wall clock; > 0, may be infinity
  double relative_gap = 0.0;         // stop once (incumbent - bound) / incumbent <= this, >= 0
  int threads = 1;                   // CBC threads (>= 1); more than 1 is not deterministic
  int seed = 1;                      // CBC random seed
  double time_unit_seconds = 0.0;    // 0 = automatic: a power of ten near M / 1000
};

struct MultiMilpStats {
  size_t operators = 0, edges = 0, options = 0;
  size_t parallel_pairs = 0;  // pairs of operators the DAG leaves unordered
  size_t machine_pairs = 0;   // (pair, machine) disjunctions
  size_t transfer_jobs = 0;   // potential transfers on serial links
  size_t transfer_pairs = 0;  // their disjunctions
  size_t binaries = 0, continuous = 0, rows = 0;
  double big_m_seconds = 0.0;
  double time_unit_seconds = 0.0;
};

struct MultiMilpResult {
  CallStatus call = CallStatus::Ok;
  std::string message;                           // why the call failed, if it did
  SolveStatus status = SolveStatus::NoSolution;  // Optimal, TimeLimit, Infeasible or NoSolution
  double objective = std::numeric_limits<double>::infinity();         // replayed
  double solver_objective = std::numeric_limits<double>::infinity();  // CBC's incumbent
  double bound = 0.0;                                                 // CBC's best bound
  double gap = std::numeric_limits<double>::infinity();  // (objective - bound) / objective
  double seconds = 0.0;                                  // wall clock of the CBC call
  int64_t nodes = 0;
  MultiSchedule schedule;  // the incumbent replayed (multi_simulate) and checked (multi_check)
  MultiMilpStats stats;
};

// Big-M in seconds (above).
[[nodiscard]] double multi_milp_big_m(const MultiProblem& p);

// The model solve_multi_milp solves, as an MPS or LP file (cbc.h) for another solver: comments at
// the top state its time unit (the objective value times it is latency_weight * makespan +
// energy_weight * energy, in seconds and joules) and its column names (y<v>_<k>: operator v takes
// its option k, in the order of MultiProblem::options).
[[nodiscard]] std::string multi_milp_file_text(const MultiProblem& p, MilpFileFormat format,
                                               const MultiMilpOptions& opt = {});

// Thread-safe; CBC solves run one at a time (partition/cbc.h).
[[nodiscard]] MultiMilpResult solve_multi_milp(const MultiProblem& p,
                                               const MultiMilpOptions& opt = {});

}  // namespace hetcim::partition
