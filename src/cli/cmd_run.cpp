// hetcim run: execute a model on the host with the oneDNN engine; print the top-5 classes (or an
// output summary) and the latency; optionally read inputs from and write outputs to .npy files.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
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

void run(const RunArgs& a) {
  exec::PrepareOptions po;
  po.precision = a.precision == "int8" ? passes::Precision::Int8 : passes::Precision::Fp32;
  po.weight_seed = a.seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  const graph::Graph g =
      with_model_named(a.model, [&] { return exec::prepare(load_model(a.model), po); });
  exec::Engine engine = with_model_named(a.model, [&] { return exec::Engine(g, {a.threads}); });
  exec::TensorMap inputs = exec::random_inputs(g, a.input_seed);
  for (const std::string& spec : a.inputs) {
    const auto [name, file] = name_file(spec, g.inputs, "--input");
    if (std::find(g.inputs.begin(), g.inputs.end(), name) == g.inputs.end())
      throw user_error("--input: the model has no input '", name, "'");
    inputs[name] = exec::read_npy(file);
  }
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
