// Host profile files: CSV and JSON round trips (every field, awkward names), the documented
// layout, and validation errors that name the file, the line or member, and what was expected.
#include "cost/host_profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace hetcim::cost {
namespace {

HostProfile sample() {
  HostProfile p;
  p.model = "resnet18";
  p.precision = "int8";
  p.batch = 2;
  p.threads = 4;
  p.warmup = 10;
  p.runs = 50;
  p.machine = "ARM Cortex-A72 (4 logical CPUs)";
  p.library = "oneDNN 2.6.3 (OpenMP runtime, ISA asimd)";
  p.tool = "hetcim 0.1.0";
  p.date = "2026-12-01T14:44:52Z";
  p.command = "hetcim profile resnet18 --csv 'a, b.csv'";
  p.seeds = "weight 1, input 7, calibration 1 (2 samples)";
  p.model_median_s = 0.0123456789;
  p.model_min_s = 0.012;
  p.model_p90_s = 0.013;
  p.op_median_sum_s = 0.0121;
  p.ops.push_back({"conv1", "QLinearConv", "jit_int8:avx512_core_vnni", 3.5e-4, 3.4e-4, 3.9e-4,
                   118013952, 337.18});
  p.ops.push_back(
      {"odd, \"quoted\" name", "QLinearAdd", "hetcim:qlinear_binary", 2.25e-5, 2e-5, 3e-5, 0, 0});
  return p;
}

void expect_same(const HostProfile& a, const HostProfile& b) {
  EXPECT_EQ(a.model, b.model);
  EXPECT_EQ(a.precision, b.precision);
  EXPECT_EQ(a.batch, b.batch);
  EXPECT_EQ(a.threads, b.threads);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.runs, b.runs);
  EXPECT_EQ(a.modelled, b.modelled);
  EXPECT_EQ(a.machine, b.machine);
  EXPECT_EQ(a.library, b.library);
  EXPECT_EQ(a.tool, b.tool);
  EXPECT_EQ(a.date, b.date);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.seeds, b.seeds);
  EXPECT_DOUBLE_EQ(a.model_median_s, b.model_median_s);
  EXPECT_DOUBLE_EQ(a.model_min_s, b.model_min_s);
  EXPECT_DOUBLE_EQ(a.model_p90_s, b.model_p90_s);
  EXPECT_DOUBLE_EQ(a.op_median_sum_s, b.op_median_sum_s);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].name, b.ops[i].name);
    EXPECT_EQ(a.ops[i].op_type, b.ops[i].op_type);
    EXPECT_EQ(a.ops[i].impl, b.ops[i].impl);
    EXPECT_DOUBLE_EQ(a.ops[i].median_s, b.ops[i].median_s);
    EXPECT_DOUBLE_EQ(a.ops[i].min_s, b.ops[i].min_s);
    EXPECT_DOUBLE_EQ(a.ops[i].p90_s, b.ops[i].p90_s);
    EXPECT_EQ(a.ops[i].macs, b.ops[i].macs);
    EXPECT_DOUBLE_EQ(a.ops[i].gmacs, b.ops[i].gmacs);
  }
}

TEST(HostProfile, CsvRoundTrip) {
  const HostProfile p = sample();
  const std::string csv = host_profile_csv(p);
  EXPECT_EQ(csv.rfind("# hetcim-host-profile v1\n# model: resnet18\n", 0), 0u);
  EXPECT_NE(csv.find("\nname,op_type,impl,median_s,min_s,p90_s,macs,gmacs\n"), std::string::npos);
  EXPECT_NE(csv.find("\n\"odd, \"\"quoted\"\" name\",QLinearAdd,"), std::string::npos);
  EXPECT_NE(csv.find("# source: measured\n"), std::string::npos);
  expect_same(parse_host_profile_csv(csv, "p.csv"), p);
  HostProfile m = p;
  m.modelled = true;
  EXPECT_TRUE(parse_host_profile_csv(host_profile_csv(m), "m.csv").modelled);
}

TEST(HostProfile, JsonRoundTripAndFiles) {
  const HostProfile p = sample();
  expect_same(parse_host_profile_json(host_profile_json(p), "p.json"), p);
  const auto dir = std::filesystem::temp_directory_path();
  for (const char* name : {"hetcim_hp_test.csv", "hetcim_hp_test.json"}) {
    const std::string path = (dir / name).string();
    write_host_profile(path, p);
    expect_same(read_host_profile(path), p);
    std::filesystem::remove(path);
  }
  EXPECT_THROW(write_host_profile((dir / "x.txt").string(), p), UserError);
}

