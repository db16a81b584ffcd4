#include "cost/energy_model.h"

#include <gtest/gtest.h>

#include <string>

#include "cost/hardware.h"
#include "cost/host_model.h"
#include "test_util.h"
#include "util/error.h"

namespace hetcim::cost {
namespace {

using testing::error_of;
using testing::layer1_conv;

TEST(EnergyModel, HostEnergyIsPowerTimesTime) {
  EXPECT_DOUBLE_EQ(host_energy(2e-3, 3.6), 7.2e-3);
  EXPECT_DOUBLE_EQ(host_energy(0.0, 38.0), 0.0);
  EXPECT_THROW((void)host_energy(-1e-3, 3.6), InternalError);
}

TEST(EnergyModel, CimEnergyByHand) {
  CimConfig cim;  // 5.3 nJ per crossbar-MVM, 1 pJ/B, 1 byte per element
  // 3136 vectors x 3 crossbars x 5.3 nJ = 49.8624 uJ; 2 x 200704 B x 1 pJ/B = 0.401408 uJ.
  EXPECT_NEAR(cim_energy(layer1_conv(), cim), 49.8624e-6 + 0.401408e-6, 1e-15);
  cim.e_mvm = 2e-9;
  cim.e_byte = 0.5e-12;
  cim.elem_bytes = 4;  // fp32: 4 x 401408 B at 0.5 pJ/B = 0.802816 uJ
  EXPECT_NEAR(cim_energy(layer1_conv(), cim), 3136 * 3 * 2e-9 + 0.802816e-6, 1e-15);
  workload::OpWorkload add;
  add.name = "add";
  EXPECT_THROW((void)cim_energy(add, cim), InternalError);
}

TEST(EnergyModel, ReplicationDoesNotChangeTheEnergy) {
  const CimConfig cim;
  const double e1 = cim_energy(layer1_conv(), cim, 1);
  // 3136 = 2^6 x 7^2: divisors and non-divisors, and more copies than vectors.
  for (int64_t r : {2, 3, 4, 7, 64, 1000, 3136, 5000}) {
    EXPECT_DOUBLE_EQ(cim_energy(layer1_conv(), cim, r), e1) << r << " copies";
    // ...while the latency does shrink (the point of replication).
    EXPECT_LT(cim_latency(layer1_conv(), cim, r), cim_latency(layer1_conv(), cim, 1));
  }
  EXPECT_THROW((void)cim_energy(layer1_conv(), cim, 0), InternalError);
}

TEST(EnergyModel, TransferEnergyByHand) {
  // 200704 elements x 1 B x 40 pJ/B = 8.02816 uJ; fp32 at 120 pJ/B: 96.33792 uJ.
  EXPECT_NEAR(transfer_energy(layer1_conv(), 40e-12, 1), 8.02816e-6, 1e-16);
  EXPECT_NEAR(transfer_energy(layer1_conv(), 120e-12, 4), 96.33792e-6, 1e-15);
}

TEST(EnergyModel, DefaultMvmEnergyFollowsItsDerivation) {
  // cim_model.h derives e_mvm from ISAAC's component figures for a 256x256 crossbar with 8-bit
  // inputs applied bit-serially: ADC 16 mW / (8 x 1.2 GS/s), DAC 4 mW / (128 x 8 x 1.2e7 /s) x
  // 128/100, array 4 x 0.3 mW x 100 ns per input bit, shift-and-add 0.2 mW / (8 x 1.2 GS/s).
  const double adc = 16e-3 / (8 * 1.2e9);
  const double dac = 4e-3 / (128.0 * 8 * 1.2e7) * 128.0 / 100.0;
  const double array = 4 * 0.3e-3 * 100e-9;
  const double shift_add = 0.2e-3 / (8 * 1.2e9);
  const double derived = 256 * 8 * adc + 256 * 8 * dac + 8 * array + 256 * 8 * shift_add;
  EXPECT_NEAR(CimConfig{}.e_mvm, derived, 0.01 * derived);
}

TEST(EnergyModel, HostPowerComesFromTheModelUnlessOverridden) {
  HostSpec arm;  // arm-cortex-a72
  EXPECT_DOUBLE_EQ(host_power(arm).active, 3.6);
  EXPECT_DOUBLE_EQ(host_power(arm).idle, 2.7);
  HostSpec x86;
  x86.model = "ryzen9-3900x";
  EXPECT_DOUBLE_EQ(host_power(x86).active, 38.0);
  EXPECT_DOUBLE_EQ(host_power(x86).idle, 20.0);
  // A measured profile has no power of its own: the model's (here the x86 preset's) applies...
  x86.profile = "host.csv";
  EXPECT_DOUBLE_EQ(host_power(x86).active, 38.0);
  // ...unless given; each figure on its own.
  x86.idle_power = 5.0;
  EXPECT_DOUBLE_EQ(host_power(x86).active, 38.0);
  EXPECT_DOUBLE_EQ(host_power(x86).idle, 5.0);
  HostSpec unknown;
  unknown.model = "z80";
  EXPECT_THROW((void)host_power(unknown), UserError);
  unknown.power = 1.0;
  unknown.idle_power = 0.5;  // both given: the model is not consulted
  EXPECT_DOUBLE_EQ(host_power(unknown).active, 1.0);
}

TEST(HardwareEnergy, PresetsCarryTheirAssumptions) {
  const Hardware arm = hardware_preset("seed000-arm");
  EXPECT_DOUBLE_EQ(arm.bus_e_byte, 40e-12);
  EXPECT_DOUBLE_EQ(arm.cim.e_mvm, 5.3e-9);
  EXPECT_DOUBLE_EQ(arm.cim.e_byte, 1e-12);
  EXPECT_DOUBLE_EQ(arm.cim.static_power, 0.1);
  EXPECT_DOUBLE_EQ(host_power(arm.host).active, 3.6);
  const Hardware x86 = hardware_preset("seed000-x86");
  EXPECT_DOUBLE_EQ(x86.bus_e_byte, 120e-12);
  EXPECT_DOUBLE_EQ(host_power(x86.host).idle, 20.0);
}

TEST(HardwareEnergy, YamlWithHumanUnits) {
  const Hardware h = parse_hardware_yaml(
      "preset: seed000-x86\n"
      "host: {profile: host.csv, idle_power: 1500mW}\n"
      "cim: {e_mvm: 2nJ, e_byte: 0.5pJ/B, static_power: 50mW}\n"
      "bus: {e_byte: 10pJ}\n",
      "hw.yaml");
  EXPECT_DOUBLE_EQ(h.cim.e_mvm, 2e-9);
  EXPECT_DOUBLE_EQ(h.cim.e_byte, 0.5e-12);
  EXPECT_DOUBLE_EQ(h.cim.static_power, 0.05);
  EXPECT_DOUBLE_EQ(h.bus_e_byte, 10e-12);
  EXPECT_DOUBLE_EQ(host_power(h.host).active, 38.0);  // the preset's host, profiled
  EXPECT_DOUBLE_EQ(host_power(h.host).idle, 1.5);
  // Zero switches a part off.
  const Hardware z = parse_hardware_yaml("cim: {static_power: 0W}\nhost: {power: 0W}\n", "hw.yaml");
  EXPECT_DOUBLE_EQ(z.cim.static_power, 0.0);
  EXPECT_DOUBLE_EQ(host_power(z.host).active, 0.0);
  EXPECT_DOUBLE_EQ(host_power(z.host).idle, 2.7);
}

TEST(HardwareEnergy, ErrorsNameTheFileAndField) {
  const auto has = [](const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error_of("cim: {e_mvm: 5}\n"), "hw.yaml: field 'cim.e_mvm'"));
  EXPECT_TRUE(has(error_of("cim: {e_mvm: 5}\n"), "unit is required"));
  EXPECT_TRUE(has(error_of("cim: {e_mvm: 5ns}\n"), "unknown unit 'ns'"));
  EXPECT_TRUE(has(error_of("cim: {e_byte: 1pJ/bit}\n"), "hw.yaml: field 'cim.e_byte'"));
  EXPECT_TRUE(has(error_of("cim: {static_power: 3J}\n"), "hw.yaml: field 'cim.static_power'"));
  EXPECT_TRUE(has(error_of("bus: {e_byte: 1W}\n"), "hw.yaml: field 'bus.e_byte'"));
  EXPECT_TRUE(has(error_of("bus: {e_bite: 1pJ}\n"), "unknown field 'bus.e_bite'"));
  EXPECT_TRUE(has(error_of("host: {power: -1W}\n"), "field 'host.power' must be >= 0"));
  EXPECT_TRUE(has(error_of("host: {idle_power: 2pJ}\n"), "hw.yaml: field 'host.idle_power'"));
  EXPECT_TRUE(
      has(error_of("host: {idle_power: [1W]}\n"), "'host.idle_power' must be a single value"));
  EXPECT_TRUE(has(error_of("host: {powr: 1W}\n"), "unknown field 'host.powr'"));
}

}  // namespace
}  // namespace hetcim::cost
