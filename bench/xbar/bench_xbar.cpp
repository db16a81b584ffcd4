// Analog execution of a Linear 2048x256 layer, batch 1000, with every non-ideality on (write
// noise, stuck devices, per-read read noise, 8-bit DAC and ADC), against a plain fp32 GEMM of the
// same size through the same library (oneDNN's matmul primitive, xbar/gemm.h). Each case runs
// several repetitions; the summary prints the median of each and its ratio to the plain GEMM.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/gemm.h"
#include "xbar/rng.h"

namespace {

using namespace hetcim::xbar;

constexpr int64_t kIn = 2048, kOut = 256, kBatch = 1000;

std::vector<float> normal_vector(int64_t n, uint64_t seed, float scale) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = scale * static_cast<float>(r.normal());
  return v;
}

const std::vector<float>& inputs() {
  static const std::vector<float> x = normal_vector(kBatch * kIn, 1, 1.0f);
  return x;
}

const std::vector<float>& weights() {  // crossbar layout: inputs x outputs
  static const std::vector<float> w = normal_vector(kIn * kOut, 2, 0.03f);
  return w;
}

ChipProfile a3() {
  return load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
}

void BM_PlainGemm(benchmark::State& state) {
  std::vector<float> y(static_cast<size_t>(kBatch * kOut));
  for (auto _ : state) {
    sgemm(kBatch, kOut, kIn, inputs().data(), kIn, weights().data(), kOut, y.data(), kOut);
    benchmark::DoNotOptimize(y.data());
  }
}

void run_analog(benchmark::State& state, const ChipProfile& profile) {
  const ProgrammedLayer layer =
      Chip(profile, 7).program("classifier.0", weights().data(), kIn, kOut);
  std::vector<float> y(static_cast<size_t>(kBatch * kOut));
  Rng rng(11);
  for (auto _ : state) {
    layer.forward(inputs().data(), kBatch, y.data(), rng);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["arrays"] = static_cast<double>(layer.audit().tiles);
}

void BM_AnalogA3OneArray(benchmark::State& state) {
  run_analog(state, a3());
}

void BM_AnalogA3Arrays256(benchmark::State& state) {
  ChipProfile p = a3();
  p.array_rows = 256;
  p.array_cols = 256;
  run_analog(state, p);
}

void BM_AnalogA3Reference(benchmark::State& state) {
  ChipProfile p = a3();
  p.mode = SimMode::Reference;
  run_analog(state, p);
}

constexpr int kRepetitions = 9;
BENCHMARK(BM_PlainGemm)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(kRepetitions)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalogA3OneArray)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(kRepetitions)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalogA3Arrays256)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(kRepetitions)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_AnalogA3Reference)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Repetitions(kRepetitions)
    ->ReportAggregatesOnly(true);

// Console output plus, at the end, each benchmark's median and its ratio to the plain GEMM.
// The machine is shared, so the summary also runs the cases interleaved (one call of each per
// round, many rounds) and reports medians and minima of those paired rounds: a load spike then
// hits every case alike instead of one benchmark's whole repetition block.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")
        medians_.push_back(
            {r.run_name.function_name, r.GetAdjustedRealTime(), r.GetAdjustedCPUTime()});
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    double base = 0, base_cpu = 0;
    for (const Median& m : medians_)
      if (m.name == "BM_PlainGemm") base = m.wall, base_cpu = m.cpu;
    std::printf(
        "\nLinear %lldx%lld, batch %lld: median of %d runs (wall, process CPU), ratio to plain "
        "fp32 GEMM\n",
        static_cast<long long>(kIn), static_cast<long long>(kOut), static_cast<long long>(kBatch),
        kRepetitions);
    for (const Median& m : medians_)
      std::printf("  %-24s wall %9.3f ms %5.2fx   CPU %9.3f ms %5.2fx\n", m.name.c_str(), m.wall,
                  base > 0 ? m.wall / base : 0.0, m.cpu, base_cpu > 0 ? m.cpu / base_cpu : 0.0);
  }

 private:
  struct Median {
    std::string name;
    double wall, cpu;
  };
  std::vector<Median> medians_;
};

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
}

struct Case {
  std::string name;
  std::function<void()> run;
};

void interleaved_summary(int rounds) {
  std::vector<float> y(static_cast<size_t>(kBatch * kOut));
  ChipProfile tiled = a3();
  tiled.array_rows = 256;
  tiled.array_cols = 256;
  ChipProfile reference = a3();
  reference.mode = SimMode::Reference;
  const ProgrammedLayer one = Chip(a3(), 7).program("classifier.0", weights().data(), kIn, kOut);
  const ProgrammedLayer arrays =
      Chip(tiled, 7).program("classifier.0", weights().data(), kIn, kOut);
  const ProgrammedLayer ref =
      Chip(reference, 7).program("classifier.0", weights().data(), kIn, kOut);
  Rng rng(11);
  std::vector<Case> cases = {
      {"plain fp32 GEMM",
       [&] {
         sgemm(kBatch, kOut, kIn, inputs().data(), kIn, weights().data(), kOut, y.data(), kOut);
       }},
      {"A3 physical, 1 array", [&] { one.forward(inputs().data(), kBatch, y.data(), rng); }},
      {"A3 physical, 16 arrays", [&] { arrays.forward(inputs().data(), kBatch, y.data(), rng); }},
      {"A3 reference", [&] { ref.forward(inputs().data(), kBatch, y.data(), rng); }},
  };
  std::vector<std::vector<double>> ms(cases.size()), cpu_ms(cases.size());
  for (auto& c : cases) c.run();  // warm-up: primitives, scratch buffers
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < cases.size(); ++i) {
      const double c0 = process_cpu_ms();
      const auto t0 = std::chrono::steady_clock::now();
      cases[i].run();
      ms[i].push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      cpu_ms[i].push_back(process_cpu_ms() - c0);
    }
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto minimum = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const double base_med = median(ms[0]), base_min = minimum(ms[0]);
  std::printf("\nInterleaved, %d rounds (median / min per case, ratio to the plain GEMM's):\n",
              rounds);
  for (size_t i = 0; i < cases.size(); ++i)
    std::printf("  %-24s median %8.3f ms (%5.2fx)   min %8.3f ms (%5.2fx)\n", cases[i].name.c_str(),
                median(ms[i]), median(ms[i]) / base_med, minimum(ms[i]), minimum(ms[i]) / base_min);
  // Process CPU time of the same calls: under load the wall times carry other jobs' time slices;
  // with OMP_NUM_THREADS=1 the CPU time is the work of the call itself.
  const double base_cpu = median(cpu_ms[0]);
  std::printf("Interleaved, process CPU time (median per case, ratio to the plain GEMM's):\n");
  for (size_t i = 0; i < cases.size(); ++i)
    std::printf("  %-24s median %8.3f ms (%5.2fx)\n", cases[i].name.c_str(), median(cpu_ms[i]),
                median(cpu_ms[i]) / base_cpu);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  interleaved_summary(61);
  return 0;
}
