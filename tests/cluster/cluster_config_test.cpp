// The cluster description: the seed001 preset carries the paper's figures, YAML overrides them
// with units, and every bad field is named in the error.
#include "cluster/cluster_config.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/ima_model.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_cluster_yaml(yaml, "c.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ClusterConfig, PresetHoldsThePapersFigures) {
  const ClusterConfig c = cluster_preset("seed001");
  EXPECT_EQ(c.cores.count, 8);
  EXPECT_EQ(c.tcdm_bytes, 512 * 1024);
  EXPECT_EQ(c.tcdm_banks, 32);
  EXPECT_EQ(c.ima.rows, 256);
  EXPECT_EQ(c.ima.cols, 256);
  EXPECT_DOUBLE_EQ(c.ima.t_mvm, 130e-9);
  EXPECT_EQ(c.ima.bus_width_bits, 128);
  EXPECT_EQ(c.ima.execution, ImaExecution::Pipelined);
  ASSERT_EQ(c.operating_points.size(), 2u);
  EXPECT_DOUBLE_EQ(c.operating_points[0].frequency, 500e6);
  EXPECT_DOUBLE_EQ(c.operating_points[0].voltage, 0.8);
  EXPECT_DOUBLE_EQ(c.operating_points[1].frequency, 250e6);
  EXPECT_DOUBLE_EQ(c.operating_points[1].voltage, 0.65);
  EXPECT_EQ(c.dw.channels, 16);
  EXPECT_EQ(c.dw.inner_loop_cycles, 4);
  EXPECT_EQ(c.dw.bytes_per_cycle, 16);
  EXPECT_DOUBLE_EQ(c.area.total, 2.5e-6);
  EXPECT_DOUBLE_EQ(c.area.dw_share, 0.021);
  // Calibrated, not predicted: 29.7 MAC/cycle of the DW engine / 26.
  EXPECT_NEAR(c.cores.depthwise_mac_per_cycle, 29.7 / 26, 1e-3);
  EXPECT_THROW((void)cluster_preset("seed002"), UserError);
}

TEST(ClusterConfig, PeakIsTheDerived1008Tops) {
  // 256 x 256 MACs x 2 ops per 130 ns = 131072 / 130e-9 = 1.00825e12 op/s (seed 001: 1.008 TOPS).
  const ClusterConfig c = cluster_preset("seed001");
  EXPECT_NEAR(ima_peak_ops(c.ima), 131072.0 / 130e-9, 1.0);
  EXPECT_NEAR(ima_peak_ops(c.ima) / 1e12, 1.008, 0.0005);
}

TEST(ClusterConfig, YamlOverridesWithUnits) {
  const ClusterConfig c = parse_cluster_yaml(R"(
preset: seed001
name: wide
clock: {frequency: 250MHz, voltage: 0.65V}
tcdm: {size: 1MiB}
cores: {count: 16, pointwise_mac_per_cycle: 31, power: 80mW}
ima: {crossbar: 512x128, t_mvm: 100ns, bus_width: 256bit, execution: sequential, config_cycles: 0, e_job: 1nJ}
dw: {channels: 32, power: 1mW}
base_power: 2mW
area: {total: 3mm2, ima: 40%, tcdm: 30%, dw: 1%}
)",
                                             "c.yaml");
  EXPECT_EQ(c.name, "wide");
  EXPECT_DOUBLE_EQ(c.clock.frequency, 250e6);
  EXPECT_DOUBLE_EQ(c.clock.voltage, 0.65);
  EXPECT_EQ(c.tcdm_bytes, 1 << 20);
  EXPECT_EQ(c.cores.count, 16);
  EXPECT_DOUBLE_EQ(c.cores.pointwise_mac_per_cycle, 31);
  EXPECT_DOUBLE_EQ(c.cores.power, 0.08);
  EXPECT_EQ(c.ima.rows, 512);
  EXPECT_EQ(c.ima.cols, 128);
  EXPECT_DOUBLE_EQ(c.ima.t_mvm, 100e-9);
  EXPECT_EQ(c.ima.bus_width_bits, 256);
  EXPECT_EQ(c.ima.execution, ImaExecution::Sequential);
  EXPECT_EQ(c.ima.config_cycles, 0);
  EXPECT_DOUBLE_EQ(c.ima.e_job, 1e-9);
  EXPECT_EQ(c.dw.channels, 32);
  EXPECT_DOUBLE_EQ(c.dw.power, 1e-3);
  EXPECT_DOUBLE_EQ(c.base_power, 2e-3);
  EXPECT_DOUBLE_EQ(c.area.total, 3e-6);
  EXPECT_DOUBLE_EQ(c.area.ima_share, 0.4);
  // Untouched fields keep the preset's values.
  EXPECT_EQ(c.dw.inner_loop_cycles, 4);
  EXPECT_DOUBLE_EQ(c.cores.eltwise_per_cycle, 4.0);
}

