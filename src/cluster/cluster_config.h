// The heterogeneous PULP cluster of seed 001 (Garofalo et al., JETCAS 2022, Fig. 1) as plain data:
// 8 RISC-V cores, a word-interleaved TCDM, the PCM in-memory accelerator (IMA) behind an HWPE
// data interface of configurable width, and the depth-wise digital accelerator (DW). Read from
// YAML with human units and validated once (messages name the file and the field), or taken from
// the built-in preset `seed001`.
//
//   preset: seed001               # optional: start from a preset, then override fields
//   name: my-cluster
//   clock:   {frequency: 500MHz, voltage: 0.8V}          # the operating point of `bottleneck`
//   reference_clock: {frequency: 500MHz, voltage: 0.8V}  # where the digital powers below hold
//   operating_points: [{frequency: 500MHz, voltage: 0.8V}, {frequency: 250MHz, voltage: 0.65V}]
//   tcdm:    {size: 512KiB, banks: 32}
//   cores:   {count: 8, pointwise_mac_per_cycle: 15.5, depthwise_mac_per_cycle: 1.142,
//             eltwise_per_cycle: 4, marshal_bytes_per_cycle: 8, power: 40mW}
//   ima:     {crossbar: 256x256, t_mvm: 130ns, bus_width: 128bit, execution: pipelined,
//             config_cycles: 150, job_overhead_cycles: 0, e_job: 12.5nJ, power: 4mW}
//   dw:      {channels: 16, kernel: 3, inner_loop_cycles: 4, bytes_per_cycle: 16,
//             config_cycles: 100, power: 3mW}
//   base_power: 5mW
//   node: 22nm                    # the cluster's technology; ima.e_job is scaled to it
//   tcdm:    {size: 512KiB, banks: 32, contention: 0}     # contention: bank conflicts (area.h)
//   ima:     {e_job: 12.5nJ, e_job_node: 14nm, e_job_voltage: 0.8V}   # [27]'s figure
//   area:    {total: 2.5mm2, ima: 33.3%, tcdm: 33.3%, dw: 2.1%, interconnect: 5%,
//             reference_bus_width: 128bit, pipeline_digital_overhead: 40%,
//             pipeline_ima_overhead: 5%}
//
// Every figure that seed 001 does not print is an assumption; cluster_config.cpp gives the
// source or the reasoning of each, and src/cluster/README.md lists them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetcim::cluster {

enum class ImaExecution { Sequential, Pipelined };

[[nodiscard]] const char* execution_name(ImaExecution e);

struct OperatingPoint {
  double frequency = 500e6;  // Hz
  double voltage = 0.8;      // V
};

struct CoresConfig {
  int64_t count = 8;
  // Software kernels on all cores, int8, HWC for point-wise / CHW for depth-wise (PULP-NN style).
  double pointwise_mac_per_cycle = 15.5;   // assumption (PULP-NN on 8 cores), see .cpp
  double depthwise_mac_per_cycle = 1.142;  // calibrated: 29.7 MAC/cycle / 26 (seed 001)
  double eltwise_per_cycle = 4.0;          // int8 adds (residual, partial sums) per cycle
  double marshal_bytes_per_cycle = 8.0;    // HWC <-> CHW re-layout by the cores
  double power = 40e-3;                    // W, 8 cores busy incl. their TCDM traffic
};

struct ImaConfig {
  int64_t rows = 256;            // crossbar inputs (word-lines)
  int64_t cols = 256;            // crossbar outputs (bit-lines)
  double t_mvm = 130e-9;         // analog MVM latency (s); independent of the cluster clock
  int64_t bus_width_bits = 128;  // HWPE data interface: 32..512 bit in the paper's sweep
  ImaExecution execution = ImaExecution::Pipelined;
  int64_t in_bytes = 1;             // bytes per input element (8-bit DAC inputs)
  int64_t out_bytes = 1;            // bytes per output element (8-bit ADC outputs)
  int64_t config_cycles = 150;      // per layer: acquire, register writes, trigger, wake-up
  int64_t job_overhead_cycles = 0;  // per job beyond the three phases
  // J per analog MVM of the whole macro incl. DAC/ADC, as measured at e_job_node and
  // e_job_voltage (the 14 nm PCM core of [27]); the model scales it to the cluster's node
  // (ima_job_energy(), seed 001 Sec. V-A: power x a b^2, a the dimensional, b the voltage ratio).
  double e_job = 12.5e-9;
  double e_job_node = 14e-9;   // m, the node of the measurement ([27]: 14 nm)
  double e_job_voltage = 0.8;  // V of the measurement (assumed equal to the cluster's 0.8 V)
  double power = 4e-3;         // W, digital IMA subsystem (streamer, buffers, FSM) while busy
  // Share of stream cycles that win their TCDM banks: 1 = no bank conflicts. Not a YAML field:
  // the cluster's models set it from the TCDM (area.h ima_with_tcdm).
  double stream_efficiency = 1.0;
};

