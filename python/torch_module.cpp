// hetcim._hetcim_torch: the Python binding of api_torch (src/api_torch), seed 002's libtorch jobs.
// A module of its own, so that `import hetcim` never loads libtorch: hetcim/__init__.py imports it
// on the first call that needs it. hetcim::UserError becomes the same hetcim.UserError as in
// _hetcim (a ValueError) with the message the CLI prints; the calls release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api_torch/analog.h"
#include "report/race_select.h"
#include "util/error.h"
#include "util/units.h"

namespace py = pybind11;
using namespace hetcim;

namespace {

using Setter = std::function<void(api::AnalogSelectRequest&, const py::handle&)>;

template <typename T>
Setter field(T api::AnalogSelectRequest::*member) {
  return [member](api::AnalogSelectRequest& r, const py::handle& v) { r.*member = py::cast<T>(v); };
}

template <typename T>
Setter optional_field(std::optional<T> api::AnalogSelectRequest::*member) {
  return [member](api::AnalogSelectRequest& r, const py::handle& v) { r.*member = py::cast<T>(v); };
}

// An energy in J, or a string with a unit ("4uJ").
Setter energy(double select::EnergyModel::*member, const char* name) {
  return [member, name](api::AnalogSelectRequest& r, const py::handle& v) {
    r.energy.*member = py::isinstance<py::str>(v)
                           ? parse_quantity(py::cast<std::string>(v), Quantity::Energy, name)
                           : py::cast<double>(v);
  };
}

const std::map<std::string, Setter>& select_fields() {
  using R = api::AnalogSelectRequest;
  static const std::map<std::string, Setter> f = {
      {"chips", field(&R::chips)},
      {"pool", field(&R::pool)},
      {"mode", field(&R::mode)},
      {"chip_seed", field(&R::chip_seed)},
      {"read_seed", field(&R::read_seed)},
      {"dataset", field(&R::dataset)},
      {"data_dir", field(&R::data_dir)},
      {"calibration", optional_field(&R::calibration)},
      {"holdout", optional_field(&R::holdout)},
      {"holdout_seed", optional_field(&R::holdout_seed)},
      {"split", field(&R::split)},
      {"limit", field(&R::limit)},
      {"risk", field(&R::risk)},
      {"certificate_delta", field(&R::certificate_delta)},
      {"design_risk", field(&R::design_risk)},
      {"design_delta", field(&R::design_delta)},
      {"score", field(&R::score)},
      {"bias_correction", field(&R::bias_correction)},
      {"policy_rows", field(&R::policy_rows)},
      {"hardware_rows", optional_field(&R::hardware_rows)},
      {"certificate_rows", optional_field(&R::certificate_rows)},
      {"test_rows", optional_field(&R::test_rows)},
      {"split_seed", field(&R::split_seed)},
      {"batch_size", [](R& r, const py::handle& v) { r.eval.batch_size = py::cast<int64_t>(v); }},
      {"threads", [](R& r, const py::handle& v) { r.eval.threads = py::cast<int>(v); }},
      {"cache", field(&R::cache_dir)},
      {"logits", field(&R::replay_dir)},
      {"fallback_energy", energy(&select::EnergyModel::fallback, "--fallback-energy")},
      {"communication_energy",
       energy(&select::EnergyModel::communication, "--communication-energy")},
      {"controller_energy", energy(&select::EnergyModel::controller, "--controller-energy")},
      {"class_energy", energy(&select::EnergyModel::per_class, "--class-energy")},
  };
  return f;
}

}  // namespace

PYBIND11_MODULE(_hetcim_torch, m) {
  m.doc() = "hetcim: seed 002's libtorch jobs (loaded on first use; C++ core)";
  // The exception classes of _hetcim, so that `except hetcim.UserError` catches both modules'.
  const py::module_ base = py::module_::import("hetcim._hetcim");
  static PyObject* user_exc = py::object(base.attr("UserError")).release().ptr();
  static PyObject* internal_exc = py::object(base.attr("InternalError")).release().ptr();
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      PyErr_SetString(user_exc, e.what());
    } catch (const InternalError& e) {
      PyErr_SetString(internal_exc, e.what());
    }
  });

  m.def(
      "analog_select",
      [](const std::string& model, const py::kwargs& kw) {
        api::AnalogSelectRequest r;
        r.model = model;
        for (const auto& [key, value] : kw) {
          const std::string k = py::cast<std::string>(key);
          const auto it = select_fields().find(k);
          if (it == select_fields().end()) {
            std::string known;
            for (const auto& [name, _] : select_fields())
              known += (known.empty() ? "" : ", ") + name;
            throw user_error("analog_select: unknown keyword '", k, "' (known: ", known, ")");
          }
          if (value.is_none()) continue;  // None: the request's default
          try {
            it->second(r, value);
          } catch (const py::cast_error&) {
            throw user_error(k, ": wrong type ",
                             std::string(py::str(py::type::of(value).attr("__name__"))));
          }
        }
        std::string select_json, policy_json;
        {
          py::gil_scoped_release release;
          const api::AnalogSelectResult res = api::analog_select(r);
          std::vector<uint64_t> chip_seeds, read_seeds;
          for (const api::PoolUnit& u : res.units) {
            chip_seeds.push_back(u.chip_seed);
            read_seeds.push_back(u.read_seed);
          }
          select_json = report::race_select_json(res.race, res.options, chip_seeds, read_seeds,
                                                 res.provenance, res.data,
                                                 {res.simulated, res.cached, res.cache_dir})
                            .dump(1);
          policy_json = api::policy_json(r, res).dump(1);
        }
        return py::make_tuple(select_json, policy_json);
      },
      py::arg("model"),
      "RACE-AIMC over a pool of simulated chips (api::analog_select, `hetcim analog select`): "
      "returns (the JSON `--json` writes, the frozen policy `--policy-out` writes) as text.");
}
