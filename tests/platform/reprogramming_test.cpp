// Crossbar reprogramming on platforms (platform/reprogramming.h, issue 12 scope 3): the YAML block
// and its errors, the literature presets and their table in docs/platforms.md, the reprogrammed
// twin options' write time and energy by hand, presets unchanged unless asked, and the exact
// solver against the K-engine MILP on a network with reprogramming enabled.
#include "platform/reprogramming.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "api/model.h"
#include "api/platform.h"
#include "partition/multi_exact.h"
#include "partition/multi_milp.h"
#include "partition/multi_schedule.h"
#include "passes/pipeline.h"
#include "platform/build.h"
#include "platform/platform.h"
#include "platform/sweep.h"
#include "report/multi_partition.h"
#include "util/error.h"

namespace hetcim::platform {
namespace {

const std::string kHead =
    "engines:\n  - {name: h, kind: cpu, cost: seed001-cores}\n"
    "  - name: x\n    kind: crossbar\n    cost: seed001-ima\n    crossbars: 2\n";

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_platform_yaml(yaml, "p.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ReprogrammingYaml, BadBlocksNameTheField) {
  const std::string f = "p.yaml: field 'engines[1].reprogramming";
  const auto has = [](const std::string& msg, const std::string& want) {
    EXPECT_NE(msg.find(want), std::string::npos) << msg << "\nwanted: " << want;
  };
  has(error_of(kHead + "    reprogramming: flash\n"),
      f + "': unknown reprogramming preset 'flash'");
  has(error_of(kHead + "    reprogramming: {write_energy_per_cell: 1pJ, endurance: 1e6}\n"),
      f + "': expected exactly one of write_time_per_row");
  has(error_of(kHead + "    reprogramming: {write_time_per_row: 1us, write_time_per_cell: 1ns, "
                       "endurance: 1e6}\n"),
      "got 2");
  has(error_of(kHead + "    reprogramming: {write_time_per_row: 1us, endurance: 0}\n"),
      f + ".endurance': expected the writes a cell survives");
  has(error_of(kHead + "    reprogramming: {write_time_per_row: 1us, endurance: many}\n"),
      f + ".endurance'");
  has(error_of(kHead + "    reprogramming: {write_time_per_row: 1, endurance: 1e6}\n"),
      f + ".write_time_per_row'");
  has(error_of(kHead + "    reprogramming: {preset: pcm, speed: 3}\n"), "speed");
  has(error_of(kHead + "    reprogramming: {preset: pcm, enabled: maybe}\n"),
      f + ".enabled': expected true or false");
  has(error_of("engines:\n  - {name: h, kind: cpu, cost: seed001-cores, reprogramming: pcm}\n"),
      "p.yaml: field 'engines[0].reprogramming': only crossbar engines are reprogrammed");
  has(error_of("engines:\n  - {name: h, kind: cpu, cost: seed000-host}\n"
               "  - {name: c, kind: crossbar, cost: seed000-cim, crossbars: 4, "
               "reprogramming: rram}\n"),
      "field 'engines[1].reprogramming': reprogramming needs an engine that runs one job at a "
      "time");
  // Off, the same block is accepted on such an engine.
  EXPECT_EQ(error_of("engines:\n  - {name: h, kind: cpu, cost: seed000-host}\n"
                     "  - {name: c, kind: crossbar, cost: seed000-cim, crossbars: 4, "
                     "reprogramming: {preset: rram, enabled: false}}\n"),
            "");
  // --reprogram on a platform without any block.
  try {
    (void)resolve_platform("seed000-arm", std::nullopt, true);
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    has(e.what(), "reprogram: platform 'cortex-a72-rram' has no engine with a reprogramming block");
  }
}

TEST(ReprogrammingYaml, PresetsAndFiguresWithUnits) {
  const Platform a = parse_platform_yaml(kHead + "    reprogramming: pcm\n", "a.yaml");
  ASSERT_TRUE(a.engines[1].reprogramming);
  const ReprogrammingSpec& r = *a.engines[1].reprogramming;
  EXPECT_TRUE(r.enabled);
  // pcm: 10 pulses of 100 ns and 10 pJ each; endurance 1e8 (the table below).
  ASSERT_TRUE(r.write_time_per_row);
  EXPECT_DOUBLE_EQ(*r.write_time_per_row, 1e-6);
  EXPECT_DOUBLE_EQ(r.write_energy_per_cell, 100e-12);
  EXPECT_DOUBLE_EQ(r.endurance, 1e8);
  const Platform b = parse_platform_yaml(
      kHead + "    reprogramming: {preset: rram, write_time_per_cell: 2ns, source: my chip}\n",
      "b.yaml");
  const ReprogrammingSpec& s = *b.engines[1].reprogramming;
  EXPECT_FALSE(s.write_time_per_row);  // replaced by the given time
  EXPECT_DOUBLE_EQ(*s.write_time_per_cell, 2e-9);
  EXPECT_DOUBLE_EQ(s.write_energy_per_cell, 10e-12);  // rram: 10 pulses of 1 pJ
  EXPECT_DOUBLE_EQ(s.endurance, 1e6);
  EXPECT_EQ(s.source, "my chip");
  // write_cost by hand: 3 rows, 700 cells, 2 arrays.
  const WriteCost c = write_cost(s, {3, 700, 2});
  EXPECT_DOUBLE_EQ(c.seconds, 700 * 2e-9);
  EXPECT_DOUBLE_EQ(c.joules, 700 * 10e-12);
  EXPECT_DOUBLE_EQ(write_cost(r, {3, 700, 2}).seconds, 3e-6);
  // The RRAM example platform carries the rram preset, enabled.
  const Platform x = load_platform(std::string(HETCIM_SOURCE_DIR) + "/examples/rram_soc.yaml");
  ASSERT_TRUE(x.engines[1].reprogramming);
  EXPECT_TRUE(x.engines[1].reprogramming->enabled);
  EXPECT_DOUBLE_EQ(x.engines[1].reprogramming->endurance, 1e6);
}

// Every figure of the presets is in docs/platforms.md's table with the same value and source.
TEST(ReprogrammingConstants, EveryRowIsInTheDocsWithTheSameSource) {
  std::ifstream in(std::string(HETCIM_SOURCE_DIR) + "/docs/platforms.md");
  ASSERT_TRUE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const std::vector<ReprogrammingConstant> rows = reprogramming_constants();
  EXPECT_EQ(rows.size(), 12u);
  for (const ReprogrammingConstant& c : rows) {
    const std::string row = "| " + c.preset + " | `" + c.field + "` | " + c.value + " | " +
                            c.source + " | " + c.reference + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/platforms.md lacks the row\n" << row;
  }
}

const graph::Graph& bottleneck() {
  static const graph::Graph g = passes::lower(api::load_model("bottleneck").graph, {});
  return g;
}

// The Bottleneck's point-wise layers on the IMA (seed001, 256x256): expand 120 -> 600 is a GeMM
// of 120 rows x 600 columns (3 column tiles: 3 x 120 = 360 rows written), project 600 -> 120 is
// 600 rows x 120 columns (one column tile over 3 row tiles: 600 rows written); both write
// 72,000 cells. PCM: 1 us per row, 100 pJ per cell.
TEST(ReprogrammingBuild, TwinOptionsAddTheWriteByHand) {
  const PlatformProblem off =
      build_platform_problem(bottleneck(), resolve_platform("seed001-cluster", 8));
  for (const auto& opts : off.problem.options)
    for (const partition::MultiOption& o : opts) EXPECT_FALSE(o.reprogram) << o.label;
  const PlatformProblem on =
      build_platform_problem(bottleneck(), resolve_platform("seed001-cluster", 8, true));
  std::multiset<double> dt;
  int twins = 0;
  for (size_t v = 0; v < on.problem.size(); ++v) {
    const auto& opts = on.problem.options[v];
    // The options without the twins are the off problem's, in order.
    std::vector<std::string> labels;
    for (const partition::MultiOption& o : opts)
      if (!o.reprogram) labels.push_back(o.label);
    std::vector<std::string> off_labels;
    for (const partition::MultiOption& o : off.problem.options[v]) off_labels.push_back(o.label);
    EXPECT_EQ(labels, off_labels);
    for (size_t k = 1; k < opts.size(); ++k) {
      if (!opts[k].reprogram) continue;
      ++twins;
      const partition::MultiOption& res = opts[k - 1];
      EXPECT_EQ(opts[k].label, res.label + " reprog");
      EXPECT_EQ(opts[k].capacity, res.capacity);
      EXPECT_NEAR(opts[k].write_seconds, opts[k].duration - res.duration, 1e-15);
      EXPECT_NEAR(opts[k].write_energy, 100e-12 * static_cast<double>(opts[k].cells_written),
                  1e-18);
      if (!res.label.starts_with("ima-cjob")) {
        EXPECT_EQ(opts[k].cells_written, 72000);
        EXPECT_NEAR(opts[k].energy - res.energy, 7.2e-6, 1e-15);
        dt.insert(std::round(opts[k].write_seconds * 1e9));
      }
    }
  }
  EXPECT_EQ(dt, (std::multiset<double>{360e3, 600e3}));  // ns
  EXPECT_GE(twins, 3);                                   // + the depth-wise layer's c_job slices
}

// MobileNetV2 on seed 001's cluster with 1 and 2 IMA crossbars: reprogramming adds options, so
// its optimum is never worse; the exact solver and CBC agree on it; the wear report follows the
// schedule (lifetime = endurance / operators reprogrammed).
TEST(ReprogrammingSolve, ExactEqualsMilpOnMobileNetV2) {
  const graph::Graph g = passes::lower(api::load_model("mobilenetv2").graph, {});
  for (int64_t imas : {1, 2}) {
    SCOPED_TRACE(imas);
    const PlatformProblem off =
        build_platform_problem(g, resolve_platform("seed001-cluster", imas));
    const PlatformProblem on =
        build_platform_problem(g, resolve_platform("seed001-cluster", imas, true));
    const partition::MultiExactResult a = partition::solve_multi_exact(off.problem);
    const partition::MultiExactResult b = partition::solve_multi_exact(on.problem);
    ASSERT_EQ(b.status, partition::SolveStatus::Optimal);
    EXPECT_LE(b.objective, a.objective + 1e-12);
    partition::MultiMilpOptions mo;
    mo.time_limit_seconds = 60;
    const partition::MultiMilpResult m = partition::solve_multi_milp(on.problem, mo);
    ASSERT_EQ(m.status, partition::SolveStatus::Optimal);
    EXPECT_NEAR(m.objective, b.objective, 1e-6 * b.objective);
    const std::vector<partition::MultiWear> w =
        partition::multi_wear(on.problem, b.schedule.option);
    int reprogrammed = 0;
    for (size_t v = 0; v < on.problem.size(); ++v)
      reprogrammed += on.problem.option(static_cast<int>(v), b.schedule.option[v]).reprogram;
    EXPECT_EQ(w[1].reprogrammed, reprogrammed);
    if (reprogrammed > 0) {
      EXPECT_DOUBLE_EQ(w[1].lifetime_inferences, 1e8 / reprogrammed);
    }
    EXPECT_LE(partition::multi_capacity_used(on.problem, b.schedule.option)[1], imas);
  }
}

// The `reprogram` sweep key of `dse --platform` is --reprogram on every grid point.
TEST(ReprogrammingSweep, KeyEnablesTheBlocks) {
  Platform p = resolve_platform("seed001-cluster", 8);
  apply_sweep(p, "reprogram", "true");
  const PlatformProblem a = build_platform_problem(bottleneck(), p);
  const PlatformProblem b =
      build_platform_problem(bottleneck(), resolve_platform("seed001-cluster", 8, true));
  EXPECT_EQ(partition::solve_multi_exact(a.problem).objective,
            partition::solve_multi_exact(b.problem).objective);
  size_t twins = 0;
  for (const auto& opts : a.problem.options)
    for (const partition::MultiOption& o : opts) twins += o.reprogram ? 1 : 0;
  EXPECT_GT(twins, 0u);
  apply_sweep(p, "reprogram", "false");
  for (const auto& opts : build_platform_problem(bottleneck(), p).problem.options)
    for (const partition::MultiOption& o : opts) EXPECT_FALSE(o.reprogram);
  Platform s = resolve_platform("seed000-arm");
  try {
    apply_sweep(s, "reprogram", "true");
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("has no engine with a reprogramming block"),
              std::string::npos)
        << e.what();
  }
  try {
    (void)parse_sweep("reprogram=maybe");
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("--sweep reprogram: value 'maybe'"), std::string::npos)
        << e.what();
  }
}

