#include "api/run.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <vector>

#include "api/common.h"
#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/inputs.h"
#include "util/error.h"

namespace hetcim::api {
namespace {

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

void RunRequest::validate() const {
  (void)parse_precision(precision);
  check_range("threads", threads, 1, 1024);
  check_range("calibration_samples", calibration_samples, 1, 1000);
  check_range("warmup", warmup, 0, 100000);
  check_range("runs", runs, 1, 100000);
}

RunResult run(const Model& model, const RunRequest& a) {
  a.validate();
  exec::PrepareOptions po;
  po.precision = parse_precision(a.precision);
  po.weight_seed = a.weight_seed;
  po.calibration.seed = a.calibration_seed;
  po.calibration.samples = a.calibration_samples;
  const graph::Graph g = exec::prepare(model.graph, po);
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
  exec::Engine engine(g, {a.threads});
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
  r.output_names = g.outputs;
  for (auto& [name, t] : engine.outputs()) r.outputs[name] = t;
  return r;
}

}  // namespace hetcim::api
