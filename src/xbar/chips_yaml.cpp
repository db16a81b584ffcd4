#include "xbar/chips_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/shipped_data.h"
#include "util/units.h"
#include "util/yaml_fields.h"

namespace hetcim::xbar {
namespace {

struct FieldContext {
  std::string_view source;
  const std::string& profile;
  std::string field;

  [[nodiscard]] std::string where() const {
    return std::string(source) + ": chip profile '" + profile + "': field '" + field + "'";
  }
};

std::string scalar(const YAML::Node& n, const FieldContext& c) {
  if (!n.IsScalar()) throw user_error(c.where(), ": expected a scalar value");
  return n.Scalar();
}

double parse_number(std::string_view text, const FieldContext& c) {
  const std::optional<double> v = parse_finite(text);
  if (!v) throw user_error(c.where(), ": expected a number, got '", text, "'");
  return *v;
}

int parse_int(const YAML::Node& n, const FieldContext& c) {
  const std::string s = scalar(n, c);
  const std::optional<int64_t> v = parse_integer(s);
  if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max())
    throw user_error(c.where(), ": expected an integer, got '", s, "'");
  return static_cast<int>(*v);
}

double parse_percent(const YAML::Node& n, const FieldContext& c) {
  std::string s = scalar(n, c);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.empty() || s.back() != '%')
    throw user_error(c.where(), ": expected a percentage such as \"0.02%\", got '", s,
                     "' (a bare number would be ambiguous)");
  s.pop_back();
  return parse_number(s, c) / 100.0;
}

void parse_array(const YAML::Node& n, const FieldContext& c, ChipProfile& p) {
  const std::string s = scalar(n, c);
  const std::optional<Dims> d = parse_dims(s);
  if (!d) throw user_error(c.where(), ": expected rows x cols such as \"256x256\", got '", s, "'");
  p.array_rows = d->rows;
  p.array_cols = d->cols;
}

void apply_fields(const YAML::Node& fields, std::string_view source, ChipProfile& p) {
  if (!fields.IsMap())
    throw user_error(source, ": chip profile '", p.name, "': expected a mapping of fields");
  for (const auto& kv : fields) {
    const std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    FieldContext c{source, p.name, key};
    auto conductance = [&] {
      return parse_quantity(scalar(v, c), Quantity::Conductance, c.where());
    };
    if (key == "g_min") {
      p.g_min = conductance();
    } else if (key == "g_max") {
      p.g_max = conductance();
    } else if (key == "write_noise") {
      p.write_noise = conductance();
    } else if (key == "read_noise") {
      p.read_noise = conductance();
    } else if (key == "device_bits") {
      p.device_bits = parse_int(v, c);
    } else if (key == "dac_bits") {
      p.dac_bits = parse_int(v, c);
    } else if (key == "adc_bits") {
      p.adc_bits = parse_int(v, c);
    } else if (key == "stuck") {
      p.stuck_fraction = parse_percent(v, c);
    } else if (key == "stuck_high_share") {
      p.stuck_high_share = parse_number(scalar(v, c), c);
    } else if (key == "adc_ranging") {
      const std::string s = scalar(v, c);
      if (s == "max_abs") {
        p.adc_ranging = AdcRanging::MaxAbsPerVector;
      } else if (s == "fixed") {
        p.adc_ranging = AdcRanging::Fixed;
      } else {
        throw user_error(c.where(), ": expected 'max_abs' or 'fixed', got '", s, "'");
      }
    } else if (key == "adc_full_scale") {
      p.adc_full_scale = parse_number(scalar(v, c), c);
    } else if (key == "array") {
      parse_array(v, c, p);
    } else if (key == "energy") {
      p.energy = parse_quantity(scalar(v, c), Quantity::Energy, c.where());
    } else if (key == "latency") {
      p.latency = parse_quantity(scalar(v, c), Quantity::Time, c.where());
    } else if (key == "drift_nu") {
      p.drift_nu = parse_number(scalar(v, c), c);
    } else if (key == "drift_nu_sd") {
      p.drift_nu_sd = parse_number(scalar(v, c), c);
    } else if (key == "drift_t0") {
      p.drift_t0 = parse_quantity(scalar(v, c), Quantity::Time, c.where());
    } else if (key == "read_noise_growth") {
      const std::string s = scalar(v, c);
      if (s != "true" && s != "false")
        throw user_error(c.where(), ": expected true or false, got '", s, "'");
      p.read_noise_growth = s == "true";
    } else if (key == "read_noise_t_read") {
      p.read_noise_t_read = parse_quantity(scalar(v, c), Quantity::Time, c.where());
    } else if (key == "mode") {
      const std::string s = scalar(v, c);
      if (s == "physical") {
        p.mode = SimMode::Physical;
      } else if (s == "reference") {
        p.mode = SimMode::Reference;
      } else {
        throw user_error(c.where(), ": expected 'physical' or 'reference', got '", s, "'");
      }
    } else {
      throw user_error(source, ": chip profile '", p.name, "': unknown field '", key,
                       "' (known: g_min, g_max, device_bits, write_noise, read_noise, stuck, "
                       "stuck_high_share, dac_bits, adc_bits, adc_ranging, adc_full_scale, array, "
                       "energy, latency, mode, drift_nu, drift_nu_sd, drift_t0, read_noise_growth, "
                       "read_noise_t_read)");
    }
  }
}

}  // namespace

