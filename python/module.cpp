// hetcim._hetcim: the Python binding of the api module (src/api), the same calls the CLI makes.
// Keyword arguments fill the request structs field by field (defaults are the structs' own), the
// requests validate themselves, hetcim::UserError becomes hetcim.UserError (a ValueError) with the
// message the CLI prints, and long calls release the GIL. Results that the CLI writes as JSON are
// handed over as that same JSON text (hetcim/__init__.py parses it): one field list per result.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>

#include "api/analog_chip.h"
#include "api/hetcim.h"
#include "api/options.h"
#include "cost/host_profile.h"
#include "interrupt.h"
#include "kwargs.h"
#include "report/accuracy.h"
#include "report/analog.h"
#include "report/cluster.h"
#include "report/cluster_tables.h"
#include "report/dse.h"
#include "report/execution.h"
#include "report/inspect.h"
#include "report/multi_partition.h"
#include "report/partition.h"
#include "report/partition_file.h"
#include "report/platform_dse.h"
#include "report/provenance.h"
#include "util/files.h"
#include "util/units.h"
#include "zoo/zoo.h"

namespace py = pybind11;
using namespace hetcim;

namespace {

// ---- keyword arguments -> request fields
// ---------------------------------------------------------

using python::apply_kwargs;
using python::field;
using python::table_info;

// A time in seconds, or a string with a unit ("50ns").
double time_of(const py::handle& v, const char* name) {
  return python::quantity_of(v, Quantity::Time, name);
}

// ---- tensors <-> NumPy
// ----------------------------------------------------------------------------

graph::DType dtype_of(const py::array& a, const std::string& name) {
  const py::dtype d = a.dtype();
  if (d.is(py::dtype::of<float>())) return graph::DType::Float32;
  if (d.is(py::dtype::of<double>())) return graph::DType::Float64;
  if (d.is(py::dtype::of<int8_t>())) return graph::DType::Int8;
  if (d.is(py::dtype::of<uint8_t>())) return graph::DType::UInt8;
  if (d.is(py::dtype::of<int32_t>())) return graph::DType::Int32;
  if (d.is(py::dtype::of<int64_t>())) return graph::DType::Int64;
  if (d.is(py::dtype::of<bool>())) return graph::DType::Bool;
  throw user_error("inputs: '", name, "' has dtype ", py::cast<std::string>(py::str(py::handle(d))),
                   "; expected float32, float64, int8, uint8, int32, int64 or bool");
}

// Copies a NumPy array (any strides) into a row-major tensor; the engine checks dtype and shape.
exec::Tensor tensor_of(const py::array& a, const std::string& name) {
  exec::Tensor t;
  t.dtype = dtype_of(a, name);
  for (py::ssize_t i = 0; i < a.ndim(); ++i) t.shape.push_back(static_cast<int64_t>(a.shape(i)));
  const py::array c = py::array::ensure(a, py::array::c_style);
  t.bytes.resize(static_cast<size_t>(c.nbytes()));
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), c.data(), t.bytes.size());
  return t;
}

const char* numpy_format(graph::DType d) {
  switch (d) {
    case graph::DType::Float32:
      return "float32";
    case graph::DType::Float64:
      return "float64";
    case graph::DType::Int8:
      return "int8";
    case graph::DType::UInt8:
      return "uint8";
    case graph::DType::Int32:
      return "int32";
    case graph::DType::Int64:
      return "int64";
    case graph::DType::Bool:
      return "bool";
  }
  return "float32";
}

// The array for graph input `input`: any array-like (a list, a float64 array) as NumPy makes it,
// and a floating-point array for a float32 input converted to float32 (NumPy's default float is
// float64; astype rounds to nearest); every other dtype goes as it is, and the engine checks it
// against the input with its message.
py::array input_array(const py::handle& v, const api::Model& model, const std::string& input) {
  const py::module_ np = py::module_::import("numpy");
  py::array a = py::isinstance<py::array>(v) ? py::reinterpret_borrow<py::array>(v)
                                             : py::array(np.attr("asarray")(v));
  const graph::TensorInfo* info = model.graph.info(input);
  const bool floating = a.dtype().kind() == 'f';
  if (info != nullptr && info->dtype == graph::DType::Float32 && floating &&
      !a.dtype().is(py::dtype::of<float>()))
    a = py::array(a.attr("astype")("float32"));
  return a;
}

