// Platforms of K engines: descriptions and their errors, the cost models against the cluster's
// own Bottleneck study, seed 000's presets dispatched to the two-device solver, and MobileNetV2 on
// seed 001's cluster against the hand-named Bottleneck mappings.
#include "api/platform.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "api/model.h"
#include "api/partition.h"
#include "cluster/bottleneck_mapping.h"
#include "cluster/cluster_config.h"
#include "cost/hardware.h"
#include "partition/multi_exact.h"
#include "partition/multi_schedule.h"
#include "partition/problem.h"
#include "passes/pipeline.h"
#include "platform/build.h"
#include "platform/platform.h"
#include "report/multi_partition.h"
#include "util/error.h"
#include "util/paper_names.h"

namespace hetcim::platform {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_platform_yaml(yaml, "p.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(PlatformYaml, BadFilesNameTheField) {
  const std::string ok = "  - {name: h, kind: cpu, cost: seed001-cores}\n";
  EXPECT_NE(error_of("engines:\n  - {name: a, kind: gpu, cost: x}\n")
                .find("field 'engines[0].kind': unknown engine kind 'gpu'"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n" + ok +
                     "  - {name: x, kind: crossbar, cost: seed001-ima, crossbars: 0}\n")
                .find("field 'engines[1].crossbars': zero capacity"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n" + ok + "links:\n  - {name: bus, engines: [h, nosuch]}\n")
                .find("field 'links[0].engines': link 'bus' names a missing engine 'nosuch'"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n" + ok + "  - {name: d, kind: depthwise, cost: seed001-dw}\n" +
                     "exclusive: [[d, d]]\n")
                .find("field 'exclusive[0]': engine 'd' is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n" + ok + ok).find("engine 'h' is defined twice"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n  - {name: h, kind: cpu, cost: seed001-ima}\n")
                .find("field 'engines[0].cost'"),
            std::string::npos);
  EXPECT_NE(error_of("engines:\n" + ok + "speed: 3\n").find("speed"), std::string::npos);
  EXPECT_EQ(error_of("engines:\n" + ok), "");
}

TEST(PlatformBuild, AnOperatorNoEngineSupportsIsNamed) {
  const Platform p = parse_platform_yaml(
      "engines:\n  - {name: d, kind: depthwise, cost: seed001-dw}\n", "dw-only.yaml");
  const graph::Graph g = passes::lower(api::load_model("bottleneck").graph, {});
  try {
    (void)build_platform_problem(g, p);
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no engine supports operator"), std::string::npos)
        << e.what();
  }
}

// The platform's cost models are the cluster's: the Bottleneck's three layers on the IMA and the
// DW engine cost what cluster::bottleneck_study's ima+dw mapping says, cycle for cycle.
TEST(PlatformBuild, Seed001CostsAreTheClusterModels) {
  const graph::Graph g = passes::lower(api::load_model("bottleneck").graph, {});
  const PlatformProblem pp = build_platform_problem(g, platform_preset("seed001-cluster", 8));
  const cluster::BottleneckStudy study =
      cluster::bottleneck_study(cluster::cluster_preset("seed001"), zoo::BottleneckShape{},
                                {cluster::parse_mapping("ima+dw")});
  std::map<std::string, int64_t> want;
  for (const cluster::LayerCost& l : study.results[0].layers) want[l.layer] += l.cycles;
  // Sum over the platform's options of the same kind, by the engine that runs them.
  int64_t ima = 0, dw = 0;
  for (size_t v = 0; v < pp.problem.size(); ++v)
    for (size_t o = 0; o < pp.problem.options[v].size(); ++o) {
      const std::string& label = pp.problem.options[v][o].label;
      if (label.starts_with("ima") && !label.starts_with("ima-cjob")) ima += pp.cycles[v][o];
      if (label == "dw") dw += pp.cycles[v][o];
    }
  // pw_expand, pw_project and their row-tile partial sums on the IMA option.
  EXPECT_EQ(ima, want["pw_expand"] + want["pw_project"] + want["pw_project_partial_sums"] +
                     want["pw_expand_partial_sums"]);
  EXPECT_EQ(dw, want["dw"]);
}

// Seed 000's presets as platforms (issue 33 scope 1): the platform path dispatches to the
// two-device exact solver (partition/solve_by_shape.h) and returns the plan of `--preset`: the
// same makespan and start times bit for bit, every operator on the same device; the K-engine
// exact solver on the same problem proves the same optimum.
TEST(PlatformSeed000, SamePlanAsThePresetThroughTheTwoDeviceSolver) {
  for (const std::string preset : {"seed000-arm", "seed000-x86"})
    for (const std::string model : {"resnet18", "mobilenetv2"})
      for (const int64_t crossbars : {int64_t{0}, int64_t{25}}) {
        SCOPED_TRACE(preset + " " + model + " crossbars " + std::to_string(crossbars));
        const api::Model m = api::load_model(model);
        api::PartitionRequest two;
        two.hardware.preset = preset;
        if (crossbars > 0) two.hardware.crossbars = crossbars;
        const api::PartitionResult r2 = api::partition(m, two);
        ASSERT_EQ(r2.run.status, partition::SolveStatus::Optimal);
        api::PartitionRequest k;
        k.platform = preset;
        if (crossbars > 0) k.imas = crossbars;
        const api::PlatformPartitionResult rk = api::partition_on_platform(m, k);
        ASSERT_EQ(rk.solve.status, partition::SolveStatus::Optimal);
        EXPECT_EQ(rk.solve.solver, partition::MultiExactResult::kTwoDeviceSolver);
        ASSERT_NE(rk.provenance.find("solver"), nullptr);
        EXPECT_EQ(*rk.provenance.find("solver"), partition::MultiExactResult::kTwoDeviceSolver);
        EXPECT_EQ(rk.solve.schedule.makespan, r2.latency_s);
        const partition::MultiProblem& p = rk.problem.problem;
        ASSERT_EQ(p.size(), r2.problem.size());
        for (size_t v = 0; v < p.size(); ++v) {
          const int engine = p.option(static_cast<int>(v), rk.solve.schedule.option[v]).engine;
          EXPECT_EQ(p.engines[static_cast<size_t>(engine)].name,
                    r2.schedule.assignment.mode[v] == partition::kHost ? "host" : "cim")
              << p.names[v];
          EXPECT_EQ(rk.solve.schedule.start[v], r2.schedule.start[v]) << p.names[v];
        }
        const partition::MultiExactResult kengine = partition::solve_multi_exact(p);
        ASSERT_EQ(kengine.status, partition::SolveStatus::Optimal);
        EXPECT_NEAR(kengine.objective, r2.latency_s, 1e-9 * r2.latency_s);
      }
}

// Seed 000's overrides on its platform (issue 33: `partition --platform` takes `--preset`'s
// flags): crossbars, t_mvm, replicas and the serial bus set on seed000-arm give the plan of
// `--preset seed000-arm` with the same flags, bit for bit, every operator on the same crossbars
// (R copies: R x its crossbars); so does --host (x86, a profile file). An override the platform
// has nothing for is refused by name.
TEST(PlatformSeed000, OverridesGiveThePresetsPlanWithTheSameFlags) {
  const api::Model m = api::load_model("resnet18");
  api::PartitionRequest two;
  two.hardware.crossbars = 50;
  two.hardware.t_mvm = 500e-9;
  two.replicas = 4;
  two.bus_model = "serial";
  const api::PartitionResult r2 = api::partition(m, two);
  ASSERT_EQ(r2.run.status, partition::SolveStatus::Optimal);
  api::PartitionRequest k;
  k.platform = "seed000-arm";
  k.hardware.crossbars = 50;
  k.hardware.t_mvm = 500e-9;
  k.replicas = 4;
  k.bus_model = "serial";
  const api::PlatformPartitionResult rk = api::partition_on_platform(m, k);
  ASSERT_EQ(rk.solve.status, partition::SolveStatus::Optimal);
  EXPECT_EQ(rk.solve.solver, partition::MultiExactResult::kTwoDeviceSolver);
  EXPECT_EQ(rk.solve.schedule.makespan, r2.latency_s);
  const partition::MultiProblem& p = rk.problem.problem;
  ASSERT_EQ(p.size(), r2.problem.size());
  EXPECT_TRUE(p.links[0].serial);
  int64_t copies = 0;  // operators the plan gives more than one copy
  for (size_t v = 0; v < p.size(); ++v) {
    ASSERT_EQ(p.options[v].size(), 1 + r2.problem.acc[v].size()) << p.names[v];
    const partition::MultiOption& o = p.option(static_cast<int>(v), rk.solve.schedule.option[v]);
    const int mode = r2.schedule.assignment.mode[v];
    EXPECT_EQ(o.capacity, mode == partition::kHost ? 0 : r2.problem.acc[v][mode].crossbars)
        << p.names[v];
    copies += mode > 0 ? 1 : 0;
    EXPECT_EQ(rk.solve.schedule.start[v], r2.schedule.start[v]) << p.names[v];
  }
  EXPECT_GT(copies, 0);  // the replicas are used, so the options carry them
  api::PartitionRequest bad;
  bad.platform = "seed001-cluster";
  bad.replicas = 2;
  try {
    (void)api::build_platform_partition_problem(m, bad);
    ADD_FAILURE() << "replicas applied to seed001-cluster";
  } catch (const UserError& e) {
    EXPECT_NE(
        std::string(e.what()).find("replicas: platform 'pulp-pcm-cluster' has no rram-crossbars"),
        std::string::npos)
        << e.what();
  }
  bad = {};
  bad.platform = "seed000-arm";
  bad.hardware.crossbars = 50;
  bad.imas = 50;
  EXPECT_THROW(bad.validate(), UserError);
  bad = {};
  bad.platform = "seed000-arm";
  bad.hardware.host = "this";  // measured now: the two-device request's alone
  EXPECT_THROW(bad.validate(), UserError);
  // --host: a host model, and a measured profile whose costs the provenance calls measured.
  for (const std::string& host :
       {std::string("x86"), std::string(HETCIM_SOURCE_DIR) + "/examples/host_resnet18.csv"}) {
    SCOPED_TRACE(host);
    api::PartitionRequest h2;
    h2.hardware.host = host;
    const api::PartitionResult hr2 = api::partition(m, h2);
    api::PartitionRequest hk;
    hk.platform = "seed000-arm";
    hk.hardware.host = host;
    const api::PlatformPartitionResult hrk = api::partition_on_platform(m, hk);
    EXPECT_EQ(hrk.solve.schedule.makespan, hr2.latency_s);
    for (size_t v = 0; v < hrk.problem.problem.size(); ++v)
      EXPECT_EQ(hrk.solve.schedule.start[v], hr2.schedule.start[v]) << hrk.problem.problem.names[v];
    EXPECT_NE(hrk.problem.costs.find(host == "x86" ? "host ryzen9-3900x" : "measured on"),
              std::string::npos)
        << hrk.problem.costs;
  }
}

// One request (issue 33): partition's request with a platform takes the platform's fields, the
// seed-000 overrides and the solver's, and refuses every other field given (by name, from C++,
// the CLI and Python alike); without a platform it refuses the platform's own; the two-device
// calls refuse a platform and the platform calls want one.
TEST(PlatformSeed000, OneRequestRefusesWhatTheOtherPathTakes) {
  const auto message = [](const api::PartitionRequest& q) {
    try {
      q.validate();
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  api::PartitionRequest q;
  q.platform = "seed000-arm";
  q.hardware.crossbars = 50;
  q.replicas = 4;
  q.bus_model = "serial";
  q.objective = "energy";
  EXPECT_EQ(message(q), "");
  q.transfers = "per-tensor";
  EXPECT_EQ(message(q).rfind("transfers: does not apply with a platform", 0), 0u) << message(q);
  q.transfers = "per-edge";
  q.max_tightening = 3;
  EXPECT_EQ(message(q).rfind("max_tightening: does not apply with a platform", 0), 0u)
      << message(q);
  q.max_tightening = api::PartitionRequest{}.max_tightening;
  q.hardware.crossbars = 5000;  // a platform's crossbar engines hold at most 4096
  EXPECT_EQ(message(q).rfind("crossbars: ", 0), 0u) << message(q);
  api::PartitionRequest two;
  two.reprogram = true;
  EXPECT_EQ(message(two), "reprogram: applies with a platform only (a preset or a YAML file)");
  two = {};
  EXPECT_EQ(api::platform_fields().size(), 14u);
  const api::Model m = api::load_model("bottleneck");
  EXPECT_THROW((void)api::build_platform_partition_problem(m, two), UserError);
  two.platform = "seed001-cluster";
  EXPECT_THROW((void)api::build_partition_problem(m, two), UserError);
}

// MobileNetV2 on seed 001's cluster: the proven optimum is no slower than any of the five
// hand-named Bottleneck mappings applied to every Bottleneck (operators outside the Bottlenecks
// on the cores), wherever the mapping's weights fit the IMA.
TEST(PlatformSeed001, MobileNetV2OptimumBeatsEveryHandMapping) {
  const api::Model m = api::load_model("mobilenetv2");
  for (int64_t imas : {1, 256}) {
    SCOPED_TRACE("imas " + std::to_string(imas));
    api::PartitionRequest q;
    q.platform = "seed001-cluster";
    q.imas = imas;
    const api::PlatformPartitionResult r = api::partition_on_platform(m, q);
    ASSERT_EQ(r.solve.status, partition::SolveStatus::Optimal);
    ASSERT_TRUE(partition::multi_check(r.problem.problem, r.solve.schedule).empty());
    const partition::MultiProblem& p = r.problem.problem;
    int feasible = 0;
    for (const std::string mapping : {"cores", "ima-cjob8", "ima-cjob16", "hybrid", "ima+dw"}) {
      std::vector<int> option(p.size(), -1);
      for (size_t v = 0; v < p.size(); ++v) {
        const auto find = [&](auto pred) {
          for (size_t o = 0; o < p.options[v].size(); ++o)
            if (pred(p.options[v][o].label)) return static_cast<int>(o);
          return -1;
        };
        const bool depthwise = find([](const std::string& l) { return l == "dw"; }) >= 0;
        const bool in_block = p.names[v].find(".conv.") != std::string::npos;
        const int cores = find([](const std::string& l) { return l == "cores"; });
        const int ima = find([](const std::string& l) {
          return l.starts_with("ima") && !l.starts_with("ima-cjob");
        });
        int want = cores;
        if (in_block && mapping != "cores") {
          if (!depthwise)
            want = ima;
          else if (mapping == "ima+dw")
            want = find([](const std::string& l) { return l == "dw"; });
          else if (mapping.starts_with("ima-cjob"))
            want = find([&](const std::string& l) { return l == mapping; });
        }
        option[v] = want;
      }
      bool ok = true;
      for (int o : option) ok = ok && o >= 0;
      if (ok) {
        const std::vector<int64_t> used = partition::multi_capacity_used(p, option);
        for (size_t e = 0; e < p.engines.size(); ++e)
          ok = ok && (p.engines[e].capacity < 0 || used[e] <= p.engines[e].capacity);
      }
      if (!ok) continue;
      ++feasible;
      const partition::MultiSchedule s =
          partition::multi_simulate(p, option, partition::multi_default_order(p, option));
      EXPECT_LE(r.solve.schedule.makespan, s.makespan * (1 + 1e-12)) << mapping;
    }
    EXPECT_EQ(feasible, imas == 1 ? 1 : 5);  // cores always; with 256 crossbars all five
  }
}

// The reports: the Gantt chart has one lane per engine and per serial link, the JSON one entry per
// operator with the engine the schedule uses.
TEST(PlatformReport, GanttLanesAndJson) {
  api::PartitionRequest q;
  q.platform = std::string(HETCIM_SOURCE_DIR) + "/examples/my_soc.yaml";
  const api::PlatformPartitionResult r =
      api::partition_on_platform(api::load_model("bottleneck"), q);
  ASSERT_EQ(r.solve.status, partition::SolveStatus::Optimal);
  const report::MultiPartitionRun run{r.model, r.platform, &r.problem, &r.solve, r.provenance};
  const std::string svg = report::multi_gantt_svg(run);
  for (const std::string lane : {">host<", ">tile0<", ">tile1<", ">dw<", ">link bus<"})
    EXPECT_NE(svg.find(lane), std::string::npos) << lane;
  const nlohmann::json j = report::multi_partition_json(run);
  ASSERT_EQ(j["operators"].size(), r.problem.problem.size());
  for (size_t v = 0; v < r.problem.problem.size(); ++v) {
    const int e = r.problem.problem.option(static_cast<int>(v), r.solve.schedule.option[v]).engine;
    EXPECT_EQ(j["operators"][v]["engine"], r.problem.problem.engines[static_cast<size_t>(e)].name);
  }
  EXPECT_EQ(j["status"], "optimal");
}

// Issue 36: the presets' names for the machines they describe (util/paper_names.h) are the same
// presets as the first names, which still work; an unknown name lists both.
TEST(PresetNames, MachineNamesAreAliasesOfTheFirstNames) {
  const cost::Hardware arm = cost::hardware_preset("cortex-a72-rram");
  EXPECT_EQ(arm.name, "seed000-arm");
  EXPECT_EQ(arm.host.model, "arm-cortex-a72");
  EXPECT_DOUBLE_EQ(arm.bus_bandwidth, 10.24e9);
  const cost::Hardware x86 = cost::hardware_preset("ryzen9-rram");
  EXPECT_EQ(x86.name, "seed000-x86");
  EXPECT_EQ(x86.host.model, "ryzen9-3900x");
  EXPECT_DOUBLE_EQ(x86.bus_bandwidth, 20.48e9);
  EXPECT_EQ(cost::hardware_preset("seed000-arm").host.model, "arm-cortex-a72");

  const Platform cluster = resolve_platform("pulp-pcm-cluster", std::nullopt, false);
  const Platform old = resolve_platform("seed001-cluster", std::nullopt, false);
  EXPECT_EQ(cluster.name, "seed001-cluster");
  ASSERT_EQ(cluster.engines.size(), old.engines.size());
  for (size_t i = 0; i < old.engines.size(); ++i) {
    EXPECT_EQ(cluster.engines[i].name, old.engines[i].name);
    EXPECT_EQ(cluster.engines[i].cost, old.engines[i].cost);
  }
  EXPECT_EQ(resolve_platform("ryzen9-rram", 7, false).engines[1].crossbars, 7);
  EXPECT_EQ(cluster::cluster_preset("pulp-pcm-cluster").name, "seed001");
  EXPECT_EQ(cluster::cluster_preset("pulp-pcm-cluster").tcdm_bytes, 512 * 1024);

  try {
    (void)cost::hardware_preset("seed000");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("(known: cortex-a72-rram, ryzen9-rram)"),
              std::string::npos)
        << e.what();
  }
  // A platform file's engine cost models by the machine part they model, or by the first names;
  // an error names the new ones.
  const Platform named = parse_platform_yaml(
      "engines:\n  - {name: h, kind: cpu, cost: pulp-cores}\n"
      "  - {name: x, kind: crossbar, cost: pcm-ima, crossbars: 2}\n"
      "  - {name: d, kind: depthwise, cost: pulp-dw}\n  - {name: a, kind: cpu, cost: host-cpu}\n"
      "  - {name: r, kind: crossbar, cost: rram-crossbars, crossbars: 4}\n",
      "named.yaml");
  const Platform first = parse_platform_yaml(
      "engines:\n  - {name: h, kind: cpu, cost: seed001-cores}\n"
      "  - {name: x, kind: crossbar, cost: seed001-ima, crossbars: 2}\n"
      "  - {name: d, kind: depthwise, cost: seed001-dw}\n  - {name: a, kind: cpu, cost: "
      "seed000-host}\n  - {name: r, kind: crossbar, cost: seed000-cim, crossbars: 4}\n",
      "first.yaml");
  ASSERT_EQ(named.engines.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(named.engines[i].cost, first.engines[i].cost) << i;
  EXPECT_EQ(named.engines[1].cost, "seed001-ima");
  EXPECT_NE(
      error_of("engines:\n  - {name: h, kind: cpu, cost: pcm-ima}\n")
          .find("'pcm-ima' is not a cost model of a cpu engine (expected pulp-cores, host-cpu)"),
      std::string::npos)
      << error_of("engines:\n  - {name: h, kind: cpu, cost: pcm-ima}\n");
  // A paper by its key or its first id.
  ASSERT_NE(find_paper("klein2026"), nullptr);
  EXPECT_EQ(find_paper("klein2026")->id, "seed000");
  EXPECT_EQ(find_paper("seed002")->key, "yousuf2026");
  EXPECT_EQ(find_paper("seed"), nullptr);
}

}  // namespace
}  // namespace hetcim::platform
