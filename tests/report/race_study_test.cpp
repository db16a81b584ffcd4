// study.json (report/race_study.h): what `hetcim analog study` writes, `hetcim reproduce seed002
// --study` reads back exactly (every per-run figure, the pass counts and selected units recounted,
// the means recomputed), and a broken file is refused naming the file and the field.
#include "report/race_study.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "util/error.h"

namespace hetcim::report {
namespace {

namespace fs = std::filesystem;

select::RunFigures run(double cov, double risk, bool certified, const std::string& unit) {
  select::RunFigures f;
  f.selected = unit;
  f.certified = certified;
  f.certified_coverage = cov;
  f.certified_risk = risk;
  f.upper_bound = risk + 0.01;
  f.test_coverage = cov - 0.01;
  f.test_risk = risk - 0.005;
  f.hybrid_accuracy = 0.8;
  f.digital_accuracy = 0.81;
  f.forced_accuracy = 0.79;
  f.ensemble_accuracy = 0.75;
  f.selected_activation = 0.825e-6;
  f.ensemble_energy = 6.45e-6;
  f.selective_energy = 2e-6;
  f.reduction = 0.69;
  f.break_even = std::numeric_limits<double>::quiet_NaN();  // no break-even: written as null
  f.selective_energy_certificate = 1.99e-6;
  f.reduction_certificate = 0.6915;
  f.break_even_certificate = 19.3e-6;
  return f;
}

select::Variant variant(const std::string& label, std::vector<select::RunFigures> runs) {
  select::Variant v;
  v.label = label;
  for (const auto& f : runs) v.passes += f.certified;
  v.runs = std::move(runs);
  return v;
}

fs::path write(const std::string& name, const std::string& text) {
  const fs::path p =
      fs::temp_directory_path() / ("hetcim_race_study_" + std::to_string(::getpid()) + name);
  std::ofstream(p) << text;
  return p;
}

TEST(RaceStudyJson, ReadsBackWhatItWrites) {
  select::StudyResult s;
  s.base = variant("base", {run(0.709, 0.0573, true, "A0"), run(0.6944, 0.0714, false, "A1")});
  s.design_risk = {variant("r_d = 0.05", {run(0.5, 0.04, true, "A0"), run(0.6, 0.05, true, "A0")})};
  s.availability = {
      variant("without A0", {run(0.59, 0.07, true, "A1"), run(0.6, 0.08, true, "A1")})};
  s.scores = {variant("max_softmax", {run(0.717, 0.07, true, "A0"), run(0.7, 0.07, true, "A0")})};
  s.bias = {
      variant("bias correction on", {run(0.7, 0.07, true, "A0"), run(0.7, 0.07, true, "A0")})};
  RaceStudyInfo info;
  info.provenance = {{"data", "fashion-mnist"}, {"version", "hetcim test"}};
  const nlohmann::json options = {{"risk", 0.10}, {"design_risk", 0.08}, {"fallback_uJ", 4.0}};
  const fs::path p = write("ok.json", race_study_json(s, info, options).dump(1));
  const RaceStudyFile f = read_race_study(p.string());
  fs::remove(p);
  ASSERT_EQ(f.study.base.runs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const select::RunFigures &a = s.base.runs[i], &b = f.study.base.runs[i];
    EXPECT_EQ(b.selected, a.selected);
    EXPECT_EQ(b.certified, a.certified);
    EXPECT_EQ(b.certified_coverage, a.certified_coverage);
    EXPECT_EQ(b.upper_bound, a.upper_bound);
    EXPECT_EQ(b.test_risk, a.test_risk);
    EXPECT_EQ(b.hybrid_accuracy, a.hybrid_accuracy);
    EXPECT_NEAR(b.selective_energy, a.selective_energy, 1e-18);
    EXPECT_NEAR(b.break_even_certificate, a.break_even_certificate, 1e-18);
    EXPECT_TRUE(std::isnan(b.break_even));
  }
  EXPECT_EQ(f.study.base.passes, 1);
  ASSERT_EQ(f.study.base.selected_counts.size(), 2u);  // A0 once, A1 once
  EXPECT_EQ(f.study.base.over(&select::RunFigures::certified_coverage).mean, (0.709 + 0.6944) / 2);
  EXPECT_EQ(f.study.availability[0].label, "without A0");
  EXPECT_EQ(f.study.scores[0].label, "max_softmax");
  EXPECT_EQ(f.info.risk_target, 0.10);
  EXPECT_NEAR(f.info.fallback, 4e-6, 1e-18);
  ASSERT_EQ(f.info.provenance.size(), 2u);
  EXPECT_EQ(f.info.provenance[0].second, "fashion-mnist");
  EXPECT_EQ(f.options["design_risk"], 0.08);
}

std::string error_of(const std::string& text) {
  const fs::path p = write("bad.json", text);
  std::string what = "no error";
  try {
    (void)read_race_study(p.string());
  } catch (const UserError& e) {
    what = e.what();
  }
  fs::remove(p);
  return what;
}

TEST(RaceStudyJson, BrokenFilesNameTheField) {
  EXPECT_NE(error_of("not json").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": 2}").find("field 'format': expected 1"), std::string::npos);
  EXPECT_NE(error_of("{\"format\": 1}").find("field 'options': missing"), std::string::npos);
  const std::string head = "{\"format\": 1, \"options\": {}, \"provenance\": {}, ";
  EXPECT_NE(error_of(head + "\"base\": {\"label\": \"base\", \"passes\": 0, \"runs\": []}}")
                .find("field 'base.runs': expected a non-empty array"),
            std::string::npos);
  EXPECT_NE(
      error_of(head + "\"base\": {\"label\": \"base\", \"passes\": 0, \"runs\": [{\"selected\": "
                      "\"A0\", \"certified\": true, \"certified_coverage\": 1.5}]}}")
          .find("field 'base.runs[0].certified_coverage': expected a fraction"),
      std::string::npos);
}

}  // namespace
}  // namespace hetcim::report
