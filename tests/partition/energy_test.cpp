#include "partition/energy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "cost/energy_model.h"
#include "cost/host_costs.h"
#include "partition/build.h"
#include "passes/pipeline.h"
#include "test_problems.h"
#include "util/error.h"
#include "zoo/zoo.h"

namespace hetcim::partition {
namespace {

using testing::make_problem;

// Diamond 0 -> {1, 2} -> 3; 1 and 2 offloadable. Latencies in seconds, energies in joules.
// dag.edges is sorted: (0,1), (0,2), (1,3), (2,3); e_transfer / e_out follow that order.
Problem diamond(TransferModel model) {
  Problem p = make_problem(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}}, {1, 4, 3, 1},
                           {{}, {{1, 2.0, 0.5}}, {{1, 1.0, 0.25}}, {}}, {1, 1, 1, 1}, 2);
  p.e_host = {0.1, 0.8, 0.6, 0.2};
  p.p_cim_static = 0.5;
  p.p_host_idle = 0.1;
  p.transfer_model = model;
  if (model == TransferModel::PerEdge) {
    p.e_transfer = {0.01, 0.02, 0.03, 0.04};
  } else {
    p.t_out = {1, 1, 1, 1};
    p.e_out = {0.05, 0.07, 0.11, 0.13};
  }
  p.validate();
  return p;
}

TEST(EnergyOf, HandBuiltScheduleEqualsAHandSum) {
  const Problem p = diamond(TransferModel::PerEdge);
  // 0, 2, 3 on the host in that order; 1 on the accelerator.
  const Schedule s = simulate(p, Assignment{{kHost, 0, kHost, kHost}}, {0, 2, 3});
  // op0 [0,1]; op1 starts after the 1 s transfer: [2,4]; op2 [1,4]; op3 waits for op1's 1 s
  // transfer back: [5,6].
  ASSERT_DOUBLE_EQ(s.makespan, 6.0);
  const EnergyBreakdown e = energy_of(p, s);
  EXPECT_DOUBLE_EQ(e.host, 0.1 + 0.6 + 0.2);
  EXPECT_DOUBLE_EQ(e.cim, 0.5);
  EXPECT_DOUBLE_EQ(e.bus, 0.01 + 0.03);  // edges (0,1) and (1,3) cross
  // Accelerator 0.5 W x 6 s; host idle 0.1 W x (6 - (1 + 3 + 1)) s.
  EXPECT_DOUBLE_EQ(e.static_energy, 3.0 + 0.1);
  EXPECT_DOUBLE_EQ(e.total, 0.9 + 0.5 + 0.04 + 3.1);
  EXPECT_DOUBLE_EQ(dynamic_energy(p, s.assignment), 0.9 + 0.5 + 0.04);
}

TEST(EnergyOf, AllHostPaysNoBusAndNoHostIdle) {
  const Problem p = diamond(TransferModel::PerEdge);
  const Schedule s = simulate(p, all_host(p), {0, 1, 2, 3});
  const EnergyBreakdown e = energy_of(p, s);
  EXPECT_DOUBLE_EQ(e.host, 0.1 + 0.8 + 0.6 + 0.2);
  EXPECT_DOUBLE_EQ(e.cim, 0.0);
  EXPECT_DOUBLE_EQ(e.bus, 0.0);
  EXPECT_DOUBLE_EQ(s.makespan, 9.0);
  EXPECT_DOUBLE_EQ(e.static_energy, 0.5 * 9.0);  // the host never waits
}

TEST(EnergyOf, PerTensorTransfersCrossOncePerDirection) {
  // 1 and 2 offloaded: op0's output crosses once for both consumers; 1 and 2 each send back.
  const Assignment a{{kHost, 0, 0, kHost}};
  const Problem pt = diamond(TransferModel::PerTensorDirection);
  const Schedule st = simulate(pt, a, {0, 3});
  ASSERT_EQ(st.transfers.size(), 3u);
  // op0 [0,1], transfer 1 s, op1 [2,4], op2 [2,3], op3 after op1's transfer: [5,6].
  ASSERT_DOUBLE_EQ(st.makespan, 6.0);
  const EnergyBreakdown et = energy_of(pt, st);
  EXPECT_DOUBLE_EQ(et.bus, 0.05 + 0.07 + 0.11);
  EXPECT_DOUBLE_EQ(et.cim, 0.5 + 0.25);
  EXPECT_DOUBLE_EQ(et.static_energy, 0.5 * 6 + 0.1 * (6 - 2));
  EXPECT_DOUBLE_EQ(dynamic_energy(pt, a), 0.1 + 0.2 + 0.75 + 0.23);
  // Per edge, the same assignment pays all four crossing edges.
  const Problem pe = diamond(TransferModel::PerEdge);
  EXPECT_DOUBLE_EQ(energy_of(pe, simulate(pe, a, {0, 3})).bus, 0.01 + 0.02 + 0.03 + 0.04);
}

