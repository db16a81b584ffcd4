// A platform problem written out whole (issue 33): the JSON of every operator's options, engines,
// groups and links, checked field by field on a hand instance, and seed 001's Bottleneck on its
// cluster written as the K-engine MILP (MPS and LP), which CBC, reading the file, solves to the
// K-engine exact solver's optimum.
#include "platform/problem_json.h"

#include <Cbc_C_Interface.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include "api/model.h"
#include "api/platform.h"
#include "partition/cbc.h"

namespace hetcim::platform {
namespace {

TEST(PlatformProblemJson, HandInstanceFieldByField) {
  PlatformProblem pp;
  partition::MultiProblem& p = pp.problem;
  p.dag = graph::Dag::from_edges(3, {{0, 1}, {1, 2}});
  p.names = {"a", "b", "c"};
  p.engines = {{"cores", true, -1, 0.5, 0.25}, {"xbar", false, 2, 0, 0}, {"dw", true, -1, 0, 0}};
  p.exclusive = {{1, 2}};
  p.links = {{"bus", {0, 1, 2}, 1e-9, 4e9, true, 2e-12},
             {"wire", {1, 2}, 0.0, std::numeric_limits<double>::infinity(), false, 0}};
  p.edge_bytes = {2.0, 3.0};
  p.options = {{{0, 4, 1e-6, 0, "cores"}},
               {{0, 10, 0, 0, "cores"}, {1, 1, 0, 2, "xbar"}},
               {{0, 10, 0, 0, "cores"}, {2, 1, 0, 0, "dw"}}};
  p.energy_weight = 0.5;
  pp.cycles = {{400}, {1000, -1}, {1000, 100}};
  pp.frequency = 1e8;
  pp.costs = "by hand";
  const nlohmann::json j = problem_json(pp, "m", "hand");
  EXPECT_EQ(j["model"], "m");
  EXPECT_EQ(j["platform"], "hand");
  EXPECT_EQ(j["costs"], "by hand");
  EXPECT_EQ(j["objective"]["latency_weight"], 1.0);
  EXPECT_EQ(j["objective"]["energy_weight"], 0.5);
  ASSERT_EQ(j["engines"].size(), 3u);
  EXPECT_TRUE(j["engines"][0]["capacity"].is_null());
  EXPECT_EQ(j["engines"][0]["static_power_w"], 0.5);
  EXPECT_EQ(j["engines"][0]["idle_power_w"], 0.25);
  EXPECT_EQ(j["engines"][1]["capacity"], 2);
  EXPECT_EQ(j["engines"][1]["one_at_a_time"], false);
  EXPECT_EQ(j["exclusive"], nlohmann::json::parse(R"([["xbar", "dw"]])"));
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["engines"], nlohmann::json::parse(R"(["cores", "xbar", "dw"])"));
  EXPECT_EQ(j["links"][0]["bandwidth_bytes_per_s"], 4e9);
  EXPECT_EQ(j["links"][0]["serial"], true);
  EXPECT_EQ(j["links"][0]["e_byte_j"], 2e-12);
  EXPECT_TRUE(j["links"][1]["bandwidth_bytes_per_s"].is_null()) << "unlimited";
  ASSERT_EQ(j["operators"].size(), 3u);
  EXPECT_EQ(j["operators"][1]["name"], "b");
  ASSERT_EQ(j["operators"][1]["options"].size(), 2u);
  EXPECT_EQ(j["operators"][1]["options"][1]["engine"], "xbar");
  EXPECT_EQ(j["operators"][1]["options"][1]["duration_s"], 1.0);
  EXPECT_EQ(j["operators"][1]["options"][1]["capacity"], 2);
  EXPECT_FALSE(j["operators"][1]["options"][1].contains("cycles")) << "no cycle model";
  EXPECT_EQ(j["operators"][2]["options"][1]["cycles"], 100);
  EXPECT_EQ(j["operators"][0]["options"][0]["energy_j"], 1e-6);
  EXPECT_EQ(j["edges"], nlohmann::json::parse(R"([{"from": 0, "to": 1, "bytes": 2.0},
                                                   {"from": 1, "to": 2, "bytes": 3.0}])"));
  EXPECT_EQ(j["cycle_model_hz"], 1e8);
}

TEST(PlatformProblemExport, Seed001BottleneckMilpFileSolvedByCbcGivesTheExactOptimum) {
  const api::Model model = api::load_model("bottleneck");
  api::PartitionRequest q;
  q.platform = "seed001-cluster";
  const api::PlatformPartitionProblem pp = api::build_platform_partition_problem(model, q);
  const nlohmann::json j = nlohmann::json::parse(api::platform_problem_json(pp));
  ASSERT_EQ(j["operators"].size(), pp.problem.problem.size());
  for (size_t v = 0; v < pp.problem.problem.size(); ++v)
    EXPECT_EQ(j["operators"][v]["options"].size(), pp.problem.problem.options[v].size());
  const api::PlatformPartitionResult r = api::partition_on_platform(pp, q);
  ASSERT_EQ(r.solve.status, partition::SolveStatus::Optimal);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("hetcim_platform_export_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (auto [format, name] : {std::pair{partition::MilpFileFormat::Mps, "b.mps"},
                              std::pair{partition::MilpFileFormat::Lp, "b.lp"}}) {
    const std::string text = api::platform_milp_text(pp, format);
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary) << text;
    const size_t at = text.find("in units of ");
    ASSERT_NE(at, std::string::npos);
    const double unit = std::strtod(text.c_str() + at + 12, nullptr);
    Cbc_Model* m = Cbc_newModel();
    Cbc_setLogLevel(m, 0);
    ASSERT_EQ(format == partition::MilpFileFormat::Mps ? Cbc_readMps(m, path.c_str())
                                                       : Cbc_readLp(m, path.c_str()),
              0)
        << name;
    Cbc_setParameter(m, "log", "0");
    Cbc_setParameter(m, "slog", "0");
    Cbc_setParameter(m, "sec", "120");
    Cbc_solve(m);
    EXPECT_EQ(Cbc_isProvenOptimal(m), 1) << name;
    EXPECT_NEAR(Cbc_getObjValue(m) * unit, r.solve.objective, 1e-6 * r.solve.objective) << name;
    Cbc_deleteModel(m);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hetcim::platform
