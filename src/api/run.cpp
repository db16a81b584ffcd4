#include "api/run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <utility>
#include <vector>

#include "api/common.h"
#include "api/options.h"
#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/npy.h"
#include "util/error.h"

namespace hetcim::api {
namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The calibration samples in `path` (one .npy file, or every .npy file of a directory in name
// order) for a model with one input: a file holding exactly the input's shape is one sample; a file
// whose first dimension is a multiple of the input's (the rest equal) is that many stacked samples.
std::vector<exec::TensorMap> read_calibration_data(const std::string& path,
                                                   const graph::Graph& model) {
  namespace fs = std::filesystem;
  if (model.inputs.size() != 1)
    throw user_error("--calibration-data: the model has ", model.inputs.size(),
                     " inputs; calibration files are supported for models with one input");
  const std::string& input = model.inputs[0];
  const graph::Shape& want = model.shape_of(input, "--calibration-data");
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file() && e.path().extension() == ".npy") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw user_error("--calibration-data: no .npy file in directory ", path);
  } else {
    files.push_back(path);
  }
  std::vector<exec::TensorMap> out;
  for (const std::string& f : files) {
    const exec::Tensor t = exec::read_npy(f);
    const graph::TensorInfo* ti = model.info(input);
    if (t.dtype != ti->dtype)
      throw user_error(f, ": dtype ", graph::dtype_name(t.dtype), ", the model's input '", input,
                       "' is ", graph::dtype_name(ti->dtype));
    const bool same_tail = t.shape.size() == want.size() && !want.empty() &&
                           std::equal(t.shape.begin() + 1, t.shape.end(), want.begin() + 1);
    if (!same_tail || want[0] < 1 || t.shape[0] % want[0] != 0)
      throw user_error(f, ": shape ", graph::shape_str(t.shape), ", expected ",
                       graph::shape_str(want), " or a stack of such samples along axis 0");
    const int64_t per =
        graph::element_count(want) * static_cast<int64_t>(graph::dtype_size(t.dtype));
    for (int64_t k = 0; k < t.shape[0] / want[0]; ++k) {
      exec::Tensor s = exec::Tensor::zeros(t.dtype, want);
      std::memcpy(s.bytes.data(), t.bytes.data() + k * per, static_cast<size_t>(per));
      out.push_back({{input, std::move(s)}});
    }
  }
  return out;
}

bool has_qdq(const graph::Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [](const graph::Node& n) {
    return n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear";
  });
}

}  // namespace

const FieldTable<RunRequest>& run_fields() {
  using R = RunRequest;
  static const FieldTable<R> table = {
      field("precision", &R::precision, "fp32, or int8 (calibrated static quantization)")
          .one_of({"int8", "fp32"}),
      field("threads", &R::threads, "CPU threads").range(1, 1024),
      field("fuse", &R::fuse,
            "Run the engine's fused plan (off, --no-fuse: every operator as its own kernel, no "
            "residual-Add sum post-ops, no SiLU kernel: the unfused baseline)"),
      field("weight_seed", &R::weight_seed, "Seed for weights the model does not carry")
          .deprecated_alias("--seed"),
      field("input_seed", &R::input_seed, "Seed for random inputs"),
      field("calibration_seed", &R::calibration_seed, "Seed for int8 calibration inputs"),
      field("calibration_samples", &R::calibration_samples, "Random inputs for int8 calibration")
          .range(1, 1000),
      field("calibration_data", &R::calibration_data,
            "int8 calibration inputs instead of random ones: a .npy file (one sample, or samples "
            "stacked along axis 0) or a directory of .npy files"),
      field("calibration_method", &R::calibration_method,
            "minmax, or percentile (per sample, averaged over samples)")
          .one_of({"minmax", "percentile"}),
      field("calibration_percentile", &R::calibration_percentile,
            "Percentile of calibration method percentile")
          .range(50, 100),
      field("warmup", &R::warmup, "Warm-up runs before timing").range(0, 100000),
      field("runs", &R::runs, "Timed runs").range(1, 100000),
  };
  return table;
}

void RunRequest::validate() const {
  check_fields(*this, run_fields());
}

namespace {

RunResult run_unnamed(Model model, const RunRequest& a) {
  a.validate();
  exec::PrepareOptions po;
  po.precision = parse_precision(a.precision);
  po.weight_seed = a.weight_seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  po.calibration.method = a.calibration_method == "percentile" ? exec::CalibrationMethod::Percentile
                                                               : exec::CalibrationMethod::MinMax;
  po.calibration.percentile = a.calibration_percentile;
  if (!a.calibration_data.empty()) {
    if (po.precision != passes::Precision::Int8)
      throw user_error("--calibration-data applies to --precision int8");
    po.calibration.data = read_calibration_data(a.calibration_data, model.graph);
  }
  // Every check (calibration data, operators the engine lacks) happens before anything runs.
  const bool qdq = has_qdq(model.graph);
  const graph::Graph g = exec::prepare(std::move(model.graph), po);
  std::string calibration;
  if (po.precision == passes::Precision::Int8 && !qdq) {
    const std::string method = std::string(exec::calibration_method_name(po.calibration.method)) +
                               (po.calibration.method == exec::CalibrationMethod::Percentile
                                    ? " " + std::to_string(po.calibration.percentile)
                                    : std::string());
    calibration = a.calibration_data.empty()
                      ? method + " over " + std::to_string(a.calibration_samples) +
                            " seeded uniform random inputs (calibration seed " +
                            std::to_string(a.calibration_seed) + ")"
                      : method + " over " + std::to_string(po.calibration.data.size()) +
                            " samples of " + a.calibration_data;
  }
  exec::TensorMap inputs = exec::random_inputs(g, a.input_seed);
  for (const auto& [given, t] : a.inputs) {
    std::string name = given;
    if (name.empty()) {
      if (g.inputs.size() != 1) {
        std::string list;
        for (const auto& n : g.inputs) list += (list.empty() ? "" : ", ") + n;
        throw user_error("inputs: the model has ", g.inputs.size(), " inputs (", list,
                         "); name each one");
      }
      name = g.inputs[0];
    }
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw user_error("inputs: the model has no input '", name, "'");
    inputs[name] = t;
  }
  exec::EngineOptions engine_options;
  engine_options.threads = a.threads;
  engine_options.fuse = a.fuse;
  exec::Engine engine(g, engine_options);
  engine.set_inputs(inputs);  // checks dtype and shape, naming the input
  for (int i = 0; i < a.warmup; ++i) engine.execute();
  // Wall time, and the process CPU time (all threads) of each run: on a loaded machine the CPU
  // time of a 1-thread run is what the run costs without the time it waited for a core.
  std::vector<double> times, cpu;
  for (int i = 0; i < a.runs; ++i) {
    const double c0 = cpu_now();
    const auto t0 = std::chrono::steady_clock::now();
    engine.execute();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(cpu_now() - c0);
  }
  RunResult r;
  r.status.origin = Origin::Measured;
  r.provenance = library_provenance();
  r.wall = exec::summarize(times);
  r.cpu = exec::summarize(cpu);
  r.operators = engine.ops().size();
  r.calibration = calibration;
  r.output_names = g.outputs;
  for (auto& [name, t] : engine.outputs()) r.outputs[name] = t;
  return r;
}

}  // namespace

RunResult run(const Model& model, const RunRequest& a) {
  return with_model_named(model.spec, [&] { return run_unnamed(model, a); });
}

RunResult run(Model&& model, const RunRequest& a) {
  const std::string spec = model.spec;
  return with_model_named(spec, [&] { return run_unnamed(std::move(model), a); });
}

}  // namespace hetcim::api
