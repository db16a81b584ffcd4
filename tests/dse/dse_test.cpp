// The DSE's cache and what its reports claim: the key covers the code version and every solver
// option, cached points are flagged and counted, the host source reaches every point, and the
// "proven optimal" sentence is only written when every point is.
#include "dse/dse.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cost/host_costs.h"
#include "cost/host_model.h"
#include "hetcim/version.h"
#include "passes/pipeline.h"
#include "report/dse.h"
#include "zoo/zoo.h"

namespace hetcim::dse {
namespace {

namespace fs = std::filesystem;

struct Grid {
  std::vector<DseModel> models;
  std::vector<DseHost> hosts;
};

Grid resnet18_on_arm() {
  Grid g;
  g.models.push_back(
      {"resnet18", workload::analyze(passes::lower(zoo::build_model("resnet18", {}), {}))});
  DseHost h;
  h.name = "arm";
  h.hardware = cost::hardware_preset("seed000-arm");
  h.costs.push_back(cost::host_costs(g.models[0].workload, h.hardware.host, true));
  g.hosts.push_back(h);
  return g;
}

partition::Problem problem_of(const Grid& g) {
  cost::Hardware hw = g.hosts[0].hardware;
  return partition::build_problem(g.models[0].workload, g.hosts[0].costs[0], hw, {});
}

TEST(DseCache, KeyCoversEverySolverOption) {
  const Grid g = resnet18_on_arm();
  const partition::Problem p = problem_of(g);
  const DseOptions base;
  const std::string k = dse_cache_key(p, base);
  EXPECT_EQ(k, dse_cache_key(p, base));  // deterministic
  EXPECT_EQ(k.size(), 16u);
  DseOptions o = base;
  o.exact_time_limit = 10;
  EXPECT_NE(dse_cache_key(p, o), k) << "exact solver time limit";
  o = base;
  o.run_milp = true;
  const std::string with_milp = dse_cache_key(p, o);
  EXPECT_NE(with_milp, k) << "MILP on";
  o.milp_time_limit = 5;
  EXPECT_NE(dse_cache_key(p, o), with_milp) << "MILP time limit";
  // Options that do not change a result leave the key alone.
  o = base;
  o.threads = 7;
  o.cache_dir = "/elsewhere";
  EXPECT_EQ(dse_cache_key(p, o), k);
  // The problem's content: a different budget is a different point.
  partition::Problem q = p;
  q.crossbar_budget += 1;
  EXPECT_NE(dse_cache_key(q, base), k);
}

TEST(DseCache, SecondRunReadsEveryPointFlagsItAndAgrees) {
  const Grid g = resnet18_on_arm();
  const fs::path dir =
      fs::temp_directory_path() / ("hetcim_dse_cache_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  DseOptions o;
  o.crossbars = {25, 100};
  o.t_mvm = {50e-9};
  o.cache_dir = dir.string();
  const auto first = run_dse(g.models, g.hosts, o);
  const auto second = run_dse(g.models, g.hosts, o);
  ASSERT_EQ(first.size(), 2u);
  ASSERT_EQ(second.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(first[i].cached);
    EXPECT_TRUE(second[i].cached);
    EXPECT_EQ(first[i].host_source, "modelled by arm-cortex-a72 (analytical host model)");
    EXPECT_EQ(second[i].host_source, first[i].host_source);
    EXPECT_EQ(second[i].status, first[i].status);
    EXPECT_EQ(second[i].latency, first[i].latency);
    EXPECT_EQ(second[i].seconds, first[i].seconds) << "a cached point keeps its solve time";
  }
  // Every cache entry records the commit that solved it.
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path());
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j.at("commit"), HETCIM_GIT_COMMIT);
    ++entries;
  }
  EXPECT_EQ(entries, 2u);
  // A different solver option reads nothing.
  o.exact_time_limit = 300;
  for (const DsePoint& d : run_dse(g.models, g.hosts, o)) EXPECT_FALSE(d.cached);

