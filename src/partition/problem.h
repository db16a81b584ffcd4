// The partitioning problem of seed 000, Section IV-B, as plain data: an operator DAG, the latency
// of every operator on the host and in each accelerator mode, the transfer latencies, and the
// crossbar budget. Costs (eqs. 1-4) are computed elsewhere (the cost layer); every solver here
// reads only this struct.
//
// Model (the paper's): the host runs one operator at a time; accelerator operators run fully in
// parallel with each other and with the host; an edge whose endpoints sit on different devices
// delays its consumer by a transfer latency. Accelerator modes generalise the paper's single
// option: weight replication (r copies: r * crossbars, ceil(N_mvm / r) MVMs) is one more mode, so
// choosing modes under the budget is a multiple-choice knapsack. A serial bus (BusModel) makes the
// bus a second machine: transfers then wait for each other.
//
// Energy (optional, beyond the paper): per-operator host energies, per-mode accelerator energies,
// per-transfer bus energies and the static powers (cost/energy_model.h). With energy_weight = 0
// (the default) the solvers minimise the latency alone, as in the paper; otherwise they minimise
// makespan + energy_weight * dynamic energy (partition/energy.h). A problem without an energy
// model leaves e_host (and e_transfer / e_out) empty.
//
// Accuracy (optional, beyond the paper): drop_ppm[v] is the accuracy an operator costs when it
// runs on the accelerator (any mode), in millionths of top-1 accuracy (1 ppm = 0.0001 points),
// and a plan's total, assumed additive (the sensitivity files measure how far it is), must stay
// within drop_budget_ppm: a second knapsack resource beside the crossbars. Integer units keep the
// solvers' sums exact. Empty drop_ppm = no accuracy model and no such constraint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/dag.h"

namespace hetcim::partition {

// Mode of an operator: kHost, or k >= 0 for accelerator mode k (Problem::acc[v][k]).
inline constexpr int kHost = -1;
// Accuracy costs and budgets are in ppm of top-1 accuracy: at most all of it.
inline constexpr int64_t kMaxDropPpm = 1'000'000;

struct AccMode {
  int64_t crossbars = 0;  // crossbars this mode occupies (eq. 1, times r for r copies), >= 0
  double t_acc = 0.0;     // latency on the accelerator in seconds (eq. 2-3), >= 0
  double energy = 0.0;    // dynamic energy on the accelerator in joules, >= 0 (energy model)
};

enum class TransferModel {
  // The paper: every edge (u, v) whose endpoints sit on different devices pays t_transfer[e].
  PerEdge,
  // u's output crosses the bus once per direction, whatever the number of consumers on the other
  // side, at cost t_out[u]. With transfers as pure delays (this model) the makespan equals the
  // PerEdge makespan with t_transfer[e] = t_out[u]; the difference shows in the bus traffic.
  PerTensorDirection,
};

[[nodiscard]] const char* transfer_model_name(TransferModel m);

enum class BusModel {
  // The paper: a transfer is a pure delay; any number of transfers overlap on the bus.
  Parallel,
  // The shared bus carries one transfer at a time: a transfer starts once its producer has
  // finished and the bus is free, and its consumers start once it has arrived. The order of the
  // transfers on the bus becomes a decision, like the order of the host operators.
  Serial,
};

[[nodiscard]] const char* bus_model_name(BusModel m);

struct Problem {
  graph::Dag dag;                         // one vertex per operator
  std::vector<std::string> names;         // operator names, one per vertex
  std::vector<double> t_host;             // host latency in seconds, one per vertex
  std::vector<std::vector<AccMode>> acc;  // accelerator modes per vertex; empty = host only
  std::vector<double> t_transfer;         // PerEdge: per dag.edges entry, seconds
  std::vector<double> t_out;              // PerTensorDirection: per producer vertex, seconds
  TransferModel transfer_model = TransferModel::PerEdge;
  BusModel bus_model = BusModel::Parallel;
  int64_t crossbar_budget = 0;  // C of eq. 14

  // Energy model; empty e_host = none (has_energy() is false and the rest must be empty too).
  std::vector<double> e_host;      // host energy in joules, one per vertex
  std::vector<double> e_transfer;  // PerEdge: bus energy per dag.edges entry, joules
  std::vector<double> e_out;       // PerTensorDirection: per producer vertex, joules
  double p_cim_static = 0.0;       // W drawn by the accelerator for the whole makespan
  double p_host_idle = 0.0;        // W drawn by the host while it runs no operator
  // Objective: minimise makespan + energy_weight * dynamic energy (s per J, >= 0; > 0 needs an
  // energy model). 0 is the paper's latency objective.
  double energy_weight = 0.0;

  // Accuracy model; empty drop_ppm = none (drop_budget_ppm is then ignored).
  std::vector<int64_t> drop_ppm;  // per vertex, >= 0, paid on the accelerator (0 for host-only)
  int64_t drop_budget_ppm = 0;    // >= 0

  // Throws UserError naming the operator (or edge) and the field that is wrong.
  void validate() const;

  [[nodiscard]] size_t size() const { return dag.n; }
  [[nodiscard]] bool offloadable(int v) const { return !acc[static_cast<size_t>(v)].empty(); }
  [[nodiscard]] size_t num_offloadable() const;
  // Latency of v in mode `mode` (-1 = host, k >= 0 = accelerator mode k).
  [[nodiscard]] double duration(int v, int mode) const;
  [[nodiscard]] int64_t crossbars(int v, int mode) const;
  // Delay paid by edge dag.edges[e] when its endpoints sit on different devices.
  [[nodiscard]] double edge_transfer(size_t e) const;

  [[nodiscard]] bool has_energy() const { return !e_host.empty(); }
  [[nodiscard]] bool has_accuracy() const { return !drop_ppm.empty(); }
  // Accuracy cost (ppm) of v in mode `mode` (-1 = host: 0); 0 without an accuracy model.
  [[nodiscard]] int64_t drop(int v, int mode) const {
    return mode < 0 || drop_ppm.empty() ? 0 : drop_ppm[static_cast<size_t>(v)];
  }
  // The budget the solvers enforce: drop_budget_ppm, or no limit without an accuracy model.
  [[nodiscard]] int64_t drop_limit() const;
  // Dynamic energy of v in mode `mode` (-1 = host); requires has_energy().
  [[nodiscard]] double energy(int v, int mode) const;
  // Bus energy of edge dag.edges[e] when it crosses devices: e_transfer[e] (PerEdge) or e_out of
  // its producer (PerTensorDirection, paid once per producer and direction); requires has_energy().
  [[nodiscard]] double edge_energy(size_t e) const;
};

}  // namespace hetcim::partition