// The inputs argument of run / analog_run: an array for a one-input model, or {name: array}.
std::map<std::string, exec::Tensor> inputs_of(const py::object& inputs, const api::Model& model) {
  std::map<std::string, exec::Tensor> out;
  if (inputs.is_none()) return out;
  if (py::isinstance<py::dict>(inputs)) {
    for (const auto& [k, v] : py::cast<py::dict>(inputs)) {
      const std::string name = py::cast<std::string>(k);
      out[name] = tensor_of(input_array(v, model, name), name);
    }
    return out;
  }
  if (model.graph.inputs.size() != 1)
    throw user_error("inputs: ", model.spec, " has ", model.graph.inputs.size(),
                     " inputs; pass a dict {name: array}");
  const std::string& name = model.graph.inputs[0];
  out[name] = tensor_of(input_array(inputs, model, name), "input");
  return out;
}

// Without a copy: the array views the tensor's bytes and keeps the tensor alive.
py::array array_of(exec::Tensor&& t) {
  auto* owned = new exec::Tensor(std::move(t));
  py::capsule keep(owned, [](void* p) { delete static_cast<exec::Tensor*>(p); });
  std::vector<py::ssize_t> shape(owned->shape.begin(), owned->shape.end());
  return py::array(py::dtype(numpy_format(owned->dtype)), shape, owned->bytes.data(), keep);
}

// ---- requests from kwargs
// --------------------------------------------------------------------------

// ---- each job's keywords, listed once: the binding applies them and keywords() lists them
// ------------------------------------------------------------------------------------------

python::Fields<api::PartitionRequest> partition_keywords() {
  return python::with_table(api::partition_fields());
}

python::Fields<api::InspectRequest> inspect_keywords() {
  using R = api::InspectRequest;
  return python::with_table(api::inspect_fields(),
                            {{"crossbar", [](R& r, const py::handle& v) {
                                if (py::isinstance<py::str>(v)) {
                                  r.set_crossbar(py::cast<std::string>(v));  // the C++ parser
                                } else {
                                  const auto t = py::cast<std::pair<int64_t, int64_t>>(v);
                                  r.xbar_rows = t.first;
                                  r.xbar_cols = t.second;
                                }
                              }}});
}

python::Fields<api::DseRequest> dse_keywords() {
  using R = api::DseRequest;
  // The scalars from the request's table; the grid's lists by hand.
  return python::with_table(api::dse_fields(), {{"models", field(&R::models)},
                                                {"crossbars", field(&R::crossbars)},
                                                {"hosts", field(&R::hosts)},
                                                {"t_mvm", [](R& r, const py::handle& v) {
                                                   r.t_mvm.clear();
                                                   for (const auto& t : py::cast<py::sequence>(v))
                                                     r.t_mvm.push_back(time_of(t, "t_mvm"));
                                                 }}});
}

// The two-device calls (fronts, MILP text): partition's table without the platform's fields.
python::Fields<api::PartitionRequest> two_device_keywords() {
  return python::with_table(api::two_device_fields());
}

// partition with a platform: the fields of partition's table a platform takes.
python::Fields<api::PartitionRequest> partition_platform_keywords() {
  return python::with_table(api::platform_fields());
}

python::Fields<api::PlatformDseRequest> dse_platform_keywords() {
  using R = api::PlatformDseRequest;
  return {{"platform", field(&R::platform)},
          {"imas", [](R& r, const py::handle& v) { r.imas = py::cast<int64_t>(v); }},
          {"sweep", field(&R::sweeps)},  // the CLI's repeated --sweep KEY=v1,v2
          {"models", field(&R::models)},
          {"objective", field(&R::objective)},
          {"time_limit", field(&R::time_limit)},
          {"threads", field(&R::threads)},
          {"cache_dir", field(&R::cache_dir)}};
}

python::Fields<api::ExecuteRequest> execute_keywords() {
  using R = api::ExecuteRequest;
  // The request's table, and the hardware of the partition problem (the plan's unless one of
  // hw, preset, crossbars, t_mvm is given), each set through the hardware table's own field.
  python::Fields<R> f = python::with_table(api::execute_fields());
  for (const api::Field<api::HardwareRequest>& h : api::hardware_fields()) {
    if (h.name == "host") continue;  // the request's own host
    f[h.name] = [set = python::table_setter(h)](R& r, const py::handle& v) {
      if (!r.hardware) r.hardware.emplace();
      set(*r.hardware, v);
    };
  }
  return f;
}

