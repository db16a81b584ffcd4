#include <gtest/gtest.h>

#include "cost/cim_model.h"
#include "cost/hardware.h"
#include "cost/host_model.h"
#include "util/error.h"

namespace hetcim::cost {
namespace {

// ResNet-18 layer1 3x3 conv: 64x56x56 in and out, 3136 MVMs.
workload::OpWorkload layer1_conv() {
  workload::OpWorkload op;
  op.name = "layer1.0.conv1";
  op.offloadable = true;
  op.in_elems = op.out_elems = 64 * 56 * 56;
  op.in_bytes = op.out_bytes = 64 * 56 * 56;
  op.n_mvm = 56 * 56;
  op.macs = 64LL * 56 * 56 * 576;
  op.params = 64 * 64 * 9;
  return op;
}

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

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_hardware_yaml(yaml, "hw.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
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
  const Hardware x86 = parse_hardware_yaml("preset: seed000-x86\ncim: {crossbars: 200}\n", "hw.yaml");
  EXPECT_EQ(x86.host.model, "ryzen9-3900x");
  EXPECT_DOUBLE_EQ(x86.cim.bandwidth, 20.48e9);
  EXPECT_EQ(x86.cim.crossbars, 200);
}

TEST(Hardware, ErrorsNameTheField) {
  EXPECT_NE(error_of("cim: {t_mvm: 50}\n").find("hw.yaml: field 'cim.t_mvm'"), std::string::npos);
  EXPECT_NE(error_of("cim: {t_mvm: 50}\n").find("unit is required"), std::string::npos);
  EXPECT_NE(error_of("cim: {crossbars: -3}\n").find("'cim.crossbars' must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_of("cim: {crosbars: 3}\n").find("unknown field 'cim.crosbars'"), std::string::npos);
  EXPECT_NE(error_of("cim: {crossbar: 256}\n").find("ROWSxCOLS"), std::string::npos);
  EXPECT_NE(error_of("host: {model: z80}\n").find("unknown host model 'z80'"), std::string::npos);
  EXPECT_NE(error_of("cim: [1, 2\n").find("not valid YAML"), std::string::npos);
  EXPECT_NE(error_of("bus: {bandwidth: 0GB/s}\n").find("must be positive"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
}

}  // namespace
}  // namespace hetcim::cost
