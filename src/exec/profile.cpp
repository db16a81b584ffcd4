#include "exec/profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "util/error.h"

namespace hetcim::exec {

std::string machine_description() {
  std::string model;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  if (model.empty()) model = "unknown CPU";
  return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " logical CPUs)";
}

Stats summarize(std::vector<double> s) {
  if (s.empty()) throw user_error("no samples to summarize");
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  Stats r;
  r.min = s.front();
  r.median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  const size_t rank = static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n)));
  r.p90 = s[std::max<size_t>(rank, 1) - 1];
  return r;
}

ProfileResult profile(Engine& engine, const TensorMap& inputs, const ProfileOptions& o,
                      const ProfileProgress& progress, Engine* fused) {
  if (o.warmup < 0) throw user_error("--warmup must be >= 0, got ", o.warmup);
  if (o.runs < 1) throw user_error("--runs must be >= 1, got ", o.runs);
  engine.set_inputs(inputs);
  if (fused) fused->set_inputs(inputs);
  const size_t total = static_cast<size_t>(o.warmup) + static_cast<size_t>(o.runs);
  size_t done = 0;
  auto step = [&] {
    if (progress) progress(++done, total);
  };
  for (int i = 0; i < o.warmup; ++i) {
    engine.execute();
    if (fused) fused->execute();
    step();
  }
  const size_t nops = engine.ops().size();
  std::vector<std::vector<double>> per_op(nops);
  std::vector<double> whole, whole_fused, seconds;
  using clock = std::chrono::steady_clock;
  for (int r = 0; r < o.runs; ++r) {
    engine.execute_timed(seconds);
    for (size_t i = 0; i < nops; ++i) per_op[i].push_back(seconds[i]);
    const auto t0 = clock::now();
    engine.execute();
    whole.push_back(std::chrono::duration<double>(clock::now() - t0).count());
    if (fused) {
      const auto t1 = clock::now();
      fused->execute();
      whole_fused.push_back(std::chrono::duration<double>(clock::now() - t1).count());
    }
    step();
  }
  ProfileResult res;
  res.threads = engine.threads();
  res.warmup = o.warmup;
  res.runs = o.runs;
  for (size_t i = 0; i < nops; ++i) {
    res.ops.push_back({engine.ops()[i], summarize(per_op[i])});
    res.op_median_sum += res.ops.back().time.median;
  }
  res.model = summarize(whole);
  if (fused) {
    res.has_fused = true;
    res.fused_model = summarize(whole_fused);
    for (const OpInfo& op : fused->ops())
      res.fused_away += op.impl.rfind("fused into", 0) == 0 ? 1 : 0;
  }
  return res;
}

}  // namespace hetcim::exec