TEST(EnergyOf, RequiresAnEnergyModel) {
  Problem p = diamond(TransferModel::PerEdge);
  p.e_host.clear();
  p.e_transfer.clear();
  p.acc[1][0].energy = 0;
  p.acc[2][0].energy = 0;
  EXPECT_NO_THROW(p.validate());
  EXPECT_FALSE(p.has_energy());
  const Schedule s = simulate(p, all_host(p), {0, 1, 2, 3});
  EXPECT_THROW((void)energy_of(p, s), UserError);
  EXPECT_THROW((void)dynamic_energy(p, s.assignment), UserError);
}

TEST(EnergyOf, RejectsATransferThatFollowsNoEdge) {
  const Problem p = diamond(TransferModel::PerEdge);
  Schedule s = simulate(p, Assignment{{kHost, 0, kHost, kHost}}, {0, 2, 3});
  s.transfers.push_back(Transfer{-1, 0, {3}, false, 1.0, 2.0});
  try {
    (void)energy_of(p, s);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'op0' (key -1) follows no edge"), std::string::npos)
        << e.what();
  }
}

// Seeded random problems with random energies: for every random assignment the schedule's
// dynamic energy equals dynamic_energy(), and the static part equals its definition.
TEST(EnergyOf, DifferentialAgainstTheAssignmentSum) {
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    testing::RandomSpec spec;
    spec.per_tensor = seed % 2 == 0;
    spec.max_modes = 2;
    Problem p = testing::random_problem(seed, spec);
    std::mt19937_64 rng(seed * 7919);
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    for (size_t v = 0; v < p.size(); ++v) {
      p.e_host.push_back(uni(rng));
      for (AccMode& m : p.acc[v]) m.energy = uni(rng);
    }
    if (spec.per_tensor)
      for (size_t v = 0; v < p.size(); ++v) p.e_out.push_back(uni(rng));
    else
      for (size_t e = 0; e < p.dag.edges.size(); ++e) p.e_transfer.push_back(uni(rng));
    p.p_cim_static = uni(rng);
    p.p_host_idle = uni(rng);
    ASSERT_NO_THROW(p.validate()) << "seed " << seed;
    for (int trial = 0; trial < 5; ++trial) {
      Assignment a{std::vector<int>(p.size(), kHost)};
      std::vector<int> host_order;
      double busy = 0;
      for (size_t v = 0; v < p.size(); ++v) {  // random_problem's vertex order is topological
        const int k = static_cast<int>(p.acc[v].size());
        a.mode[v] = static_cast<int>(rng() % static_cast<uint64_t>(k + 1)) - 1;
        if (a.mode[v] == kHost) {
          host_order.push_back(static_cast<int>(v));
          busy += p.t_host[v];
        }
      }
      const Schedule s = simulate(p, a, host_order);
      const EnergyBreakdown e = energy_of(p, s);
      const double tol = 1e-12 * (1 + e.total);
      EXPECT_NEAR(e.host + e.cim + e.bus, dynamic_energy(p, a), tol) << "seed " << seed;
      EXPECT_NEAR(e.static_energy,
                  p.p_cim_static * s.makespan + p.p_host_idle * (s.makespan - busy), tol)
          << "seed " << seed;
      EXPECT_NEAR(e.total, e.host + e.cim + e.bus + e.static_energy, tol);
    }
  }
}

