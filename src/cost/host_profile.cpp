#include "cost/host_profile.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/units.h"

namespace hetcim::cost {
namespace {

constexpr std::string_view kMagic = "# hetcim-host-profile v1";
constexpr std::string_view kColumns = "name,op_type,impl,median_s,min_s,p90_s,macs,gmacs";

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Splits one CSV record (no embedded newlines: operator names never contain them).
std::vector<std::string> split_csv(const std::string& line, std::string_view origin,
                                   size_t lineno) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, was_quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"' && cur.empty() && !was_quoted) {
      quoted = was_quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
      was_quoted = false;
    } else {
      cur += c;
    }
  }
  if (quoted) throw user_error(origin, ":", lineno, ": unterminated quoted field");
  out.push_back(cur);
  return out;
}

double parse_double(const std::string& s, std::string_view origin, const std::string& where) {
  const std::optional<double> v = parse_finite(s);
  if (!v) throw user_error(origin, ": ", where, ": expected a finite number, got '", s, "'");
  return *v;
}

int64_t parse_int(const std::string& s, std::string_view origin, const std::string& where) {
  const std::optional<int64_t> v = parse_integer(s);
  if (!v) throw user_error(origin, ": ", where, ": expected an integer, got '", s, "'");
  return *v;
}

void validate(const HostProfile& p, std::string_view origin) {
  if (p.precision != "fp32" && p.precision != "int8")
    throw user_error(origin, ": precision: expected fp32 or int8, got '", p.precision, "'");
  if (p.batch < 1) throw user_error(origin, ": batch: expected >= 1, got ", p.batch);
  if (p.threads < 1) throw user_error(origin, ": threads: expected >= 1, got ", p.threads);
  if (p.runs < 1) throw user_error(origin, ": runs: expected >= 1, got ", p.runs);
  if (p.warmup < 0) throw user_error(origin, ": warmup: expected >= 0, got ", p.warmup);
  auto check_times = [&](const std::string& what, double mn, double med, double p90) {
    // At most max_magnitude(Time) (1e6 s), so sums over operators and energies stay finite.
    const double most = max_magnitude(Quantity::Time);
    if (!(mn >= 0) || !(med >= 0) || !(p90 >= 0) || !(p90 <= most))
      throw user_error(origin, ": ", what, ": times must be >= 0 and at most ", most,
                       " s, got min ", num(mn), ", median ", num(med), ", p90 ", num(p90));
    if (mn > med || med > p90)
      throw user_error(origin, ": ", what, ": expected min <= median <= p90, got ", num(mn), ", ",
                       num(med), ", ", num(p90));
  };
  check_times("model", p.model_min_s, p.model_median_s, p.model_p90_s);
  if (!(p.op_median_sum_s >= 0) || !std::isfinite(p.op_median_sum_s))
    throw user_error(origin, ": op_median_sum_s must be finite and >= 0");
  std::set<std::string> names;
  for (const HostProfileOp& op : p.ops) {
    if (op.name.empty()) throw user_error(origin, ": an operator has an empty name");
    if (!names.insert(op.name).second)
      throw user_error(origin, ": operator '", op.name, "' appears twice");
    check_times("operator '" + op.name + "'", op.min_s, op.median_s, op.p90_s);
    if (op.macs < 0) throw user_error(origin, ": operator '", op.name, "': macs must be >= 0");
    if (!(op.gmacs >= 0) || !std::isfinite(op.gmacs))
      throw user_error(origin, ": operator '", op.name, "': gmacs must be finite and >= 0");
  }
}

