// Keyword arguments -> request fields, shared by both Python modules (_hetcim, _hetcim_torch):
// each job lists its keywords once as a map from name to setter; the request's defaults are its
// own, None keeps a default, an unknown keyword is a UserError listing the known ones and a value
// of the wrong type (or an integer its field cannot hold) a UserError naming the keyword. The
// request then validates itself (the same validate() the CLI's call runs, with the CLI's messages).
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "api/options.h"
#include "util/error.h"
#include "util/units.h"

namespace hetcim::python {

namespace py = pybind11;

template <typename R>
using Setter = std::function<void(R&, const py::handle&)>;

template <typename R>
using Fields = std::map<std::string, Setter<R>>;

// A quantity with a unit given as a string ("50ns", "4uJ"), or a number in SI units (for the
// fields of a request without a table).
inline double quantity_of(const py::handle& v, Quantity kind, const char* name) {
  if (py::isinstance<py::str>(v)) return parse_quantity(py::cast<std::string>(v), kind, name);
  return py::cast<double>(v);
}

// The setter of a field of an api table (api/options.h): the value cast to the member's type (a
// string through api::set_from_text for a field with a unit, so "50ns" reads as on the CLI), then
// the field's range or choices checked with the api's one message. A percentage field takes the
// fraction (0.02) or the CLI's text ("2%"), parsed by the api's one parser.
template <typename R>
Setter<R> table_setter(const api::Field<R>& f) {
  return [f](R& r, const py::handle& v) {
    const api::FieldRef ref = f.ref(r);
    if ((f.unit || f.percent) && py::isinstance<py::str>(v)) {
      api::set_from_text(f, ref, py::cast<std::string>(v));
      return;
    }
    std::visit([&](auto* m) { *m = py::cast<std::remove_pointer_t<decltype(m)>>(v); }, ref);
    api::check_field(f, ref);
  };
}

// A job's keywords: the request's field table, plus `extra` (keywords the table does not hold).
template <typename R>
Fields<R> with_table(const api::FieldTable<R>& table, Fields<R> extra = {}) {
  for (const api::Field<R>& f : table) extra[f.name] = table_setter(f);
  return extra;
}

// The keywords a job takes, by name (what the tests compare with the CLI's flags).
template <typename R>
py::list keyword_names(const Fields<R>& fields) {
  py::list out;
  for (const auto& [name, _] : fields) out.append(name);
  return out;
}

// A field table as Python data (name, flag, default, kind, unit, bounds, choices, help): what the
// tests walk (each module's `option_tables()`) to check that the CLI and Python reject the same
// value with the same message.
template <typename R>
py::list table_info(const api::FieldTable<R>& table) {
  py::list out;
  R defaults{};
  for (const api::Field<R>& f : table) {
    py::dict d;
    d["name"] = f.name;
    d["flag"] = f.flag();
    d["default"] = api::value_text(f, f.ref(defaults));
    d["kind"] = std::visit(
        [](auto* m) -> std::string {
          using T = std::remove_pointer_t<decltype(m)>;
          if constexpr (std::is_same_v<T, bool>)
            return "bool";
          else if constexpr (std::is_same_v<T, std::string> ||
                             std::is_same_v<T, std::optional<std::string>>)
            return "str";
          else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::optional<double>>)
            return "float";
          else
            return "int";
        },
        f.ref(defaults));
    d["unit"] = f.unit ? py::cast(std::string(quantity_name(*f.unit))) : py::none();
    d["percent"] = f.percent;
    d["aliases"] = f.aliases;
    d["lo"] = f.lo ? py::cast(*f.lo) : py::none();
    d["hi"] = f.hi ? py::cast(*f.hi) : py::none();
    d["lo_open"] = f.lo_open;
    d["hi_open"] = f.hi_open;
    d["choices"] = f.choices;
    d["help"] = f.help;
    out.append(d);
  }
  return out;
}

// Applies kwargs to `r` through `fields`; an unknown keyword is a UserError listing the known ones.
template <typename R>
void apply_kwargs(const char* job, R& r, const py::kwargs& kwargs, const Fields<R>& fields) {
  for (const auto& [key, value] : kwargs) {
    const std::string k = py::cast<std::string>(key);
    const auto it = fields.find(k);
    if (it == fields.end()) {
      std::string known;
      for (const auto& [name, _] : fields) known += (known.empty() ? "" : ", ") + name;
      throw user_error(job, ": unknown keyword '", k, "' (known: ", known, ")");
    }
    if (value.is_none()) continue;  // None: the request's default
    try {
      it->second(r, value);
    } catch (const py::cast_error&) {
      if (py::isinstance<py::int_>(value) && !py::isinstance<py::bool_>(value))
        throw user_error(k, ": ", std::string(py::str(value)),
                         " does not fit (seeds are 0 to 18446744073709551615, counts and sizes "
                         "whole numbers that fit 64 bits)");
      throw user_error(k, ": wrong type ",
                       std::string(py::str(py::type::of(value).attr("__name__"))));
    }
  }
}

// The request's member `member`, cast from the Python value.
template <typename R, typename T>
Setter<R> field(T R::*member) {
  return [member](R& r, const py::handle& v) { r.*member = py::cast<T>(v); };
}

// The member `inner` of the request's member `outer` (r.eval.limit), cast from the Python value.
template <typename R, typename O, typename T>
Setter<R> field(O R::*outer, T O::*inner) {
  return [outer, inner](R& r, const py::handle& v) { (r.*outer).*inner = py::cast<T>(v); };
}

}  // namespace hetcim::python