python::Fields<api::RooflineRequest> roofline_keywords() {
  using R = api::RooflineRequest;
  // The table's keywords and the sweep's lists.
  return python::with_table(api::roofline_fields(), {{"bus_widths", field(&R::bus_widths)},
                                                     {"utilizations", field(&R::utilizations)},
                                                     {"executions", field(&R::executions)}});
}

python::Fields<api::BottleneckRequest> bottleneck_keywords() {
  using R = api::BottleneckRequest;
  return python::with_table(api::bottleneck_fields(), {{"mappings", field(&R::mappings)}});
}

python::Fields<api::SensitivityRequest> sensitivity_keywords() {
  using R = api::SensitivityRequest;
  return python::with_table(api::sensitivity_fields(), {{"operators", field(&R::operators)}});
}

python::Fields<api::AnalogAuditRequest> analog_audit_keywords() {
  using R = api::AnalogAuditRequest;
  return python::with_table(api::analog_audit_fields(), {{"model", field(&R::model)}});
}

api::PartitionRequest partition_request(
    const py::kwargs& kw, const char* job,
    const python::Fields<api::PartitionRequest>& keywords = partition_keywords()) {
  api::PartitionRequest r;
  apply_kwargs(job, r, kw, keywords);
  r.validate();
  return r;
}

// A partition with the accuracy budget it was solved under (the reports print against it).
struct PartitionOutcome : api::PartitionResult {
  double budget = -1.0;  // PartitionRequest::max_accuracy_drop
};

// As `hetcim partition --json` writes it (cli/cmd_partition.cpp assembles the same blocks from
// the same report functions).
std::string partition_json_text(const PartitionOutcome& r) {
  nlohmann::json j = report::partition_json(r.run, r.problem, r.schedule);
  if (r.accuracy) j["accuracy"] = report::plan_accuracy_json(*r.accuracy, r.accuracy_set, r.budget);
  if (r.tightening)
    j["accuracy"]["verification"] = report::tightening_json(*r.tightening, r.accuracy_set);
  if (r.heldout)
    j["accuracy"]["heldout"] = report::heldout_accuracy_json(*r.heldout, r.heldout_set, r.budget);
  return j.dump(1);
}

// As `hetcim partition` prints it.
std::string partition_text(const PartitionOutcome& r) {
  std::string s = report::partition_text(r.run, r.problem, r.schedule);
  if (r.accuracy) s += report::plan_accuracy_text(*r.accuracy, r.accuracy_set, r.budget);
  if (r.tightening) s += report::tightening_text(*r.tightening, r.accuracy_set);
  if (r.heldout) s += report::heldout_accuracy_text(*r.heldout, r.heldout_set, r.budget);
  return s;
}

}  // namespace

