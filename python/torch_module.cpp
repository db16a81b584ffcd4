// hetcim._hetcim_torch: the Python binding of api_torch (src/api_torch), RACE-AIMC's libtorch jobs,
// used by hetcim/analog.py (`hetcim.analog.evaluate / select / study / drift / serve / train`).
// A module of its own, so that `import hetcim` never loads libtorch: hetcim/analog.py imports it
// on the first call that needs it. Keyword arguments fill the same request structs the CLI fills
// (python/kwargs.h), the request validates itself with the CLI's messages; hetcim::UserError
// becomes the same hetcim.UserError as in _hetcim (a ValueError); the calls run as long calls
// (interrupt.h: Ctrl-C stops them at their next step, progress=callable(done, total) sees their
// steps). Results the CLI writes as JSON are handed over as that JSON text, rendered by the same
// report/ function.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "api_torch/analog.h"
#include "api_torch/drift.h"
#include "api_torch/serve.h"
#include "api_torch/study.h"
#include "formats/race_study_file.h"
#include "interrupt.h"
#include "kwargs.h"
#include "report/analog.h"
#include "report/drift.h"
#include "report/race_select.h"
#include "report/race_study.h"
#include "select/controller.h"
#include "util/error.h"

namespace py = pybind11;
using namespace hetcim;
using python::apply_kwargs;
using python::field;
using python::Fields;

namespace {

template <typename R, typename T>
python::Setter<R> optional_field(std::optional<T> R::*member) {
  return [member](R& r, const py::handle& v) { r.*member = py::cast<T>(v); };
}

// ---- analog eval
// ------------------------------------------------------------------------------------

const Fields<api::AnalogEvalRequest>& eval_fields() {
  using R = api::AnalogEvalRequest;
  // The table's keywords, and `seed`: the older keyword of chip_seed, kept for callers.
  static const Fields<R> f =
      python::with_table(api::analog_eval_fields(), {{"seed", field(&R::chip_seed)}});
  return f;
}

// ---- analog select
// ----------------------------------------------------------------------------------

const Fields<api::AnalogSelectRequest>& select_fields() {
  using R = api::AnalogSelectRequest;
  // The table's keywords, and `seed`: the older keyword of chip_seed, kept for callers.
  static const Fields<R> f =
      python::with_table(api::analog_select_fields(), {{"seed", field(&R::chip_seed)}});
  return f;
}

// ---- analog study
// -----------------------------------------------------------------------------------

const Fields<api::AnalogStudyRequest>& study_fields() {
  using R = api::AnalogStudyRequest;
  // The table's keywords, and design_risks: a list of numbers, or the CLI's text "0.05,0.1".
  static const Fields<R> f = python::with_table(
      api::analog_study_fields(), {{"design_risks", [](R& r, const py::handle& v) {
                                      r.design_risks =
                                          py::isinstance<py::str>(v)
                                              ? api::parse_design_risks(py::cast<std::string>(v))
                                              : py::cast<std::vector<double>>(v);
                                    }}});
  return f;
}

// ---- analog drift
// -----------------------------------------------------------------------------------

const Fields<api::AnalogDriftRequest>& drift_fields() {
  using R = api::AnalogDriftRequest;
  // The table's keywords, and `seed`: the older keyword of chip_seed, kept for callers.
  static const Fields<R> f =
      python::with_table(api::analog_drift_fields(), {{"seed", optional_field(&R::chip_seed)}});
  return f;
}

// ---- analog serve
// -----------------------------------------------------------------------------------

const Fields<api::AnalogServeRequest>& serve_fields() {
  static const Fields<api::AnalogServeRequest> f = python::with_table(api::analog_serve_fields());
  return f;
}

// ---- train
// ------------------------------------------------------------------------------------------

const Fields<api::TrainRequest>& train_fields() {
  static const Fields<api::TrainRequest> f = python::with_table(api::train_fields());
  return f;
}

}  // namespace

