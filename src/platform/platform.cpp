#include "platform/platform.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "cost/hardware.h"
#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/paper_names.h"
#include "util/yaml_fields.h"

namespace hetcim::platform {

using yaml_fields::check_keys;
using yaml_fields::nonneg_quantity;
using yaml_fields::positive_quantity;
using yaml_fields::scalar;
using yaml_fields::where;

const std::vector<std::string>& engine_kinds() {
  static const std::vector<std::string> k = {"cpu", "crossbar", "depthwise"};
  return k;
}

const std::vector<std::string>& cost_models(const std::string& kind) {
  static const std::vector<std::string> cpu = {"seed001-cores", "seed000-host"};
  static const std::vector<std::string> xbar = {"seed001-ima", "seed000-cim"};
  static const std::vector<std::string> dw = {"seed001-dw"};
  static const std::vector<std::string> none;
  if (kind == "cpu") return cpu;
  if (kind == "crossbar") return xbar;
  if (kind == "depthwise") return dw;
  return none;
}

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

}  // namespace

void validate(const Platform& p, const std::string& origin) {
  if (p.engines.empty())
    throw user_error(where(origin, "engines"), ": expected at least one engine");
  std::set<std::string> names;
  for (size_t i = 0; i < p.engines.size(); ++i) {
    const EngineSpec& e = p.engines[i];
    const std::string f = "engines[" + std::to_string(i) + "]";
    if (e.name.empty()) throw user_error(where(origin, f + ".name"), ": expected a name");
    if (!names.insert(e.name).second)
      throw user_error(where(origin, f + ".name"), ": engine '", e.name, "' is defined twice");
    const auto& kinds = engine_kinds();
    if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end())
      throw user_error(where(origin, f + ".kind"), ": unknown engine kind '", e.kind,
                       "' (expected ", joined(kinds), ")");
    const auto& costs = cost_models(e.kind);
    if (std::find(costs.begin(), costs.end(), e.cost) == costs.end()) {
      std::vector<std::string> shown;
      for (const std::string& c : costs) shown.push_back(preset_shown(c));
      throw user_error(where(origin, f + ".cost"), ": '", preset_shown(e.cost),
                       "' is not a cost model of a ", e.kind, " engine (expected ", joined(shown),
                       ")");
    }
    if (e.kind == "crossbar") {
      if (!e.crossbars)
        throw user_error(where(origin, f + ".crossbars"),
                         ": a crossbar engine needs its number of crossbars (>= 1)");
      if (*e.crossbars < 1)
        throw user_error(where(origin, f + ".crossbars"), ": zero capacity (", *e.crossbars,
                         " crossbars); expected >= 1");
    } else if (e.crossbars) {
      throw user_error(where(origin, f + ".crossbars"), ": only crossbar engines have crossbars");
    }
    for (const auto& [field, w] :
         {std::pair{"power", e.power}, std::pair{"idle_power", e.idle_power},
          std::pair{"static_power", e.static_power}})
      if (w && !(std::isfinite(*w) && *w >= 0))
        throw user_error(where(origin, f + "." + field), ": expected a finite power >= 0");
    if (e.idle_power && *e.idle_power > 0 && e.one_at_a_time && !*e.one_at_a_time)
      throw user_error(where(origin, f + ".idle_power"),
                       ": an idle power needs an engine that runs one job at a time");
    if (e.reprogramming) {
      const std::string rf = where(origin, f + ".reprogramming");
      if (e.kind != "crossbar") throw user_error(rf, ": only crossbar engines are reprogrammed");
      validate(*e.reprogramming, rf);
      if (e.reprogramming->enabled && !e.one_at_a_time.value_or(e.cost != "seed000-cim"))
        throw user_error(rf,
                         ": reprogramming needs an engine that runs one job at a time (its "
                         "reprogrammed operators share one area); set one_at_a_time: true");
    }
  }
  std::map<std::string, size_t> group_of;
  for (size_t g = 0; g < p.exclusive.size(); ++g) {
    const std::string f = "exclusive[" + std::to_string(g) + "]";
    if (p.exclusive[g].size() < 2)
      throw user_error(where(origin, f), ": a group needs at least two engines");
    std::set<std::string> seen;
    for (const std::string& e : p.exclusive[g]) {
      if (!names.count(e))
        throw user_error(where(origin, f), ": no engine named '", e, "' (engines: ",
                         joined(std::vector<std::string>(names.begin(), names.end())), ")");
      if (!seen.insert(e).second)
        throw user_error(where(origin, f), ": engine '", e, "' is listed twice");
      if (group_of.count(e))
        throw user_error(where(origin, f), ": engine '", e, "' is already in exclusive[",
                         group_of[e], "]; an engine is in at most one group");
      group_of[e] = g;
    }
  }
  std::set<std::pair<std::string, std::string>> joined_pairs;
  for (size_t l = 0; l < p.links.size(); ++l) {
    const LinkSpec& k = p.links[l];
    const std::string f = "links[" + std::to_string(l) + "]";
    if (k.engines.size() < 2)
      throw user_error(where(origin, f + ".engines"), ": a link joins at least two engines");
    for (size_t i = 0; i < k.engines.size(); ++i) {
      if (!names.count(k.engines[i]))
        throw user_error(where(origin, f + ".engines"), ": link '", k.name,
                         "' names a missing engine '", k.engines[i], "'");
      for (size_t j = 0; j < i; ++j) {
        if (k.engines[j] == k.engines[i])
          throw user_error(where(origin, f + ".engines"), ": engine '", k.engines[i],
                           "' is listed twice");
        if (!joined_pairs.insert(std::minmax(k.engines[i], k.engines[j])).second)
          throw user_error(where(origin, f + ".engines"), ": engines '", k.engines[j], "' and '",
                           k.engines[i], "' are already joined by another link");
      }
    }
    if (!(k.bandwidth > 0) || !std::isfinite(k.latency) || k.latency < 0 ||
        !std::isfinite(k.e_byte) || k.e_byte < 0)
      throw user_error(where(origin, f), ": bandwidth must be > 0, latency and e_byte >= 0");
  }
}

