// The host-model CALIBRATION (cost/host_fit.h) against a formula evaluated by hand: three
// synthetic networks whose host latency is, per operator, overhead + MACs / (peak x efficiency)
// (compute-bound), overhead + bytes / bandwidth (memory-bound) or the overhead alone, with
// published values made from known parameters; the fit must find those parameters.
#include "cost/host_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "util/error.h"
#include "workload/workload.h"

namespace hetcim::cost {
namespace {

struct Net {
  std::vector<workload::OpWorkload> ops;
};

Net net(int n, int64_t macs, int64_t bytes) {
  Net w;
  for (int i = 0; i < n; ++i) {
    workload::OpWorkload op;
    op.name = "op" + std::to_string(i);
    op.macs = macs;
    op.in_bytes = bytes / 2;
    op.out_bytes = bytes - bytes / 2;
    w.ops.push_back(op);
  }
  return w;
}

double total(const Net& w, const HostModel& m) {
  double t = 0;
  for (const auto& op : w.ops) t += host_latency(op, m, true);
  return t;
}

TEST(HostFit, RecoversTheParametersOfAHandEvaluatedFormula) {
  HostModel start = host_model_preset("arm-cortex-a72");  // peak 24 GMAC/s int8
  ASSERT_DOUBLE_EQ(start.peak_int8_macs, 24e9);
  const std::vector<Net> nets = {net(10, 100'000'000, 0), net(5, 0, 40'000'000), net(50, 0, 0)};
  // By hand, with efficiency 0.3 (7.2 GMAC/s), 2 GB/s and 25 us per operator:
  //   10 x (25e-6 + 1e8 / 7.2e9) = 0.138888... + 0.00025 = 0.1391389 s
  //    5 x (25e-6 + 4e7 / 2e9)   = 5 x 0.020025          = 0.100125 s
  //   50 x 25e-6                                          = 0.00125 s
  const std::vector<double> published = {10 * (25e-6 + 1e8 / 7.2e9), 0.100125, 0.00125};
  EXPECT_NEAR(published[0], 0.1391389, 1e-7);
  std::vector<HostFitTarget> targets;
  for (size_t i = 0; i < nets.size(); ++i)
    targets.push_back({"synthetic", "net " + std::to_string(i), published[i], 0, 0});
  HostFitOptions o;
  o.max_evaluations = 600;
  const HostFitResult r = fit_host_model(
      start, targets,
      [&](const HostModel& m) {
        std::vector<double> v;
        for (const Net& w : nets) v.push_back(total(w, m));
        return v;
      },
      o);
  EXPECT_NEAR(r.fitted.efficiency, 0.3, 0.3e-3);
  EXPECT_NEAR(r.fitted.memory_bandwidth, 2e9, 2e6);
  EXPECT_NEAR(r.fitted.op_overhead, 25e-6, 25e-9);
  EXPECT_LT(r.objective, 1e-8);
  EXPECT_GT(r.objective_start, 0.1);  // the preset is far from these numbers
  ASSERT_EQ(r.targets.size(), 3U);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(r.targets[i].after / published[i], 1.0, 1e-4) << i;
    EXPECT_NEAR(r.targets[i].before, total(nets[i], start), 1e-15) << i;
  }
  EXPECT_EQ(r.fitted.name, "arm-cortex-a72-calibrated");
  EXPECT_NE(r.fitted.description.find("CALIBRATION of arm-cortex-a72"), std::string::npos);
  EXPECT_NE(r.fitted.description.find("not a measurement"), std::string::npos);
  EXPECT_LE(r.evaluations, o.max_evaluations + 4);  // a shrink may finish its step
}

TEST(HostFit, TheObjectiveIsTheSumOfSquaredLogRatios) {
  // ln(2)^2 + ln(1/2)^2 + 0, by hand.
  EXPECT_NEAR(log_ratio_objective({2, 1, 3}, {1, 2, 3}), 2 * std::log(2.0) * std::log(2.0), 1e-15);
}

TEST(HostFit, BoundsHoldAndBadInputIsRefused) {
  const HostModel start = host_model_preset("arm-cortex-a72");
  const Net w = net(4, 1'000'000, 0);
  // Published values no efficiency <= 1 reaches: the fit stops at the bound.
  std::vector<HostFitTarget> fast = {{"synthetic", "too fast", 1e-9, 0, 0}};
  const HostFitResult r =
      fit_host_model(start, fast, [&](const HostModel& m) { return std::vector{total(w, m)}; });
  EXPECT_LE(r.fitted.efficiency, 1.0);
  EXPECT_GE(r.fitted.op_overhead, HostFitBounds{}.overhead_min * (1 - 1e-9));
  EXPECT_THROW(
      (void)fit_host_model(start, {}, [&](const HostModel&) { return std::vector<double>{}; }),
      UserError);
  EXPECT_THROW((void)fit_host_model(start, fast,
                                    [&](const HostModel&) {
                                      return std::vector<double>{1, 2};
                                    }),
               UserError);
  EXPECT_THROW((void)log_ratio_objective({0}, {1}), UserError);
}

}  // namespace
}  // namespace hetcim::cost
