// hetcim run: execute a model on the host with the oneDNN engine; print the top-5 classes (or an
// output summary) and the latency; optionally read inputs from and write outputs to .npy files.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>

#include "api/run.h"
#include "cli/commands.h"
#include "cli/model_source.h"
#include "cli/options.h"
#include "exec/npy.h"
#include "util/error.h"
#include "util/output_set.h"

namespace hetcim::cli {
namespace {

struct RunArgs {
  ModelSource model;
  api::RunRequest request;
  std::vector<std::string> inputs;   // FILE or NAME=FILE
  std::vector<std::string> outputs;  // FILE or NAME=FILE
};

// NAME=FILE, or FILE alone: (name or "", file).
std::pair<std::string, std::string> split_name_file(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq != std::string::npos && eq > 0) return {spec.substr(0, eq), spec.substr(eq + 1)};
  return {"", spec};
}

void run(RunArgs a) {
  for (const std::string& spec : a.inputs) {
    const auto [name, file] = split_name_file(spec);
    if (a.request.inputs.count(name))
      throw user_error("--input '", spec, "': that input is given twice");
    a.request.inputs[name] = exec::read_npy(file);
  }
  a.request.validate();
  const api::RunResult r = api::run(load_api_model(a.model), a.request);
  const api::RunRequest& q = a.request;
  std::printf("model %s, %s, %d thread%s, %zu operators\n", a.model.spec.c_str(),
              q.precision.c_str(), q.threads, q.threads == 1 ? "" : "s", r.operators);
  if (!r.calibration.empty()) std::printf("int8 calibration: %s\n", r.calibration.c_str());
  for (const auto& [name, t] : r.outputs) {
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
              r.wall.median * 1e3, r.wall.min * 1e3, r.wall.p90 * 1e3, q.runs, q.warmup);
  std::printf("cpu time: median %.3f ms, min %.3f ms per run (all threads)\n", r.cpu.median * 1e3,
              r.cpu.min * 1e3);
  OutputSet files;
  std::vector<std::pair<std::string, std::string>> written;
  for (const std::string& spec : a.outputs) {
    auto [name, file] = split_name_file(spec);
    if (name.empty()) {
      if (r.output_names.size() != 1) {
        std::string list;
        for (const auto& n : r.output_names) list += (list.empty() ? "" : ", ") + n;
        throw user_error("--output '", spec, "': the model has ", r.output_names.size(),
                         " of them (", list, "); write NAME=FILE");
      }
      name = r.output_names[0];
    }
    auto it = r.outputs.find(name);
    if (it == r.outputs.end()) throw user_error("--output: the model has no output '", name, "'");
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
  // The request's fields from api::run_fields() (--weight-seed, with --seed its deprecated
  // spelling).
  options::add_fields(cmd, api::run_fields(), a->request);
  cmd->add_option("--input", a->inputs,
                  ".npy input (FILE, or NAME=FILE per model input); default: seeded random");
  cmd->add_option("--output", a->outputs,
                  "Write an output as .npy (FILE, or NAME=FILE per model output)");
  add_input_shape_option(cmd, a->model);
  cmd->add_option("--batch", a->model.batch, "Batch size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->callback([a] { run(*a); });
}

}  // namespace hetcim::cli
