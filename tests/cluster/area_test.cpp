// Area, energy scaling and TCDM bank conflicts of the cluster (cluster/area.h): the paper's
// statements evaluated by hand (+40 % digital / +5 % IMA, the 2.5 mm^2 of the built design, the
// a b^2 power scaling), and the conflict probability against an exact enumeration.
#include "cluster/area.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cluster/bottleneck_mapping.h"
#include "cluster/ima_model.h"
#include "cluster/roofline.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

TEST(Area, TheBuiltDesignIsThePapers2_5Mm2) {
  const ClusterConfig c = cluster_preset("seed001");  // pipelined, 128 bit, 512 kB
  const AreaBreakdown a = cluster_area(c);
  EXPECT_NEAR(a.total, 2.5e-6, 1e-18);
  EXPECT_NEAR(a.ima, 2.5e-6 / 3, 1e-18);
  EXPECT_NEAR(a.tcdm, 2.5e-6 / 3, 1e-18);
  EXPECT_NEAR(a.dw, 0.021 * 2.5e-6, 1e-18);
}

TEST(Area, PipelinedAddsFortyPercentOfTheDigitalLogicAndFivePercentOfTheIma) {
  ClusterConfig c = cluster_preset("seed001");
  const AreaBreakdown p = cluster_area(c);
  c.ima.execution = ImaExecution::Sequential;
  const AreaBreakdown s = cluster_area(c);
  // Seed 001 Sec. IV-B: +40 % of the digital logic, +5 % of the whole IMA, vs sequential.
  EXPECT_NEAR(p.ima_digital / s.ima_digital, 1.40, 1e-12);
  EXPECT_NEAR(p.ima / s.ima, 1.05, 1e-12);
  EXPECT_NEAR(p.ima_analog, s.ima_analog, 1e-18);
  // By hand: A_s = (2.5 / 3) / 1.05 mm^2, its digital logic 12.5 % of it.
  EXPECT_NEAR(s.ima, 2.5e-6 / 3 / 1.05, 1e-18);
  EXPECT_NEAR(s.ima_digital, 2.5e-6 / 3 / 1.05 * 0.125, 1e-18);
  EXPECT_NEAR(p.total - s.total, p.ima - s.ima, 1e-18);
}

TEST(Area, InterconnectGrowsLinearlyWithTheBusWidth) {
  ClusterConfig c = cluster_preset("seed001");
  const double ref = cluster_area(c).interconnect;  // 5 % of 2.5 mm^2 at 128 bit
  EXPECT_NEAR(ref, 0.05 * 2.5e-6, 1e-18);
  // 8 core ports + W / 32 accelerator ports: 256 bit -> (8 + 8) / (8 + 4); 32 bit -> 9 / 12.
  c.ima.bus_width_bits = 256;
  EXPECT_NEAR(cluster_area(c).interconnect, ref * 16.0 / 12.0, 1e-18);
  c.ima.bus_width_bits = 32;
  EXPECT_NEAR(cluster_area(c).interconnect, ref * 9.0 / 12.0, 1e-18);
  // The roofline carries the area of each width: wider is never smaller.
  RooflineOptions o;
  o.utilizations = {1.0};
  o.executions = {ImaExecution::Pipelined};
  const std::vector<RooflinePoint> pts = roofline(cluster_preset("seed001"), o);
  for (size_t i = 1; i < 5; ++i) EXPECT_GT(pts[i].area, pts[i - 1].area);
  // The TCDM scales with its size: 1 MiB doubles it.
  c = cluster_preset("seed001");
  c.tcdm_bytes = 1024 * 1024;
  EXPECT_NEAR(cluster_area(c).tcdm, 2 * 2.5e-6 / 3, 1e-18);
}