  // What the reports claim, counted from the points.
  const report::DseSummary s = report::summarize_dse(second);
  EXPECT_EQ(s.points, 2u);
  EXPECT_EQ(s.cached, 2u);
  EXPECT_EQ(s.optimal, 2u);
  EXPECT_EQ(s.solve_seconds, 0.0);
  EXPECT_EQ(report::dse_claim(second),
            "2 grid points; all 2 solved to proven optimality by hetcim's exact solver (0 solved "
            "in this run, 2 read from the cache, their status recorded when they were solved)");
  std::vector<DsePoint> mixed = second;
  mixed[1].status = "time-limit";
  mixed[1].cached = false;
  const std::string claim = report::dse_claim(mixed);
  EXPECT_EQ(claim.find("all 2"), std::string::npos) << claim;
  EXPECT_NE(claim.find("1 of 2 proven optimal"), std::string::npos) << claim;
  EXPECT_NE(claim.find("1 time-limit"), std::string::npos) << claim;
  fs::remove_all(dir);
}

TEST(DseReport, CsvAndJsonCarryProvenanceHostSourceAndCacheFlags) {
  const Grid g = resnet18_on_arm();
  DseOptions o;
  o.crossbars = {25};
  o.t_mvm = {50e-9, 500e-9};
  auto pts = run_dse(g.models, g.hosts, o);
  pts[1].cached = true;
  Provenance prov;
  prov.version = "9.9.9";
  prov.commit = "abc";
  prov.date_utc = "1970-01-02T00:00:00Z";
  prov.machine = "test box x 2";
  prov.command_line = "hetcim dse";
  prov.set("cache", "results/cache: 1 of 2 points read from it");
  // JSON, parsed.
  const nlohmann::json j = nlohmann::json::parse(report::dse_json(pts, prov));
  EXPECT_EQ(j["provenance"]["version"], "9.9.9");
  EXPECT_EQ(j["provenance"]["commit"], "abc");
  EXPECT_EQ(j["provenance"]["facts"]["cache"], "results/cache: 1 of 2 points read from it");
  EXPECT_EQ(j["summary"]["points"], 2);
  EXPECT_EQ(j["summary"]["cached"], 1);
  ASSERT_EQ(j["points"].size(), 2u);
  EXPECT_EQ(j["points"][0]["host_source"], "modelled by arm-cortex-a72 (analytical host model)");
  EXPECT_EQ(j["points"][0]["cached"], false);
  EXPECT_EQ(j["points"][1]["cached"], true);
  EXPECT_EQ(j["points"][0]["solver"], "exact");
  // CSV: "#" lines, then a header and rows, read as a table.
  std::istringstream csv(report::dse_csv(pts, prov));
  std::vector<std::string> comments, rows;
  for (std::string line; std::getline(csv, line);)
    (line.rfind("#", 0) == 0 ? comments : rows).push_back(line);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].rfind("model,host,host_source,cached,solver,crossbars,", 0), 0u) << rows[0];
  EXPECT_EQ(rows[1].rfind(
                "resnet18,arm,modelled by arm-cortex-a72 (analytical host model),0,exact,25,", 0),
            0u)
      << rows[1];
  std::vector<std::string> fields;
  std::stringstream row(rows[2]);
  for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
  ASSERT_GT(fields.size(), 5u);
  EXPECT_EQ(fields[3], "1") << rows[2];  // cached
  EXPECT_EQ(fields[4], "exact") << rows[2];
  bool has_version = false, has_cache = false;
  for (const std::string& c : comments) {
    has_version |= c == "# tool: hetcim 9.9.9 (commit abc)";
    has_cache |= c == "# cache: results/cache: 1 of 2 points read from it";
  }
  EXPECT_TRUE(has_version);
  EXPECT_TRUE(has_cache);
}

}  // namespace
}  // namespace hetcim::dse
