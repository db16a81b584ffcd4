// The zoo at the partitioning granularity: the counts of seed 000's Table I and eq. (1), which the
// paper and the seeds README state independently of this code.
#include <gtest/gtest.h>

#include "passes/pipeline.h"
#include "workload/workload.h"
#include "zoo/zoo.h"

namespace hetcim {
namespace {

struct Expect {
  const char* model;
  int64_t operators, parallel_pairs, milp_vars, milp_constraints;
  int64_t crossbars;  // -1: not stated
  int64_t params, params_folded, macs;
};

class TableI : public ::testing::TestWithParam<Expect> {};

TEST_P(TableI, OperatorsParallelPairsAndMilpSize) {
  const Expect& e = GetParam();
  const graph::Graph g = zoo::build_model(e.model, {});
  EXPECT_EQ(workload::count_params(g), e.params);
  const workload::Workload w = workload::analyze(passes::lower(g));
  EXPECT_EQ(w.totals.operators, e.operators);
  EXPECT_EQ(w.totals.parallel_pairs, e.parallel_pairs);
  EXPECT_EQ(w.totals.milp_variables, e.milp_vars);
  EXPECT_EQ(w.totals.milp_constraints, e.milp_constraints);
  if (e.crossbars >= 0) {
    EXPECT_EQ(w.totals.crossbars, e.crossbars);
  }
  if (e.params_folded >= 0) {
    EXPECT_EQ(w.totals.params, e.params_folded);
  }
  EXPECT_EQ(w.totals.macs, e.macs);
}

INSTANTIATE_TEST_SUITE_P(
    Zoo, TableI,
    ::testing::Values(
        // Table I: 38 / 79 / 71 operators; 44/204, 91/412, 71/331. Eq. (1): ResNet-18 201.
        Expect{"resnet18", 38, 6, 44, 204, 201, 11689512, -1, 1814073344},
        Expect{"resnet50", 79, 12, 91, 412, -1, 25557032, -1, 4089184256},
        Expect{"mobilenetv2", 71, 0, 71, 331, -1, 3504872, -1, 300774272},
        // YOLOv5n: eq. (1) gives 95 crossbars; 1,867,405 parameters with BatchNorm folded. Its
        // operator count (paper: 251) depends on Detect's export form; see the closing notes.
        Expect{"yolov5n", 248, 2064, 2312, 5568, 95, 1872157, 1867405, 2234060800}),
    [](const auto& info) { return std::string(info.param.model); });

TEST(TableI, Fp32LoweringHasNoQuantizeOrLayoutNodes) {
  passes::PipelineOptions o;
  o.precision = passes::Precision::Fp32;
  const workload::Workload w =
      workload::analyze(passes::lower(zoo::build_model("resnet18", {}), o));
  // Of the seven host-only boundary nodes, Flatten is in the float graph too; the other six
  // (Q, two Transposes, DQ, Q, DQ) exist only in the int8 deployment.
  EXPECT_EQ(w.totals.operators, 38 - 6);
}

TEST(TableI, OffloadableOperatorsAreTheConvsAndTheClassifier) {
  for (auto [model, convs] : {std::pair{"resnet18", 20}, {"resnet50", 53}, {"mobilenetv2", 52}}) {
    const workload::Workload w = workload::analyze(passes::lower(zoo::build_model(model, {})));
    EXPECT_EQ(w.totals.offloadable, convs + 1) << model;
  }
  const workload::Workload y = workload::analyze(passes::lower(zoo::build_model("yolov5n", {})));
  EXPECT_EQ(y.totals.offloadable, 60);
}

}  // namespace
}  // namespace hetcim