TEST(ClusterConfig, ErrorsNameTheFileAndField) {
  struct Case {
    const char* yaml;
    const char* expect;
  };
  const Case cases[] = {
      {"ima: {t_mvm: 130}", "field 'ima.t_mvm'"},  // no unit
      {"ima: {t_mvm: -5ns}", "ima.t_mvm' must be positive"},
      {"ima: {bus_width: 100bit}", "ima.bus_width"},  // not whole bytes
      {"ima: {bus_width: 128}", "ima.bus_width"},     // no unit
      {"ima: {crossbar: 256by256}", "ima.crossbar"},
      {"ima: {execution: overlapped}", "ima.execution' must be sequential or pipelined"},
      {"ima: {tmvm: 130ns}", "unknown field 'ima.tmvm'"},
      {"cores: {count: 0}", "cores.count' must be an integer >= 1"},
      {"cores: {pointwise_mac_per_cycle: fast}", "cores.pointwise_mac_per_cycle"},
      {"cores: {power: 40}", "cores.power"},
      {"clock: {frequency: 500MHz}", "'clock' needs both frequency and voltage"},
      {"clock: {frequency: 500MHz, voltage: 0.8}", "clock.voltage"},
      {"area: {total: 2.5}", "area.total"},
      {"area: {ima: 60%, tcdm: 50%}", "add up to more than 100%"},
      {"dw: {kernel: 0}", "dw.kernel"},
      {"operating_points: 5", "operating_points' must be a list"},
      {"frequency: 5MHz", "unknown field 'frequency'"},
      {"preset: seed999", "unknown cluster preset 'seed999'"},
      {"ima: [1, 2", "not valid YAML"},
      {"", "the file is empty"},
      {"node: 22", "field 'node'"},
      {"node: 5000nm", "field 'node' must be from 1nm to 1000nm"},
      {"ima: {e_job_node: 0.1nm}", "ima.e_job_node"},
      {"ima: {e_job_voltage: 0.8}", "ima.e_job_voltage"},
      {"tcdm: {contention: 2}", "tcdm.contention' must be a probability"},
      {"tcdm: {contention: nan}", "tcdm.contention"},
      {"area: {interconnect: 40%}", "ima, tcdm, dw and interconnect add up to more than 100%"},
      {"area: {reference_bus_width: 100bit}", "area.reference_bus_width"},
      {"area: {pipeline_ima_overhead: 50%}", "area.pipeline_ima_overhead"},
      {"area: {pipeline_digital_overhead: 0%}", "area.pipeline_digital_overhead"},
  };
  for (const Case& c : cases) {
    const std::string err = error_of(c.yaml);
    EXPECT_NE(err.find("c.yaml"), std::string::npos) << c.yaml << " -> " << err;
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.yaml << " -> " << err;
  }
  EXPECT_THROW((void)load_cluster("/nonexistent/cluster.yaml"), UserError);
}

TEST(ClusterConfig, YamlReadsTheAreaEnergyAndTcdmFields) {
  const ClusterConfig c = parse_cluster_yaml(R"(
node: 28nm
tcdm: {contention: 0.25}
ima: {e_job: 10nJ, e_job_node: 14nm, e_job_voltage: 0.9V}
area: {interconnect: 8%, reference_bus_width: 64bit, pipeline_digital_overhead: 50%,
       pipeline_ima_overhead: 4%}
)",
                                             "c.yaml");
  EXPECT_DOUBLE_EQ(c.node, 28e-9);
  EXPECT_DOUBLE_EQ(c.tcdm_contention, 0.25);
  EXPECT_DOUBLE_EQ(c.ima.e_job_voltage, 0.9);
  EXPECT_DOUBLE_EQ(c.area.interconnect_share, 0.08);
  EXPECT_EQ(c.area.reference_bus_width_bits, 64);
  EXPECT_DOUBLE_EQ(c.area.pipeline_digital_overhead, 0.5);
  EXPECT_DOUBLE_EQ(c.area.pipeline_ima_overhead, 0.04);
  // 10 nJ x (28 / 14) x (0.8 / 0.9)^2.
  EXPECT_NEAR(ima_job_energy(c), 10e-9 * 2.0 * (0.8 / 0.9) * (0.8 / 0.9), 1e-20);
}

TEST(ClusterConfig, PowerScalesWithFrequencyAndVoltageSquared) {
  const ClusterConfig c = cluster_preset("seed001");
  // 40 mW at 500 MHz / 0.8 V -> 40 mW * 0.5 * (0.65 / 0.8)^2 = 13.203125 mW.
  EXPECT_NEAR(scale_power(40e-3, c, {250e6, 0.65}), 13.203125e-3, 1e-12);
}

}  // namespace
}  // namespace hetcim::cluster