std::vector<ChipProfile> parse_chip_profiles(std::string_view yaml_text, std::string_view source) {
  const YAML::Node root = yaml_fields::load(std::string(yaml_text), std::string(source));
  if (!root.IsMap()) throw user_error(source, ": expected a mapping with 'profiles'");
  for (const auto& kv : root) {
    const std::string key = kv.first.as<std::string>();
    if (key != "defaults" && key != "profiles")
      throw user_error(source, ": unknown top-level key '", key,
                       "' (expected 'defaults', 'profiles')");
  }
  const YAML::Node profiles = root["profiles"];
  if (!profiles || !profiles.IsMap() || profiles.size() == 0)
    throw user_error(source, ": 'profiles' must be a non-empty mapping of name -> fields");
  ChipProfile base;
  if (const YAML::Node defaults = root["defaults"]) {
    base.name = "defaults";
    try {
      apply_fields(defaults, source, base);
    } catch (const YAML::Exception& e) {
      throw user_error(source, ": defaults: ", e.what());
    }
  }
  std::vector<ChipProfile> out;
  std::set<std::string> seen;
  for (const auto& kv : profiles) {
    ChipProfile p = base;
    p.name = kv.first.as<std::string>();
    if (!seen.insert(p.name).second)
      throw user_error(source, ": duplicate chip profile '", p.name, "'");
    try {
      apply_fields(kv.second, source, p);
    } catch (const YAML::Exception& e) {
      throw user_error(source, ": chip profile '", p.name, "': ", e.what());
    }
    validate_profile(p, source);
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<ChipProfile> load_chip_profiles(const std::string& path) {
  return parse_chip_profiles(read_input_file(path, "chip profile"), path);
}

std::string shipped_chips_file() {
  if (const char* env = std::getenv("HETCIM_CHIPS_FILE"); env != nullptr && *env != '\0')
    return env;
  return shipped_data_path("chips.yaml");
}

std::string resolve_chip_spec(std::string_view spec) {
  if (spec.empty() || spec.find(':') != std::string_view::npos) return std::string(spec);
  for (const char c : spec)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
      return std::string(spec);
  if (std::filesystem::exists(std::string(spec))) return std::string(spec);
  return shipped_chips_file() + ":" + std::string(spec);
}

ChipProfile load_chip_profile(std::string_view bare_or_spec) {
  const std::string resolved = resolve_chip_spec(bare_or_spec);
  const std::string_view spec = resolved;
  const auto colon = spec.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == spec.size())
    throw user_error("chip '", spec, "': expected FILE:PROFILE, e.g. data/chips.yaml:A0");
  const std::string path(spec.substr(0, colon));
  const std::string name(spec.substr(colon + 1));
  std::vector<ChipProfile> all = load_chip_profiles(path);
  std::string names;
  for (auto& p : all) {
    if (p.name == name) return std::move(p);
    names += (names.empty() ? "" : ", ") + p.name;
  }
  throw user_error(path, ": no chip profile '", name, "' (the file has: ", names, ")");
}

}  // namespace hetcim::xbar
