// dse --platform --sweep (api::run_platform_dse): every grid point equals an individual
// partition --platform run of the same platform made another way (--imas, a platform YAML whose
// cluster file has the swept bus width), the cache returns the same points, and bad sweeps are
// refused naming the key or the value; seed 000's grid as a platform DSE equals the two-device DSE;
// the K-engine MILP equals the exact solver on whole networks.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "api/dse.h"
#include "api/model.h"
#include "api/platform.h"
#include "platform/sweep.h"
#include "util/error.h"
#include "util/units.h"

namespace hetcim::api {
namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() /
                     ("hetcim-platform-dse-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

double single_run(const std::string& model, const std::string& platform,
                  std::optional<int64_t> imas) {
  PartitionRequest q;
  q.platform = platform;
  q.imas = imas;
  const PlatformPartitionResult r = partition_on_platform(load_model(model), q);
  EXPECT_EQ(r.solve.status, partition::SolveStatus::Optimal);
  return r.solve.schedule.makespan;
}

TEST(PlatformDse, GridPointsEqualIndividualRuns) {
  const fs::path dir = scratch("imas");
  PlatformDseRequest q;
  q.platform = "seed001-cluster";
  q.models = {"bottleneck", "mobilenetv2"};
  q.sweeps = {"imas=1,2,4"};
  q.threads = 2;
  q.cache_dir = (dir / "cache").string();
  const PlatformDseResult r = run_platform_dse(q);
  ASSERT_EQ(r.points.size(), 6u);
  EXPECT_EQ(r.optimal, 6u);
  EXPECT_EQ(r.cached, 0u);
  const std::vector<int64_t> imas = {1, 2, 4};
  for (size_t m = 0; m < 2; ++m)
    for (size_t k = 0; k < 3; ++k) {
      const dse::PlatformDsePoint& p = r.points[m * 3 + k];
      EXPECT_EQ(p.model, q.models[m]);
      ASSERT_EQ(p.values, std::vector<std::string>{std::to_string(imas[k])});
      EXPECT_EQ(p.status, "optimal");
      // Same problem, same deterministic solver: the same latency to the last bit.
      EXPECT_EQ(p.latency, single_run(q.models[m], "seed001-cluster", imas[k])) << p.model;
      int64_t ops = 0;
      for (int64_t n : p.operators_on) ops += n;
      EXPECT_EQ(ops, p.operators);
    }
  // More crossbars never slow the proven optimum down.
  EXPECT_LE(r.points[4].latency, r.points[3].latency);
  EXPECT_LE(r.points[5].latency, r.points[4].latency);
  // Again: every point from the cache, the same numbers.
  const PlatformDseResult again = run_platform_dse(q);
  EXPECT_EQ(again.cached, 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(again.points[i].latency, r.points[i].latency);
    EXPECT_EQ(again.points[i].energy, r.points[i].energy);
  }
  fs::remove_all(dir);
}

// bus_width against a platform YAML whose cluster file states that width: examples/my_soc.yaml on
// a copy of examples/cluster.yaml.
TEST(PlatformDse, BusWidthEqualsAClusterFileWithThatWidth) {
  const fs::path dir = scratch("bus");
  const std::string src = HETCIM_SOURCE_DIR;
  const std::string cluster = read(src + "/examples/cluster.yaml");
  ASSERT_NE(cluster.find("bus_width: 64bit"), std::string::npos);
  std::vector<double> via_files;
  for (const char* width : {"32", "256"}) {
    const fs::path c = dir / (std::string("cluster") + width + ".yaml");
    std::ofstream(c) << std::regex_replace(cluster, std::regex("bus_width: 64bit"),
                                           std::string("bus_width: ") + width + "bit");
    const fs::path p = dir / (std::string("soc") + width + ".yaml");
    std::ofstream(p) << std::regex_replace(read(src + "/examples/my_soc.yaml"),
                                           std::regex("cluster: pulp-pcm-cluster"),
                                           "cluster: " + c.string());
    via_files.push_back(single_run("mobilenetv2", p.string(), std::nullopt));
  }
  // The sweep's base: my_soc on the same cluster file (its 64 bit replaced by the sweep).
  const fs::path base = dir / "soc_base.yaml";
  std::ofstream(base) << std::regex_replace(read(src + "/examples/my_soc.yaml"),
                                            std::regex("cluster: pulp-pcm-cluster"),
                                            "cluster: " + (dir / "cluster32.yaml").string());
  PlatformDseRequest q;
  q.platform = base.string();
  q.models = {"mobilenetv2"};
  q.sweeps = {"bus_width=32,256bit"};
  const PlatformDseResult r = run_platform_dse(q);
  ASSERT_EQ(r.points.size(), 2u);
  EXPECT_EQ(r.points[0].latency, via_files[0]);
  EXPECT_EQ(r.points[1].latency, via_files[1]);
  EXPECT_NE(via_files[0], via_files[1]);  // the width matters on this network
  fs::remove_all(dir);
}

void expect_error(const std::function<void()>& f, const std::string& text) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing '" << text << "'";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

// Seed 000's grid as a platform DSE (issue 33 scope 1): `dse --platform seed000-arm --sweep
// crossbars=... --sweep t_mvm=...` gives the points of `dse --hosts arm --crossbars ... --t-mvm
// ...`: the same latency to the last bit and the same plan (operators on the host and the CIM,
// crossbars used), the platform's points solved by the two-device solver (solve_by_shape.h).
TEST(PlatformDse, Seed000GridEqualsTheTwoDeviceDse) {
  const std::vector<std::string> models = {"resnet18", "mobilenetv2"};
  for (const std::string bus : {"parallel", "serial"}) {
    SCOPED_TRACE(bus + " bus");
    PlatformDseRequest q;
    q.platform = "seed000-arm";
    q.models = models;
    q.sweeps = {"crossbars=25,100", "t_mvm=50ns,500ns",
                std::string("serial=") + (bus == "serial" ? "true" : "false")};
    q.threads = 2;
    const PlatformDseResult pf = run_platform_dse(q);
    DseRequest d;
    d.models = models;
    d.crossbars = {25, 100};
    // As the CLI reads `--t-mvm 50ns,500ns` (and the sweep its values).
    const double t50 = parse_positive_quantity("50ns", Quantity::Time, "t_mvm");
    const double t500 = parse_positive_quantity("500ns", Quantity::Time, "t_mvm");
    d.t_mvm = {t50, t500};
    d.hosts = {"arm"};
    d.bus_model = bus;
    d.threads = 2;
    const DseResult two = run_dse(d);
    ASSERT_EQ(pf.points.size(), 8u);
    ASSERT_EQ(two.points.size(), 8u);
    EXPECT_EQ(pf.optimal, 8u);
    for (const dse::PlatformDsePoint& p : pf.points) {
      SCOPED_TRACE(p.model + " crossbars " + p.values[0] + " t_mvm " + p.values[1]);
      const int64_t crossbars = std::stoll(p.values[0]);
      const double t_mvm = p.values[1] == "50ns" ? t50 : t500;
      const auto t = std::find_if(two.points.begin(), two.points.end(), [&](const auto& x) {
        return x.model == p.model && x.crossbars == crossbars && x.t_mvm == t_mvm;
      });
      ASSERT_NE(t, two.points.end());
      EXPECT_EQ(t->status, "optimal");
      EXPECT_EQ(p.latency, t->latency);
      ASSERT_EQ(p.engines, (std::vector<std::string>{"host", "cim"}));
      EXPECT_EQ(p.operators_on[0], t->host_ops);
      EXPECT_EQ(p.operators_on[1], t->cim_ops);
      EXPECT_EQ(p.capacity_used[1], t->crossbars_used);
    }
  }
  // t_mvm applies to seed 000's crossbar engine only.
  platform::Platform cluster = platform::resolve_platform("seed001-cluster");
  try {
    platform::apply_sweep(cluster, "t_mvm", "50ns");
    ADD_FAILURE() << "t_mvm applied to seed001-cluster";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("has no rram-crossbars engine"), std::string::npos)
        << e.what();
  }
}

TEST(PlatformDse, BadSweepsNameTheKeyOrValue) {
  expect_error([] { (void)platform::parse_sweep("bandwidth=1GB/s"); }, "unknown key 'bandwidth'");
  expect_error([] { (void)platform::parse_sweep("imas"); }, "expected KEY=v1,v2");
  expect_error([] { (void)platform::parse_sweep("imas=0"); }, "value '0'");
  expect_error([] { (void)platform::parse_sweep("imas=1,,2"); }, "an empty value");
  expect_error([] { (void)platform::parse_sweep("imas=2,2"); }, "listed twice");
  expect_error([] { (void)platform::parse_sweep("bus_width=12"); }, "value '12'");
  expect_error([] { (void)platform::parse_sweep("link_bandwidth=fast"); }, "link_bandwidth");
  expect_error([] { (void)platform::parse_sweep("serial=maybe"); }, "expected true or false");
  expect_error(
      [] {
        (void)platform::sweep_grid(
            {platform::parse_sweep("imas=1,2"), platform::parse_sweep("imas=4")});
      },
      "swept twice");
  // A key the platform has nothing for: Klein et al.'s platform has no pcm-ima engine.
  PlatformDseRequest q;
  q.platform = "seed000-arm";
  q.models = {"bottleneck"};
  q.sweeps = {"imas=1,2"};
  expect_error([&] { (void)run_platform_dse(q); }, "has no pcm-ima engine");
  q.sweeps = {"bus_width=64"};
  expect_error([&] { (void)run_platform_dse(q); }, "no pulp-* or pcm-ima engine");
}

}  // namespace
}  // namespace hetcim::api

