// The DSE's cache and what its reports claim: the key covers the code version and every solver
// option, cached points are flagged and counted, the host source reaches every point, and the
// "proven optimal" sentence is only written when every point is.
#include "dse/dse.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cost/host_costs.h"
#include "cost/host_model.h"
#include "dse/sweep_notes.h"
#include "passes/pipeline.h"
#include "platform/build.h"
#include "platform/platform.h"
#include "platform/sweep.h"
#include "report/dse.h"
#include "util/build_version.h"
#include "util/units.h"
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
    EXPECT_EQ(j.at("commit"), build_commit());  // util/provenance_test checks it is the header's
    ++entries;
  }
  EXPECT_EQ(entries, 2u);
  // A different solver option reads nothing.
  o.exact_time_limit = 300;
  for (const DsePoint& d : run_dse(g.models, g.hosts, o)) EXPECT_FALSE(d.cached);

  // What the reports claim, counted from the points.
  const results::DseSummary s = results::summarize_dse(second);
  EXPECT_EQ(s.points, 2u);
  EXPECT_EQ(s.cached, 2u);
  EXPECT_EQ(s.optimal, 2u);
  EXPECT_EQ(s.solve_seconds, 0.0);
  EXPECT_EQ(results::dse_claim(second),
            "2 grid points; all 2 solved to proven optimality by hetcim's exact solver (0 solved "
            "in this run, 2 read from the cache, their status recorded when they were solved)");
  std::vector<DsePoint> mixed = second;
  mixed[1].status = "time-limit";
  mixed[1].cached = false;
  const std::string claim = results::dse_claim(mixed);
  EXPECT_EQ(claim.find("all 2"), std::string::npos) << claim;
  EXPECT_NE(claim.find("1 of 2 proven optimal"), std::string::npos) << claim;
  EXPECT_NE(claim.find("1 time-limit"), std::string::npos) << claim;
  fs::remove_all(dir);
}

