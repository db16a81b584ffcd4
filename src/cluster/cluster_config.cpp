#include "cluster/cluster_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/paper_names.h"
#include "util/units.h"
#include "util/yaml_fields.h"

namespace hetcim::cluster {
using yaml_fields::check_keys;
using yaml_fields::integer;
using yaml_fields::nonneg_quantity;
using yaml_fields::positive_quantity;
using yaml_fields::scalar;
using yaml_fields::where;

namespace {

// A plain number followed by `suffix` (e.g. "0.8V", "2.5mm2", "33%"), strictly parsed.
double number_with_suffix(const YAML::Node& n, const std::string& field, const std::string& suffix,
                          const std::string& example, const std::string& origin) {
  std::string s = scalar(n, field, origin);
  const auto bad = [&] {
    return user_error(where(origin, field), ": expected a number with the unit '", suffix,
                      "' such as \"", example, "\", got '", s, "'");
  };
  if (!s.ends_with(suffix)) throw bad();
  const std::optional<double> v = parse_finite(s.substr(0, s.size() - suffix.size()));
  if (!v) throw bad();
  return *v;
}

double positive_number(const YAML::Node& n, const std::string& field, const std::string& origin) {
  const std::string s = scalar(n, field, origin);
  const std::optional<double> v = parse_finite(s);
  if (!v || !(*v > 0))
    throw user_error(where(origin, field), " must be a positive number, got '", s, "'");
  return *v;
}

OperatingPoint operating_point(const YAML::Node& n, const std::string& field,
                               const std::string& origin) {
  check_keys(n, field, {"frequency", "voltage"}, origin);
  if (!n["frequency"] || !n["voltage"])
    throw user_error(origin, ": '", field, "' needs both frequency and voltage");
  OperatingPoint p;
  p.frequency =
      positive_quantity(n["frequency"], field + ".frequency", Quantity::Frequency, origin);
  p.voltage = number_with_suffix(n["voltage"], field + ".voltage", "V", "0.8V", origin);
  return p;
}

double nanometres(const YAML::Node& n, const std::string& field, const std::string& origin) {
  const double nm = number_with_suffix(n, field, "nm", "22nm", origin);
  if (!(nm >= 1 && nm <= 1000))
    throw user_error(where(origin, field), " must be from 1nm to 1000nm, got '",
                     scalar(n, field, origin), "'");
  return nm * 1e-9;
}

double share(const YAML::Node& n, const std::string& field, const std::string& origin) {
  return number_with_suffix(n, field, "%", "33.3%", origin) / 100.0;
}

}  // namespace

const char* execution_name(ImaExecution e) {
  return e == ImaExecution::Sequential ? "sequential" : "pipelined";
}

void validate(const ClusterConfig& c, const std::string& origin) {
  const auto fail = [&](const std::string& field, const std::string& what) {
    return user_error(origin, ": field '", field, "' ", what);
  };
  const auto check_point = [&](const OperatingPoint& p, const std::string& field) {
    if (!(p.frequency > 0 && p.frequency <= kMaxFrequency))
      throw fail(field + ".frequency", "must be in (0, 10 GHz]");
    if (!(p.voltage > 0 && p.voltage <= 100))
      throw fail(field + ".voltage", "must be in (0, 100V]");
  };
  check_point(c.clock, "clock");
  check_point(c.reference_clock, "reference_clock");
  if (c.operating_points.empty()) throw fail("operating_points", "must list at least one point");
  for (size_t i = 0; i < c.operating_points.size(); ++i)
    check_point(c.operating_points[i], "operating_points[" + std::to_string(i) + "]");
  if (c.tcdm_bytes <= 0) throw fail("tcdm.size", "must be positive");
  if (c.tcdm_banks <= 0) throw fail("tcdm.banks", "must be positive");
  if (c.cores.count <= 0) throw fail("cores.count", "must be positive");
  if (!(c.cores.pointwise_mac_per_cycle > 0))
    throw fail("cores.pointwise_mac_per_cycle", "must be positive");
  if (!(c.cores.depthwise_mac_per_cycle > 0))
    throw fail("cores.depthwise_mac_per_cycle", "must be positive");
  if (!(c.cores.eltwise_per_cycle > 0)) throw fail("cores.eltwise_per_cycle", "must be positive");
  if (!(c.cores.marshal_bytes_per_cycle > 0))
    throw fail("cores.marshal_bytes_per_cycle", "must be positive");
  if (!(c.cores.power >= 0)) throw fail("cores.power", "must be >= 0");
  if (c.ima.rows <= 0 || c.ima.cols <= 0) throw fail("ima.crossbar", "must have positive sides");
  if (!(c.ima.t_mvm > 0 && c.ima.t_mvm <= kMaxTmvm))
    throw fail("ima.t_mvm", "must be in (0, 1ms] (the model counts cycles in 64-bit integers)");
  if (c.ima.bus_width_bits < 8 || c.ima.bus_width_bits % 8 != 0 ||
      c.ima.bus_width_bits > kMaxBusWidthBits)
    throw fail("ima.bus_width", "must be a whole number of bytes (>= 8bit), got " +
                                    std::to_string(c.ima.bus_width_bits) + "bit");
  if (c.ima.in_bytes <= 0) throw fail("ima.in_bytes", "must be positive");
  if (c.ima.out_bytes <= 0) throw fail("ima.out_bytes", "must be positive");
  if (c.ima.config_cycles < 0) throw fail("ima.config_cycles", "must be >= 0");
  if (c.ima.job_overhead_cycles < 0) throw fail("ima.job_overhead_cycles", "must be >= 0");
  if (!(c.ima.e_job >= 0)) throw fail("ima.e_job", "must be >= 0");
  if (!(c.ima.power >= 0)) throw fail("ima.power", "must be >= 0");
  if (c.dw.channels <= 0) throw fail("dw.channels", "must be positive");
  if (c.dw.kernel <= 0) throw fail("dw.kernel", "must be positive");
  if (c.dw.inner_loop_cycles <= 0) throw fail("dw.inner_loop_cycles", "must be positive");
  if (c.dw.bytes_per_cycle <= 0) throw fail("dw.bytes_per_cycle", "must be positive");
  if (c.dw.config_cycles < 0) throw fail("dw.config_cycles", "must be >= 0");
  if (!(c.dw.power >= 0)) throw fail("dw.power", "must be >= 0");
  if (!(c.base_power >= 0)) throw fail("base_power", "must be >= 0");
  if (!(c.area.total > 0)) throw fail("area.total", "must be positive");
  for (const auto& [v, f] :
       {std::pair{c.area.ima_share, "area.ima"}, std::pair{c.area.tcdm_share, "area.tcdm"},
        std::pair{c.area.dw_share, "area.dw"}}) {
    if (!(v >= 0 && v <= 1)) throw fail(f, "must be a share between 0% and 100%");
  }
  if (!(c.area.interconnect_share >= 0 && c.area.interconnect_share <= 1))
    throw fail("area.interconnect", "must be a share between 0% and 100%");
  if (c.area.ima_share + c.area.tcdm_share + c.area.dw_share + c.area.interconnect_share >
      1.0 + 1e-12)
    throw fail("area", "shares of ima, tcdm, dw and interconnect add up to more than 100%");
  if (c.area.reference_bus_width_bits < 8 || c.area.reference_bus_width_bits % 8 != 0 ||
      c.area.reference_bus_width_bits > kMaxBusWidthBits)
    throw fail("area.reference_bus_width", "must be a whole number of bytes (>= 8bit)");
  if (!(c.area.pipeline_digital_overhead > 0 && c.area.pipeline_digital_overhead <= 10))
    throw fail("area.pipeline_digital_overhead", "must be in (0%, 1000%]");
  if (!(c.area.pipeline_ima_overhead >= 0 &&
        c.area.pipeline_ima_overhead <= c.area.pipeline_digital_overhead))
    throw fail("area.pipeline_ima_overhead",
               "must be between 0% and area.pipeline_digital_overhead (the digital logic is part "
               "of the IMA)");
  if (!(c.tcdm_contention >= 0 && c.tcdm_contention <= 1))
    throw fail("tcdm.contention", "must be a probability in [0, 1]");
  if (!(c.node >= 1e-9 && c.node <= 1e-6)) throw fail("node", "must be in [1nm, 1000nm]");
  if (!(c.ima.e_job_node >= 1e-9 && c.ima.e_job_node <= 1e-6))
    throw fail("ima.e_job_node", "must be in [1nm, 1000nm]");
  if (!(c.ima.e_job_voltage > 0 && c.ima.e_job_voltage <= 10))
    throw fail("ima.e_job_voltage", "must be in (0V, 10V]");
}

std::vector<std::string> cluster_preset_names() {
  return {"pulp-pcm-cluster",
          "seed001"};  // the machine's name (util/paper_names.h), the registry's
}

ClusterConfig cluster_preset(const std::string& given) {
  if (preset_registry_name(given, PresetKind::Cluster) != "seed001")
    throw user_error("unknown cluster preset '", given, "' (known: pulp-pcm-cluster)");
  // Printed in seed 001: 8 cores; 500 MHz at 0.8 V and 250 MHz at 0.65 V; 512 kB TCDM in 32
  // banks; a 256x256 PCM crossbar with a 130 ns MVM; 8-bit DAC inputs and ADC outputs; IMA data
  // interface 32..512 bit, 128 bit and pipelined for the Bottleneck study at 500 MHz; DW engine
  // with a 3x3x16 weight buffer, a 4-cycle inner loop and 16 B/cycle; 2.5 mm^2 with ~1/3 IMA,
  // ~1/3 TCDM and 2.1 % DW. Everything else is an ASSUMPTION, each explained here:
  ClusterConfig c;
  c.name = "seed001";
  // cores.pointwise_mac_per_cycle 15.5: PULP-NN (Garofalo et al., Phil. Trans. R. Soc. A 2020,
  //   the library seed 001 cites as [36]) reports about 15.5 MAC/cycle for 8-bit convolutions on
  //   8 RI5CY cores; a point-wise layer is its best case. Not from seed 001.
  // cores.depthwise_mac_per_cycle 1.142: CALIBRATED to seed 001's statement that the DW engine
  //   (29.7 MAC/cycle) is 26x software: 29.7 / 26 = 1.142. The 26x is therefore not a prediction.
  // cores.eltwise_per_cycle 4: an int8 residual add costs per core ~2 loads, a SIMD add with
  //   clipping, a store and loop control per 4 elements, ~8 cycles -> 0.5 element/cycle/core.
  // cores.marshal_bytes_per_cycle 8: HWC -> CHW re-layout, one byte per core per cycle (a load
  //   and a store per byte, dual-ported through the 1-cycle LIC, no SIMD).
  // cores.power 40 mW: ~10 pJ per core-cycle incl. its instruction cache and TCDM accesses at
  //   0.8 V in 22 nm (order of magnitude of published PULP clusters), x 8 cores x 500 MHz.
  // ima.config_cycles 150: acquire register read, ~20 register writes over the peripheral
  //   interconnect (~5 cycles each), trigger, end-of-computation event and core wake-up.
  // ima.job_overhead_cycles 0: the register file strides through all jobs of a layer (seed 001
  //   Sec. IV-B: "a whole layer can be executed with only one configuration phase").
  // ima.e_job 12.5 nJ: the 10.5 TOPS/W of the PCM core of [27] (Khaddam-Aljameh et al., HERMES)
  //   at 256x256x2 ops per MVM; charged per MVM regardless of how many rows/columns a job uses
  //   (the DACs and ADCs of the macro run on every MVM).
  // ima.power 4 mW, dw.power 3 mW, base_power 5 mW: the digital streamer/FSM of each engine and the
  //   clock-gated cluster (TCDM leakage, interconnect, clock tree), set small against cores.power.
  // ima.config_cycles / dw.config_cycles 100: see above; the DW engine has fewer registers.
  return c;
}

double ima_job_energy(const ClusterConfig& c) {
  const double a = c.node / c.ima.e_job_node;
  const double b = c.reference_clock.voltage / c.ima.e_job_voltage;
  return c.ima.e_job * a * b * b;
}

double scale_power(double power_at_reference, const ClusterConfig& c, const OperatingPoint& at) {
  const double f = at.frequency / c.reference_clock.frequency;
  const double v = at.voltage / c.reference_clock.voltage;
  return power_at_reference * f * v * v;
}

ClusterConfig parse_cluster_yaml(const std::string& text, const std::string& origin) {
  const YAML::Node root = yaml_fields::load(text, origin);
  ClusterConfig c = cluster_preset("seed001");
  c.name = origin;
  try {
    if (!root || root.IsNull()) throw user_error(origin, ": the file is empty");
    check_keys(root, "",
               {"preset", "name", "node", "clock", "reference_clock", "operating_points", "tcdm",
                "cores", "ima", "dw", "base_power", "area"},
               origin);
    if (root["preset"]) {
      const std::string preset = scalar(root["preset"], "preset", origin);
      const auto names = cluster_preset_names();
      if (std::find(names.begin(), names.end(), preset) == names.end())
        throw user_error(where(origin, "preset"), ": unknown cluster preset '", preset,
                         "' (known: pulp-pcm-cluster)");
      c = cluster_preset(preset);
    }
    if (root["name"]) c.name = scalar(root["name"], "name", origin);
    if (root["node"]) c.node = nanometres(root["node"], "node", origin);
    if (root["clock"]) c.clock = operating_point(root["clock"], "clock", origin);
    if (root["reference_clock"])
      c.reference_clock = operating_point(root["reference_clock"], "reference_clock", origin);
    if (const YAML::Node ops = root["operating_points"]) {
      if (!ops.IsSequence()) throw user_error(origin, ": field 'operating_points' must be a list");
      c.operating_points.clear();
      for (size_t i = 0; i < ops.size(); ++i)
        c.operating_points.push_back(
            operating_point(ops[i], "operating_points[" + std::to_string(i) + "]", origin));
    }
    if (const YAML::Node t = root["tcdm"]) {
      check_keys(t, "tcdm", {"size", "banks", "contention"}, origin);
      if (t["contention"]) {
        const std::string v = scalar(t["contention"], "tcdm.contention", origin);
        const std::optional<double> p = parse_finite(v);
        if (!p || *p < 0 || *p > 1)
          throw user_error(where(origin, "tcdm.contention"),
                           " must be a probability from 0 to 1, got '", v, "'");
        c.tcdm_contention = *p;
      }
      if (t["size"]) {
        const double b = positive_quantity(t["size"], "tcdm.size", Quantity::Bytes, origin);
        c.tcdm_bytes = static_cast<int64_t>(std::llround(b));
      }
      if (t["banks"]) c.tcdm_banks = integer(t["banks"], "tcdm.banks", 1, origin);
    }
    if (const YAML::Node k = root["cores"]) {
      check_keys(k, "cores",
                 {"count", "pointwise_mac_per_cycle", "depthwise_mac_per_cycle",
                  "eltwise_per_cycle", "marshal_bytes_per_cycle", "power"},
                 origin);
      if (k["count"]) c.cores.count = integer(k["count"], "cores.count", 1, origin);
      if (k["pointwise_mac_per_cycle"])
        c.cores.pointwise_mac_per_cycle =
            positive_number(k["pointwise_mac_per_cycle"], "cores.pointwise_mac_per_cycle", origin);
      if (k["depthwise_mac_per_cycle"])
        c.cores.depthwise_mac_per_cycle =
            positive_number(k["depthwise_mac_per_cycle"], "cores.depthwise_mac_per_cycle", origin);
      if (k["eltwise_per_cycle"])
        c.cores.eltwise_per_cycle =
            positive_number(k["eltwise_per_cycle"], "cores.eltwise_per_cycle", origin);
      if (k["marshal_bytes_per_cycle"])
        c.cores.marshal_bytes_per_cycle =
            positive_number(k["marshal_bytes_per_cycle"], "cores.marshal_bytes_per_cycle", origin);
      if (k["power"])
        c.cores.power = nonneg_quantity(k["power"], "cores.power", Quantity::Power, origin);
    }
    if (const YAML::Node m = root["ima"]) {
      check_keys(
          m, "ima",
          {"crossbar", "t_mvm", "bus_width", "execution", "in_bytes", "out_bytes", "config_cycles",
           "job_overhead_cycles", "e_job", "e_job_node", "e_job_voltage", "power"},
          origin);
      if (m["crossbar"]) {
        const std::string s = scalar(m["crossbar"], "ima.crossbar", origin);
        const std::optional<Dims> d = parse_dims(s);
        if (!d)
          throw user_error(where(origin, "ima.crossbar"),
                           " must be ROWSxCOLS such as 256x256, got '", s, "'");
        c.ima.rows = d->rows;
        c.ima.cols = d->cols;
      }
      if (m["t_mvm"])
        c.ima.t_mvm = positive_quantity(m["t_mvm"], "ima.t_mvm", Quantity::Time, origin);
      if (m["bus_width"]) {
        const double bits =
            number_with_suffix(m["bus_width"], "ima.bus_width", "bit", "128bit", origin);
        if (bits != std::floor(bits) || bits < 8 || std::fmod(bits, 8.0) != 0.0 ||
            bits > static_cast<double>(kMaxBusWidthBits))
          throw user_error(where(origin, "ima.bus_width"),
                           " must be a multiple of 8bit from 8bit to ", kMaxBusWidthBits,
                           "bit, got '", scalar(m["bus_width"], "ima.bus_width", origin), "'");
        c.ima.bus_width_bits = static_cast<int64_t>(bits);
      }
      if (m["execution"]) {
        const std::string e = scalar(m["execution"], "ima.execution", origin);
        if (e == "sequential")
          c.ima.execution = ImaExecution::Sequential;
        else if (e == "pipelined")
          c.ima.execution = ImaExecution::Pipelined;
        else
          throw user_error(where(origin, "ima.execution"),
                           " must be sequential or pipelined, got '", e, "'");
      }
      if (m["in_bytes"]) c.ima.in_bytes = integer(m["in_bytes"], "ima.in_bytes", 1, origin);
      if (m["out_bytes"]) c.ima.out_bytes = integer(m["out_bytes"], "ima.out_bytes", 1, origin);
      if (m["config_cycles"])
        c.ima.config_cycles = integer(m["config_cycles"], "ima.config_cycles", 0, origin);
      if (m["job_overhead_cycles"])
        c.ima.job_overhead_cycles =
            integer(m["job_overhead_cycles"], "ima.job_overhead_cycles", 0, origin);
      if (m["e_job"])
        c.ima.e_job = nonneg_quantity(m["e_job"], "ima.e_job", Quantity::Energy, origin);
      if (m["e_job_node"]) c.ima.e_job_node = nanometres(m["e_job_node"], "ima.e_job_node", origin);
      if (m["e_job_voltage"]) {
        c.ima.e_job_voltage =
            number_with_suffix(m["e_job_voltage"], "ima.e_job_voltage", "V", "0.8V", origin);
      }
      if (m["power"])
        c.ima.power = nonneg_quantity(m["power"], "ima.power", Quantity::Power, origin);
    }
    if (const YAML::Node d = root["dw"]) {
      check_keys(
          d, "dw",
          {"channels", "kernel", "inner_loop_cycles", "bytes_per_cycle", "config_cycles", "power"},
          origin);
      if (d["channels"]) c.dw.channels = integer(d["channels"], "dw.channels", 1, origin);
      if (d["kernel"]) c.dw.kernel = integer(d["kernel"], "dw.kernel", 1, origin);
      if (d["inner_loop_cycles"])
        c.dw.inner_loop_cycles = integer(d["inner_loop_cycles"], "dw.inner_loop_cycles", 1, origin);
      if (d["bytes_per_cycle"])
        c.dw.bytes_per_cycle = integer(d["bytes_per_cycle"], "dw.bytes_per_cycle", 1, origin);
      if (d["config_cycles"])
        c.dw.config_cycles = integer(d["config_cycles"], "dw.config_cycles", 0, origin);
      if (d["power"]) c.dw.power = nonneg_quantity(d["power"], "dw.power", Quantity::Power, origin);
    }
    if (root["base_power"])
      c.base_power = nonneg_quantity(root["base_power"], "base_power", Quantity::Power, origin);
    if (const YAML::Node a = root["area"]) {
      check_keys(a, "area",
                 {"total", "ima", "tcdm", "dw", "interconnect", "reference_bus_width",
                  "pipeline_digital_overhead", "pipeline_ima_overhead"},
                 origin);
      if (a["total"]) {
        const double mm2 = number_with_suffix(a["total"], "area.total", "mm2", "2.5mm2", origin);
        if (!(mm2 > 0)) throw user_error(where(origin, "area.total"), " must be positive");
        c.area.total = mm2 * 1e-6;
      }
      if (a["ima"]) c.area.ima_share = share(a["ima"], "area.ima", origin);
      if (a["tcdm"]) c.area.tcdm_share = share(a["tcdm"], "area.tcdm", origin);
      if (a["dw"]) c.area.dw_share = share(a["dw"], "area.dw", origin);
      if (a["interconnect"])
        c.area.interconnect_share = share(a["interconnect"], "area.interconnect", origin);
      if (a["reference_bus_width"]) {
        const double bits = number_with_suffix(a["reference_bus_width"], "area.reference_bus_width",
                                               "bit", "128bit", origin);
        if (bits != std::floor(bits) || bits < 8 || std::fmod(bits, 8.0) != 0.0 ||
            bits > static_cast<double>(kMaxBusWidthBits))
          throw user_error(where(origin, "area.reference_bus_width"),
                           " must be a multiple of 8bit from 8bit to ", kMaxBusWidthBits, "bit");
        c.area.reference_bus_width_bits = static_cast<int64_t>(bits);
      }
      if (a["pipeline_digital_overhead"])
        c.area.pipeline_digital_overhead =
            number_with_suffix(a["pipeline_digital_overhead"], "area.pipeline_digital_overhead",
                               "%", "40%", origin) /
            100.0;
      if (a["pipeline_ima_overhead"])
        c.area.pipeline_ima_overhead =
            number_with_suffix(a["pipeline_ima_overhead"], "area.pipeline_ima_overhead", "%", "5%",
                               origin) /
            100.0;
    }
  } catch (const YAML::Exception& e) {
    throw user_error(origin, ": line ", e.mark.line + 1, ": ", e.msg);
  }
  validate(c, origin);
  return c;
}

ClusterConfig load_cluster(const std::string& path) {
  return parse_cluster_yaml(read_input_file(path, "cluster description"), path);
}

}  // namespace hetcim::cluster
