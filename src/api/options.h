// One options discipline: a request describes each of its plain fields once, in a table of
// `Field`s: the name (the Python keyword; the CLI flag is "--" + the name with '-' for '_', or its
// own spelling with .flag("--analog-layers"), plus hidden aliases kept for old scripts), the
// member, the unit (a quantity given as "50ns"), the range or the choices, and the help. The
// default is the struct's own default member initialiser, read from a default-constructed request.
// From that one table:
//   - validate() checks every range and choice with one message format naming the field
//     ("gap: expected a number in [0, 1], got 2"; "solver: expected exact or milp, got 'x'");
//   - the CLI adds its flags (cli/options.h: add_fields; help composed from unit, default, range)
//     and sets them with set_from_text, so the CLI prints the api's message and no check of its
//     own;
//   - the Python binding fills the request from keyword arguments (python/kwargs.h: with_table).
// Cross-field checks stay hand-written in each validate().
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "util/units.h"

namespace hetcim::api {

// A pointer to a request's member, of one of the types a field may have.
// An optional member is unset by default (the job decides, e.g. from a file it reads) and set by
// the flag or keyword; --help shows no default for it.
using FieldRef =
    std::variant<bool*, int*, int64_t*, uint64_t*, double*, std::string*, std::optional<int64_t>*,
                 std::optional<uint64_t>*, std::optional<double>*, std::optional<std::string>*>;

// What a field is, apart from where it lives.
struct FieldSpec {
  std::string name;                  // snake_case: the Python keyword; the CLI flag derives from it
  std::string help;                  // one sentence, without default or range (composed from these)
  std::optional<Quantity> unit;      // a double given with a unit ("50ns"), or SI in Python
  std::optional<double> lo, hi;      // inclusive bounds (exclusive with lo_open, hi_open)
  bool lo_open = false;              // > lo rather than >= lo
  bool hi_open = false;              // < hi rather than <= hi
  std::vector<std::string> choices;  // a string field: one of these ("" allowed, shown as '')
  std::vector<std::string> hidden_choices;  // also accepted, never listed (a preset's first name)
  std::string flag_text;             // the CLI flag when not derived from the name ("": derived)
  std::vector<std::string> aliases;  // hidden CLI spellings of the same field ("--seed")
  bool aliases_in_help = false;      // the aliases are deprecated spellings named in --help
  bool percent = false;              // a fraction written as a percentage: "2%" is 0.02
  std::optional<double> unset;       // the value meaning "not given" (passes every check)

  [[nodiscard]] std::string flag() const;  // flag_text, or "--" + name with '_' -> '-'
};

template <typename R>
struct Field : FieldSpec {
  std::function<FieldRef(R&)> ref;

