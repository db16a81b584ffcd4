// What `hetcim reproduce` computed for each paper (api::ReproduceResult): seed 000's grid, hosts,
// models and Gantt schedule, seed 001's cluster figures, seed 002's chips, energy arithmetic and
// study. Plain data; report/reproduce.h puts it beside the published numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/bottleneck_mapping.h"
#include "cluster/cluster_config.h"
#include "cluster/dw_engine.h"
#include "cluster/roofline.h"
#include "cost/host_fit.h"
#include "dse/dse.h"
#include "partition/problem.h"
#include "partition/schedule.h"
#include "results/race_study.h"

namespace hetcim::results {

struct Seed000HostInfo {
  std::string source;  // "modelled: arm-cortex-a72 ..." | "measured: ..."
  bool modelled = true;
  std::string paper_cpu;     // the paper's CPU for this host ("ARM Cortex-A72, 1.5 GHz")
  std::string paper_row;     // the paper's rows it is compared with ("arm", "x86"); "": its name
  bool calibration = false;  // its model was fitted to the paper's own figures (cost/host_fit.h)
};

// Where one target of the CALIBRATION is read: a DSE point's latency (ms) or speedup.
struct Seed000FitPoint {
  std::string model;
  int64_t crossbars = 0;
  double t_mvm = 0;
  bool latency = false;
};

// `reproduce seed000 --calibrate`: the ARM host model fitted to the paper's ARM figures
// (api/seed000_calibration.h); `points[i]` is where `fit.targets[i]` is read.
struct Seed000Calibration {
  std::string host;  // the DSE host of the fitted model ("arm-calibrated")
  cost::HostFitResult fit;
  std::vector<Seed000FitPoint> points;
};

struct Seed000ModelInfo {
  int64_t operators = 0, offloadable = 0;
  int64_t crossbars_all = 0;     // eq. (1) summed over every offloadable operator
  int64_t largest_operator = 0;  // eq. (1) of the largest offloadable operator
  int64_t milp_variables = 0, milp_constraints = 0;  // Table I counting
};

// One optimal schedule drawn as a Gantt chart.
struct Seed000Gantt {
  std::string model, host;
  int64_t crossbars = 0;
  double t_mvm = 0;
  partition::Problem problem;
  partition::Schedule schedule;
};

struct Seed000Run {
  std::vector<dse::DsePoint> points;       // models x hosts x crossbars x T_mvm, exact solver
  std::vector<dse::DsePoint> milp_points;  // the points also solved by the paper's MILP on CBC
  double milp_time_limit = 0;              // s per MILP
  std::map<std::string, Seed000HostInfo> hosts;    // by DSE host name ("arm", "x86")
  std::map<std::string, Seed000ModelInfo> models;  // by model name
  bool quick = false;
  std::optional<Seed000Gantt> gantt;
  std::optional<Seed000Calibration> calibration;  // with --calibrate
};

struct Seed001Run {
  cluster::ClusterConfig config;
  std::vector<cluster::RooflinePoint> roofline;  // Fig. 7 a-c panels
  cluster::BottleneckStudy bottleneck;           // Fig. 9 / 10 (paper mappings, cores first)
  cluster::DwCost dw;                            // the depth-wise engine on the Bottleneck's layer
  double dw_software_macs_per_cycle = 0;         // the cores on the same layer
  double peak_ops = 0;                           // IMA peak, op/s
  double attained_250_128_pipelined = 0;         // op/s at 100 % utilisation
};

// Seed 002: Table I (the chip profiles hetcim simulates, data/chips.yaml, beside the paper's), the
// Sec. V-D energy arithmetic (select/energy.h) at the paper's coverage, and with a study
// (`hetcim analog study`, read from its study.json) Table II, Table III and Fig. 2 a-c.
struct Seed002Chip {
  std::string name;
  double read_noise = 0, write_noise = 0;  // S
  double stuck_fraction = 0;               // [0, 1]
  double energy = 0, latency = 0;          // J, s (NaN when the profile has none)
};

struct Seed002Run {
  std::string chips_origin;  // the chips file read
  std::vector<Seed002Chip> chips;
  double coverage = 0;  // the coverage used for the energy arithmetic, [0, 1]
  std::string coverage_source;
  double fallback = 0;    // J
  double activation = 0;  // J, the selected accelerator (A0) switched on
  double ensemble = 0;    // J, every accelerator of the pool
  double selective = 0;   // J at `fallback`
  double break_even = 0;  // J
  std::vector<double> sweep_fallback, sweep_selective;  // J, Fig. 2(d)-style sweep
  // Table II, Table III and Fig. 2 a-c: a finished `hetcim analog study` (its study.json), or
  // none, and then the page names `study_command`, the command that produces one.
  std::optional<RaceStudyFile> study;
  // formats::StudyRecords::label ("2 of 5 models of the paper protocol (...)"), stated on every
  // table and figure drawn from the study; `study_shipped`: read from the shipped
  // data/seed002-study.
  std::string study_label;
  bool study_shipped = false;
  std::string study_command;
};

}  // namespace hetcim::results
