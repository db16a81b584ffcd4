#include <gtest/gtest.h>

#include "cost/cim_model.h"
#include "cost/hardware.h"
#include "cost/host_model.h"
#include "test_util.h"
#include "util/error.h"

namespace hetcim::cost {
namespace {

using testing::error_of;
using testing::layer1_conv;

TEST(CimModel, Equations2And3ByHand) {
  CimConfig cim;  // 50 ns, 10.24 GB/s, 1 byte
  // load = store = 200704 B / 10.24e9 B/s = 19.6 us; MVMs = 3136 * 50 ns = 156.8 us.
  EXPECT_NEAR(cim_latency(layer1_conv(), cim), 2 * 19.6e-6 + 156.8e-6, 1e-12);
  // Four weight copies split the 3136 input vectors: 784 MVMs.
  EXPECT_NEAR(cim_latency(layer1_conv(), cim, 4), 2 * 19.6e-6 + 784 * 50e-9, 1e-12);
  EXPECT_NEAR(transfer_latency(layer1_conv(), 20.48e9, 1), 200704 / 20.48e9, 1e-15);
}

TEST(HostModel, RooflineOfThePresets) {
  const HostModel& arm = host_model_preset("arm-cortex-a72");
  const workload::OpWorkload op = layer1_conv();
  // 115,605,504 MACs at 0.5 * 24 GMAC/s = 9.6338 ms, plus 10 us dispatch; compute-bound.
  EXPECT_NEAR(host_latency(op, arm, true), 115605504.0 / 12e9 + 10e-6, 1e-9);
  EXPECT_THROW((void)host_model_preset("pentium"), UserError);
}

TEST(Hardware, YamlWithHumanUnits) {
  const Hardware h = parse_hardware_yaml(
      "host: {model: ryzen9-3900x}\n"
      "cim: {crossbar: 128x256, crossbars: 25, t_mvm: 100ns}\n"
      "bus: {bandwidth: 20.48GB/s}\n",
      "hw.yaml");
  EXPECT_EQ(h.host.model, "ryzen9-3900x");
  EXPECT_EQ(h.cim.xbar_rows, 128);
  EXPECT_EQ(h.cim.xbar_cols, 256);
  EXPECT_EQ(h.cim.crossbars, 25);
  EXPECT_DOUBLE_EQ(h.cim.t_mvm, 100e-9);
  EXPECT_DOUBLE_EQ(h.bus_bandwidth, 20.48e9);
  EXPECT_DOUBLE_EQ(h.cim.bandwidth, 20.48e9);  // B_cim defaults to the bus bandwidth
}

TEST(Hardware, PresetsOfSeed000) {
  const Hardware arm = hardware_preset("seed000-arm");
  EXPECT_DOUBLE_EQ(arm.bus_bandwidth, 10.24e9);
  EXPECT_DOUBLE_EQ(arm.cim.bandwidth, 10.24e9);
  EXPECT_EQ(arm.cim.xbar_rows, 256);
  const Hardware x86 =
      parse_hardware_yaml("preset: seed000-x86\ncim: {crossbars: 200}\n", "hw.yaml");
  EXPECT_EQ(x86.host.model, "ryzen9-3900x");
  EXPECT_DOUBLE_EQ(x86.cim.bandwidth, 20.48e9);
  EXPECT_EQ(x86.cim.crossbars, 200);
}

TEST(Hardware, ErrorsNameTheField) {
  EXPECT_NE(error_of("cim: {t_mvm: 50}\n").find("hw.yaml: field 'cim.t_mvm'"), std::string::npos);
  EXPECT_NE(error_of("cim: {t_mvm: 50}\n").find("unit is required"), std::string::npos);
  EXPECT_NE(error_of("cim: {crossbars: -3}\n").find("'cim.crossbars' must be an integer >= 1"),
            std::string::npos);
  EXPECT_NE(error_of("cim: {crosbars: 3}\n").find("unknown field 'cim.crosbars'"),
            std::string::npos);
  EXPECT_NE(error_of("cim: {crossbar: 256}\n").find("ROWSxCOLS"), std::string::npos);
  EXPECT_NE(error_of("host: {model: z80}\n").find("unknown host model 'z80'"), std::string::npos);
  EXPECT_NE(error_of("cim: [1, 2\n").find("not valid YAML"), std::string::npos);
  EXPECT_NE(error_of("bus: {bandwidth: 0GB/s}\n").find("must be positive"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
}

}  // namespace
}  // namespace hetcim::cost

#include "cost/host_costs.h"

namespace hetcim::cost {
namespace {

workload::Workload two_op_workload() {
  workload::Workload w;
  w.ops.push_back(layer1_conv());
  workload::OpWorkload add;
  add.name = "layer1.0.add";
  add.in_bytes = 2 * 200704;
  add.out_bytes = 200704;
  w.ops.push_back(add);
  return w;
}

TEST(HostCosts, ProfileRowsAreMatchedByName) {
  HostProfile p;
  p.precision = "int8";
  p.machine = "test box";
  p.ops = {{"layer1.0.add", "QLinearAdd", "", 3e-5, 3e-5, 3e-5, 0, 0},
           {"layer1.0.conv1", "QLinearConv", "", 1e-3, 1e-3, 1e-3, 115605504, 115.6}};
  const HostCosts c = host_costs_from_profile(two_op_workload(), p, "p.csv", true);
  EXPECT_EQ(c.t_host, (std::vector<double>{1e-3, 3e-5}));
  EXPECT_FALSE(c.modelled);
  EXPECT_EQ(c.source, "measured on test box (profile p.csv)");
}

TEST(HostCosts, MissingOperatorOrPrecisionIsAnError) {
  HostProfile p;
  p.precision = "int8";
  p.ops = {{"layer1.0.conv1", "QLinearConv", "", 1e-3, 1e-3, 1e-3, 0, 0}};
  try {
    (void)host_costs_from_profile(two_op_workload(), p, "p.csv", true);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("p.csv: no row for operator 'layer1.0.add'"),
              std::string::npos);
  }
  EXPECT_THROW((void)host_costs_from_profile(two_op_workload(), p, "p.csv", false), UserError);
}

TEST(HostCosts, ModelledCostsAreLabelled) {
  const HostCosts c = host_costs(two_op_workload(), HostSpec{}, true);
  EXPECT_TRUE(c.modelled);
  EXPECT_EQ(c.source, "modelled by arm-cortex-a72 (analytical host model)");
  // The Add streams 602,112 B at 4 GB/s plus 10 us.
  EXPECT_NEAR(c.t_host[1], 602112 / 4e9 + 10e-6, 1e-12);
}

}  // namespace
}  // namespace hetcim::cost
