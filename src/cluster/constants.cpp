#include "cluster/constants.h"

#include <cstdio>
#include <sstream>

namespace hetcim::cluster {
namespace {

std::string num(double v, const char* unit) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g%s", v, unit);
  return b;
}

}  // namespace

const char* constant_source_name(ConstantSource s) {
  switch (s) {
    case ConstantSource::Paper:
      return "paper";
    case ConstantSource::Derived:
      return "derived";
    case ConstantSource::Literature:
      return "literature";
    case ConstantSource::Assumed:
      return "assumed";
    case ConstantSource::Calibrated:
      return "CALIBRATED";
  }
  return "?";
}

std::vector<ConstantRow> constant_table(const ClusterConfig& c) {
  using S = ConstantSource;
  const ClusterConfig p = cluster_preset("seed001");
  std::vector<ConstantRow> rows;
  auto row = [&](const std::string& field, const std::string& value, const std::string& preset,
                 S source, const std::string& reference) {
    rows.push_back({field, value, source, reference, value == preset});
  };
  auto d = [](double v, const char* unit) { return num(v, unit); };
  row("clock.frequency / voltage",
      d(c.clock.frequency / 1e6, "MHz") + " / " + d(c.clock.voltage, "V"),
      d(p.clock.frequency / 1e6, "MHz") + " / " + d(p.clock.voltage, "V"), S::Paper,
      "Sec. V-C: the Bottleneck study at 500 MHz, 0.8 V (TT)");
  std::string ops, ops_p;
  for (const OperatingPoint& o : c.operating_points)
    ops += (ops.empty() ? "" : ", ") + d(o.frequency / 1e6, "MHz@") + d(o.voltage, "V");
  for (const OperatingPoint& o : p.operating_points)
    ops_p += (ops_p.empty() ? "" : ", ") + d(o.frequency / 1e6, "MHz@") + d(o.voltage, "V");
  row("operating_points", ops, ops_p, S::Paper, "Sec. V-B: 500 MHz at 0.8 V, 250 MHz at 0.65 V");
  row("reference_clock",
      d(c.reference_clock.frequency / 1e6, "MHz") + " / " + d(c.reference_clock.voltage, "V"),
      d(p.reference_clock.frequency / 1e6, "MHz") + " / " + d(p.reference_clock.voltage, "V"),
      S::Assumed, "the operating point the digital powers below hold at (f V^2 scaling)");
  row("node", d(c.node * 1e9, "nm"), d(p.node * 1e9, "nm"), S::Paper,
      "Sec. V-A: GlobalFoundries 22FDX");
  row("tcdm.size", d(static_cast<double>(c.tcdm_bytes) / 1024, "KiB"),
      d(static_cast<double>(p.tcdm_bytes) / 1024, "KiB"), S::Paper, "Sec. III: 512 kB");
  row("tcdm.banks", d(static_cast<double>(c.tcdm_banks), ""),
      d(static_cast<double>(p.tcdm_banks), ""), S::Paper, "Sec. III: 32 banks, word-interleaved");
  row("tcdm.contention", d(c.tcdm_contention, ""), d(p.tcdm_contention, ""), S::Assumed,
      "0: the cores sleep clock-gated while an accelerator runs (Sec. III); > 0 an option");
  row("cores.count", d(static_cast<double>(c.cores.count), ""),
      d(static_cast<double>(p.cores.count), ""), S::Paper, "Sec. III: 8 RI5CY cores");
  row("cores.pointwise_mac_per_cycle", d(c.cores.pointwise_mac_per_cycle, ""),
      d(p.cores.pointwise_mac_per_cycle, ""), S::Literature,
      "PULP-NN (Garofalo et al., Phil. Trans. R. Soc. A 378, 2020; Garofalo et al. 2022's [36]): "
      "~15.5 "
      "MAC/cycle, 8-bit convolution on 8 cores");
  row("cores.depthwise_mac_per_cycle", d(c.cores.depthwise_mac_per_cycle, ""),
      d(p.cores.depthwise_mac_per_cycle, ""), S::Calibrated,
      "29.7 / 26: the paper's DW engine MAC/cycle over its 26x; the 26x is not a prediction");
  row("cores.eltwise_per_cycle", d(c.cores.eltwise_per_cycle, ""), d(p.cores.eltwise_per_cycle, ""),
      S::Assumed, "~8 cycles per 4 int8 adds per core (2 loads, SIMD add, clip, store)");
  row("cores.marshal_bytes_per_cycle", d(c.cores.marshal_bytes_per_cycle, ""),
      d(p.cores.marshal_bytes_per_cycle, ""), S::Assumed,
      "one byte per core per cycle, HWC -> CHW");
  row("cores.power", d(c.cores.power * 1e3, "mW"), d(p.cores.power * 1e3, "mW"), S::Assumed,
      "~10 pJ per core-cycle incl. I$ and TCDM at 0.8 V, 22 nm");
  row("ima.crossbar",
      d(static_cast<double>(c.ima.rows), "x") + d(static_cast<double>(c.ima.cols), ""),
      d(static_cast<double>(p.ima.rows), "x") + d(static_cast<double>(p.ima.cols), ""), S::Paper,
      "Sec. V-B: 256x256 PCM array of [27]");
  row("ima.t_mvm", d(c.ima.t_mvm * 1e9, "ns"), d(p.ima.t_mvm * 1e9, "ns"), S::Paper,
      "Sec. V-B: 130 ns ([27]); constant across nodes and clocks");
  row("ima.bus_width", d(static_cast<double>(c.ima.bus_width_bits), "bit"),
      d(static_cast<double>(p.ima.bus_width_bits), "bit"), S::Paper,
      "Sec. V-B/C: 128 bit chosen, 32..512 bit swept");
  row("ima.execution", execution_name(c.ima.execution), execution_name(p.ima.execution), S::Paper,
      "Sec. V-C: pipelined for the Bottleneck");
  row("ima.in_bytes / out_bytes",
      d(static_cast<double>(c.ima.in_bytes), " / ") + d(static_cast<double>(c.ima.out_bytes), ""),
      d(static_cast<double>(p.ima.in_bytes), " / ") + d(static_cast<double>(p.ima.out_bytes), ""),
      S::Paper, "Sec. III: 8-bit DACs and ADCs (row-tile partial sums at 8 bit: a simplification)");
  row("ima.config_cycles", d(static_cast<double>(c.ima.config_cycles), ""),
      d(static_cast<double>(p.ima.config_cycles), ""), S::Assumed,
      "acquire, ~20 register writes at ~5 cycles, trigger, wake-up");
  row("ima.job_overhead_cycles", d(static_cast<double>(c.ima.job_overhead_cycles), ""),
      d(static_cast<double>(p.ima.job_overhead_cycles), ""), S::Assumed,
      "0: one configuration per layer (Sec. IV-B); `cluster calibrate` fits it to Fig. 9");
  row("ima.e_job", d(c.ima.e_job * 1e9, "nJ"), d(p.ima.e_job * 1e9, "nJ"), S::Literature,
      "10.5 TOPS/W of the 14 nm PCM core of [27] (Khaddam-Aljameh et al., HERMES, JSSC 2022) x "
      "131,072 ops");
  row("ima.e_job_node", d(c.ima.e_job_node * 1e9, "nm"), d(p.ima.e_job_node * 1e9, "nm"),
      S::Literature, "[27] is a 14 nm chip; scaled to `node` by a b^2 (Sec. V-A)");
  row("ima.e_job_voltage", d(c.ima.e_job_voltage, "V"), d(p.ima.e_job_voltage, "V"), S::Assumed,
      "taken equal to the cluster's 0.8 V (b = 1)");
  row("ima.power", d(c.ima.power * 1e3, "mW"), d(p.ima.power * 1e3, "mW"), S::Assumed,
      "digital streamer, buffers and FSM while busy");
  row("dw.channels / kernel",
      d(static_cast<double>(c.dw.channels), " / ") + d(static_cast<double>(c.dw.kernel), ""),
      d(static_cast<double>(p.dw.channels), " / ") + d(static_cast<double>(p.dw.kernel), ""),
      S::Paper, "Sec. IV-C: 3x3x16 weight buffer");
  row("dw.inner_loop_cycles", d(static_cast<double>(c.dw.inner_loop_cycles), ""),
      d(static_cast<double>(p.dw.inner_loop_cycles), ""), S::Paper, "Sec. IV-C, Fig. 5: 4 cycles");
  row("dw.bytes_per_cycle", d(static_cast<double>(c.dw.bytes_per_cycle), ""),
      d(static_cast<double>(p.dw.bytes_per_cycle), ""), S::Paper, "Sec. IV-C: 16 B/cycle");
  row("dw.config_cycles", d(static_cast<double>(c.dw.config_cycles), ""),
      d(static_cast<double>(p.dw.config_cycles), ""), S::Assumed,
      "fewer registers than the IMA's 150");
  row("dw.power", d(c.dw.power * 1e3, "mW"), d(p.dw.power * 1e3, "mW"), S::Assumed,
      "digital engine while busy");
  row("base_power", d(c.base_power * 1e3, "mW"), d(p.base_power * 1e3, "mW"), S::Assumed,
      "clock-gated cluster: TCDM leakage, interconnect, clock tree");
  row("area.total", d(c.area.total * 1e6, "mm2"), d(p.area.total * 1e6, "mm2"), S::Paper,
      "Sec. V-A, Fig. 6: 2.5 mm^2");
  row("area.ima / tcdm", d(c.area.ima_share * 100, "% / ") + d(c.area.tcdm_share * 100, "%"),
      d(p.area.ima_share * 100, "% / ") + d(p.area.tcdm_share * 100, "%"), S::Paper,
      "Sec. V-A: ~1/3 IMA, ~1/3 TCDM");
  row("area.dw", d(c.area.dw_share * 100, "%"), d(p.area.dw_share * 100, "%"), S::Paper,
      "Sec. V-A: 2.1 %");
  row("area.interconnect", d(c.area.interconnect_share * 100, "%"),
      d(p.area.interconnect_share * 100, "%"), S::Assumed,
      "the LIC's share of the built design (not printed); linear in the bus width (Sec. V-B)");
  row("area.reference_bus_width", d(static_cast<double>(c.area.reference_bus_width_bits), "bit"),
      d(static_cast<double>(p.area.reference_bus_width_bits), "bit"), S::Assumed,
      "the built design of Fig. 6 taken as the 128-bit, pipelined one of Sec. V-C");
  row("area.pipeline_digital_overhead", d(c.area.pipeline_digital_overhead * 100, "%"),
      d(p.area.pipeline_digital_overhead * 100, "%"), S::Paper, "Sec. IV-B: +40 % digital logic");
  row("area.pipeline_ima_overhead", d(c.area.pipeline_ima_overhead * 100, "%"),
      d(p.area.pipeline_ima_overhead * 100, "%"), S::Paper, "Sec. IV-B: +5 % of the IMA");
  return rows;
}

}  // namespace hetcim::cluster