std::vector<std::string> platform_preset_names() {
  // The names for the machines first (util/paper_names.h), then the registry names.
  return {"cortex-a72-rram", "ryzen9-rram", "pulp-pcm-cluster",
          "seed000-arm",     "seed000-x86", "seed001-cluster"};
}

Platform platform_preset(const std::string& given, int64_t imas) {
  const std::string name = preset_registry_name(given, PresetKind::Platform);
  Platform p;
  p.name = name;
  if (name == "seed000-arm" || name == "seed000-x86") {
    // Seed 000: the host and the RRAM accelerator of the hardware preset, one shared bus whose
    // figures come from the same preset (platform/build.cpp takes them from cost::Hardware).
    const cost::Hardware hw = cost::hardware_preset(name);
    p.hardware = name;
    p.engines = {
        {"host", "cpu", "seed000-host", {}, true, {}, {}, {}},
        {"cim", "crossbar", "seed000-cim", imas > 0 ? imas : hw.cim.crossbars, false, {}, {}, {}}};
    p.links = {{"bus", {"host", "cim"}, 0.0, hw.bus_bandwidth, false, hw.bus_e_byte}};
    return p;
  }
  if (name == "seed001-cluster") {
    // Seed 001: everything shares the TCDM (no transfer time: the engines read and write it in
    // place); the IMA and the DW engine share the port and never run together.
    p.cluster = "seed001";
    p.engines = {{"cores", "cpu", "seed001-cores", {}, true, {}, {}, {}},
                 {"ima", "crossbar", "seed001-ima", imas > 0 ? imas : 1, true, {}, {}, {}, {}},
                 {"dw", "depthwise", "seed001-dw", {}, true, {}, {}, {}}};
    // The IMA is a PCM array (seed 001 Sec. V-B, [27]): the PCM figures, off unless requested.
    p.engines[1].reprogramming = reprogramming_preset("pcm");
    p.engines[1].reprogramming->enabled = false;
    p.exclusive = {{"ima", "dw"}};
    p.links = {{"tcdm", {"cores", "ima", "dw"}, 0.0, 1e30, false, 0.0}};
    return p;
  }
  throw user_error("unknown platform '", given, "' (presets: ", joined(platform_preset_names()),
                   "; or a YAML file)");
}