PYBIND11_MODULE(_hetcim_torch, m) {
  m.doc() = "hetcim: RACE-AIMC's libtorch jobs (loaded on first use; C++ core)";
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
      "option_tables",
      [] {
        py::dict d;
        d["analog_eval"] = python::table_info(api::analog_eval_fields());
        d["train"] = python::table_info(api::train_fields());
        d["analog_select"] = python::table_info(api::analog_select_fields());
        d["analog_study"] = python::table_info(api::analog_study_fields());
        d["analog_drift"] = python::table_info(api::analog_drift_fields());
        d["analog_serve"] = python::table_info(api::analog_serve_fields());
        return d;
      },
      "The field tables (api/options.h) of this module's migrated jobs, as _hetcim.option_tables.");

  m.def(
      "keywords",
      [] {
        py::dict d;
        d["analog_eval"] = python::keyword_names(eval_fields());
        d["train"] = python::keyword_names(train_fields());
        d["analog_select"] = python::keyword_names(select_fields());
        d["analog_study"] = python::keyword_names(study_fields());
        d["analog_drift"] = python::keyword_names(drift_fields());
        d["analog_serve"] = python::keyword_names(serve_fields());
        return d;
      },
      "Every job's keyword arguments, as _hetcim.keywords: what the tests compare with the CLI's "
      "flags.");

  m.def(
      "analog_eval",
      [](const std::string& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::AnalogEvalRequest r;
        r.model = model;
        apply_kwargs("analog.evaluate", r, kw, eval_fields());
        r.validate();
        return call.run([&] {
          const api::AnalogEvalResult res = api::analog_eval(r, call.callback());
          return report::analog_eval_json(api::analog_eval_rows(res), r.dataset, r.split,
                                          res.provenance)
              .dump(1);
        });
      },
      py::arg("model"),
      "Accuracy of RACE-AIMC's CNN with its classifier layers on simulated chips "
      "(api::analog_eval, `hetcim analog eval`): the JSON `--json` writes, as text.");

  m.def(
      "analog_select",
      [](const std::string& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::AnalogSelectRequest r;
        r.model = model;
        apply_kwargs("analog.select", r, kw, select_fields());
        r.validate();
        std::string select_json, policy_json;
        call.run([&] {
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
        });
        return py::make_tuple(select_json, policy_json);
      },
      py::arg("model"),
      "RACE-AIMC over a pool of simulated chips (api::analog_select, `hetcim analog select`): "
      "returns (the JSON `--json` writes, the frozen policy `--policy-out` writes) as text.");

  m.def(
      "analog_study",
      [](const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::AnalogStudyRequest r;
        apply_kwargs("analog.study", r, kw, study_fields());
        r.validate();
        return call.run([&] {
          const api::AnalogStudyResult res = api::analog_study(r);
          return formats::race_study_json(res.study, res.info, res.options).dump(1);
        });
      },
      "RACE-AIMC's experiments end to end (api::analog_study, `hetcim analog study`): models and "
      "logit cache under `out`; returns the study.json the CLI writes, as text.");

  m.def(
      "analog_drift",
      [](const std::string& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::AnalogDriftRequest r;
        r.model = model;
        apply_kwargs("analog.drift", r, kw, drift_fields());
        r.validate();
        r.progress = call.callback();
        return call.run([&] {
          const api::AnalogDriftResult res = api::analog_drift(r);
          return report::drift_json(res.report, res.provenance).dump(1);
        });
      },
      py::arg("model"),
      "Accuracy on one chip read at increasing times after programming (api::analog_drift, "
      "`hetcim analog drift`): the drift.json the CLI writes, as text.");

  m.def(
      "analog_serve",
      [](const std::string& policy, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::AnalogServeRequest r;
        r.policy = policy;
        apply_kwargs("analog.serve", r, kw, serve_fields());
        if (r.input == "-")
          throw user_error("input: '-' (stdin) is the CLI's stream; give an .npy file");
        r.validate();
        std::vector<select::Decision> decisions;
        const auto step = call.callback();
        r.on_decisions = [&](int64_t, std::span<const select::Decision> d) {
          decisions.insert(decisions.end(), d.begin(), d.end());
          step(decisions.size(), 0);  // a stop point per batch (no total: no progress shown)
        };
        const std::string json = call.run(
            [&] { return report::analog_serve_json(api::analog_serve(r).summary).dump(1); });
        // The decisions as the CLI's --decisions CSV has them: route, label (-1 unless accepted),
        // score; NumPy arrays for the numbers.
        py::list routes;
        py::array_t<int32_t> labels(static_cast<py::ssize_t>(decisions.size()));
        py::array_t<double> scores(static_cast<py::ssize_t>(decisions.size()));
        auto l = labels.mutable_unchecked<1>();
        auto s = scores.mutable_unchecked<1>();
        for (size_t i = 0; i < decisions.size(); ++i) {
          const select::Decision& d = decisions[i];
          routes.append(select::route_name(d.route));
          l(static_cast<py::ssize_t>(i)) = d.route == select::Route::Accept ? d.label : -1;
          s(static_cast<py::ssize_t>(i)) = d.score;
        }
        py::dict out;
        out["route"] = routes;
        out["label"] = labels;
        out["score"] = scores;
        return py::make_tuple(json, out);
      },
      py::arg("policy"),
      "A frozen policy served query by query (api::analog_serve, `hetcim analog serve`): (the "
      "JSON `--json` writes as text, the decisions as {route, label, score}).");

  m.def(
      "train",
      [](const std::string& out, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::TrainRequest r;
        r.out = out;
        apply_kwargs("analog.train", r, kw, train_fields());
        r.validate();
        // Progress in batches over all epochs.
        r.options.progress = [step = call.callback()](const train::TrainProgress& p) {
          step(static_cast<size_t>((p.epoch - 1) * p.batches + p.batch),
               static_cast<size_t>(p.epochs * p.batches));
        };
        const api::TrainResult res = call.run([&] { return api::train_race_cnn(r); });
        return std::make_tuple(res.eval_set, res.outcome.eval_accuracy, res.outcome.test_accuracy);
      },
      py::arg("out"),
      "Train RACE-AIMC's CNN (api::train_race_cnn, `hetcim train race-cnn`) into `out` and "
      "`out`.train.json: (the evaluation set's name, its accuracy, the clean test accuracy).");
}
