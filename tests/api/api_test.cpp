// The front door against independent figures: the exact solver and the simulator called directly,
// ResNet-18's published counts, and the messages that name the offending field.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "api/hetcim.h"
#include "cost/host_costs.h"
#include "partition/build.h"
#include "partition/exact.h"
#include "passes/pipeline.h"
#include "report/partition_file.h"
#include "user_error_message.h"
#include "util/error.h"

namespace {

using namespace hetcim;

using hetcim::testing::message_of;

TEST(Api, InspectCountsResnet18AsPublished) {
  const api::InspectResult r = api::inspect(api::load_model("resnet18"));
  EXPECT_EQ(r.params_before_lowering, 11689512);  // torchvision's ResNet-18
  EXPECT_EQ(r.workload.totals.operators, 38);
  EXPECT_EQ(r.workload.totals.crossbars, 201);
  EXPECT_EQ(r.options.elem_bytes, 1);
  EXPECT_FALSE(r.dumped);
  api::InspectRequest q;
  q.dump_after = passes::pipeline_steps().front();
  EXPECT_TRUE(api::inspect(api::load_model("resnet18"), q).dumped);
}

TEST(Api, PartitionIsTheExactSolveOfTheProblemItBuilds) {
  const api::Model m = api::load_model("resnet18");
  api::PartitionRequest q;
  q.hardware.crossbars = 50;
  q.hardware.t_mvm = 100e-9;
  const api::PartitionResult r = api::partition(m, q);
  ASSERT_TRUE(r.status.conclusion);
  EXPECT_EQ(*r.status.conclusion, partition::SolveStatus::Optimal);
  EXPECT_EQ(r.status.origin, api::Origin::Solved);
  EXPECT_EQ(api::status_text(r.status), "ok, optimal, solved");
  // The same problem assembled by hand from the modules below and solved directly.
  cost::Hardware hw = cost::hardware_preset("seed000-arm");
  hw.cim.crossbars = 50;
  hw.cim.t_mvm = 100e-9;
  const workload::Workload w =
      workload::analyze(passes::lower(m.graph, {}), cost::workload_options(hw.cim));
  const partition::Problem p =
      partition::build_problem(w, cost::host_costs(w, hw.host, true), hw, {});
  const partition::ExactResult e = partition::solve_exact(p, {});
  EXPECT_DOUBLE_EQ(r.latency_s, e.schedule.makespan);
  EXPECT_EQ(r.schedule.assignment.mode.size(), 38u);
  EXPECT_EQ(*r.provenance.find("host source"), r.run.host_source);
}

// The README's YOLOv5n MILP with a short time limit crashed printing its result (issue 36, found
// by tests/integration/readme_commands.py): CBC stopped before any plan and the schedule was
// empty. Now a limit that strikes first gives the all-host plan, as the exact solver does.
TEST(Api, AMilpStoppedBeforeAnyPlanReturnsTheAllHostPlan) {
  const api::Model m = api::load_model("yolov5n");
  api::PartitionRequest q;
  q.hardware.crossbars = 25;
  q.solver = "milp";
  q.time_limit = 1e-9;  // before CBC's first incumbent
  const api::PartitionResult r = api::partition(m, q);
  ASSERT_TRUE(r.status.conclusion);
  ASSERT_EQ(*r.status.conclusion, partition::SolveStatus::NoSolution) << api::status_text(r.status);
  ASSERT_EQ(r.schedule.assignment.mode.size(), r.problem.size());
  for (int mode : r.schedule.assignment.mode) EXPECT_EQ(mode, -1);
  EXPECT_NE(r.run.incumbent.find("all-host plan"), std::string::npos);
  // Its latency is the sum of the host latencies (one host, no transfers).
  double host = 0;
  for (size_t v = 0; v < r.problem.size(); ++v) host += r.problem.t_host[v];
  EXPECT_NEAR(r.latency_s, host * 1.0, host * 1e-9);
}

TEST(Api, AReplayedPartitionFileGivesTheSolvedLatencyAndNoConclusion) {
  const api::Model m = api::load_model("resnet18");
  const api::PartitionResult solved = api::partition(m, {});
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("api_replay_" + std::to_string(::getpid()) + ".json"))
                               .string();
  report::write_partition_file(path, solved.run, solved.problem, solved.schedule);
  api::PartitionRequest q;
  q.replay = path;
  const api::PartitionResult replayed = api::partition(m, q);
  std::remove(path.c_str());
  EXPECT_FALSE(replayed.status.conclusion);
  EXPECT_EQ(replayed.status.origin, api::Origin::Replayed);
  EXPECT_NEAR(replayed.latency_s, solved.latency_s, 1e-15);
}

TEST(Api, RequestsNameTheFieldTheyReject) {
  const api::Model m = api::load_model("resnet18");
  api::PartitionRequest q;
  q.hardware.crossbars = -3;
  EXPECT_EQ(message_of([&] { (void)api::partition(m, q); }),
            "crossbars: expected a whole number >= 1, got -3");
  q = {};
  q.hardware.preset = "seed999";
  EXPECT_NE(message_of([&] { q.validate(); }).find("preset: unknown hardware preset 'seed999'"),
            std::string::npos);
  q = {};
  q.solver = "simplex";
  EXPECT_EQ(message_of([&] { q.validate(); }), "solver: expected exact or milp, got 'simplex'");
  q = {};
  q.hardware.host = "pentium";
  EXPECT_NE(message_of([&] { q.validate(); }).find("host: expected arm, x86"), std::string::npos);
  api::RunRequest run;
  run.precision = "int4";
  EXPECT_EQ(message_of([&] { run.validate(); }), "precision: expected int8 or fp32, got 'int4'");
  EXPECT_NE(message_of([] { (void)api::load_model("resnet18", 0); }).find("batch"),
            std::string::npos);
}