TEST(ProblemEnergy, ValidateNamesTheOperatorOrEdge) {
  const auto message = [](const Problem& p) -> std::string {
    try {
      p.validate();
    } catch (const UserError& e) {
      return e.what();
    }
    return "";
  };
  Problem p = diamond(TransferModel::PerEdge);
  p.e_host[2] = -1;
  EXPECT_NE(message(p).find("operator 'op2': e_host"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.acc[1][0].energy = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(message(p).find("operator 'op1': accelerator mode 0 energy"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.e_transfer[2] = std::numeric_limits<double>::infinity();
  EXPECT_NE(message(p).find("edge 'op1' -> 'op3': e_transfer"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.e_transfer.pop_back();
  EXPECT_NE(message(p).find("3 transfer energies for 4 edges"), std::string::npos);
  p = diamond(TransferModel::PerTensorDirection);
  p.e_out[3] = -0.5;
  EXPECT_NE(message(p).find("operator 'op3': e_out"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.e_host.pop_back();
  EXPECT_NE(message(p).find("3 host energies for 4 operators"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.p_host_idle = -2;
  EXPECT_NE(message(p).find("p_host_idle"), std::string::npos);
  p = diamond(TransferModel::PerEdge);
  p.e_host.clear();  // transfers and modes with energies but no host energies: half an energy model
  EXPECT_NE(message(p).find("without host energies"), std::string::npos);
}

// build_problem on ResNet-18 (seed000-arm, modelled host): every energy field is the formula of
// cost/energy_model.h evaluated on the operator's own counts, replicated modes included.
TEST(BuildProblemEnergy, Resnet18FieldsEqualTheFormulas) {
  const workload::Workload w = workload::analyze(passes::lower(zoo::build_model("resnet18")));
  const cost::Hardware hw = cost::hardware_preset("seed000-arm");
  const cost::HostCosts host = cost::host_costs(w, hw.host, true);
  BuildOptions o;
  o.max_replicas = 4;
  const Problem p = build_problem(w, host, hw, o);
  ASSERT_TRUE(p.has_energy());
  ASSERT_EQ(p.size(), 38u);
  EXPECT_DOUBLE_EQ(p.p_cim_static, 0.1);
  EXPECT_DOUBLE_EQ(p.p_host_idle, 2.7);
  int replicated = 0, layer1_convs = 0;
  for (size_t v = 0; v < p.size(); ++v) {
    const workload::OpWorkload& op = w.ops[v];
    EXPECT_DOUBLE_EQ(p.e_host[v], 3.6 * p.t_host[v]) << op.name;
    EXPECT_DOUBLE_EQ(p.e_out[v], static_cast<double>(op.out_elems) * 40e-12) << op.name;
    const double e_acc = static_cast<double>(op.n_mvm * op.crossbars) * 5.3e-9 +
                         static_cast<double>(op.in_elems + op.out_elems) * 1e-12;
    for (const AccMode& m : p.acc[v]) EXPECT_NEAR(m.energy, e_acc, 1e-12 * e_acc) << op.name;
    replicated += p.acc[v].size() > 1 ? 1 : 0;
    // The 3x3 64 -> 64 convolutions of layer1 at 56x56: 3136 MVMs on 3 crossbars each.
    if (op.rows == 576 && op.cols == 64 && op.n_mvm == 3136) {
      ++layer1_convs;
      ASSERT_FALSE(p.acc[v].empty());
      EXPECT_NEAR(p.acc[v][0].energy, 3136 * 3 * 5.3e-9 + 2 * 200704 * 1e-12, 1e-15);
    }
  }
  EXPECT_EQ(layer1_convs, 4);  // two basic blocks, two convolutions each
  EXPECT_GT(replicated, 0);
  for (size_t e = 0; e < p.dag.edges.size(); ++e)
    EXPECT_DOUBLE_EQ(p.e_transfer[e], p.e_out[static_cast<size_t>(p.dag.edges[e].first)]);
  // All on the host: the energy is the host's at 3.6 W for the CPU-only latency, plus the
  // accelerator's static power over it (the host never waits).
  const Schedule s = simulate(p, all_host(p), [&] {
    std::vector<int> order(p.size());
    for (size_t v = 0; v < p.size(); ++v) order[v] = static_cast<int>(v);
    return order;
  }());
  double cpu_only = 0;
  for (double t : p.t_host) cpu_only += t;
  const EnergyBreakdown e = energy_of(p, s);
  EXPECT_NEAR(e.total, (3.6 + 0.1) * cpu_only, 1e-12 * e.total);
}

}  // namespace
}  // namespace hetcim::partition
