// The paper's MILP (seed 000, Section IV-B, eqs. 4-14; reconstruction in seeds/README.md) built
// for CBC. Variables: x_v (1 = host), o_uv per parallel pair, z_uv per edge, s_v, f_v, C_max.
//   min C_max
//   (7)  f_v = s_v + x_v T_host,v + (1 - x_v) T_acc,v          (T_acc,v := 0 for v not in V_acc)
//   (5)  x_v = 1                                              v not in V_acc
//   (9)  z_uv >= x_u - x_v,  z_uv >= x_v - x_u                (u,v) in E
//   (8)  s_v >= f_u + T_transfer(u,v) z_uv                    (u,v) in E
//   (11) s_v >= f_u - M (3 - x_u - x_v - o_uv)                {u,v} in P
//   (12) s_u >= f_v - M (2 - x_u - x_v + o_uv)                {u,v} in P
//   (6)  C_max >= f_t                                         every sink t (one row per sink)
//   (14) sum_v (1 - x_v) N_crossbar,v <= C
//   (13) M = sum_v max(T_host,v, T_acc,v) + sum_E T_transfer(u,v)
// Multi-mode operators (K >= 2 accelerator modes) get binaries y_vk with sum_k y_vk = 1 - x_v,
// their latency and crossbars weighted by y_vk; with one mode per operator the model is exactly
// the paper's. PerTensorDirection uses T_transfer(u,v) = t_out[u] (the same delays).
// A serial bus adds, per potential transfer j, a start b_j >= f_u that its consumers wait for,
// and per pair of transfers whose order the DAG leaves open a binary q with two big-M rows that
// keep them apart when both happen (milp_model.cpp, add_bus).
// An energy weight adds energy_weight * (operator energies + bus energies) to C_max, linear in
// x, y and z (per tensor: in a crossing indicator per producer and direction).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "partition/milp_model.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "partition/status.h"

namespace hetcim::partition {

struct MilpResult {
  CallStatus call = CallStatus::Ok;
  std::string message;  // why the call failed, if it did
  SolveStatus status = SolveStatus::NoSolution;
  // Replayed objective in seconds: the makespan, plus energy_weight * dynamic energy if weighted.
  double objective = std::numeric_limits<double>::infinity();
  double solver_objective = std::numeric_limits<double>::infinity();  // CBC's incumbent value
  double bound = 0.0;                                                 // CBC's best bound (seconds)
  double gap = std::numeric_limits<double>::infinity();  // (objective - bound) / objective
  double seconds = 0.0;                                  // wall clock of the CBC call
  int64_t nodes = 0;
  Schedule schedule;  // the incumbent replayed by simulate() in the order of its start times
  MilpStats stats;
};

// The host order and serial-bus order (Transfer::key) for simulate() of the schedule that start
// times read back from a solver describe (seconds; `start` per operator, `transfer_start` per
// implied_transfers(p, a) entry on a serial bus, empty on a parallel one). One topological order
// of every operator and transfer (producer -> transfer -> consumers) taking the ready job of the
// earliest interval midpoint first: times rounded by the solver's tolerance never put a job before
// one it waits for (sorting the transfers by start did, and the replay then deadlocked), and two
// jobs the host or the bus runs in turn keep their order unless both last less than the rounding.
struct JobOrders {
  std::vector<int> host;
  std::vector<int> bus;
};
[[nodiscard]] JobOrders orders_from_start_times(const Problem& p, const Assignment& a,
                                                const std::vector<double>& start,
                                                const std::vector<double>& transfer_start);

// Thread-safe, but calls from several threads run one after another: CBC's driver is not
// reentrant (see milp.cpp).
[[nodiscard]] MilpResult solve_milp(const Problem& p, const MilpOptions& opt = {});

// The model as an MPS or LP file (time columns in MilpStats::time_unit_seconds, stated in a
// comment at the top) for use with another solver.
[[nodiscard]] std::string milp_file_text(const Problem& p, MilpFileFormat format,
                                         const MilpOptions& opt = {});

// Writes milp_file_text() to exactly `path`. Throws UserError if the file cannot be written.
void write_milp(const Problem& p, const std::string& path, MilpFileFormat format,
                const MilpOptions& opt = {});

}  // namespace hetcim::partition