TEST(ReprogrammingReport, TextAndJsonCarryTheWear) {
  api::PartitionRequest q;
  q.platform = "seed001-cluster";
  q.reprogram = true;
  const api::PlatformPartitionResult x =
      api::partition_on_platform(api::load_model("mobilenetv2"), q);
  const report::MultiPartitionRun run{x.model,  x.platform,   &x.problem,
                                      &x.solve, x.provenance, nullptr};
  const std::string text = report::multi_partition_text(run);
  EXPECT_NE(text.find("reprogramming (modelled"), std::string::npos) << text;
  EXPECT_NE(text.find("endurance from literature preset 'pcm'"), std::string::npos) << text;
  const nlohmann::json j = report::multi_partition_json(run);
  ASSERT_TRUE(j.contains("reprogramming"));
  EXPECT_EQ(j["reprogramming"][0]["engine"], "ima");
  EXPECT_DOUBLE_EQ(j["reprogramming"][0]["endurance_writes_per_cell"].get<double>(), 1e8);
  // Without --reprogram the outputs have no reprogramming fields (existing outputs unchanged).
  q.reprogram = false;
  const api::PlatformPartitionResult y =
      api::partition_on_platform(api::load_model("mobilenetv2"), q);
  const report::MultiPartitionRun run2{y.model,  y.platform,   &y.problem,
                                       &y.solve, y.provenance, nullptr};
  EXPECT_FALSE(report::multi_partition_json(run2).contains("reprogramming"));
  EXPECT_EQ(report::multi_partition_text(run2).find("reprogramming"), std::string::npos);
  EXPECT_FALSE(report::multi_partition_json(run2)["operators"][0].contains("reprogrammed"));
}

}  // namespace
}  // namespace hetcim::platform
