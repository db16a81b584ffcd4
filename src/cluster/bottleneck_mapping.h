// Seed 001, Sec. V-C and Fig. 8-10: the MobileNetV2 Bottleneck (point-wise expand -> 3x3
// depth-wise -> point-wise project, + residual) on the heterogeneous cluster under the mappings
//   cores       everything in software on the 8 cores
//   ima-cjobN   point-wise and depth-wise on the IMA (depth-wise in slices of N channels)
//   hybrid      point-wise on the IMA, depth-wise on the cores (+ HWC -> CHW marshaling)
//   ima+dw      point-wise on the IMA, depth-wise on the DW accelerator
// The residual add (and the partial sums of point-wise layers taller than the crossbar) always
// run on the cores. Layers run one after the other (the IMA and the DW engine share the TCDM
// ports and are never active together). The default shape (zoo/bottleneck.h: 16x16x120,
// expansion 5) was chosen to match the facts the paper states about Fig. 8 (a calibration).
//
// Energy = base_power * T + cores.power * T_cores + ima.power * T_ima + dw.power * T_dw
//          + ima.e_job * jobs   (digital powers scaled from reference_clock to clock by f V^2)
// Area: the cluster (area.total) holds one crossbar; a mapping that programs more crossbar cells
// than one crossbar has is charged ima_share * total per further crossbar's worth of cells
// (fractional: the paper's "split over multiple IMAs" at ideal packing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/cluster_config.h"
#include "zoo/bottleneck.h"

namespace hetcim::cluster {

struct Mapping {
  enum class Kind { Cores, ImaOnly, Hybrid, ImaDw } kind = Kind::Cores;
  int64_t c_job = 0;  // ImaOnly: channels per depth-wise job
};

// "cores", "ima-cjob8" (any c_job >= 1 after "ima-cjob"), "hybrid", "ima+dw"; UserError otherwise.
[[nodiscard]] Mapping parse_mapping(const std::string& name);
[[nodiscard]] std::string mapping_name(const Mapping& m);
[[nodiscard]] std::vector<Mapping> paper_mappings();  // the five of Fig. 9, cores first

struct LayerCost {
  std::string layer;   // pw_expand, dw, dw_marshal, pw_project, partial_sums, residual
  std::string engine;  // cores, ima, dw
  int64_t cycles = 0;
  int64_t macs = 0;   // MACs (additions for residual and partial sums)
  int64_t jobs = 0;   // IMA jobs
  double energy = 0;  // J, the layer's engine (dynamic) share; base power is in the total
};

struct MappingResult {
  Mapping mapping;
  std::vector<LayerCost> layers;
  int64_t cycles = 0;
  double seconds = 0;
  double ops = 0;  // 2 * MACs + additions of the block (the same for every mapping)
  double gops = 0;
  double energy = 0;         // J
  double gops_per_watt = 0;  // = ops / energy / 1e9
  double area = 0;           // m^2
  double gops_per_mm2 = 0;
  int64_t ima_devices = 0;   // crossbar cells programmed (weights and padding zeros)
  double ima_crossbars = 0;  // ima_devices / (R * C)
  // Relative to the first mapping of the study (cores in paper_mappings()).
  double speedup = 0, energy_gain = 0, area_gain = 0;
};

// A point-wise layer of the block on the IMA: what it needs of crossbars.
struct PointwiseFootprint {
  std::string layer;     // pw_expand, pw_project
  int64_t rows = 0;      // GeMM inputs (crossbar rows needed)
  int64_t cols = 0;      // GeMM outputs
  int64_t tiles = 0;     // ceil(rows / R) x ceil(cols / C) crossbar tiles of the tiling
  int64_t cells = 0;     // rows x cols
  double crossbars = 0;  // cells / (R x C): crossbars' worth at ideal packing (what is charged)
};

struct BottleneckStudy {
  zoo::BottleneckShape shape;
  // true when the shape is zoo/bottleneck.h's default, the one CHOSEN to match the paper's 25 % /
  // 54 % / ~4 % / 23x / 512 kB statements (a calibration of the unknown Fig. 8 shape).
  bool default_shape = false;
  std::vector<PointwiseFootprint> pointwise;  // the point-wise layers on the crossbar
  int64_t weights = 0;                        // int8 parameters of the three convolutions
  int64_t activation_bytes = 0;               // input + expanded + depth-wise output + output, int8
  bool fits_tcdm = false;                     // weights + activations <= tcdm_bytes
  std::vector<MappingResult> results;
};

// Cycles of `work` units on the cores at `per_cycle` units per cycle: ceil(work / per_cycle),
// the rounding every cores layer of bottleneck_study uses (calibration.h evaluates it too).
[[nodiscard]] int64_t cores_cycles(int64_t work, double per_cycle);

// Runs each mapping on `shape` at config.clock. UserError for a shape the model cannot map
// (no expansion layer, a depth-wise slice larger than the crossbar).
[[nodiscard]] BottleneckStudy bottleneck_study(const ClusterConfig& config,
                                               const zoo::BottleneckShape& shape,
                                               const std::vector<Mapping>& mappings);

}  // namespace hetcim::cluster
