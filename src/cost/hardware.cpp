#include "cost/hardware.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "cost/host_model.h"
#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/paper_names.h"
#include "util/units.h"
#include "util/yaml_fields.h"

namespace hetcim::cost {
using yaml_fields::check_keys;
using yaml_fields::integer;
using yaml_fields::nonneg_quantity;
using yaml_fields::positive_quantity;
using yaml_fields::scalar;

namespace {

// Energy per byte: "40pJ/B" or "40pJ" (the per-byte is in the field's name).
double energy_per_byte(const YAML::Node& n, const std::string& field, const std::string& origin) {
  std::string s = scalar(n, field, origin);
  if (s.size() > 2 && s.ends_with("/B")) s.resize(s.size() - 2);
  const double v = parse_quantity(s, Quantity::Energy, origin + ": field '" + field + "' (J/B)");
  if (!(v >= 0)) throw user_error(origin, ": field '", field, "' must be >= 0");
  return v;
}

}  // namespace

HostPower host_power(const HostSpec& host) {
  HostPower p;
  if (!host.power || !host.idle_power) {
    const HostModel& m = host_model_preset(host.model);
    p.active = m.active_power;
    p.idle = m.idle_power;
  }
  if (host.power) p.active = *host.power;
  if (host.idle_power) p.idle = *host.idle_power;
  return p;
}

// The names for the machines first (util/paper_names.h), then the registry names they stand for.
std::vector<std::string> hardware_preset_names() {
  return {"cortex-a72-rram", "ryzen9-rram", "seed000-arm", "seed000-x86"};
}

Hardware hardware_preset(const std::string& given) {
  const std::string name = preset_registry_name(given, PresetKind::Hardware);
  Hardware h;
  h.name = name;
  if (name == "seed000-arm") {
    h.host.model = "arm-cortex-a72";
    h.bus_bandwidth = 10.24e9;
    // ASSUMPTION: the bus moves a tensor through LPDDR4 (the Pi 4's memory), commonly quoted at
    // about 5 pJ/bit for array access plus interface -> 40 pJ/B.
    h.bus_e_byte = 40e-12;
  } else if (name == "seed000-x86") {
    h.host.model = "ryzen9-3900x";
    h.bus_bandwidth = 20.48e9;
    // ASSUMPTION: DDR4 DIMMs with the PHY and memory controller, about 15 pJ/bit -> 120 pJ/B
    // (below the 20-40 pJ/bit of a 64-bit DRAM access in Horowitz, ISSCC 2014, "Computing's
    // energy problem", which predates DDR4).
    h.bus_e_byte = 120e-12;
  } else {
    throw user_error("unknown hardware preset '", given, "' (known: cortex-a72-rram, ryzen9-rram)");
  }
  h.cim.bandwidth = h.bus_bandwidth;
  return h;
}

Hardware parse_hardware_yaml(const std::string& text, const std::string& origin) {
  const YAML::Node root = yaml_fields::load(text, origin);
  Hardware h;
  h.name = origin;
  bool cim_bandwidth_given = false;
  try {
    if (!root || root.IsNull()) throw user_error(origin, ": the file is empty");
    check_keys(root, "", {"name", "preset", "host", "cim", "bus"}, origin);
    if (root["preset"]) h = hardware_preset(scalar(root["preset"], "preset", origin));
    if (root["name"]) h.name = scalar(root["name"], "name", origin);
    if (const YAML::Node host = root["host"]) {
      check_keys(host, "host", {"model", "profile", "power", "idle_power"}, origin);
      if (host["model"] && host["profile"])
        throw user_error(origin, ": give either host.model or host.profile, not both");
      if (host["model"]) {
        h.host.model = scalar(host["model"], "host.model", origin);
        h.host.profile.clear();
        (void)host_model_preset(h.host.model);
      }
      if (host["profile"]) h.host.profile = scalar(host["profile"], "host.profile", origin);
      if (host["power"])
        h.host.power = nonneg_quantity(host["power"], "host.power", Quantity::Power, origin);
      if (host["idle_power"])
        h.host.idle_power =
            nonneg_quantity(host["idle_power"], "host.idle_power", Quantity::Power, origin);
    }
    if (const YAML::Node bus = root["bus"]) {
      check_keys(bus, "bus", {"bandwidth", "e_byte"}, origin);
      if (bus["bandwidth"])
        h.bus_bandwidth =
            positive_quantity(bus["bandwidth"], "bus.bandwidth", Quantity::Bandwidth, origin);
      if (bus["e_byte"]) h.bus_e_byte = energy_per_byte(bus["e_byte"], "bus.e_byte", origin);
    }
    if (const YAML::Node cim = root["cim"]) {
      check_keys(cim, "cim",
                 {"crossbar", "crossbars", "t_mvm", "bandwidth", "elem_bytes", "e_mvm", "e_byte",
                  "static_power"},
                 origin);
      if (cim["crossbar"]) {
        const std::string s = scalar(cim["crossbar"], "cim.crossbar", origin);
        const std::optional<Dims> d = parse_dims(s);
        if (!d)
          throw user_error(
              origin, ": field 'cim.crossbar' must be ROWSxCOLS such as 256x256, got '", s, "'");
        h.cim.xbar_rows = d->rows;
        h.cim.xbar_cols = d->cols;
        if (h.cim.xbar_rows <= 0 || h.cim.xbar_cols <= 0)
          throw user_error(origin, ": field 'cim.crossbar' must have positive sides, got '", s,
                           "'");
      }
      if (cim["crossbars"]) h.cim.crossbars = integer(cim["crossbars"], "cim.crossbars", 1, origin);
      if (cim["t_mvm"])
        h.cim.t_mvm = positive_quantity(cim["t_mvm"], "cim.t_mvm", Quantity::Time, origin);
      if (cim["bandwidth"]) {
        h.cim.bandwidth =
            positive_quantity(cim["bandwidth"], "cim.bandwidth", Quantity::Bandwidth, origin);
        cim_bandwidth_given = true;
      }
      if (cim["elem_bytes"])
        h.cim.elem_bytes = integer(cim["elem_bytes"], "cim.elem_bytes", 1, origin);
      if (cim["e_mvm"])
        h.cim.e_mvm = nonneg_quantity(cim["e_mvm"], "cim.e_mvm", Quantity::Energy, origin);
      if (cim["e_byte"]) h.cim.e_byte = energy_per_byte(cim["e_byte"], "cim.e_byte", origin);
      if (cim["static_power"])
        h.cim.static_power =
            nonneg_quantity(cim["static_power"], "cim.static_power", Quantity::Power, origin);
    }
  } catch (const YAML::Exception& e) {
    throw user_error(origin, ": line ", e.mark.line + 1, ": ", e.msg);
  }
  if (!cim_bandwidth_given) h.cim.bandwidth = h.bus_bandwidth;  // seed 000: B_cim = B_shared
  return h;
}

Hardware load_hardware(const std::string& path) {
  return parse_hardware_yaml(read_input_file(path, "hardware description"), path);
}

}  // namespace hetcim::cost
