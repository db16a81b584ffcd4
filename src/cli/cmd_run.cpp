// hetcim run: execute a model on the host with the oneDNN engine; print the top-5 classes (or an
// output summary) and the latency; optionally read inputs from and write outputs to .npy files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <numeric>

#include "cli/commands.h"
#include "cli/model_source.h"
#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "exec/npy.h"
#include "exec/profile.h"
#include "util/error.h"
#include "util/output_set.h"

namespace hetcim::cli {
namespace {

struct RunArgs {
  ModelSource model;
  std::string precision = "fp32";
  int threads = 1;
  std::vector<std::string> inputs;   // FILE or NAME=FILE
  std::vector<std::string> outputs;  // FILE or NAME=FILE
  uint64_t seed = 1;                 // weights the model does not carry
  uint64_t input_seed = 7;           // random inputs when --input is not given
  uint64_t calibration_seed = 1;
  int calibration_samples = 2;
  std::string calibration_data;  // .npy file or directory of .npy files
  std::string calibration_method = "minmax";
  double calibration_percentile = 99.99;
  int warmup = 3;
  int runs = 10;
};

// NAME=FILE or FILE (only for a model with exactly one name in `names`).
std::pair<std::string, std::string> name_file(const std::string& spec,
                                              const std::vector<std::string>& names,
                                              const char* flag) {
  const size_t eq = spec.find('=');
  if (eq != std::string::npos && eq > 0) return {spec.substr(0, eq), spec.substr(eq + 1)};
  if (names.size() != 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    throw user_error(flag, " '", spec, "': the model has ", names.size(), " of them (", list,
                     "); write NAME=FILE");
  }
  return {names[0], spec};
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

void run(const RunArgs& a) {
  exec::PrepareOptions po;
  po.precision = a.precision == "int8" ? passes::Precision::Int8 : passes::Precision::Fp32;
  po.weight_seed = a.seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  po.calibration.method = a.calibration_method == "percentile" ? exec::CalibrationMethod::Percentile
                                                               : exec::CalibrationMethod::MinMax;
  po.calibration.percentile = a.calibration_percentile;
  const graph::Graph model = with_model_named(a.model, [&] { return load_model(a.model); });
  if (!a.calibration_data.empty()) {
    if (po.precision != passes::Precision::Int8)
      throw user_error("--calibration-data applies to --precision int8");
    po.calibration.data = read_calibration_data(a.calibration_data, model);
  }
  // Every check (calibration data, operators the engine lacks) happens before anything runs.
  const graph::Graph g = with_model_named(a.model, [&] { return exec::prepare(model, po); });
  std::string calibration;
  if (po.precision == passes::Precision::Int8 && !has_qdq(model)) {
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
  for (const std::string& spec : a.inputs) {
    const auto [name, file] = name_file(spec, g.inputs, "--input");
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw user_error("--input: the model has no input '", name, "'");
    inputs[name] = exec::read_npy(file);
  }
  exec::Engine engine = with_model_named(a.model, [&] { return exec::Engine(g, {a.threads}); });
  engine.set_inputs(inputs);
  for (int i = 0; i < a.warmup; ++i) engine.execute();
  // Wall time, and the process CPU time (all threads) of each run: on a loaded machine the CPU
  // time of a 1-thread run is what the run costs without the time it waited for a core.
  std::vector<double> times, cpu;
  auto cpu_now = [] {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  for (int i = 0; i < a.runs; ++i) {
    const double c0 = cpu_now();
    const auto t0 = std::chrono::steady_clock::now();
    engine.execute();
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    cpu.push_back(cpu_now() - c0);
  }
  const exec::Stats st = exec::summarize(times);
  const exec::Stats cst = exec::summarize(cpu);
  const exec::TensorMap outs = engine.outputs();
  std::printf("model %s, %s, %d thread%s, %zu operators\n", a.model.spec.c_str(),
              a.precision.c_str(), a.threads, a.threads == 1 ? "" : "s", engine.ops().size());
  if (!calibration.empty()) std::printf("int8 calibration: %s\n", calibration.c_str());
  for (const auto& [name, t] : outs) {
    std::printf("output %s: %s %s\n", name.c_str(), std::string(graph::dtype_name(t.dtype)).c_str(),
                graph::shape_str(t.shape).c_str());
    const std::vector<float> v = t.floats();
    if (t.shape.size() == 2 && t.shape[0] == 1 && t.shape[1] >= 5) {
      std::vector<size_t> idx(v.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::partial_sort(idx.begin(), idx.begin() + 5, idx.end(),
                        [&](size_t x, size_t y) { return v[x] > v[y]; });
      std::printf("  top-5:");
      for (int k = 0; k < 5; ++k)
        std::printf(" %zu (%.4g)", idx[static_cast<size_t>(k)], v[idx[static_cast<size_t>(k)]]);
      std::printf("\n");
    } else if (!v.empty()) {
      const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
      std::printf("  min %.4g, max %.4g, mean %.4g\n", *lo, *hi, mean);
    }
  }
  std::printf("latency: median %.3f ms, min %.3f ms, p90 %.3f ms over %d runs (after %d warm-up)\n",
              st.median * 1e3, st.min * 1e3, st.p90 * 1e3, a.runs, a.warmup);
  std::printf("cpu time: median %.3f ms, min %.3f ms per run (all threads)\n", cst.median * 1e3,
              cst.min * 1e3);
  OutputSet files;
  std::vector<std::pair<std::string, std::string>> written;
  for (const std::string& spec : a.outputs) {
    const auto [name, file] = name_file(spec, g.outputs, "--output");
    auto it = outs.find(name);
    if (it == outs.end()) throw user_error("--output: the model has no output '", name, "'");
    files.add(file, exec::npy_bytes(it->second));
    written.emplace_back(file, name);
  }
  files.commit();
  for (const auto& [file, name] : written)
    std::printf("wrote %s (%s)\n", file.c_str(), name.c_str());
}

}  // namespace

void register_run(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Execute a model on this CPU (oneDNN engine); print the top-5 and the latency");
  cmd->add_option("model", a->model.spec, "Zoo model name or ONNX file")->required();
  cmd->add_option("--precision", a->precision, "fp32, or int8 (calibrated static quantization)")
      ->check(CLI::IsMember({"int8", "fp32"}))
      ->capture_default_str();
  cmd->add_option("--threads", a->threads, "CPU threads")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--input", a->inputs,
                  ".npy input (FILE, or NAME=FILE per model input); default: seeded random");
  cmd->add_option("--output", a->outputs,
                  "Write an output as .npy (FILE, or NAME=FILE per model output)");
  cmd->add_option("--seed", a->seed, "Seed for weights the model does not carry")
      ->capture_default_str();
  cmd->add_option("--input-seed", a->input_seed, "Seed for random inputs")->capture_default_str();
  cmd->add_option("--calibration-seed", a->calibration_seed, "Seed for int8 calibration inputs")
      ->capture_default_str();
  cmd->add_option("--calibration-samples", a->calibration_samples,
                  "Random inputs for int8 calibration")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--calibration-data", a->calibration_data,
                  "int8 calibration inputs instead of random ones: a .npy file (one sample, or "
                  "samples stacked along axis 0) or a directory of .npy files");
  cmd->add_option("--calibration-method", a->calibration_method,
                  "minmax, or percentile (per sample, averaged over samples)")
      ->check(CLI::IsMember({"minmax", "percentile"}))
      ->capture_default_str();
  cmd->add_option("--calibration-percentile", a->calibration_percentile,
                  "Percentile of --calibration-method percentile")
      ->check(CLI::Range(50.0, 100.0))
      ->capture_default_str();
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "Warm-up runs before timing")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--runs", a->runs, "Timed runs")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
