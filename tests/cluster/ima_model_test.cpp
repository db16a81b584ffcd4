// The IMA job model: phases by hand, the closed forms by hand, and both against the
// cycle-by-cycle job pipeline on random small cases.
#include "cluster/ima_model.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cluster/cluster_config.h"
#include "cluster/job_simulation.h"
#include "util/error.h"

namespace hetcim::cluster {
namespace {

TEST(ImaModel, PhasesByHand) {
  ImaConfig ima;  // 256x256, 130 ns, 128 bit = 16 B/cycle
  // 500 MHz: 130 ns = 65 cycles exactly; 250 MHz: 32.5 -> 33 cycles.
  EXPECT_EQ(compute_cycles(ima, 500e6), 65);
  EXPECT_EQ(compute_cycles(ima, 250e6), 33);
  const JobPhases p = job_phases(ima, 500e6, {256, 256});
  EXPECT_EQ(p.stream_in, 16);
  EXPECT_EQ(p.compute, 65);
  EXPECT_EQ(p.stream_out, 16);
  ima.bus_width_bits = 32;  // 4 B/cycle: 120 inputs -> 30 cycles, 17 outputs -> ceil(4.25) = 5
  const JobPhases q = job_phases(ima, 500e6, {120, 17});
  EXPECT_EQ(q.stream_in, 30);
  EXPECT_EQ(q.stream_out, 5);
  ima.job_overhead_cycles = 7;
  EXPECT_EQ(job_phases(ima, 500e6, {1, 1}).compute, 72);
}

TEST(ImaModel, ClosedFormsByHand) {
  // Compute bound (c >= a + b): a + N c + b.
  EXPECT_EQ(pipelined_cycles({16, 65, 16}, 10), 16 + 10 * 65 + 16);
  EXPECT_EQ(sequential_cycles({16, 65, 16}, 10), 10 * 97);
  // Memory bound, a = 2, c = 1, b = 2, N = 3: SI1 [0,2] C1 [2,3] SI2 [2,4] C2 [4,5] SI3 [4,6]
  // SO1 [6,8] C3 [8,9] SO2 [8,10] SO3 [10,12] -> 12.
  EXPECT_EQ(pipelined_cycles({2, 1, 2}, 3), 12);
  EXPECT_EQ(pipelined_cycles({2, 1, 2}, 1), 5);
  EXPECT_EQ(pipelined_cycles({2, 1, 2}, 0), 0);
  // Pipelining never loses and never beats the busiest resource.
  for (const JobPhases p : {JobPhases{3, 10, 4}, JobPhases{9, 2, 7}, JobPhases{1, 1, 1}}) {
    for (int64_t n : {1, 2, 5, 40}) {
      EXPECT_LE(pipelined_cycles(p, n), sequential_cycles(p, n));
      EXPECT_GE(pipelined_cycles(p, n), n * std::max(p.compute, p.stream_in + p.stream_out));
    }
  }
  // The sequence form agrees with the uniform one.
  const std::vector<JobPhases> same(7, JobPhases{5, 9, 6});
  EXPECT_EQ(job_sequence_cycles(same, ImaExecution::Pipelined), pipelined_cycles({5, 9, 6}, 7));
  EXPECT_EQ(job_sequence_cycles(same, ImaExecution::Sequential), sequential_cycles({5, 9, 6}, 7));
}

TEST(ImaModel, ClosedFormMatchesCycleSimulationOnRandomJobs) {
  const uint64_t seed = 20260001;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> phase(1, 12), count(1, 9);
  for (int trial = 0; trial < 400; ++trial) {
    const JobPhases p{phase(rng), phase(rng), phase(rng)};
    const int64_t n = count(rng);
    const std::vector<JobPhases> jobs(static_cast<size_t>(n), p);
    for (const ImaExecution e : {ImaExecution::Sequential, ImaExecution::Pipelined}) {
      const JobSimulation sim = simulate_jobs(jobs, e);
      ASSERT_EQ(job_sequence_cycles(p, n, e), sim.cycles)
          << "seed " << seed << " trial " << trial << " " << execution_name(e)
          << " a=" << p.stream_in << " c=" << p.compute << " b=" << p.stream_out << " N=" << n;
      EXPECT_EQ(sim.engine_busy, n * p.compute);
      EXPECT_EQ(sim.bus_busy, n * (p.stream_in + p.stream_out));
    }
  }
}

TEST(ImaModel, PeriodSumMatchesCycleSimulationOnMixedJobs) {
  const uint64_t seed = 20260002;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int64_t> phase(1, 10), count(1, 12);
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<JobPhases> jobs(static_cast<size_t>(count(rng)));
    for (JobPhases& p : jobs) p = {phase(rng), phase(rng), phase(rng)};
    for (const ImaExecution e : {ImaExecution::Sequential, ImaExecution::Pipelined})
      ASSERT_EQ(job_sequence_cycles(jobs, e), simulate_jobs(jobs, e).cycles)
          << "seed " << seed << " trial " << trial << " " << execution_name(e);
  }
}

TEST(ImaModel, DenseLayerTilesOverCrossbars) {
  const ImaConfig ima;
  // 120 x 600 (expand): 1 row tile x 3 column tiles of 256, 256, 88 columns.
  const ImaLayer e = dense_ima_layer(ima, 120, 600, 256);
  ASSERT_EQ(e.jobs_per_vector.size(), 3u);
  EXPECT_EQ(e.jobs_per_vector[2].rows, 120);
  EXPECT_EQ(e.jobs_per_vector[2].cols, 88);
  EXPECT_EQ(e.partial_sum_adds, 0);
  EXPECT_EQ(e.devices, 72000);
  // 600 x 120 (project): 3 row tiles; two extra partial sums per output.
  const ImaLayer p = dense_ima_layer(ima, 600, 120, 256);
  ASSERT_EQ(p.jobs_per_vector.size(), 3u);
  EXPECT_EQ(p.jobs_per_vector[2].rows, 88);
  EXPECT_EQ(p.partial_sum_adds, 2 * 120 * 256);
  // Cost at 500 MHz, 128 bit, pipelined: every job is compute bound (a + b <= 16 + 16 < 65), so
  // 768 jobs take a_first + 768 * 65 + b_last plus the configuration.
  const ImaLayerCost k = ima_layer_cost(ima, 500e6, e);
  EXPECT_EQ(k.jobs, 768);
  EXPECT_EQ(k.cycles, ima.config_cycles + 8 + 768 * 65 + 6);  // a = ceil(120/16), b = ceil(88/16)
  EXPECT_EQ(k.compute_cycles, 768 * 65);
}

TEST(ImaModel, DepthwiseSlicesCountDevicesAndJobs) {
  const ImaConfig ima;
  // 600 channels, 3x3, c_job 8: 75 jobs per pixel of 72 x 8 cells; devices 9 * 8 * 600.
  const ImaLayer l = depthwise_ima_layer(ima, 600, 3, 8, 256);
  EXPECT_EQ(l.jobs_per_vector.size(), 75u);
  EXPECT_EQ(l.jobs_per_vector[0].rows, 72);
  EXPECT_EQ(l.jobs_per_vector[0].cols, 8);
  EXPECT_EQ(l.devices, 9 * 8 * 600);
  EXPECT_EQ(l.macs, 9 * 600 * 256);
  // c_job 16 leaves a last slice of 600 - 37 * 16 = 8 channels.
  const ImaLayer m = depthwise_ima_layer(ima, 600, 3, 16, 1);
  EXPECT_EQ(m.jobs_per_vector.size(), 38u);
  EXPECT_EQ(m.jobs_per_vector.back().cols, 8);
  EXPECT_EQ(m.devices, 37 * 9 * 16 * 16 + 9 * 8 * 8);
  // A slice taller than the crossbar is a user error: 9 * 32 = 288 > 256 rows.
  EXPECT_THROW((void)depthwise_ima_layer(ima, 600, 3, 32, 1), UserError);
}

}  // namespace
}  // namespace hetcim::cluster
