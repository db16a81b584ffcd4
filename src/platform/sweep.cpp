#include "platform/sweep.h"

#include <algorithm>

#include "cost/host_choice.h"
#include "util/error.h"
#include "util/numbers.h"
#include "util/paper_names.h"
#include "util/units.h"

namespace hetcim::platform {
namespace {

constexpr int64_t kMaxSweepPoints = 4096;

int64_t crossbar_count(const std::string& key, const std::string& v) {
  const std::optional<int64_t> n = parse_integer(v);
  if (!n || *n < 1 || *n > 4096)
    throw user_error("--sweep ", key, ": value '", v, "': expected a whole number of crossbars in ",
                     "[1, 4096]");
  return *n;
}

int64_t replica_count(const std::string& v) {
  const std::optional<int64_t> n = parse_integer(v);
  if (!n || *n < 1 || *n > 64)
    throw user_error("--sweep replicas: value '", v, "': expected a whole number of copies in ",
                     "[1, 64]");
  return *n;
}

bool has_seed000_cim(const Platform& p) {
  return std::any_of(p.engines.begin(), p.engines.end(),
                     [](const EngineSpec& e) { return e.cost == "seed000-cim"; });
}

int64_t bus_width(const std::string& v) {
  const std::string digits = v.ends_with("bit") ? v.substr(0, v.size() - 3) : v;
  const std::optional<int64_t> n = parse_integer(digits);
  if (!n || *n < 8 || *n % 8 != 0 || *n > (int64_t{1} << 20))
    throw user_error("--sweep bus_width: value '", v,
                     "': expected a width in bit that is a whole number of bytes (>= 8), e.g. "
                     "128 or 128bit");
  return *n;
}

bool boolean(const std::string& v, const std::string& key = "serial") {
  if (v == "true" || v == "yes" || v == "1") return true;
  if (v == "false" || v == "no" || v == "0") return false;
  throw user_error("--sweep ", key, ": value '", v, "': expected true or false");
}

std::string key_list() {
  std::string s;
  for (const SweepKey& k : sweep_keys()) s += (s.empty() ? "" : ", ") + k.name;
  return s;
}

void check_key(const std::string& key) {
  for (const SweepKey& k : sweep_keys())
    if (k.name == key) return;
  throw user_error("--sweep: unknown key '", key, "' (known: ", key_list(), ")");
}

// Parses without a platform: the value's own range (the platform is checked in apply_sweep).
void check_value(const std::string& key, const std::string& v) {
  if (key == "imas" || key == "crossbars") {
    (void)crossbar_count(key, v);
  } else if (key == "replicas") {
    (void)replica_count(v);
  } else if (key == "host") {
    cost::Hardware probe;
    cost::apply_host_choice(v, probe, "host");
  } else if (key == "bus_width") {
    (void)bus_width(v);
  } else if (key == "link_bandwidth") {
    (void)parse_positive_quantity(v, Quantity::Bandwidth, "--sweep link_bandwidth");
  } else if (key == "link_latency") {
    if (!(parse_quantity(v, Quantity::Time, "--sweep link_latency") >= 0))
      throw user_error("--sweep link_latency: value '", v, "': expected a latency >= 0");
  } else if (key == "serial" || key == "reprogram") {
    (void)boolean(v, key);
  } else if (key == "t_mvm") {
    (void)parse_positive_quantity(v, Quantity::Time, "--sweep t_mvm");
  }
}

}  // namespace

const std::vector<SweepKey>& sweep_keys() {
  static const std::vector<SweepKey> keys = {
      {"imas", "crossbars of every pcm-ima engine (1..4096), as --imas"},
      {"crossbars", "crossbars of every crossbar engine (1..4096)"},
      {"bus_width",
       "the cluster's IMA data interface in bit (128 or 128bit), pulp-* and pcm-ima engines only"},
      {"link_bandwidth", "bandwidth of every link (e.g. 4GB/s)"},
      {"link_latency", "latency of every link (e.g. 50ns)"},
      {"serial", "every link carries one transfer at a time (true/false)"},
      {"reprogram",
       "every engine's crossbar reprogramming block enabled (true/false), as --reprogram"},
      {"t_mvm", "seconds per MVM of every rram-crossbars engine (e.g. 100ns)"},
      {"host",
       "the host of every host-cpu engine: arm, x86, a host model or a profile file, as "
       "partition's --host"},
      {"replicas",
       "up to R weight copies per operator on every rram-crossbars engine (1..64), as partition's "
       "--replicas"},
  };
  return keys;
}

SweepAxis parse_sweep(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw user_error("--sweep '", text, "': expected KEY=v1,v2,... (keys: ", key_list(), ")");
  SweepAxis a;
  a.key = text.substr(0, eq);
  check_key(a.key);
  const std::string rest = text.substr(eq + 1);
  size_t from = 0;
  while (true) {
    const size_t comma = rest.find(',', from);
    const std::string v = rest.substr(from, comma == std::string::npos ? comma : comma - from);
    if (v.empty()) throw user_error("--sweep ", a.key, ": an empty value in '", rest, "'");
    check_value(a.key, v);
    if (std::find(a.values.begin(), a.values.end(), v) != a.values.end())
      throw user_error("--sweep ", a.key, ": value '", v, "' is listed twice");
    a.values.push_back(v);
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return a;
}

void apply_sweep(Platform& p, const std::string& key, const std::string& value) {
  check_key(key);
  check_value(key, value);
  const auto none = [&](const char* what) {
    return user_error(key, ": platform '", preset_shown(p.name), "' has no ", what);
  };
  if (key == "imas" || key == "crossbars") {
    const int64_t n = crossbar_count(key, value);
    bool any = false;
    for (EngineSpec& e : p.engines)
      if (key == "imas" ? e.cost == "seed001-ima" : e.kind == "crossbar") {
        e.crossbars = n;
        any = true;
      }
    if (!any) throw none(key == "imas" ? "pcm-ima engine" : "crossbar engine");
  } else if (key == "reprogram") {
    bool any = false;
    for (EngineSpec& e : p.engines)
      if (e.reprogramming) {
        e.reprogramming->enabled = boolean(value, key);
        any = true;
      }
    if (!any) throw none("engine with a reprogramming block");
  } else if (key == "t_mvm") {
    apply_t_mvm(p, parse_positive_quantity(value, Quantity::Time, "--sweep t_mvm"));
  } else if (key == "host") {
    if (std::none_of(p.engines.begin(), p.engines.end(),
                     [](const EngineSpec& e) { return e.cost == "seed000-host"; }))
      throw none("host-cpu engine (the host of Klein et al.'s machines)");
    p.host = value;
  } else if (key == "replicas") {
    if (!has_seed000_cim(p))
      throw none("rram-crossbars engine (replicas are copies on Klein et al.'s RRAM crossbars)");
    p.replicas = replica_count(value);
  } else if (key == "bus_width") {
    if (std::none_of(p.engines.begin(), p.engines.end(),
                     [](const EngineSpec& e) { return e.cost.starts_with("seed001"); }))
      throw none("pulp-* or pcm-ima engine (the bus width is Garofalo et al.'s cluster's)");
    p.bus_width_bits = bus_width(value);
  } else {
    if (p.links.empty()) throw none("link");
    for (LinkSpec& l : p.links) {
      if (key == "link_bandwidth")
        l.bandwidth = parse_positive_quantity(value, Quantity::Bandwidth, "--sweep link_bandwidth");
      else if (key == "link_latency")
        l.latency = parse_quantity(value, Quantity::Time, "--sweep link_latency");
      else
        l.serial = boolean(value);
    }
  }
}

void apply_t_mvm(Platform& p, double seconds) {
  if (!has_seed000_cim(p))
    throw user_error("t_mvm: platform '", preset_shown(p.name),
                     "' has no rram-crossbars engine (T_mvm is the latency of Klein et al.'s RRAM "
                     "crossbars)");
  if (!(seconds > 0)) throw user_error("t_mvm: expected a time > 0");
  p.t_mvm = seconds;
}

std::vector<std::vector<std::string>> sweep_grid(const std::vector<SweepAxis>& axes) {
  for (size_t i = 0; i < axes.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (axes[i].key == axes[j].key)
        throw user_error("--sweep ", axes[i].key, ": the key is swept twice");
  std::vector<std::vector<std::string>> grid = {{}};
  for (const SweepAxis& a : axes) {
    std::vector<std::vector<std::string>> next;
    for (const auto& g : grid)
      for (const std::string& v : a.values) {
        next.push_back(g);
        next.back().push_back(v);
      }
    grid = std::move(next);
    if (static_cast<int64_t>(grid.size()) > kMaxSweepPoints)
      throw user_error("--sweep: the grid has more than ", kMaxSweepPoints, " points");
  }
  return grid;
}

}  // namespace hetcim::platform