namespace {

std::vector<std::string> name_list(const YAML::Node& n, const std::string& field,
                                   const std::string& origin) {
  if (!n.IsSequence()) throw user_error(where(origin, field), ": expected a list of engine names");
  std::vector<std::string> out;
  for (size_t i = 0; i < n.size(); ++i)
    out.push_back(scalar(n[i], field + "[" + std::to_string(i) + "]", origin));
  return out;
}

bool boolean(const YAML::Node& n, const std::string& field, const std::string& origin) {
  const std::string s = scalar(n, field, origin);
  if (s == "true") return true;
  if (s == "false") return false;
  throw user_error(where(origin, field), ": expected true or false, got '", s, "'");
}

ReprogrammingSpec reprogramming_of(const YAML::Node& n, const std::string& field,
                                   const std::string& origin) {
  const auto preset = [&](const YAML::Node& x, const std::string& f) {
    const std::string name = scalar(x, f, origin);
    const auto names = reprogramming_preset_names();
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw user_error(where(origin, f), ": unknown reprogramming preset '", name, "' (expected ",
                       joined(names), ", or a mapping of write figures)");
    return reprogramming_preset(name);
  };
  if (n.IsScalar()) return preset(n, field);
  if (!n.IsMap())
    throw user_error(where(origin, field),
                     ": expected a preset name or a mapping of write figures");
  check_keys(n, field,
             {"preset", "enabled", "write_time_per_row", "write_time_per_cell",
              "write_time_per_array", "write_energy_per_cell", "endurance", "source"},
             origin);
  ReprogrammingSpec r;
  r.source = "given in " + origin;
  if (n["preset"]) r = preset(n["preset"], field + ".preset");
  bool time_given = false;
  for (const char* key : {"write_time_per_row", "write_time_per_cell", "write_time_per_array"})
    if (n[key]) {
      if (!time_given) {
        r.write_time_per_row.reset();
        r.write_time_per_cell.reset();
        r.write_time_per_array.reset();
      }
      time_given = true;
      const double t = nonneg_quantity(n[key], field + "." + key, Quantity::Time, origin);
      std::string k = key;
      (k == "write_time_per_row"    ? r.write_time_per_row
       : k == "write_time_per_cell" ? r.write_time_per_cell
                                    : r.write_time_per_array) = t;
    }
  if (n["write_energy_per_cell"])
    r.write_energy_per_cell = nonneg_quantity(
        n["write_energy_per_cell"], field + ".write_energy_per_cell", Quantity::Energy, origin);
  if (n["endurance"]) {
    const std::string s = scalar(n["endurance"], field + ".endurance", origin);
    const std::optional<double> v = parse_finite(s);
    if (!v || *v < 1)
      throw user_error(where(origin, field + ".endurance"),
                       ": expected the writes a cell survives (a number >= 1, e.g. 1e8), got '", s,
                       "'");
    r.endurance = *v;
  }
  if (n["source"]) r.source = scalar(n["source"], field + ".source", origin);
  if (n["enabled"]) r.enabled = boolean(n["enabled"], field + ".enabled", origin);
  return r;
}

}  // namespace