PYBIND11_MODULE(_hetcim, m) {
  m.doc() = "hetcim: neural networks on heterogeneous CPU + in-memory-computing systems (C++ core)";

  static py::exception<UserError> user_exc(m, "UserError", PyExc_ValueError);
  static py::exception<InternalError> internal_exc(m, "InternalError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const UserError& e) {
      user_exc(e.what());
    } catch (const InternalError& e) {
      internal_exc(e.what());
    }
  });

  m.def(
      "option_tables",
      [] {
        py::dict d;
        d["partition"] = table_info(api::partition_fields());
        d["dse"] = table_info(api::dse_fields());
        d["run"] = table_info(api::run_fields());
        d["profile"] = table_info(api::profile_fields());
        d["inspect"] = table_info(api::inspect_fields());
        d["analog_audit"] = table_info(api::analog_audit_fields());
        d["analog_run"] = table_info(api::analog_run_fields());
        d["execute"] = table_info(api::execute_fields());
        d["export_onnx"] = table_info(api::export_fields());
        d["sensitivity"] = table_info(api::sensitivity_fields());
        d["cluster_roofline"] = table_info(api::roofline_fields());
        d["cluster_bottleneck"] = table_info(api::bottleneck_fields());
        d["cluster_calibrate"] = table_info(api::calibrate_fields());
        d["cluster_constants"] = table_info(api::cluster_constants_fields());
        return d;
      },
      "Each migrated job's field table (api/options.h): the one description of its options that "
      "feeds validation, the CLI flags and these keyword arguments.");

  m.def(
      "keywords",
      [] {
        py::dict d;
        d["partition"] = python::keyword_names(partition_keywords());
        d["partition_front"] = python::keyword_names(two_device_keywords());
        d["partition_front_3d"] = python::keyword_names(two_device_keywords());
        d["partition_milp"] = python::keyword_names(two_device_keywords());
        d["partition_platform"] = python::keyword_names(partition_platform_keywords());
        d["dse"] = python::keyword_names(dse_keywords());
        d["dse_platform"] = python::keyword_names(dse_platform_keywords());
        d["run"] = python::keyword_names(python::with_table(api::run_fields()));
        d["profile"] = python::keyword_names(python::with_table(api::profile_fields()));
        d["inspect"] = python::keyword_names(inspect_keywords());
        d["analog_audit"] = python::keyword_names(analog_audit_keywords());
        d["analog_run"] = python::keyword_names(python::with_table(api::analog_run_fields()));
        d["execute"] = python::keyword_names(execute_keywords());
        d["export_onnx"] = python::keyword_names(python::with_table(api::export_fields()));
        d["sensitivity"] = python::keyword_names(sensitivity_keywords());
        d["cluster_roofline"] = python::keyword_names(roofline_keywords());
        d["cluster_bottleneck"] = python::keyword_names(bottleneck_keywords());
        d["cluster_calibrate"] = python::keyword_names(python::with_table(api::calibrate_fields()));
        d["cluster_constants"] =
            python::keyword_names(python::with_table(api::cluster_constants_fields()));
        return d;
      },
      "Every job's keyword arguments, as the binding applies them (the field table's and the "
      "job's own): what the tests compare with the CLI's flags.");

  m.def(
      "build_info",
      [] {
        const api::BuildInfo b = api::build_info();
        py::dict d;
        d["version"] = b.version;
        d["commit"] = b.commit;
        py::dict deps;
        for (const auto& [k, v] : b.dependencies) deps[py::str(k)] = v;
        d["dependencies"] = deps;
        return d;
      },
      "Version, commit and the versions of the libraries this build uses.");

  m.def(
      "list_models",
      [] {
        py::list out;
        for (const api::ZooModel& i : api::list_models()) {
          py::dict d;
          d["name"] = i.name;
          d["description"] = i.description;
          d["input"] = i.input;
          d["parameters"] = i.parameters;
          d["source"] = i.source;
          out.append(d);
        }
        return out;
      },
      "The built-in model zoo: name, description, input shape (batch 1), parameters (weights "
      "and biases), source.");

  py::class_<api::Model>(m, "Model",
                         "A network: a zoo model or an imported ONNX file, before lowering.")
      .def_readonly("spec", &api::Model::spec, "Zoo name or path, as given")
      .def_readonly("batch", &api::Model::batch)
      .def_property_readonly(
          "nodes", [](const api::Model& x) { return x.graph.nodes.size(); },
          "Nodes of the graph as imported")
      .def_property_readonly("inputs", [](const api::Model& x) { return x.graph.inputs; })
      .def_property_readonly("outputs", [](const api::Model& x) { return x.graph.outputs; })
      .def("__repr__", [](const api::Model& x) {
        return "<hetcim.Model " + x.spec + " batch " + std::to_string(x.batch) + ", " +
               std::to_string(x.graph.nodes.size()) + " nodes>";
      });

  m.def(
      "load_model",
      [](const std::string& spec, int64_t batch,
         const std::map<std::string, std::vector<int64_t>>& input_shapes) {
        std::map<std::string, graph::Shape> shapes;
        for (const auto& [name, dims] : input_shapes) shapes[name] = dims;
        return api::load_model(spec, batch, shapes);
      },
      py::arg("spec"), py::arg("batch") = 1,
      py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{},
      py::call_guard<py::gil_scoped_release>(),
      "Load a zoo model by name or an ONNX file by path; input_shapes fixes the shapes of ONNX "
      "inputs the file leaves open, e.g. {'x': [1, 16]} (UserError naming what is wrong).");

  m.def(
      "inspect_json",
      [](const api::Model& model, const py::kwargs& kw) {
        using R = api::InspectRequest;
        const python::Fields<R> f = inspect_keywords();
        R r;
        apply_kwargs("inspect", r, kw, f);
        r.validate();
        py::gil_scoped_release release;
        const api::InspectResult x = api::inspect(model, r);
        const report::InspectHeader h{x.model, x.precision, x.params_before_lowering};
        nlohmann::json j = report::inspect_json(h, x.workload, x.options);
        j["run_cannot_execute"] = x.run_cannot_execute;
        return j.dump(1);
      },
      py::arg("model"),
      "inspect(model, precision='int8', crossbar='256x256', differential=False): JSON text");

  m.def(
      "inspect_table",
      [](const api::Model& model, const std::string& precision) {
        api::InspectRequest r;
        r.precision = precision;
        r.validate();
        py::gil_scoped_release release;
        const api::InspectResult x = api::inspect(model, r);
        const report::InspectHeader h{x.model, x.precision, x.params_before_lowering};
        return report::inspect_table(h, x.workload, x.options);
      },
      py::arg("model"), py::arg("precision") = "int8", "The table `hetcim inspect` prints.");

  py::class_<api::RunResult>(m, "RunResult", "Outputs and timings of hetcim.run")
      .def_property_readonly(
          "latency_s", [](const api::RunResult& r) { return r.wall.median; },
          "Median wall time per run, measured on this machine")
      .def_property_readonly("latency_min_s", [](const api::RunResult& r) { return r.wall.min; })
      .def_property_readonly("cpu_s", [](const api::RunResult& r) { return r.cpu.median; })
      .def_readonly("operators", &api::RunResult::operators)
      .def_readonly("output_names", &api::RunResult::output_names);

  m.def(
      "run",
      [](const api::Model& model, const py::object& inputs, const py::kwargs& kw) {
        using R = api::RunRequest;
        const python::Fields<R> f = python::with_table(api::run_fields());
        R r;
        apply_kwargs("run", r, kw, f);
        r.inputs = inputs_of(inputs, model);
        r.validate();
        api::RunResult res;
        {
          py::gil_scoped_release release;
          res = api::run(model, r);
        }
        // Under the model's own output names, whatever the precision: the int8 lowering renames a
        // float output `fc` to `fc_dequantized`, and the lowered graph's outputs are the model's
        // in its order (RunResult::output_names).
        const std::vector<std::string>& model_names = model.graph.outputs;
        const bool same_count = res.output_names.size() == model_names.size();
        py::dict outs;
        for (size_t i = 0; i < res.output_names.size(); ++i) {
          const auto it = res.outputs.find(res.output_names[i]);
          if (it == res.outputs.end()) continue;
          outs[py::str(same_count ? model_names[i] : it->first)] = array_of(std::move(it->second));
          res.outputs.erase(it);
        }
        for (auto& [name, t] : res.outputs) outs[py::str(name)] = array_of(std::move(t));
        res.outputs.clear();
        return py::make_tuple(outs, std::move(res));
      },
      py::arg("model"), py::arg("inputs") = py::none(),
      "Execute on this CPU (oneDNN). Returns (outputs by name as NumPy arrays, RunResult).");

  m.def(
      "profile_json",
      [](const api::Model& model, const py::kwargs& kw) {
        using R = api::ProfileRequest;
        const python::Fields<R> f = python::with_table(api::profile_fields());
        python::LongCall call = python::LongCall::from_kwargs(kw);
        R r;
        apply_kwargs("profile", r, kw, f);
        r.validate();
        r.progress = call.callback();
        return call.run([&] { return cost::host_profile_json(api::profile(model, r).profile); });
      },
      py::arg("model"), "Measure this CPU as a host: the host profile as JSON text.");

  py::class_<PartitionOutcome>(m, "PartitionResult", "A partition: the schedule and the run")
      .def_readonly("latency_s", &PartitionOutcome::latency_s)
      .def_property_readonly("status",
                             [](const PartitionOutcome& r) { return api::status_text(r.status); })
      .def_property_readonly("json", &partition_json_text,
                             "The JSON `hetcim partition --json` writes (with `accuracy` when "
                             "the plan was re-evaluated on a chip)")
      .def("text", &partition_text, "What `hetcim partition` prints")
      .def(
          "gantt_svg",
          [](const PartitionOutcome& r) { return report::gantt_svg(r.run, r.problem, r.schedule); })
      .def(
          "save",
          [](const PartitionOutcome& r, const std::string& path) {
            report::write_partition_file(path, r.run, r.problem, r.schedule);
          },
          py::arg("path"), "Write the partition file (replayable with replay=path)");

  m.def(
      "partition",
      [](const api::Model& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::PartitionRequest r = partition_request(kw, "partition");
        r.host_measurement.progress = call.callback();
        PartitionOutcome res;
        static_cast<api::PartitionResult&>(res) =
            call.run([&] { return api::partition(model, r); });
        res.budget = r.max_accuracy_drop;
        if (res.status.call != partition::CallStatus::Ok)
          throw user_error("CBC failed: ", res.status.message);
        return res;
      },
      py::arg("model"),
      "partition(model, **options): the fields of option_tables()['partition'] as keywords "
      "(preset, crossbars, t_mvm='50ns', solver, time_limit, ..., sensitivity, "
      "max_accuracy_drop='2%' or 0.02, chip, chip_seed, ...)");

  m.def(
      "partition_front",
      [](const api::Model& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::PartitionRequest r = partition_request(kw, "partition_front", two_device_keywords());
        r.host_measurement.progress = call.callback();
        std::string json, svg;
        call.run([&] {
          const api::FrontResult f =
              api::partition_front(api::build_partition_problem(model, r), r);
          json = report::front_json(f.problem, f.front, f.provenance).dump(1);
          svg = report::front_svg(f.title, f.problem, f.front, f.provenance);
        });
        return py::make_tuple(json, svg);
      },
      py::arg("model"),
      "The latency-energy front: (JSON text, SVG text); front='supported' (weighted sums) or "
      "'full' (every non-dominated point).");

  m.def(
      "partition_front_3d_json",
      [](const api::Model& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::PartitionRequest r =
            partition_request(kw, "partition_front_3d", two_device_keywords());
        r.host_measurement.progress = call.callback();
        return call.run([&] {
          const api::Front3dResult f =
              api::partition_front_3d(api::build_partition_problem(model, r), r);
          return report::front3d_json(f.title, f.problem, f.front, f.accuracy, f.accuracy_set,
                                      f.provenance)
              .dump(1);
        });
      },
      py::arg("model"),
      "The latency x energy x accuracy-drop front (needs sensitivity= and chip=): the JSON "
      "`hetcim partition --pareto-3d` writes.");

  m.def(
      "partition_milp",
      [](const api::Model& model, const std::string& format, const py::kwargs& kw) {
        if (format != "mps" && format != "lp")
          throw user_error("format: expected mps or lp, got '", format, "'");
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::PartitionRequest r = partition_request(kw, "partition_milp", two_device_keywords());
        r.host_measurement.progress = call.callback();
        return call.run([&] {
          return api::partition_milp_text(
              api::build_partition_problem(model, r),
              format == "mps" ? partition::MilpFileFormat::Mps : partition::MilpFileFormat::Lp);
        });
      },
      py::arg("model"), py::arg("format") = "mps",
      "The paper's MILP of the problem as the text of an MPS or LP file (its header states the "
      "time unit): what `hetcim partition --mps / --lp` writes.");

  m.def(
      "dse_json",
      [](const py::kwargs& kw) {
        using R = api::DseRequest;
        const python::Fields<R> f = dse_keywords();
        python::LongCall call = python::LongCall::from_kwargs(kw);
        R r;
        apply_kwargs("dse", r, kw, f);
        r.validate();
        api::DseCallbacks callbacks;
        callbacks.progress = call.counter();  // from the pool's workers: a search stops them
        return call.run([&] {
          const api::DseResult x = api::run_dse(r, callbacks);
          return report::dse_json(x.points, x.provenance);
        });
      },
      "Klein et al. 2026's design-space exploration: the points as JSON text (the CLI's "
      "dse.json).");

  m.def(
      "dse_platform_json",
      [](const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        api::PlatformDseRequest r;
        apply_kwargs("dse_platform", r, kw, dse_platform_keywords());
        r.validate();
        return call.run([&] {
          const api::PlatformDseResult x = api::run_platform_dse(r, call.counter());
          return report::platform_dse_json(
              report::PlatformDseRun{r.platform, &x.axes, &x.points, x.provenance});
        });
      },
      "A platform's design-space exploration (`hetcim dse --platform P --sweep KEY=v1,v2`): "
      "platform_dse.json as text.");

  m.def(
      "partition_platform_json",
      [](const api::Model& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        const api::PartitionRequest r =
            partition_request(kw, "partition_platform", partition_platform_keywords());
        const auto [json, svg] = call.run([&] {
          const api::PlatformPartitionResult x = api::partition_on_platform(model, r);
          const report::MultiPartitionRun run{x.model,  x.platform,   &x.problem,
                                              &x.solve, x.provenance, x.milp ? &*x.milp : nullptr};
          return std::make_pair(report::multi_partition_json(run).dump(1) + "\n",
                                report::multi_gantt_svg(run));
        });
        return py::make_tuple(json, svg);
      },
      "A network mapped across the K engines of a platform: (the JSON the CLI's partition "
      "--platform --json writes, the Gantt chart its --gantt draws, as SVG text).");

  m.def(
      "partition_platform_problem",
      [](const api::Model& model, const py::kwargs& kw) {
        python::LongCall call = python::LongCall::from_kwargs(kw);
        const api::PartitionRequest r =
            partition_request(kw, "partition_platform", partition_platform_keywords());
        return call.run([&] {
          return api::platform_problem_json(api::build_platform_partition_problem(model, r));
        });
      },
      py::arg("model"),
      "A platform's problem written out whole, before it is solved: the JSON `hetcim partition "
      "--platform P --problem-json` writes.");

  m.def(
      "partition_platform_milp",
      [](const api::Model& model, const std::string& format, const py::kwargs& kw) {
        if (format != "mps" && format != "lp")
          throw user_error("format: expected mps or lp, got '", format, "'");
        python::LongCall call = python::LongCall::from_kwargs(kw);
        const api::PartitionRequest r =
            partition_request(kw, "partition_platform", partition_platform_keywords());
        return call.run([&] {
          return api::platform_milp_text(
              api::build_platform_partition_problem(model, r),
              format == "mps" ? partition::MilpFileFormat::Mps : partition::MilpFileFormat::Lp);
        });
      },
      py::arg("model"), py::arg("format") = "mps",
      "The K-engine MILP of a platform's problem as the text of an MPS or LP file (its header "
      "states the time unit and the objective): what `hetcim partition --platform P --mps / --lp` "
      "writes.");

  m.def(
      "cluster_roofline_json",
      [](const py::kwargs& kw) {
        using R = api::RooflineRequest;
        const python::Fields<R> f = roofline_keywords();
        R r;
        apply_kwargs("cluster_roofline", r, kw, f);
        r.validate();
        const api::RooflineResult x = api::cluster_roofline(r);
        nlohmann::json j = nlohmann::json::parse(report::roofline_json(x.config, x.points));
        j["provenance"] = formats::provenance_json(x.provenance);
        return j.dump(1) + "\n";
      },
      "Garofalo et al. 2022's Fig. 7 roofline as JSON text (the CLI's --json).");

  m.def(
      "cluster_bottleneck_json",
      [](const py::kwargs& kw) {
        using R = api::BottleneckRequest;
        const python::Fields<R> f = bottleneck_keywords();
        R r;
        apply_kwargs("cluster_bottleneck", r, kw, f);
        r.validate();
        const api::BottleneckResult x = api::cluster_bottleneck(r);
        nlohmann::json j = nlohmann::json::parse(report::bottleneck_json(x.config, x.study));
        j["provenance"] = formats::provenance_json(x.provenance);
        return j.dump(1) + "\n";
      },
      "Garofalo et al. 2022's Bottleneck study (Fig. 8-10) as JSON text (the CLI's --json).");

  m.def(
      "cluster_constants_text",
      [](const py::kwargs& kw) {
        using R = api::ClusterRequest;
        R r;
        apply_kwargs("cluster_constants", r, kw,
                     python::with_table(api::cluster_constants_fields()));
        r.validate();
        const api::ConstantsResult x = api::cluster_constants(r);
        return report::cluster_text_with_provenance(report::constant_table_text(x.config),
                                                    x.provenance);
      },
      "Every constant of Garofalo et al. 2022's cluster model with its value and source: the "
      "table `hetcim "
      "cluster constants` prints.");

  m.def(
      "cluster_calibrate_json",
      [](const py::kwargs& kw) {
        using R = api::CalibrateRequest;
        const python::Fields<R> f = python::with_table(api::calibrate_fields());
        python::LongCall call = python::LongCall::from_kwargs(kw);
        R r;
        apply_kwargs("cluster_calibrate", r, kw, f);
        r.validate();
        return call.run([&] {
          const api::CalibrateResult x = api::cluster_calibrate(r);
          nlohmann::json j =
              nlohmann::json::parse(report::calibration_json(x.config, x.calibration));
          j["provenance"] = formats::provenance_json(x.provenance);
          return j.dump(1) + "\n";
        });
      },
      "A CALIBRATION of Garofalo et al. 2022's cluster model to Fig. 9, and Fig. 7 with the "
      "fitted constants, "
      "as JSON text (the CLI's cluster calibrate --json).");
  m.def(
      "sensitivity_json",
      [](const api::Model& model, const py::kwargs& kw) {
        using R = api::SensitivityRequest;
        const python::Fields<R> f = sensitivity_keywords();
        python::LongCall call = python::LongCall::from_kwargs(kw);
        R r;
        apply_kwargs("sensitivity", r, kw, f);
        r.validate();
        r.progress = call.callback();
        return call.run([&] {
          const api::SensitivityResult x = api::sensitivity(model, r);
          return api::sensitivity_file_json(x, x.provenance).dump(1) + "\n";
        });
      },
      py::arg("model"),
      "Per-operator accuracy drops on a simulated chip: the sensitivity file as JSON text (the "
      "CLI's sensitivity --out).");
  m.def(
      "export_onnx",
      [](const api::Model& model, const py::kwargs& kw) {
        using R = api::ExportRequest;
        R r;
        apply_kwargs("export_onnx", r, kw, python::with_table(api::export_fields()));
        r.validate();
        std::string bytes;
        {
          py::gil_scoped_release release;
          bytes = api::export_onnx(model, r).onnx;
        }
        return py::bytes(bytes);
      },
      py::arg("model"),
      "The model as a standard ONNX file's bytes (fp32, or int8 in QDQ form): what `hetcim "
      "export --onnx` writes.");
  m.def(
      "write_file",
      [](const std::string& path, const py::bytes& data) {
        const std::string bytes = data;
        py::gil_scoped_release release;
        write_file_atomically(path, bytes);
      },
      py::arg("path"), py::arg("data"),
      "Writes `data` to `path` as every hetcim output is written (util/files.h): all or nothing "
      "through a temporary beside it, a symbolic link written through only to a regular file, "
      "never to a device, FIFO or directory.");
  m.def(
      "execute_json",
      [](const std::string& model, const py::kwargs& kw) {
        using R = api::ExecuteRequest;
        python::LongCall call = python::LongCall::from_kwargs(kw);
        R r;
        apply_kwargs("execute", r, kw, execute_keywords());
        r.validate();
        return call.run([&] {
          api::ExecuteResult x = api::execute(model, r);
          x.execution.provenance = x.provenance;
          return report::execution_json(x.execution).dump(1) + "\n";
        });
      },
      py::arg("model"),
      "A partition plan end to end on a simulated chip: the JSON `hetcim execute --json` writes.");

  m.def(
      "analog_run",
      [](const api::Model& model, const py::object& inputs, const py::kwargs& kw) {
        using R = api::AnalogRunRequest;
        R r;
        apply_kwargs("analog_run", r, kw, python::with_table(api::analog_run_fields()));
        r.inputs = inputs_of(inputs, model);
        r.validate();
        api::AnalogRunResult res;
        {
          py::gil_scoped_release release;
          res = api::analog_run(model, r);
        }
        py::dict outs;
        for (auto& [name, t] : res.outputs) outs[py::str(name)] = array_of(std::move(t));
        py::dict stats;
        stats["analog_layers"] = res.analog_layers;
        stats["dac_conversions"] = res.stats.dac_conversions;
        stats["adc_conversions"] = res.stats.adc_conversions;
        stats["adc_clipped"] = res.stats.adc_clipped;
        return py::make_tuple(outs, stats);
      },
      py::arg("model"), py::arg("inputs") = py::none(),
      "Chosen Conv/Gemm/MatMul nodes on a simulated analog chip, the rest on the reference "
      "interpreter (api::analog_run, `hetcim analog run`). Returns (outputs by name, converter "
      "counts).");

  m.def(
      "analog_audit",
      [](const py::kwargs& kw) {
        using R = api::AnalogAuditRequest;
        R r;
        apply_kwargs("analog_audit", r, kw, analog_audit_keywords());
        r.validate();
        api::AnalogAuditResult res;
        {
          py::gil_scoped_release release;
          res = api::analog_audit(r);
        }
        py::list layers;
        for (const xbar::MappingAudit& a : res.audits) {
          py::dict d;
          d["layer"] = a.layer;
          d["rows"] = a.rows;
          d["cols"] = a.cols;
          d["gamma"] = a.gamma;
          d["distinct_levels"] = a.distinct_levels;
          d["clipped_weights"] = a.clipped_weights;
          d["quantized_rmse"] = a.quantized.rmse;
          d["programmed_rmse"] = a.programmed.rmse;
          d["programmed_rel_l2"] = a.programmed.rel_l2;
          d["stuck"] = a.stuck_low + a.stuck_high;
          layers.append(d);
        }
        return py::make_tuple(layers, res.skipped,
                              report::analog_audit_text(res.audits, res.skipped));
      },
      "The per-layer mapping report of a model's weights on a chip profile (api::analog_audit, "
      "`hetcim analog audit`): (layers as dicts, skipped layers, the CLI's table).");
}
