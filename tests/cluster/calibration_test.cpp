// The Fig. 9 CALIBRATION (cluster/calibration.h): the search's minimum against a brute force that
// runs bottleneck_study at every grid point (an independent evaluation), the fitted constants put
// back into the model, the targets against the paper data file, and the labels of the outputs.
#include "cluster/calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "formats/paper_data.h"
#include "report/cluster_tables.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

std::vector<double> geometric(double lo, double hi, int64_t n) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(i == n - 1 ? hi : lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
  return v;
}

TEST(Calibration, FitIsTheMinimumOfABruteForceOverTheGrid) {
  // A small Bottleneck and a small grid; the brute force runs the whole model at every point.
  const zoo::BottleneckShape shape{6, 6, 16, 3, 16, 1};
  Fig9FitOptions o;
  o.overhead_min = 0;
  o.overhead_max = 30;
  o.pointwise_min = 3;
  o.pointwise_max = 30;
  o.depthwise_min = 0.3;
  o.depthwise_max = 6;
  o.rate_points = 9;
  const ClusterConfig base = cluster_preset("seed001");
  const Fig9Fit fit = fit_fig9(base, shape, o);
  EXPECT_EQ(fit.evaluated, 31 * 9 * 9);

  std::vector<Mapping> mappings = {parse_mapping("cores")};
  for (const FitTarget& t : o.targets) mappings.push_back(parse_mapping(t.mapping));
  double best = std::numeric_limits<double>::infinity();
  for (int64_t ov = o.overhead_min; ov <= o.overhead_max; ++ov)
    for (const double pw : geometric(o.pointwise_min, o.pointwise_max, o.rate_points))
      for (const double dw : geometric(o.depthwise_min, o.depthwise_max, o.rate_points)) {
        ClusterConfig c = base;
        c.ima.job_overhead_cycles = ov;
        c.cores.pointwise_mac_per_cycle = pw;
        c.cores.depthwise_mac_per_cycle = dw;
        const BottleneckStudy st = bottleneck_study(c, shape, mappings);
        double sum = 0;
        for (size_t t = 0; t < o.targets.size(); ++t) {
          const double e = std::log(st.results[t + 1].speedup / o.targets[t].speedup);
          sum += e * e;
        }
        best = std::min(best, std::sqrt(sum / static_cast<double>(o.targets.size())));
      }
  EXPECT_NEAR(fit.residual, best, 1e-12);
  EXPECT_LT(fit.residual, fit.start_residual);
}

TEST(Calibration, FittedModelReproducesTheTargetsWithinTheStatedResidual) {
  Fig9FitOptions o;
  o.overhead_max = 120;
  o.rate_points = 61;
  const ClusterConfig base = cluster_preset("seed001");
  const Fig9Fit fit = fit_fig9(base, {}, o);
  // The fitted constants, put back into the model, give the reported speedups and residual.
  std::vector<Mapping> mappings = {parse_mapping("cores")};
  for (const FitTarget& t : o.targets) mappings.push_back(parse_mapping(t.mapping));
  const BottleneckStudy st = bottleneck_study(fit.fitted, {}, mappings);
  ASSERT_EQ(fit.speedups.size(), o.targets.size());
  const double n = static_cast<double>(o.targets.size());
  for (size_t t = 0; t < o.targets.size(); ++t) {
    EXPECT_DOUBLE_EQ(st.results[t + 1].speedup, fit.speedups[t]) << o.targets[t].mapping;
    // rms <= r implies every |ln ratio| <= sqrt(n) r.
    EXPECT_LE(std::fabs(std::log(fit.speedups[t] / o.targets[t].speedup)),
              std::sqrt(n) * fit.residual + 1e-12)
        << o.targets[t].mapping;
  }
  EXPECT_DOUBLE_EQ(fit.residual, fit_residual(fit.speedups, o.targets));
  EXPECT_EQ(fit.fitted.ima.job_overhead_cycles, fit.job_overhead_cycles);
  EXPECT_EQ(fit.fitted.cores.depthwise_mac_per_cycle, fit.depthwise_mac_per_cycle);
  // The model as given is far off Fig. 9 (2.62 / 4.76 / 2.66 / 21.4x); the fit is within 5 % rms.
  EXPECT_GT(fit.start_residual, 0.5);
  EXPECT_LT(fit.residual, 0.05);
  EXPECT_TRUE(fit.at_bound.empty());
}

TEST(Calibration, TargetsAreThePapersFig9Performance) {
  const formats::PaperData paper =
      formats::load_paper_data(std::string(HETCIM_SOURCE_DIR) + "/data/paper/seed001.yaml");
  const formats::PaperTable& t = paper.need_table("fig9");
  for (const FitTarget& target : fig9_speedup_targets()) {
    const formats::PaperValue* v = t.find(target.mapping, "performance");
    ASSERT_TRUE(v && v->present) << target.mapping;
    EXPECT_DOUBLE_EQ(target.speedup, v->value) << target.mapping;
  }
}

TEST(Calibration, OutputsAreLabelledCalibration) {
  Fig9FitOptions o;
  o.overhead_max = 40;
  o.rate_points = 11;
  const ClusterConfig c = cluster_preset("seed001");
  const Fig9Calibration cal = calibrate_fig9(c, {}, o);
  const std::string text = report::calibration_text(c, cal);
  EXPECT_EQ(text.rfind("CALIBRATION (not a reproduction)", 0), 0u) << text;
  EXPECT_NE(text.find("Fig. 7(c) peak"), std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(report::calibration_json(c, cal));
  EXPECT_EQ(j.at("kind"), "calibration");
  EXPECT_NE(j.at("label").get<std::string>().find("CALIBRATION"), std::string::npos);
  EXPECT_EQ(j.at("targets").size(), 4u);
  EXPECT_EQ(j.at("fig7_full_crossbar").size(), 20u);  // 2 clocks x 2 executions x 5 widths
  // Fig. 7 before the fit is the roofline of the configuration as given.
  const std::vector<RooflinePoint> r = roofline(c, {});
  EXPECT_DOUBLE_EQ(cal.roofline_before.back().attained, r.back().attained);
}

TEST(Calibration, BadOptionsAreUserErrors) {
  const ClusterConfig c = cluster_preset("seed001");
  Fig9FitOptions o;
  o.rate_points = 1;
  EXPECT_THROW((void)fit_fig9(c, {}, o), UserError);
  o = {};
  o.targets = {{"cores", 1.0}};
  EXPECT_THROW((void)fit_fig9(c, {}, o), UserError);
  o = {};
  o.targets = {{"ima+dw", -1.0}};
  EXPECT_THROW((void)fit_fig9(c, {}, o), UserError);
  o = {};
  o.depthwise_min = 0;
  EXPECT_THROW((void)fit_fig9(c, {}, o), UserError);
  o = {};
  o.overhead_max = 1'000'000;
  o.rate_points = 100'000;
  EXPECT_THROW((void)fit_fig9(c, {}, o), UserError);  // too many grid points
}

}  // namespace
}  // namespace hetcim::cluster