namespace hetcim::api {
namespace {

// The K-engine MILP on CBC against the exact solver on whole networks: ResNet-18 on seed 000's
// system converted to a platform (host + CIM, one bus) and MobileNetV2 on seed 001's cluster.
TEST(PlatformMilp, EqualsExactOnWholeNetworks) {
  for (const auto& [model, platform] :
       {std::pair{"resnet18", "seed000-arm"}, std::pair{"mobilenetv2", "seed001-cluster"}}) {
    SCOPED_TRACE(std::string(model) + " on " + platform);
    const Model m = load_model(model);
    PartitionRequest q;
    q.platform = platform;
    const PlatformPartitionResult exact = partition_on_platform(m, q);
    ASSERT_EQ(exact.solve.status, partition::SolveStatus::Optimal);
    q.solver = "milp";
    q.time_limit = 60;
    const PlatformPartitionResult milp = partition_on_platform(m, q);
    ASSERT_TRUE(milp.milp.has_value());
    ASSERT_EQ(milp.milp->status, partition::SolveStatus::Optimal);
    EXPECT_NEAR(milp.milp->objective, exact.solve.objective, 1e-6 * exact.solve.objective);
    EXPECT_TRUE(partition::multi_check(milp.problem.problem, milp.milp->schedule).empty());
  }
}

}  // namespace
}  // namespace hetcim::api