  Field range(double l, double h) && {
    lo = l;
    hi = h;
    return std::move(*this);
  }
  Field at_least(double l) && {
    lo = l;
    return std::move(*this);
  }
  Field positive() && {
    lo = 0;
    lo_open = true;
    return std::move(*this);
  }
  // Strictly between l and h (a probability that must be neither 0 nor 1).
  Field between(double l, double h) && {
    lo = l;
    hi = h;
    lo_open = hi_open = true;
    return std::move(*this);
  }
  Field one_of(std::vector<std::string> c) && {
    choices = std::move(c);
    return std::move(*this);
  }
  // One of `c`, or of `hidden`: older names that still work but --help and messages do not list.
  Field one_of(std::vector<std::string> c, std::vector<std::string> hidden) && {
    choices = std::move(c);
    hidden_choices = std::move(hidden);
    return std::move(*this);
  }
  Field with_unit(Quantity q) && {
    unit = q;
    return std::move(*this);
  }
  using FieldSpec::flag;
  // The CLI flag, when the name does not derive it ("--analog-layers" for `layers`).
  Field flag(std::string f) && {
    flag_text = std::move(f);
    return std::move(*this);
  }
  // An older spelling of the flag, accepted but not shown in --help.
  Field alias(std::string a) && {
    aliases.push_back(std::move(a));
    return std::move(*this);
  }
  // An older spelling that still works but is named in --help as deprecated (a flag renamed
  // because it said too little: run's --seed is --weight-seed).
  Field deprecated_alias(std::string a) && {
    aliases.push_back(std::move(a));
    aliases_in_help = true;
    return std::move(*this);
  }
  // A fraction the CLI takes as a percentage ("2%"; a bare number is ambiguous and refused);
  // Python takes the fraction (0.02) or the same text. Bounds are of the fraction.
  Field as_percent() && {
    percent = true;
    return std::move(*this);
  }
  // The value that means "not given" (a budget of -1: none): not checked, no default shown.
  Field unset_when(double v) && {
    unset = v;
    return std::move(*this);
  }
};

template <typename R>
using FieldTable = std::vector<Field<R>>;

// A field for the member `m` of R.
template <typename R, typename T>
Field<R> field(std::string name, T R::*m, std::string help) {
  Field<R> f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.ref = [m](R& r) -> FieldRef { return &(r.*m); };
  return f;
}

// The fields of the member `m` (a nested options struct) as fields of R, under the same names.
template <typename R, typename S>
FieldTable<R> nested(S R::*m, const FieldTable<S>& inner) {
  FieldTable<R> out;
  for (const Field<S>& f : inner) {
    Field<R> g;
    static_cast<FieldSpec&>(g) = f;
    g.ref = [m, in = f.ref](R& r) { return in(r.*m); };
    out.push_back(std::move(g));
  }
  return out;
}

template <typename R>
FieldTable<R> concat(FieldTable<R> a, const FieldTable<R>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The tables one after the other, in --help's order: concat<R>({{...}, nested(...), {...}}).
template <typename R>
FieldTable<R> concat(std::initializer_list<FieldTable<R>> parts) {
  FieldTable<R> out;
  for (const FieldTable<R>& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// UserError in the one format when the value is outside the field's range or choices (an unset
// optional passes).
void check_field(const FieldSpec& f, FieldRef value);
// Sets the member from text (the CLI's value): strict whole numbers, finite numbers, quantities
// with their unit; UserError naming the field otherwise. Then check_field.
void set_from_text(const FieldSpec& f, FieldRef value, const std::string& text);
// The value as a user writes it ("600 s", "0.5", "exact"; "" for an unset optional).
[[nodiscard]] std::string value_text(const FieldSpec& f, FieldRef value);
// The help of a field with its unit, range, choices (when `with_choices`) and default ("": not
// shown), as sentences: "Latency of one MVM. A time such as 50ns. Range > 0 s".
[[nodiscard]] std::string full_help(const FieldSpec& f, bool with_choices,
                                    const std::string& default_text);

// Checks every field of `r` against its table.
template <typename R>
void check_fields(const R& r, const FieldTable<R>& table) {
  R& m = const_cast<R&>(r);  // ref() needs R&; check_field only reads through it
  for (const Field<R>& f : table) check_field(f, f.ref(m));
}

// The tables of the migrated requests (defined beside each validate()).
struct HardwareRequest;
struct PartitionRequest;
struct DseRequest;
[[nodiscard]] const FieldTable<HardwareRequest>& hardware_fields();
[[nodiscard]] const FieldTable<PartitionRequest>& partition_fields();
[[nodiscard]] const FieldTable<DseRequest>& dse_fields();  // the scalars; the grid's lists aside
struct RunRequest;
struct ProfileRequest;
struct InspectRequest;
[[nodiscard]] const FieldTable<RunRequest>& run_fields();          // the inputs aside
[[nodiscard]] const FieldTable<ProfileRequest>& profile_fields();  // the progress callback aside
[[nodiscard]] const FieldTable<InspectRequest>& inspect_fields();  // the crossbar size aside
struct AnalogAuditRequest;
struct AnalogRunRequest;
[[nodiscard]] const FieldTable<AnalogAuditRequest>& analog_audit_fields();  // the model file aside
[[nodiscard]] const FieldTable<AnalogRunRequest>& analog_run_fields();      // the inputs aside
struct ExecuteRequest;
[[nodiscard]] const FieldTable<ExecuteRequest>& execute_fields();  // the hardware aside
struct AccuracySetup;
struct SensitivityRequest;
[[nodiscard]] const FieldTable<AccuracySetup>& accuracy_setup_fields();
// The same setup where it checks a sensitivity file (partition): the file's own images aside.
[[nodiscard]] const FieldTable<AccuracySetup>& accuracy_check_fields();
[[nodiscard]] const FieldTable<SensitivityRequest>& sensitivity_fields();  // the operators aside
struct ClusterRequest;
struct RooflineRequest;
struct BottleneckRequest;
struct CalibrateRequest;
// Every override of the cluster description; a study's table holds the ones it takes.
[[nodiscard]] const FieldTable<ClusterRequest>& cluster_fields();
[[nodiscard]] const FieldTable<ClusterRequest>& cluster_constants_fields();  // preset, config
[[nodiscard]] const FieldTable<RooflineRequest>& roofline_fields();      // the sweep's lists aside
[[nodiscard]] const FieldTable<BottleneckRequest>& bottleneck_fields();  // the mappings aside
[[nodiscard]] const FieldTable<CalibrateRequest>& calibrate_fields();

}  // namespace hetcim::api