Platform parse_platform_yaml(const std::string& text, const std::string& origin) {
  const YAML::Node root = yaml_fields::load(text, origin);
  Platform p;
  p.name = origin;
  try {
    if (!root || root.IsNull()) throw user_error(origin, ": the file is empty");
    check_keys(root, "", {"name", "cluster", "hardware", "engines", "exclusive", "links"}, origin);
    if (root["name"]) p.name = scalar(root["name"], "name", origin);
    if (root["cluster"]) p.cluster = scalar(root["cluster"], "cluster", origin);
    if (root["hardware"]) p.hardware = scalar(root["hardware"], "hardware", origin);
    const YAML::Node engines = root["engines"];
    if (!engines || !engines.IsSequence())
      throw user_error(where(origin, "engines"), ": expected a list of engines");
    for (size_t i = 0; i < engines.size(); ++i) {
      const YAML::Node e = engines[i];
      const std::string f = "engines[" + std::to_string(i) + "]";
      check_keys(e, f,
                 {"name", "kind", "cost", "crossbars", "one_at_a_time", "power", "idle_power",
                  "static_power", "reprogramming"},
                 origin);
      EngineSpec s;
      for (const char* required : {"name", "kind", "cost"})
        if (!e[required]) throw user_error(where(origin, f + "." + required), ": missing");
      s.name = scalar(e["name"], f + ".name", origin);
      s.kind = scalar(e["kind"], f + ".kind", origin);
      // A cost model by the machine part it models (pcm-ima) or its first name (seed001-ima).
      s.cost = preset_registry_name(scalar(e["cost"], f + ".cost", origin), PresetKind::EngineCost);
      if (e["crossbars"])
        s.crossbars = yaml_fields::integer(e["crossbars"], f + ".crossbars",
                                           std::numeric_limits<int64_t>::min(), origin);
      if (e["one_at_a_time"])
        s.one_at_a_time = boolean(e["one_at_a_time"], f + ".one_at_a_time", origin);
      if (e["power"]) s.power = nonneg_quantity(e["power"], f + ".power", Quantity::Power, origin);
      if (e["idle_power"])
        s.idle_power = nonneg_quantity(e["idle_power"], f + ".idle_power", Quantity::Power, origin);
      if (e["static_power"])
        s.static_power =
            nonneg_quantity(e["static_power"], f + ".static_power", Quantity::Power, origin);
      if (e["reprogramming"])
        s.reprogramming = reprogramming_of(e["reprogramming"], f + ".reprogramming", origin);
      p.engines.push_back(std::move(s));
    }
    if (const YAML::Node ex = root["exclusive"]) {
      if (!ex.IsSequence())
        throw user_error(where(origin, "exclusive"), ": expected a list of groups");
      for (size_t g = 0; g < ex.size(); ++g)
        p.exclusive.push_back(name_list(ex[g], "exclusive[" + std::to_string(g) + "]", origin));
    }
    if (const YAML::Node links = root["links"]) {
      if (!links.IsSequence())
        throw user_error(where(origin, "links"), ": expected a list of links");
      for (size_t l = 0; l < links.size(); ++l) {
        const YAML::Node k = links[l];
        const std::string f = "links[" + std::to_string(l) + "]";
        check_keys(k, f, {"name", "engines", "latency", "bandwidth", "serial", "e_byte"}, origin);
        LinkSpec s;
        s.name = k["name"] ? scalar(k["name"], f + ".name", origin) : "link" + std::to_string(l);
        if (!k["engines"]) throw user_error(where(origin, f + ".engines"), ": missing");
        s.engines = name_list(k["engines"], f + ".engines", origin);
        if (k["latency"])
          s.latency = nonneg_quantity(k["latency"], f + ".latency", Quantity::Time, origin);
        if (k["bandwidth"])
          s.bandwidth =
              positive_quantity(k["bandwidth"], f + ".bandwidth", Quantity::Bandwidth, origin);
        if (k["serial"]) s.serial = boolean(k["serial"], f + ".serial", origin);
        if (k["e_byte"])
          s.e_byte = nonneg_quantity(k["e_byte"], f + ".e_byte", Quantity::Energy, origin);
        p.links.push_back(std::move(s));
      }
    }
  } catch (const YAML::Exception& e) {
    throw user_error(origin, ": malformed platform (line ", e.mark.line + 1, "): ", e.msg);
  }
  validate(p, origin);
  return p;
}

Platform load_platform(const std::string& path) {
  return parse_platform_yaml(read_input_file(path, "platform description"), path);
}

Platform resolve_platform(const std::string& name_or_path, std::optional<int64_t> imas,
                          bool reprogram) {
  if (imas && *imas < 1) throw user_error("imas: expected >= 1 crossbars, got ", *imas);
  const auto presets = platform_preset_names();
  Platform p;
  if (std::find(presets.begin(), presets.end(), name_or_path) != presets.end()) {
    p = platform_preset(name_or_path, imas.value_or(0));
  } else if (name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml")) {
    p = load_platform(name_or_path);
  } else {
    p = platform_preset(name_or_path);  // the error lists the presets
  }
  if (imas)
    for (EngineSpec& e : p.engines)
      if (e.cost == "seed001-ima") e.crossbars = *imas;
  if (reprogram) {
    bool any = false;
    for (EngineSpec& e : p.engines)
      if (e.reprogramming) {
        e.reprogramming->enabled = true;
        any = true;
      }
    if (!any)
      throw user_error("reprogram: platform '", preset_shown(name_or_path),
                       "' has no engine with a reprogramming block (engines[i].reprogramming)");
  }
  validate(p, name_or_path);
  return p;
}

}  // namespace hetcim::platform
