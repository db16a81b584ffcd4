#include "formats/paper_data.h"

#include <yaml-cpp/yaml.h>

#include <cstdio>

#include "util/error.h"
#include "util/files.h"
#include "util/numbers.h"
#include "util/yaml_fields.h"

namespace hetcim::formats {
namespace {

// Published figures are magnitudes (speedups, times, energies, areas, counts, percentages): a
// number of the file is >= 0 and at most kMaxPaperValue, a percentage at most 100, a flag 0 or 1.
constexpr double kMaxPaperValue = 1e12;
// Published tables are small: bounds that keep a tampered file from drawing a million bars.
constexpr size_t kMaxPaperRows = 1000, kMaxPaperColumns = 100;

void check_magnitude(double x, const std::string& unit, const std::string& where) {
  if (!(x >= 0.0 && x <= kMaxPaperValue))
    throw user_error(where, ": expected a published magnitude from 0 to ", kMaxPaperValue, ", got ",
                     x);
  if (unit == "%" && x > 100.0)
    throw user_error(where, ": expected a percentage from 0 to 100, got ", x);
  if (unit == "flag" && x != 0.0 && x != 1.0)
    throw user_error(where, ": expected a flag, 0 or 1, got ", x);
}

PaperValue parse_value(const YAML::Node& n, const std::string& where, const std::string& unit) {
  PaperValue v;
  if (!n.IsDefined() || n.IsNull()) return v;
  if (!n.IsScalar()) throw user_error(where, ": expected a number, null or \"<x\" / \"~x\"");
  std::string s = n.Scalar();
  if (s.starts_with("<") || s.starts_with("~")) {
    v.qualifier = s.substr(0, 1);
    s = s.substr(1);
  }
  const std::optional<double> x = parse_finite(s);
  if (!x)
    throw user_error(where, ": expected a number, null or \"<x\" / \"~x\", got '", n.Scalar(), "'");
  check_magnitude(*x, unit, where);
  v.present = true;
  v.value = *x;
  return v;
}

std::string need_string(const YAML::Node& n, const std::string& field, const std::string& where) {
  const YAML::Node f = n[field];
  if (!f.IsDefined() || !f.IsScalar() || f.Scalar().empty())
    throw user_error(where, ": field '", field, "' must be a non-empty string");
  return f.Scalar();
}

}  // namespace

std::string PaperValue::text() const {
  if (!present) return "";
  char b[64];
  std::snprintf(b, sizeof b, "%g", value);
  return qualifier + b;
}

const PaperValue* PaperTable::find(const std::string& row, const std::string& column) const {
  size_t c = 0;
  while (c < columns.size() && columns[c] != column) ++c;
  if (c == columns.size()) return nullptr;
  for (const auto& [key, values] : rows)
    if (key == row) return &values[c];
  return nullptr;
}

const PaperTable* PaperData::table(const std::string& id) const {
  for (const PaperTable& t : tables)
    if (t.id == id) return &t;
  return nullptr;
}

const PaperScalar* PaperData::scalar(const std::string& id) const {
  for (const PaperScalar& s : values)
    if (s.id == id) return &s;
  return nullptr;
}

const PaperTable& PaperData::need_table(const std::string& id) const {
  if (const PaperTable* t = table(id)) return *t;
  throw user_error(origin, ": table '", id, "' is missing (expected under 'tables')");
}

double PaperData::need_value(const std::string& id) const {
  if (const PaperScalar* s = scalar(id)) return s->value;
  throw user_error(origin, ": value '", id, "' is missing (expected under 'values')");
}

void PaperData::require(const std::vector<std::string>& table_ids,
                        const std::vector<std::string>& value_ids) const {
  for (const std::string& t : table_ids) (void)need_table(t);
  for (const std::string& v : value_ids) (void)need_value(v);
}

PaperData parse_paper_data(const std::string& text, const std::string& origin) {
  const YAML::Node root = yaml_fields::load(text, origin);
  if (!root.IsMap()) throw user_error(origin, ": expected a mapping with 'paper' and 'tables'");
  yaml_fields::check_keys(root, "", {"paper", "seed", "tables", "values"}, origin);
  PaperData d;
  d.origin = origin;
  d.paper = need_string(root, "paper", origin);
  d.seed = need_string(root, "seed", origin);
  const YAML::Node tables = root["tables"];
  if (tables.IsDefined() && !tables.IsMap())
    throw user_error(origin, ": field 'tables' must be a mapping of table ids");
  if (tables.IsDefined())
    for (const auto& kv : tables) {
      PaperTable t;
      t.id = kv.first.Scalar();
      const std::string where = origin + ": tables." + t.id;
      const YAML::Node n = kv.second;
      if (!n.IsMap()) throw user_error(where, ": expected a mapping");
      yaml_fields::check_keys(n, "tables." + t.id, {"what", "source", "unit", "columns", "rows"},
                              origin);
      t.what = need_string(n, "what", where);
      t.source = need_string(n, "source", where);
      t.unit = need_string(n, "unit", where);
      const YAML::Node cols = n["columns"];
      if (!cols.IsMap() || !cols["keys"].IsSequence() || cols["keys"].size() == 0)
        throw user_error(where, ".columns: expected {name: ..., keys: [...]} with keys");
      t.column_name = need_string(cols, "name", where + ".columns");
      if (cols["keys"].size() > kMaxPaperColumns)
        throw user_error(where, ".columns: ", cols["keys"].size(), " keys; at most ",
                         kMaxPaperColumns);
      for (const auto& k : cols["keys"]) t.columns.push_back(k.Scalar());
      const YAML::Node rows = n["rows"];
      if (!rows.IsMap() || rows.size() == 0)
        throw user_error(where, ".rows: expected a mapping of row keys to value lists");
      if (rows.size() > kMaxPaperRows)
        throw user_error(where, ".rows: ", rows.size(), " rows; at most ", kMaxPaperRows);
      for (const auto& r : rows) {
        const std::string row = r.first.Scalar();
        const std::string rw = where + ".rows.'" + row + "'";
        if (!r.second.IsSequence() || r.second.size() != t.columns.size())
          throw user_error(rw, ": expected ", t.columns.size(), " values (one per column), got ",
                           r.second.IsSequence() ? r.second.size() : 0);
        std::vector<PaperValue> vals;
        for (size_t i = 0; i < r.second.size(); ++i)
          vals.push_back(parse_value(r.second[i], rw + "[" + std::to_string(i) + "]", t.unit));
        for (const auto& existing : t.rows)
          if (existing.first == row) throw user_error(rw, ": duplicate row");
        t.rows.emplace_back(row, std::move(vals));
      }
      d.tables.push_back(std::move(t));
    }
  const YAML::Node values = root["values"];
  if (values.IsDefined() && !values.IsMap())
    throw user_error(origin, ": field 'values' must be a mapping of value ids");
  if (values.IsDefined())
    for (const auto& kv : values) {
      PaperScalar s;
      s.id = kv.first.Scalar();
      const std::string where = origin + ": values." + s.id;
      if (!kv.second.IsMap()) throw user_error(where, ": expected {value, unit, source}");
      yaml_fields::check_keys(kv.second, "values." + s.id, {"value", "unit", "source"}, origin);
      const std::string unit = need_string(kv.second, "unit", where);
      const PaperValue v = parse_value(kv.second["value"], where + ".value", unit);
      if (!v.present || !v.qualifier.empty())
        throw user_error(where, ".value: expected a plain number");
      s.value = v.value;
      s.unit = need_string(kv.second, "unit", where);
      s.source = need_string(kv.second, "source", where);
      d.values.push_back(std::move(s));
    }
  return d;
}

PaperData load_paper_data(const std::string& path) {
  // A regular file of bounded size (util/files.h): never a FIFO, a device or /dev/zero.
  return parse_paper_data(read_input_file(path, "published-numbers file"), path);
}

}  // namespace hetcim::formats