TEST(Energy, PcmJobEnergyScalesFrom14To22NmAsThePaperDoes) {
  ClusterConfig c = cluster_preset("seed001");
  // a = 22 / 14, b = 0.8 / 0.8: 12.5 nJ x 1.5714 = 19.64 nJ.
  EXPECT_NEAR(ima_job_energy(c), 12.5e-9 * 22.0 / 14.0, 1e-20);
  c.ima.e_job_voltage = 1.0;  // b = 0.8: x 0.64
  EXPECT_NEAR(ima_job_energy(c), 12.5e-9 * 22.0 / 14.0 * 0.64, 1e-20);
  // The Bottleneck charges it per job: ima+dw's 1536 jobs.
  c = cluster_preset("seed001");
  const BottleneckStudy st = bottleneck_study(c, {}, {parse_mapping("ima+dw")});
  double jobs = 0, ima_energy = 0;
  for (const LayerCost& l : st.results[0].layers)
    if (l.engine == "ima") {
      jobs += static_cast<double>(l.jobs);
      ima_energy += l.energy - 4e-3 * static_cast<double>(l.cycles) / 500e6;
    }
  EXPECT_EQ(jobs, 1536);
  EXPECT_NEAR(ima_energy, 1536 * 12.5e-9 * 22.0 / 14.0, 1e-15);
}

// P(no core hits the beat's banks), enumerating every core's choice: idle (1 - p) or bank b (p/B).
double exact_efficiency(int cores, int banks, int beat_banks, double p) {
  double total = 0;
  int combos = 1;
  for (int i = 0; i < cores; ++i) combos *= banks + 1;
  for (int code = 0; code < combos; ++code) {
    double prob = 1;
    bool hit = false;
    for (int i = 0, x = code; i < cores; ++i, x /= banks + 1) {
      const int choice = x % (banks + 1);  // banks: idle; else the bank
      prob *= choice == banks ? 1 - p : p / banks;
      hit = hit || choice < beat_banks;  // the beat occupies banks 0 .. beat_banks - 1
    }
    if (!hit) total += prob;
  }
  return total;
}

TEST(Tcdm, ConflictEfficiencyMatchesAnExactEnumeration) {
  ClusterConfig c = cluster_preset("seed001");
  EXPECT_EQ(tcdm_bus_efficiency(c, 128), 1.0);  // off by default
  for (const auto& [cores, banks, width, p] : std::vector<std::tuple<int, int, int64_t, double>>{
           {2, 4, 64, 0.5}, {3, 8, 128, 0.3}, {4, 4, 256, 0.2}, {3, 2, 512, 0.1}}) {
    c.cores.count = cores;
    c.tcdm_banks = banks;
    c.tcdm_contention = p;
    const int beat = std::min<int>(banks, static_cast<int>(width / 32));
    EXPECT_NEAR(tcdm_bus_efficiency(c, width), exact_efficiency(cores, banks, beat, p), 1e-12)
        << cores << " cores, " << banks << " banks, " << width << " bit";
  }
  c.cores.count = 8;
  c.tcdm_banks = 4;
  c.tcdm_contention = 1.0;  // every core in every cycle on 4 banks: the stream never wins
  EXPECT_THROW((void)tcdm_bus_efficiency(c, 128), UserError);
}

TEST(Tcdm, ConflictsStretchTheStreamsOnly) {
  ClusterConfig c = cluster_preset("seed001");
  c.tcdm_contention = 0.1;
  // 8 cores, 32 banks, a 128-bit beat on 4 banks: e = (1 - 0.1 x 4 / 32)^8 = 0.9042.
  const double e = std::pow(1 - 0.1 * 4 / 32, 8);
  const ImaConfig ima = ima_with_tcdm(c, c.ima);
  EXPECT_NEAR(ima.stream_efficiency, e, 1e-15);
  const JobPhases p = job_phases(ima, 500e6, {256, 256});
  EXPECT_EQ(p.stream_in, static_cast<int64_t>(std::ceil(16 / e)));  // 16 beats -> 18 cycles
  EXPECT_EQ(p.compute, 65);
  const BottleneckStudy with = bottleneck_study(c, {}, paper_mappings());
  const BottleneckStudy without = bottleneck_study(cluster_preset("seed001"), {}, paper_mappings());
  EXPECT_EQ(with.results[0].cycles, without.results[0].cycles);  // the cores do not stream
  EXPECT_GE(with.results[1].cycles, without.results[1].cycles);
}

}  // namespace
}  // namespace hetcim::cluster
