// A platform of K engines (issue 12) as plain data, read from YAML with units (util/yaml_fields.h)
// or taken from a preset, and validated once with messages that name the file and the field.
//
//   name: my-soc
//   cluster: seed001            # the cluster whose cycle models the seed001-* costs use (preset
//                               # name or a cluster YAML file, cluster/cluster_config.h)
//   hardware: seed000-arm       # the CPU + CIM system the seed000-* costs use (cost/hardware.h)
//   engines:
//     - {name: host, kind: cpu, cost: seed001-cores}
//     - {name: tile0, kind: crossbar, cost: seed001-ima, crossbars: 1}
//     - {name: tile1, kind: crossbar, cost: seed001-ima, crossbars: 1}
//     - {name: dw, kind: depthwise, cost: seed001-dw}
//   exclusive: [[tile0, tile1, dw]]   # engines that share a port: never two of them at once
//   links:
//     - {name: bus, engines: [host, tile0, tile1, dw], bandwidth: 4GB/s, latency: 0ns,
//        serial: true, e_byte: 1pJ}
//
// Engine kinds and the operators they support:
//   cpu        every operator;                  costs: seed001-cores, seed000-host
//   crossbar   Conv / Gemm / MatMul with a constant weight matrix (workload's offloadable);
//              costs: seed001-ima (row/column tiles over 256x256 crossbars, row-tile partial
//              sums added on the cores; depth-wise 3x3 layers also as c_job = 8 / 16 slices),
//              seed000-cim (seed 000's eqs. 1-3; every operator on its own crossbars)
//   depthwise  3x3 depth-wise convolutions;     costs: seed001-dw
// Fields of an engine: name, kind, cost, crossbars (crossbar engines: the capacity, >= 1; the
// weights of all operators mapped to the engine stay resident), one_at_a_time (default: true,
// except seed000-cim), power / idle_power / static_power (W; default: the cost model's),
// reprogramming (crossbar engines that run one job at a time: a preset name or the write figures,
// platform/reprogramming.h; each operator is then kept resident or rewritten at every inference,
// as the solver decides).
// A link joins >= 2 engines: any two of them exchange tensors over it (latency + bytes /
// bandwidth; serial: one transfer at a time). Engines that no link joins cannot exchange tensors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/reprogramming.h"

namespace hetcim::platform {

struct EngineSpec {
  std::string name;
  std::string kind;  // cpu | crossbar | depthwise
  std::string cost;  // seed001-cores | seed000-host | seed001-ima | seed000-cim | seed001-dw
  std::optional<int64_t> crossbars;  // crossbar engines: capacity in crossbars (>= 1)
  std::optional<bool> one_at_a_time;
  std::optional<double> power;                       // W while running
  std::optional<double> idle_power;                  // W while idle (one-at-a-time engines)
  std::optional<double> static_power;                // W for the whole inference
  std::optional<ReprogrammingSpec> reprogramming{};  // crossbar engines: write figures (may be off)
};

struct LinkSpec {
  std::string name;
  std::vector<std::string> engines;
  double latency = 0.0;     // s
  double bandwidth = 1e30;  // B/s
  bool serial = false;
  double e_byte = 0.0;  // J/B
};

struct Platform {
  std::string name = "custom";
  std::string cluster = "seed001";       // preset name or cluster YAML path
  std::string hardware = "seed000-arm";  // cost::hardware_preset name or hardware YAML path
  std::vector<EngineSpec> engines;
  std::vector<std::vector<std::string>> exclusive;
  std::vector<LinkSpec> links;
  // Replaces the cluster's IMA data interface width (cluster ima.bus_width) when set: the
  // `bus_width` sweep key (sweep.h).
  std::optional<int64_t> bus_width_bits;
  // Replaces the hardware's seconds per MVM (cost::CimParams::t_mvm, seed 000's T_mvm) for every
  // seed000-cim engine when set: the `t_mvm` sweep key (sweep.h).
  std::optional<double> t_mvm;
  // Up to this many copies of an operator's weights on every seed000-cim engine (seed 000's
  // replicas, partition/build.h: R copies run ceil(N_mvm / R) MVMs; one option per copy count that
  // fits the engine and shortens the operator) when set: the `replicas` sweep key (sweep.h).
  std::optional<int64_t> replicas;
  // The host of every seed000-host engine (arm, x86, a host model or a profile file:
  // cost/host_choice.h) in place of the hardware's when set: the `host` sweep key (sweep.h).
  std::optional<std::string> host;
};

[[nodiscard]] const std::vector<std::string>& engine_kinds();
[[nodiscard]] const std::vector<std::string>& cost_models(const std::string& kind);

// UserError naming `origin` and the field: unknown kind or cost, a cost of another kind, zero
// (or missing) crossbars on a crossbar engine, an engine named twice, a link or group naming a
// missing engine or one engine twice, an engine in two groups.
void validate(const Platform& p, const std::string& origin);

// "seed000-arm", "seed000-x86" (seed 000's CPU + RRAM accelerator: host + cim, one bus) and
// "seed001-cluster" (8 cores, the IMA with `imas` crossbars, the DW engine, IMA and DW exclusive,
// everything on the shared TCDM; the IMA carries the PCM reprogramming figures, disabled).
[[nodiscard]] std::vector<std::string> platform_preset_names();
// `imas` > 0 replaces the crossbars of the crossbar engine (default: 1 IMA crossbar; seed 000's
// budget of the hardware preset, 100).
[[nodiscard]] Platform platform_preset(const std::string& name, int64_t imas = 0);

[[nodiscard]] Platform parse_platform_yaml(const std::string& text, const std::string& origin);
[[nodiscard]] Platform load_platform(const std::string& path);

// A preset name or a YAML file; `imas` (when set) replaces the crossbars of every seed001-ima
// engine; `reprogram` enables every engine's reprogramming block (UserError if none has one).
[[nodiscard]] Platform resolve_platform(const std::string& name_or_path,
                                        std::optional<int64_t> imas = std::nullopt,
                                        bool reprogram = false);

}  // namespace hetcim::platform