// The quality line: p90/median and the sum of operator medians against the whole model, by hand.
TEST(HostProfile, QualityFlagsANoisyMeasurementInBothEncodings) {
  HostProfile p = sample();  // p90/median 0.013/0.0123456789 = 1.053; sum/model -1.99 %
  ProfileQuality q = profile_quality(p);
  EXPECT_FALSE(q.noisy) << q.text;
  EXPECT_EQ(q.text,
            "steady: whole-model p90/median 1.05, sum of operator medians/whole model -2.0 %");
  EXPECT_NE(host_profile_csv(p).find("\n# quality: steady: "), std::string::npos);
  // The case: p90 at 7x the median and the operators' sum 62.5 % below the whole model.
  p.model_min_s = 0.007;
  p.model_median_s = 0.008;
  p.model_p90_s = 0.056;
  p.op_median_sum_s = 0.003;
  q = profile_quality(p);
  EXPECT_TRUE(q.noisy);
  EXPECT_EQ(q.text.rfind("noisy: whole-model p90 is 7.00x the median", 0), 0u) << q.text;
  EXPECT_NE(q.text.find("-62.5 %"), std::string::npos) << q.text;
  // Either symptom alone is enough.
  p.model_p90_s = 0.009;
  EXPECT_TRUE(profile_quality(p).noisy);
  p.op_median_sum_s = 0.0079;
  EXPECT_FALSE(profile_quality(p).noisy);
  p.model_p90_s = 0.0121;  // 1.5125x
  EXPECT_TRUE(profile_quality(p).noisy);
  // Written into both encodings and read back as text.
  const HostProfile back = parse_host_profile_json(host_profile_json(p), "p.json");
  EXPECT_EQ(back.quality, profile_quality(p).text);
  EXPECT_EQ(parse_host_profile_csv(host_profile_csv(p), "p.csv").quality, profile_quality(p).text);
}

void expect_csv_error(const std::string& text, const std::string& fragment) {
  try {
    (void)parse_host_profile_csv(text, "h.csv");
    FAIL() << "no error, expected " << fragment;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(HostProfile, CsvErrorsNameTheLineAndTheField) {
  const std::string good = host_profile_csv(sample());
  expect_csv_error("name,op_type\n", "h.csv:1: expected the first line '# hetcim-host-profile v1'");
  std::string s = good;
  s.replace(s.find("# threads: 4"), 12, "# threads: x");
  expect_csv_error(s, "line 5 (threads): expected an integer, got 'x'");
  s = good;
  s.replace(s.find("# runs: 50"), 10, "# colour: 5");
  expect_csv_error(s, "h.csv:7: unknown header key 'colour'");
  s = good;
  s.replace(s.find(",0.00035,"), 9, ",0.00030,");  // median below min
  expect_csv_error(s, "operator 'conv1': expected min <= median <= p90");
  s = good;
  s.replace(s.find(",118013952,"), 11, ",-1,");
  expect_csv_error(s, "operator 'conv1': macs must be >= 0");
  s = good + "conv1,QLinearConv,x,1e-4,1e-4,1e-4,0,0\n";
  expect_csv_error(s, "operator 'conv1' appears twice");
  s = good + "a,b,c\n";
  expect_csv_error(s, "expected 8 fields, got 3");
  s = good;
  s.replace(s.find("# precision: int8"), 17, "# precision: fp16");
  expect_csv_error(s, "precision: expected fp32 or int8, got 'fp16'");
  s = good;
  s.erase(s.find("# model_p90_s"),
          s.find('\n', s.find("# model_p90_s")) - s.find("# model_p90_s") + 1);
  expect_csv_error(s, "header key 'model_p90_s' is missing");
}

TEST(HostProfile, JsonErrorsNameTheMember) {
  auto expect_json_error = [](const std::string& text, const std::string& fragment) {
    try {
      (void)parse_host_profile_json(text, "h.json");
      FAIL() << "no error, expected " << fragment;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const std::string good = host_profile_json(sample());
  expect_json_error("[1]", "h.json: expected a JSON object");
  expect_json_error("{", "not valid JSON");
  std::string s = good;
  s.replace(s.find("\"threads\": 4"), 12, "\"threads\": \"4\"");
  expect_json_error(s, "'threads' must be an integer");
  s = good;
  s.replace(s.find("\"source\": \"measured\""), 20, "\"source\": \"guessed\"");
  expect_json_error(s, "'source' must be \"measured\" or \"modelled\"");
  s = good;
  s.replace(s.find("\"median_s\": 0.00035"), 19, "\"median_s\": \"fast\"");
  expect_json_error(s, "ops[0]: 'median_s' must be a number");
  expect_json_error("{\"format\": \"other\", \"version\": 1}",
                    "'format' must be \"hetcim-host-profile\"");
}

}  // namespace
}  // namespace hetcim::cost
