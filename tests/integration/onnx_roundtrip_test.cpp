// Zoo model -> ONNX bytes -> import: the imported model gives the same operator table.
#include <gtest/gtest.h>

#include "onnxio/export.h"
#include "onnxio/import.h"
#include "passes/pipeline.h"
#include "workload/workload.h"
#include "zoo/zoo.h"

namespace hetcim {
namespace {

void expect_same_workload(const workload::Workload& a, const workload::Workload& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const workload::OpWorkload &x = a.ops[i], &y = b.ops[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.op_type, y.op_type) << x.name;
    EXPECT_EQ(x.out_shape, y.out_shape) << x.name;
    EXPECT_EQ(x.macs, y.macs) << x.name;
    EXPECT_EQ(x.rows, y.rows) << x.name;
    EXPECT_EQ(x.cols, y.cols) << x.name;
    EXPECT_EQ(x.n_mvm, y.n_mvm) << x.name;
    EXPECT_EQ(x.in_bytes, y.in_bytes) << x.name;
    EXPECT_EQ(x.out_bytes, y.out_bytes) << x.name;
    EXPECT_EQ(x.crossbars, y.crossbars) << x.name;
    EXPECT_EQ(x.params, y.params) << x.name;
  }
  EXPECT_EQ(a.dag.edges, b.dag.edges);
}

class Roundtrip : public ::testing::TestWithParam<const char*> {};

TEST_P(Roundtrip, ImportedExportGivesIdenticalInspect) {
  const graph::Graph zoo_graph = zoo::build_model(GetParam(), {});
  const std::string bytes =
      onnxio::export_onnx_bytes(zoo_graph, {.seed = 3, .domain_versions = {}});
  const graph::Graph imported = onnxio::import_onnx_bytes(bytes, GetParam());
  EXPECT_EQ(workload::count_params(imported), workload::count_params(zoo_graph));
  expect_same_workload(workload::analyze(passes::lower(zoo_graph)),
                       workload::analyze(passes::lower(imported)));
  // Same seed, same bytes.
  EXPECT_EQ(onnxio::export_onnx_bytes(zoo_graph, {.seed = 3, .domain_versions = {}}), bytes);
}

INSTANTIATE_TEST_SUITE_P(Zoo, Roundtrip,
                         ::testing::Values("resnet18", "mobilenetv2", "yolov5n", "bottleneck",
                                           "race_cnn"));

}  // namespace
}  // namespace hetcim