std::string read_text(const std::string& path) {
  return read_input_file(path, "host profile");
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const HostProfileOp* HostProfile::find(std::string_view name) const {
  for (const HostProfileOp& op : ops)
    if (op.name == name) return &op;
  return nullptr;
}

ProfileQuality profile_quality(const HostProfile& p) {
  ProfileQuality q;
  const double spread = p.model_median_s > 0 ? p.model_p90_s / p.model_median_s : 0.0;
  const double dev = p.model_median_s > 0 ? p.op_median_sum_s / p.model_median_s - 1.0 : 0.0;
  char b[256];
  const bool wide = spread > 1.5, off = std::abs(dev) > 0.10;
  q.noisy = wide || off;
  if (!q.noisy) {
    std::snprintf(b, sizeof b,
                  "steady: whole-model p90/median %.2f, sum of operator medians/whole model "
                  "%+.1f %%",
                  spread, dev * 100);
  } else {
    std::snprintf(b, sizeof b,
                  "noisy: whole-model p90 is %.2fx the median (expected <= 1.5x), sum of operator "
                  "medians/whole model %+.1f %% (expected within 10 %%); measure again with more "
                  "--runs on a quieter machine",
                  spread, dev * 100);
  }
  q.text = b;
  return q;
}

std::string host_profile_csv(const HostProfile& p) {
  std::string s(kMagic);
  s += "\n";
  auto kv = [&](const char* k, const std::string& v) {
    std::string clean = v;
    for (char& c : clean)
      if (c == '\n' || c == '\r') c = ' ';
    s += "# " + std::string(k) + ": " + clean + "\n";
  };
  kv("model", p.model);
  kv("precision", p.precision);
  kv("batch", std::to_string(p.batch));
  kv("threads", std::to_string(p.threads));
  kv("warmup", std::to_string(p.warmup));
  kv("runs", std::to_string(p.runs));
  kv("source", p.modelled ? "modelled" : "measured");
  kv("machine", p.machine);
  kv("library", p.library);
  kv("tool", p.tool);
  if (!p.date.empty()) kv("date", p.date);
  if (!p.command.empty()) kv("command", p.command);
  if (!p.seeds.empty()) kv("seeds", p.seeds);
  kv("quality", profile_quality(p).text);
  kv("model_median_s", num(p.model_median_s));
  kv("model_min_s", num(p.model_min_s));
  kv("model_p90_s", num(p.model_p90_s));
  kv("op_median_sum_s", num(p.op_median_sum_s));
  s += std::string(kColumns) + "\n";
  for (const HostProfileOp& op : p.ops) {
    s += csv_field(op.name) + "," + csv_field(op.op_type) + "," + csv_field(op.impl) + "," +
         num(op.median_s) + "," + num(op.min_s) + "," + num(op.p90_s) + "," +
         std::to_string(op.macs) + "," + num(op.gmacs) + "\n";
  }
  return s;
}

HostProfile parse_host_profile_csv(std::string_view text, std::string_view origin) {
  std::istringstream in{std::string(text)};
  std::string line;
  size_t lineno = 0;
  auto next = [&]() {
    if (!std::getline(in, line)) return false;
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  };
  if (!next() || line != kMagic)
    throw user_error(origin, ":1: expected the first line '", kMagic,
                     "' (a hetcim host profile, CSV v1)");
  HostProfile p;
  std::set<std::string> seen;
  const std::set<std::string> required = {
      "model",  "precision",      "batch",       "threads",     "warmup",         "runs",
      "source", "model_median_s", "model_min_s", "model_p90_s", "op_median_sum_s"};
  bool columns = false;
  while (next()) {
    if (line.rfind("# ", 0) == 0) {
      const size_t colon = line.find(": ");
      const std::string key =
          line.substr(2, colon == std::string::npos ? std::string::npos : colon - 2);
      const std::string value = colon == std::string::npos ? "" : line.substr(colon + 2);
      const std::string where = "line " + std::to_string(lineno) + " (" + key + ")";
      if (!seen.insert(key).second)
        throw user_error(origin, ":", lineno, ": header key '", key, "' given twice");
      if (key == "model")
        p.model = value;
      else if (key == "precision")
        p.precision = value;
      else if (key == "batch")
        p.batch = parse_int(value, origin, where);
      else if (key == "threads")
        p.threads = static_cast<int>(parse_int(value, origin, where));
      else if (key == "warmup")
        p.warmup = static_cast<int>(parse_int(value, origin, where));
      else if (key == "runs")
        p.runs = static_cast<int>(parse_int(value, origin, where));
      else if (key == "source") {
        if (value != "measured" && value != "modelled")
          throw user_error(origin, ":", lineno, ": source: expected measured or modelled, got '",
                           value, "'");
        p.modelled = value == "modelled";
      } else if (key == "machine")
        p.machine = value;
      else if (key == "library")
        p.library = value;
      else if (key == "tool")
        p.tool = value;
      else if (key == "date")
        p.date = value;
      else if (key == "command")
        p.command = value;
      else if (key == "seeds")
        p.seeds = value;
      else if (key == "quality")
        p.quality = value;
      else if (key == "model_median_s")
        p.model_median_s = parse_double(value, origin, where);
      else if (key == "model_min_s")
        p.model_min_s = parse_double(value, origin, where);
      else if (key == "model_p90_s")
        p.model_p90_s = parse_double(value, origin, where);
      else if (key == "op_median_sum_s")
        p.op_median_sum_s = parse_double(value, origin, where);
      else
        throw user_error(origin, ":", lineno, ": unknown header key '", key, "'");
      continue;
    }
    if (!columns) {
      if (line != kColumns)
        throw user_error(origin, ":", lineno, ": expected the column line '", kColumns, "'");
      columns = true;
      continue;
    }
    if (line.empty()) continue;
    const auto f = split_csv(line, origin, lineno);
    if (f.size() != 8) throw user_error(origin, ":", lineno, ": expected 8 fields, got ", f.size());
    const std::string where = "line " + std::to_string(lineno);
    HostProfileOp op;
    op.name = f[0];
    op.op_type = f[1];
    op.impl = f[2];
    op.median_s = parse_double(f[3], origin, where + " median_s");
    op.min_s = parse_double(f[4], origin, where + " min_s");
    op.p90_s = parse_double(f[5], origin, where + " p90_s");
    op.macs = parse_int(f[6], origin, where + " macs");
    op.gmacs = parse_double(f[7], origin, where + " gmacs");
    p.ops.push_back(op);
  }
  for (const std::string& k : required)
    if (!seen.count(k)) throw user_error(origin, ": header key '", k, "' is missing");
  if (!columns) throw user_error(origin, ": the column line '", kColumns, "' is missing");
  validate(p, origin);
  return p;
}

std::string host_profile_json(const HostProfile& p) {
  nlohmann::ordered_json j;
  j["format"] = "hetcim-host-profile";
  j["version"] = 1;
  j["model"] = p.model;
  j["precision"] = p.precision;
  j["batch"] = p.batch;
  j["threads"] = p.threads;
  j["warmup"] = p.warmup;
  j["runs"] = p.runs;
  j["source"] = p.modelled ? "modelled" : "measured";
  j["machine"] = p.machine;
  j["library"] = p.library;
  j["tool"] = p.tool;
  if (!p.date.empty()) j["date"] = p.date;
  if (!p.command.empty()) j["command"] = p.command;
  if (!p.seeds.empty()) j["seeds"] = p.seeds;
  j["quality"] = profile_quality(p).text;
  j["model_median_s"] = p.model_median_s;
  j["model_min_s"] = p.model_min_s;
  j["model_p90_s"] = p.model_p90_s;
  j["op_median_sum_s"] = p.op_median_sum_s;
  j["ops"] = nlohmann::ordered_json::array();
  for (const HostProfileOp& op : p.ops) {
    j["ops"].push_back({{"name", op.name},
                        {"op_type", op.op_type},
                        {"impl", op.impl},
                        {"median_s", op.median_s},
                        {"min_s", op.min_s},
                        {"p90_s", op.p90_s},
                        {"macs", op.macs},
                        {"gmacs", op.gmacs}});
  }
  return j.dump(1) + "\n";
}

HostProfile parse_host_profile_json(std::string_view text, std::string_view origin) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw user_error(origin, ": not valid JSON: ", e.what());
  }
  if (!j.is_object()) throw user_error(origin, ": expected a JSON object");
  auto member = [&](const nlohmann::json& obj, const std::string& key,
                    const std::string& where) -> const nlohmann::json& {
    auto it = obj.find(key);
    if (it == obj.end()) throw user_error(origin, ": ", where, "member '", key, "' is missing");
    return *it;
  };
  auto str = [&](const nlohmann::json& obj, const std::string& key, const std::string& where = "") {
    const auto& v = member(obj, key, where);
    if (!v.is_string()) throw user_error(origin, ": ", where, "'", key, "' must be a string");
    return v.get<std::string>();
  };
  auto number = [&](const nlohmann::json& obj, const std::string& key,
                    const std::string& where = "") {
    const auto& v = member(obj, key, where);
    if (!v.is_number()) throw user_error(origin, ": ", where, "'", key, "' must be a number");
    return v.get<double>();
  };
  auto integer = [&](const nlohmann::json& obj, const std::string& key,
                     const std::string& where = "") {
    const auto& v = member(obj, key, where);
    if (!v.is_number_integer())
      throw user_error(origin, ": ", where, "'", key, "' must be an integer");
    return v.get<int64_t>();
  };
  if (str(j, "format") != "hetcim-host-profile")
    throw user_error(origin, ": 'format' must be \"hetcim-host-profile\"");
  if (integer(j, "version") != 1) throw user_error(origin, ": unsupported 'version' (expected 1)");
  static const std::set<std::string> known = {
      "format",  "version",        "model",       "precision",   "batch",
      "threads", "warmup",         "runs",        "source",      "machine",
      "library", "tool",           "date",        "command",     "seeds",
      "quality", "model_median_s", "model_min_s", "model_p90_s", "op_median_sum_s",
      "ops"};
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!known.count(it.key())) throw user_error(origin, ": unknown member '", it.key(), "'");
  HostProfile p;
  p.model = str(j, "model");
  p.precision = str(j, "precision");
  p.batch = integer(j, "batch");
  p.threads = static_cast<int>(integer(j, "threads"));
  p.warmup = static_cast<int>(integer(j, "warmup"));
  p.runs = static_cast<int>(integer(j, "runs"));
  const std::string source = str(j, "source");
  if (source != "measured" && source != "modelled")
    throw user_error(origin, ": 'source' must be \"measured\" or \"modelled\", got '", source, "'");
  p.modelled = source == "modelled";
  if (j.contains("machine")) p.machine = str(j, "machine");
  if (j.contains("library")) p.library = str(j, "library");
  if (j.contains("tool")) p.tool = str(j, "tool");
  if (j.contains("date")) p.date = str(j, "date");
  if (j.contains("command")) p.command = str(j, "command");
  if (j.contains("seeds")) p.seeds = str(j, "seeds");
  if (j.contains("quality")) p.quality = str(j, "quality");
  p.model_median_s = number(j, "model_median_s");
  p.model_min_s = number(j, "model_min_s");
  p.model_p90_s = number(j, "model_p90_s");
  p.op_median_sum_s = number(j, "op_median_sum_s");
  const auto& ops = member(j, "ops", "");
  if (!ops.is_array()) throw user_error(origin, ": 'ops' must be an array");
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string where = "ops[" + std::to_string(i) + "]: ";
    if (!ops[i].is_object()) throw user_error(origin, ": ", where, "must be an object");
    HostProfileOp op;
    op.name = str(ops[i], "name", where);
    op.op_type = str(ops[i], "op_type", where);
    op.impl = ops[i].contains("impl") ? str(ops[i], "impl", where) : "";
    op.median_s = number(ops[i], "median_s", where);
    op.min_s = number(ops[i], "min_s", where);
    op.p90_s = number(ops[i], "p90_s", where);
    op.macs = integer(ops[i], "macs", where);
    op.gmacs = number(ops[i], "gmacs", where);
    p.ops.push_back(op);
  }
  validate(p, origin);
  return p;
}

HostProfile read_host_profile(const std::string& path) {
  if (ends_with(path, ".csv")) return parse_host_profile_csv(read_text(path), path);
  if (ends_with(path, ".json")) return parse_host_profile_json(read_text(path), path);
  throw user_error(path, ": a host profile must end in .csv or .json");
}

std::string host_profile_text(const std::string& path, const HostProfile& p) {
  if (ends_with(path, ".csv")) return host_profile_csv(p);
  if (ends_with(path, ".json")) return host_profile_json(p);
  throw user_error(path, ": a host profile must end in .csv or .json");
}

void write_host_profile(const std::string& path, const HostProfile& p) {
  write_file_atomically(path, host_profile_text(path, p));
}

}  // namespace hetcim::cost