TEST(Api, TheHardwareIsTheOneSourceOfTheCrossbarGeometry) {
  const api::Model m = api::load_model("resnet18");
  const cost::Hardware hw = cost::hardware_preset("seed000-arm");
  workload::WorkloadOptions other = cost::workload_options(hw.cim);
  other.xbar_rows = 128;
  const workload::Workload w = workload::analyze(passes::lower(m.graph, {}), other);
  const std::string msg = message_of(
      [&] { (void)partition::build_problem(w, cost::host_costs(w, hw.host, true), hw, {}); });
  EXPECT_NE(msg.find("crossbar 256x256"), std::string::npos) << msg;
  EXPECT_NE(msg.find("analysed for 128x256"), std::string::npos) << msg;
}

// A grid of one point.
api::DseRequest one_point(const std::string& model, int64_t crossbars, double t_mvm,
                          const std::string& host) {
  api::DseRequest q;
  q.models = {model};
  q.crossbars = {crossbars};
  q.t_mvm = {t_mvm};
  q.hosts = {host};
  return q;
}

TEST(Api, DsePointIsTheSinglePartition) {
  const api::DseRequest q = one_point("resnet18", 100, 50e-9, "x86");
  const api::DseResult d = api::run_dse(q);
  ASSERT_EQ(d.points.size(), 1u);
  api::PartitionRequest p;
  p.hardware.preset = "seed000-x86";
  p.hardware.crossbars = 100;
  p.hardware.t_mvm = 50e-9;
  EXPECT_DOUBLE_EQ(d.points[0].latency, api::partition(api::load_model("resnet18"), p).latency_s);
  EXPECT_EQ(d.optimal, 1u);
  EXPECT_EQ(d.cached, 0u);
}

// The grid's exact time limit reaches each solve: a point that needs millions of nodes (the
// grid's hardest, YOLOv5n x86 at 200 crossbars with replicas) stops at the first clock reading
// of a 1 ns limit with a plan and a bound (status time-limit); the limit is in the provenance.
TEST(Api, DseTimeLimitStopsEachSolve) {
  api::DseRequest q = one_point("yolov5n", 200, 500e-9, "x86");
  q.replicas = 4;
  q.time_limit = 1e-9;
  const api::DseResult d = api::run_dse(q);
  ASSERT_EQ(d.points.size(), 1u);
  EXPECT_EQ(d.points[0].status, "time-limit");
  EXPECT_EQ(d.optimal, 0u);
  EXPECT_LE(d.points[0].bound, d.points[0].latency);
  EXPECT_GT(d.points[0].latency, 0.0);
  const std::string* solver = d.provenance.find("solver");
  ASSERT_NE(solver, nullptr);
  EXPECT_NE(solver->find("time limit 1 ns"), std::string::npos) << *solver;
  q.time_limit = 0;
  EXPECT_THROW((void)api::run_dse(q), UserError);
}

TEST(Api, BuildInfoListsTheLibraries) {
  const api::BuildInfo b = api::build_info();
  ASSERT_GE(b.dependencies.size(), 3u);
  EXPECT_EQ(b.dependencies[0].first, "oneDNN");
  EXPECT_EQ(b.dependencies[1].first, "CBC");
  EXPECT_EQ(b.dependencies[2].first, "ONNX");
  EXPECT_NE(b.dependencies[0].second.find("2."), std::string::npos);  // Debian 12: oneDNN 2.6.3
}

}  // namespace

namespace {

TEST(Api, TheNodeLimitStopsEveryRunAtTheSamePoint) {
  // YOLOv5n on seed000-arm needs 516 search nodes to prove optimality (hetcim partition yolov5n
  // --json: solver.nodes); a limit of 100 stops it, the same way every time.
  const hetcim::api::Model m = hetcim::api::load_model("yolov5n");
  hetcim::api::PartitionRequest q;
  const hetcim::api::PartitionResult full = hetcim::api::partition(m, q);
  ASSERT_EQ(full.run.status, hetcim::partition::SolveStatus::Optimal);
  ASSERT_GT(full.run.nodes, 100);
  q.node_limit = 100;
  const hetcim::api::PartitionResult a = hetcim::api::partition(m, q);
  const hetcim::api::PartitionResult b = hetcim::api::partition(m, q);
  EXPECT_EQ(a.run.status, hetcim::partition::SolveStatus::NodeLimit);
  EXPECT_EQ(hetcim::api::status_text(a.status), "ok, node-limit, solved");
  EXPECT_EQ(a.run.nodes, b.run.nodes);
  EXPECT_EQ(a.latency_s, b.latency_s);
  EXPECT_EQ(a.schedule.assignment.mode, b.schedule.assignment.mode);
  EXPECT_GE(a.latency_s, full.latency_s);
  EXPECT_LE(a.run.bound, full.latency_s * (1 + 1e-9));
  // A budget the solve does not reach (it charges branch-and-bound and sequencing nodes, and the
  // whole solve takes milliseconds): the same optimum.
  q.node_limit = 100'000'000;
  const hetcim::api::PartitionResult c = hetcim::api::partition(m, q);
  EXPECT_EQ(c.run.status, hetcim::partition::SolveStatus::Optimal);
  EXPECT_EQ(c.latency_s, full.latency_s);
}

}  // namespace
