// The partitioning problem generalised to K engines (issue 12): an operator DAG, engines (a host's
// cores, crossbar arrays, a depth-wise engine, ...), for every operator the options it can run in
// (an engine and that engine's latency, energy and capacity use), mutually exclusive groups of
// engines and the links that carry tensors between engines. Costs are computed elsewhere
// (platform/); every K-engine solver reads only this struct.
//
// Model:
// - An engine that runs one job at a time is one machine; an engine that does not (seed 000's
//   crossbar accelerator: every operator on its own crossbars) runs its operators as soon as
//   their inputs arrive. The engines of an exclusive group (seed 001's IMA and DW engine share
//   the TCDM port) form one machine together: at most one of their jobs runs at any time.
// - Capacity: an engine with a capacity (crossbars) holds the weights of all its operators at
//   once: the capacity uses of the options chosen on it add up to at most its capacity.
// - Reprogramming (issue 12, scope 3): an option may be `reprogram`: the operator's weights are
//   written into the engine before it runs, at every inference (its duration and energy include
//   the write). Reprogrammed operators of an engine share one reserved area, written anew by
//   each, so the engine holds: the resident options' capacities + the largest capacity of its
//   reprogrammed options. A reprogram option needs an engine that runs one job at a time (the
//   operators sharing the area run one after another) and has a capacity.
// - An edge whose endpoints sit on different engines moves edge_bytes[e] over the link that
//   joins them: link.latency + bytes / link.bandwidth seconds. A parallel link is a pure delay;
//   a serial link carries one transfer at a time (a machine of its own). Two engines with no
//   link between them cannot exchange tensors (such an assignment is infeasible).
// - Objective: latency_weight * makespan + energy_weight * energy, where energy = the options'
//   energies + link.e_byte * bytes of every transfer + each engine's static_power * makespan +
//   each engine's idle_power * (makespan - its busy time). (1, 0) is the latency objective.
//
// Seed 000's two-device Problem is the special case host (one at a time) + accelerator (not) with
// one link (multi_convert.h).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "graph/dag.h"

namespace hetcim::partition {

struct MultiEngine {
  std::string name;
  bool one_at_a_time = true;       // a machine: runs one job at a time
  int64_t capacity = -1;           // resident capacity (crossbars) its operators share; -1 = none
  double static_power = 0.0;       // W drawn for the whole makespan
  double idle_power = 0.0;         // W drawn while it runs nothing
  double endurance = 0.0;          // writes a cell survives (reprogramming; 0 = not stated)
  std::string endurance_source{};  // where `endurance` comes from (for reports)
};

struct MultiLink {
  std::string name;
  std::vector<int> engines;  // the engines it joins (>= 2): any two of them talk over it
  double latency = 0.0;      // s per transfer
  double bandwidth = std::numeric_limits<double>::infinity();  // B/s (> 0)
  bool serial = false;                                         // one transfer at a time
  double e_byte = 0.0;                                         // J per byte
};

struct MultiOption {
  int engine = 0;
  double duration = 0.0;   // s, >= 0
  double energy = 0.0;     // J, >= 0 (dynamic energy of the operator on this engine)
  int64_t capacity = 0;    // units of the engine's capacity it holds (0 on an engine without one)
  std::string label;       // what the option is ("ima", "ima-cjob8", "x2 copies"...), for reports
  bool reprogram = false;  // weights written before every run (see the model above)
  int64_t cells_written = 0;   // reprogram options: cells written per run (for wear reports)
  double write_seconds = 0.0;  // reprogram options: the write's share of duration (for reports)
  double write_energy = 0.0;   // ... and of energy
};

struct MultiProblem {
  graph::Dag dag;
  std::vector<std::string> names;                 // per operator
  std::vector<std::vector<MultiOption>> options;  // per operator, >= 1 each
  std::vector<double> edge_bytes;                 // per dag.edges entry
  std::vector<MultiEngine> engines;
  std::vector<std::vector<int>> exclusive;  // groups of engines; an engine is in at most one
  std::vector<MultiLink> links;
  double latency_weight = 1.0;  // per second of makespan (>= 0)
  double energy_weight = 0.0;   // per joule (>= 0); the two weights are not both 0

  // Throws UserError naming the operator, engine, link or group at fault.
  void validate() const;

  [[nodiscard]] size_t size() const { return dag.n; }
  [[nodiscard]] const MultiOption& option(int v, int k) const {
    return options[static_cast<size_t>(v)][static_cast<size_t>(k)];
  }
};

// Derived structure every solver and the simulator share: machines and link lookup.
struct MultiMachines {
  // Per engine: its machine (its exclusive group's, or its own when one at a time), -1 if none.
  std::vector<int> engine_machine;
  // Per link: its machine when serial, -1 otherwise.
  std::vector<int> link_machine;
  std::vector<std::string> machine_names;
  // link_between[a * K + b]: the link joining engines a != b, -1 if none.
  std::vector<int> link_between;
  size_t engines = 0;
  [[nodiscard]] int link(int a, int b) const {
    return link_between[static_cast<size_t>(a) * engines + static_cast<size_t>(b)];
  }
};

[[nodiscard]] MultiMachines multi_machines(const MultiProblem& p);

// Capacity an assignment holds per engine: resident capacities + the largest reprogrammed one
// (0 for engines without a capacity).
[[nodiscard]] std::vector<int64_t> multi_capacity_used(const MultiProblem& p,
                                                       const std::vector<int>& option);

// Wear of an assignment on one engine: what its reprogrammed operators write per inference.
struct MultiWear {
  int64_t reprogrammed = 0;    // operators written at every inference
  int64_t reserved = 0;        // capacity of the shared reprogramming area (largest footprint)
  int64_t cells_written = 0;   // cells written per inference
  double write_seconds = 0.0;  // time spent writing per inference
  double write_energy = 0.0;   // J spent writing per inference
  // Inferences until the most-written cell reaches the endurance: every reprogrammed operator
  // writes its weights from the start of the shared area (no wear levelling), so the first
  // cell is written `reprogrammed` times per inference: endurance / reprogrammed. Infinity when
  // nothing is reprogrammed, 0 when the endurance is not stated.
  double lifetime_inferences = 0.0;
};
[[nodiscard]] std::vector<MultiWear> multi_wear(const MultiProblem& p,
                                                const std::vector<int>& option);

// Latency and energy of moving edge e's tensor over link l.
[[nodiscard]] double transfer_time(const MultiProblem& p, size_t e, int link);
[[nodiscard]] double transfer_energy(const MultiProblem& p, size_t e, int link);

}  // namespace hetcim::partition