struct DwConfig {
  int64_t channels = 16;          // channels per block (weight buffer 3x3x16)
  int64_t kernel = 3;             // K x K depth-wise kernels only
  int64_t inner_loop_cycles = 4;  // per output pixel of one 16-channel block
  int64_t bytes_per_cycle = 16;   // streamer bandwidth (one 16-channel pixel per cycle)
  int64_t config_cycles = 100;    // per layer
  double power = 3e-3;            // W while busy
};

// The area of the built design (seed 001 Fig. 6: pipelined IMA, reference_bus_width_bits, a
// 512 kB TCDM) and how its parts scale away from it (cluster/area.h).
struct AreaConfig {
  double total = 2.5e-6;                    // m^2 (2.5 mm^2, seed 001 Fig. 6)
  double ima_share = 1.0 / 3.0;             // ~1/3 (seed 001), the pipelined IMA subsystem
  double tcdm_share = 1.0 / 3.0;            // ~1/3 (seed 001) for 512 kB; scales with the TCDM size
  double dw_share = 0.021;                  // 2.1 % (seed 001)
  double interconnect_share = 0.05;         // assumed: the logarithmic interconnect (LIC)
  int64_t reference_bus_width_bits = 128;   // the IMA data interface of the built design
  double pipeline_digital_overhead = 0.40;  // seed 001 Sec. IV-B: +40 % of the digital logic
  double pipeline_ima_overhead = 0.05;      // seed 001 Sec. IV-B: +5 % of the IMA subsystem
};

struct ClusterConfig {
  std::string name = "seed001";
  OperatingPoint clock;            // the operating point of the Bottleneck study
  OperatingPoint reference_clock;  // the operating point at which the digital powers hold
  std::vector<OperatingPoint> operating_points = {{500e6, 0.8}, {250e6, 0.65}};
  int64_t tcdm_bytes = 512 * 1024;
  int64_t tcdm_banks = 32;
  // TCDM bank conflicts (an option, cluster/area.h tcdm_bus_efficiency): the probability that
  // each core accesses the TCDM in a cycle while an accelerator streams. 0 (the default): the
  // cores sleep clock-gated while the IMA or DW engine runs (seed 001 Sec. III), no conflicts.
  double tcdm_contention = 0.0;
  double node = 22e-9;  // m, the cluster's technology (GF 22FDX, seed 001 Sec. V-A)
  CoresConfig cores;
  ImaConfig ima;
  DwConfig dw;
  double base_power = 5e-3;  // W: cluster with cores clock-gated (TCDM, interconnect, clock tree)
  AreaConfig area;
};

// The reference TCDM size of the area shares (seed 001: 512 kB).
inline constexpr int64_t kReferenceTcdmBytes = 512 * 1024;

// Upper limits of validate(), far beyond any real cluster; they keep every cycle count of the
// model (products of t_mvm x frequency, jobs and layer sizes) well inside int64.
inline constexpr double kMaxFrequency = 10e9;         // Hz
inline constexpr double kMaxTmvm = 1e-3;              // s
inline constexpr int64_t kMaxBusWidthBits = 1 << 20;  // bit

// Throws UserError (naming `origin` and the field) unless every figure is in range.
void validate(const ClusterConfig& c, const std::string& origin);

[[nodiscard]] std::vector<std::string> cluster_preset_names();
[[nodiscard]] ClusterConfig cluster_preset(const std::string& name);

[[nodiscard]] ClusterConfig parse_cluster_yaml(const std::string& text, const std::string& origin);
[[nodiscard]] ClusterConfig load_cluster(const std::string& path);

// The energy of one IMA job at the cluster's node: ima.e_job x a x b^2 with a = node /
// ima.e_job_node and b = reference_clock.voltage / ima.e_job_voltage (seed 001 Sec. V-A scales
// the power of [27]'s 14 nm PCM core to 22 nm this way, at constant frequency and latency).
[[nodiscard]] double ima_job_energy(const ClusterConfig& c);

// Digital power scaled from the reference operating point by f * V^2 (dynamic power).
[[nodiscard]] double scale_power(double power_at_reference, const ClusterConfig& c,
                                 const OperatingPoint& at);

}  // namespace hetcim::cluster