// Caches that lie (issue 35): an entry's plan is replayed on the point it claims to answer, so an
// entry copied over another's, a latency edited, or a proven point turned into a time-limit one is
// refused with a warning and solved again; the answers equal the first run's. What the check
// cannot see (README, "What the caches guarantee") is pinned too: a forgery whose key, plan,
// numbers and bound are all those of a feasible but suboptimal plan is read as given.
TEST(DseCache, TamperedEntriesAreReplayedRefusedAndSolvedAgain) {
  const Grid g = resnet18_on_arm();
  const fs::path dir =
      fs::temp_directory_path() / ("hetcim_dse_tamper_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  DseOptions o;
  o.crossbars = {25, 200};
  o.t_mvm = {50e-9};
  o.cache_dir = dir.string();
  std::vector<std::string> warnings;
  o.on_cache_warning = [&](const std::string& w) { warnings.push_back(w); };
  const std::vector<DsePoint> truth = run_dse(g.models, g.hosts, o);
  ASSERT_EQ(truth.size(), 2u);
  ASSERT_EQ(truth[0].status, "optimal");
  ASSERT_EQ(truth[1].status, "optimal");
  ASSERT_LT(truth[1].latency, truth[0].latency) << "200 crossbars beat 25 on ResNet-18";
  // The two entries, named by their keys (the problem of each point).
  std::vector<std::string> keys;
  for (int64_t c : o.crossbars) {
    cost::Hardware hw = g.hosts[0].hardware;
    hw.cim.crossbars = c;
    hw.cim.t_mvm = 50e-9;
    keys.push_back(dse_cache_key(
        partition::build_problem(g.models[0].workload, g.hosts[0].costs[0], hw, {}), o));
  }
  const auto path = [&](size_t i) { return (dir / (keys[i] + ".json")).string(); };
  const auto load = [&](size_t i) {
    std::ifstream in(path(i));
    return nlohmann::json::parse(in);
  };
  const auto save = [&](size_t i, const nlohmann::json& j) { std::ofstream(path(i)) << j.dump(); };
  const nlohmann::json entry25 = load(0), entry200 = load(1);
  ASSERT_EQ(entry200.at("key"), keys[1]);
  ASSERT_EQ(entry200.at("assignment").size(), static_cast<size_t>(truth[1].operators));
  // Every tampering: point 1 is refused (warning naming its file and why), solved again, and its
  // answer is the true one; point 0 stays cached.
  const auto expect_refused = [&](const nlohmann::json& forged, const std::string& why) {
    save(1, forged);
    warnings.clear();
    const std::vector<DsePoint> again = run_dse(g.models, g.hosts, o);
    EXPECT_TRUE(again[0].cached);
    EXPECT_FALSE(again[1].cached) << why;
    EXPECT_EQ(again[1].latency, truth[1].latency) << why;
    EXPECT_EQ(again[1].status, "optimal") << why;
    ASSERT_EQ(warnings.size(), 1u) << why;
    EXPECT_NE(warnings[0].find(path(1)), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find(why), std::string::npos) << warnings[0];
    nlohmann::json now = load(1), want = entry200;
    now.erase("seconds");  // measured: differs between any two solves
    want.erase("seconds");
    EXPECT_EQ(now, want) << "the refused entry is overwritten by the true one";
  };
  // 1. Another point's entry copied over this one (the 25-crossbar plan reported for 200).
  expect_refused(entry25, "copied over another's");
  // ... and with its key edited to match: the 25-crossbar plan fits 200 crossbars (one replica
  // per operator: the same modes) and replays to its own latency, and its bound claims
  // optimality. Only a new solve can tell, so it is read as given (the stated limit of the check).
  nlohmann::json forged = entry25;
  forged["key"] = keys[1];
  save(1, forged);
  warnings.clear();
  const std::vector<DsePoint> fooled = run_dse(g.models, g.hosts, o);
  EXPECT_TRUE(fooled[1].cached);
  EXPECT_EQ(fooled[1].latency, truth[0].latency);
  EXPECT_TRUE(warnings.empty());
  // 2. A halved latency (speedup edited to match, so that only the replay can tell).
  forged = entry200;
  forged["latency"] = truth[1].latency / 2;
  forged["bound"] = truth[1].latency / 2;
  forged["speedup"] = truth[1].cpu_only / (truth[1].latency / 2);
  expect_refused(forged, "latency");
  // 3. A proven point turned into a time-limit one.
  forged = entry200;
  forged["status"] = "time-limit";
  expect_refused(forged, "proven optimal");
  // 4. Optimal claimed with a bound below the plan's latency.
  forged = entry200;
  forged["bound"] = truth[1].latency * 0.9;
  expect_refused(forged, "status 'optimal' with a bound");
  // 5. A plan edited (one operator moved to the host) with the old numbers kept.
  forged = entry200;
  for (auto& m : forged["assignment"])
    if (m.get<int>() >= 0) {
      m = -1;
      break;
    }
  expect_refused(forged, "a plan that");
  // 6. A plan of another length, a mode out of range.
  forged = entry200;
  forged["assignment"].erase(forged["assignment"].begin());
  expect_refused(forged, "operators for a problem of");
  forged = entry200;
  forged["assignment"][0] = 4294967296LL;
  expect_refused(forged, "'assignment' holds 4294967296");
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

// dse --platform --sweep (issue 36): the README's bus_width sweep on MobileNetV2 printed rows that
// agree to four digits without a word. The note says by how much the axis moves the latency and
// why, and each part is checked here against the grid: the spread of the points, the options whose
// cost differs between the problems at 32 and 256 bit, and the plans' engines. An axis that moves
// the latency visibly (the IMA's crossbars) gets no note.
TEST(PlatformDseNotes, AnAxisThatMovesNothingVisibleSaysWhy) {
  const platform::Platform base = platform::resolve_platform("seed001-cluster", std::nullopt);
  const std::vector<PlatformDseModel> models = {
      {"mobilenetv2", passes::lower(zoo::build_model("mobilenetv2", {}), {})}};
  const std::vector<platform::SweepAxis> axes = {platform::parse_sweep("bus_width=32,64,128,256")};
  PlatformDseOptions o;
  o.threads = 2;
  const std::vector<PlatformDsePoint> points = run_platform_dse(models, base, axes, o);
  ASSERT_EQ(points.size(), 4u);
  double lo = points[0].latency, hi = lo;
  for (const PlatformDsePoint& p : points) {
    lo = std::min(lo, p.latency);
    hi = std::max(hi, p.latency);
    ASSERT_EQ(p.status, "optimal");
  }
  ASSERT_GT(hi, lo) << "the width does move the latency, below the digits printed";
  ASSERT_LT((hi - lo) / hi, 1e-4);
  // The options whose cost differs between 32 and 256 bit, and the plan's operators on them.
  std::vector<partition::MultiProblem> at;
  for (const char* width : {"32", "256"}) {
    platform::Platform pf = base;
    platform::apply_sweep(pf, "bus_width", width);
    at.push_back(platform::build_platform_problem(models[0].lowered, pf, "latency").problem);
  }
  std::set<std::string> moved_engines;
  int64_t on_moved = 0;
  std::map<std::string, int64_t> untouched;
  for (size_t v = 0; v < at[0].size(); ++v) {
    for (size_t j = 0; j < at[0].options[v].size(); ++j)
      if (at[0].options[v][j].duration != at[1].options[v][j].duration)
        moved_engines.insert(at[0].engines[static_cast<size_t>(at[0].options[v][j].engine)].name);
    const int k = points[0].option.at(v);
    const auto& o32 = at[0].option(static_cast<int>(v), k);
    if (o32.duration != at[1].option(static_cast<int>(v), k).duration)
      ++on_moved;
    else
      ++untouched[at[0].engines[static_cast<size_t>(o32.engine)].name];
  }
  ASSERT_EQ(moved_engines, std::set<std::string>{"ima"});
  ASSERT_EQ(on_moved, 1);
  std::string engines;
  for (const auto& [e, n] : untouched)
    engines += (engines.empty() ? "" : ", ") + e + " " + std::to_string(n);
  const std::vector<std::string> notes =
      unchanged_axis_notes(models, base, axes, points, "latency");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("note: bus_width=32,64,128,256 changes no result by more than ", 0), 0u)
      << notes[0];
  EXPECT_NE(notes[0].find("latency by at most " + format_quantity(hi - lo, Quantity::Time)),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find("each optimal plan runs at most 1 of its " +
                          std::to_string(points[0].operators) +
                          " operators on options whose cost it changes (ima); the other "
                          "operators (mobilenetv2: " +
                          engines + ") run on options it does not touch"),
            std::string::npos)
      << notes[0];
  // The IMA's crossbars move the latency visibly: no note.
  const std::vector<platform::SweepAxis> imas = {platform::parse_sweep("imas=1,8")};
  const std::vector<PlatformDsePoint> more = run_platform_dse(models, base, imas, o);
  ASSERT_GT(std::fabs(more[0].latency - more[1].latency) / more[0].latency, 1e-4);
  EXPECT_TRUE(unchanged_axis_notes(models, base, imas, more, "latency").empty());
}

}  // namespace
}  // namespace hetcim::dse
