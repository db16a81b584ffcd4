// Every output of partition, dse, profile and cluster says where its numbers come from: host
// source (measured on <CPU> / modelled by <preset>), solver and status, cache, seeds, version.
// Outputs are parsed (JSON, CSV) rather than searched as logs wherever a parser exists.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hetcim/version.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status;
  std::string out, err;
};

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_provenance_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CliRun run(const std::string& args) {
  const std::string out = scratch("out.txt").string(), err = scratch("err.txt").string();
  const std::string cmd = std::string(HETCIM_BIN) + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// A CSV with "#" provenance lines: the comments as key -> value, the rows split on commas (the
// fields here hold no quoted commas).
struct Csv {
  std::vector<std::pair<std::string, std::string>> comments;
  std::vector<std::vector<std::string>> rows;
  [[nodiscard]] std::string comment(const std::string& key) const {
    for (const auto& [k, v] : comments)
      if (k == key) return v;
    return "<missing " + key + ">";
  }
  [[nodiscard]] size_t column(const std::string& name) const {
    for (size_t i = 0; i < rows.at(0).size(); ++i)
      if (rows[0][i] == name) return i;
    return static_cast<size_t>(-1);
  }
};

Csv read_csv(const fs::path& p) {
  Csv c;
  std::istringstream in(slurp(p));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ", 0) == 0) {
      const size_t colon = line.find(": ");
      c.comments.emplace_back(line.substr(2, colon - 2),
                              colon == std::string::npos ? "" : line.substr(colon + 2));
      continue;
    }
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
    c.rows.push_back(fields);
  }
  return c;
}

void expect_version(const nlohmann::json& prov) {
  EXPECT_EQ(prov.at("version"), HETCIM_VERSION);
  EXPECT_EQ(prov.at("commit"), HETCIM_GIT_COMMIT);
  EXPECT_FALSE(prov.at("date_utc").get<std::string>().empty());
  EXPECT_FALSE(prov.at("machine").get<std::string>().empty());
  EXPECT_NE(prov.at("command_line").get<std::string>().find("hetcim"), std::string::npos);
}

TEST(Provenance, DseOutputsCarryHostSourceSolverCacheAndVersion) {
  const fs::path out = scratch("dse");
  fs::remove_all(out);
  const std::string args =
      "dse --models resnet18 --crossbars 25,100 --t-mvm 50ns --hosts arm,x86 --quiet --no-figures "
      "--out " +
      out.string();
  CliRun r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "") << "--quiet: no progress";
  nlohmann::json j = read_json(out / "dse.json");
  expect_version(j["provenance"]);
  const auto& facts = j["provenance"]["facts"];
  EXPECT_NE(facts["host source"].get<std::string>().find(
                "arm = modelled by arm-cortex-a72 (analytical host model)"),
            std::string::npos)
      << facts;
  EXPECT_NE(facts["host source"].get<std::string>().find("x86 = modelled by ryzen9-3900x"),
            std::string::npos)
      << facts;
  EXPECT_EQ(facts["solver"].get<std::string>().rfind("exact (hetcim", 0), 0u) << facts;
  EXPECT_NE(facts["cache"].get<std::string>().find("0 of 4 points read from it"), std::string::npos)
      << facts;
  EXPECT_NE(facts["cache"].get<std::string>().find(HETCIM_GIT_COMMIT), std::string::npos);
  EXPECT_FALSE(facts["seeds"].get<std::string>().empty());
  EXPECT_EQ(j["summary"]["points"], 4);
  EXPECT_EQ(j["summary"]["cached"], 0);
  EXPECT_EQ(j["summary"]["optimal"], 4);
  for (const auto& p : j["points"]) {
    EXPECT_EQ(p["cached"], false);
    EXPECT_EQ(p["host_source"].get<std::string>().rfind("modelled by ", 0), 0u) << p;
    EXPECT_EQ(p["status"], "optimal");
  }
  Csv csv = read_csv(out / "dse.csv");
  EXPECT_EQ(csv.comment("tool"),
            std::string("hetcim ") + HETCIM_VERSION + " (commit " + HETCIM_GIT_COMMIT + ")");
  ASSERT_EQ(csv.rows.size(), 5u);
  const size_t src = csv.column("host_source"), cached = csv.column("cached");
  ASSERT_NE(src, static_cast<size_t>(-1));
  ASSERT_NE(cached, static_cast<size_t>(-1));
  for (size_t i = 1; i < csv.rows.size(); ++i) {
    EXPECT_EQ(csv.rows[i][src].rfind("modelled by ", 0), 0u);
    EXPECT_EQ(csv.rows[i][cached], "0");
  }
  // The text says how many points are proven and where they come from.
  EXPECT_NE(r.out.find("all 4 solved to proven optimality"), std::string::npos) << r.out;

  // Again: every point from the cache, flagged and counted.
  r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  j = read_json(out / "dse.json");
  EXPECT_EQ(j["summary"]["cached"], 4);
  for (const auto& p : j["points"]) EXPECT_EQ(p["cached"], true);
  EXPECT_NE(j["summary"]["claim"].get<std::string>().find("4 read from the cache"),
            std::string::npos);
  csv = read_csv(out / "dse.csv");
  for (size_t i = 1; i < csv.rows.size(); ++i) EXPECT_EQ(csv.rows[i][cached], "1");
  EXPECT_NE(r.out.find("4 read from the cache"), std::string::npos) << r.out;
  fs::remove_all(out);
}

TEST(Provenance, DseOnASubsetLeavesNoStaleFiguresOrReport) {
  const fs::path out = scratch("dse_subset");
  fs::remove_all(out);
  CliRun r =
      run("dse --models resnet18,mobilenetv2 --crossbars 25 --t-mvm 50ns --hosts arm "
          "--quiet --no-cache --out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  ASSERT_TRUE(fs::exists(out / "figures" / "fig3_mobilenetv2.svg"));
  // A file the DSE does not own stays.
  std::ofstream(out / "figures" / "mine.txt") << "keep";
  r =
      run("dse --models resnet18 --crossbars 25 --t-mvm 50ns --hosts arm --quiet --no-cache "
          "--out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "figures" / "fig3_mobilenetv2.svg"));
  EXPECT_FALSE(fs::exists(out / "figures" / "fig3_mobilenetv2.png"));
  EXPECT_FALSE(fs::exists(out / "figures" / "fig5_mobilenetv2.svg"));
  EXPECT_TRUE(fs::exists(out / "figures" / "fig3_resnet18.svg"));
  EXPECT_TRUE(fs::exists(out / "figures" / "mine.txt"));
  const std::string html = slurp(out / "report.html");
  EXPECT_EQ(html.find("mobilenetv2"), std::string::npos) << "report of the earlier run";
  EXPECT_NE(html.find("<section class=\"provenance\">"), std::string::npos);
  EXPECT_NE(html.find("modelled by arm-cortex-a72 (analytical host model)"), std::string::npos);
  EXPECT_NE(html.find(HETCIM_GIT_COMMIT), std::string::npos);
  EXPECT_NE(html.find("all 1 solved to proven optimality"), std::string::npos);
  // Every caption names the host source.
  size_t captions = 0;
  for (size_t at = html.find("<figcaption>"); at != std::string::npos;
       at = html.find("<figcaption>", at + 1)) {
    const std::string cap = html.substr(at, html.find("</figcaption>", at) - at);
    EXPECT_NE(cap.find("arm = modelled by arm-cortex-a72"), std::string::npos) << cap;
    ++captions;
  }
  EXPECT_EQ(captions, 5u);  // fig3 and fig5 of the one model, fig4, energy, the solver figure
  // --no-figures: the figures and report of the earlier run go too.
  r =
      run("dse --models resnet18 --crossbars 25 --t-mvm 50ns --hosts arm --quiet --no-cache "
          "--no-figures --out " +
          out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "report.html"));
  EXPECT_FALSE(fs::exists(out / "figures" / "fig3_resnet18.svg"));
  EXPECT_TRUE(fs::exists(out / "figures" / "mine.txt"));
  fs::remove_all(out);
}

TEST(Provenance, PartitionTextJsonAndGanttNameTheirSources) {
  const fs::path json = scratch("p.json"), svg = scratch("p.svg");
  const CliRun r = run("partition resnet18 --crossbars 100 --t-mvm 100ns --json " + json.string() +
                       " --gantt " + svg.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = read_json(json);
  expect_version(j["provenance"]);
  const auto& f = j["provenance"]["facts"];
  EXPECT_EQ(f["host source"], "modelled by arm-cortex-a72 (analytical host model)");
  EXPECT_EQ(f["solver"], "exact (hetcim)");
  EXPECT_EQ(f["status"], "optimal (proven)");
  EXPECT_EQ(f["cache"], "none (solved in this run)");
  EXPECT_EQ(f["seeds"], "none (deterministic)");
  EXPECT_EQ(j["host"], "modelled by arm-cortex-a72 (analytical host model)");
  for (const char* want :
       {"modelled by arm-cortex-a72", "optimal (proven)", "version", HETCIM_GIT_COMMIT}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  const std::string g = slurp(svg);
  EXPECT_NE(g.find("host source: modelled by arm-cortex-a72"), std::string::npos);
  EXPECT_NE(g.find(HETCIM_GIT_COMMIT), std::string::npos);
}

TEST(Provenance, MpsAndLpFilesAreExactlyTheNamedFilesAndStateTheirTimeUnit) {
  const fs::path mps = scratch("y.mps"), lp = scratch("y.lp"), json = scratch("y.json");
  fs::remove(mps);
  fs::remove(scratch("y.mps.gz"));
  const CliRun r = run("partition resnet18 --crossbars 25 --mps " + mps.string() + " --lp " +
                       lp.string() + " --json " + json.string() + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(mps));
  EXPECT_FALSE(fs::exists(scratch("y.mps.gz")));
  const double unit = read_json(json)["milp"]["time_unit_s"];
  EXPECT_GT(unit, 0.0);
  char text[64];
  std::snprintf(text, sizeof text, "units of %.17g s", unit);
  const std::string m = slurp(mps), l = slurp(lp);
  EXPECT_EQ(m.rfind("* hetcim:", 0), 0u) << m.substr(0, 200);
  EXPECT_NE(m.find(text), std::string::npos) << m.substr(0, 300);
  EXPECT_NE(m.find("\nNAME"), std::string::npos) << "an MPS body follows the comments";
  EXPECT_EQ(l.rfind("\\ hetcim:", 0), 0u) << l.substr(0, 200);
  EXPECT_NE(l.find(text), std::string::npos) << l.substr(0, 300);
}

TEST(Provenance, ProfileFilesCarryCommandSeedsAndQuality) {
  const fs::path csv = scratch("mb.csv"), json = scratch("mb.json");
  const CliRun r = run("profile mobilenetv2 --warmup 1 --runs 3 --quiet --csv " + csv.string() +
                       " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = read_json(json);
  EXPECT_EQ(j["source"], "measured");
  EXPECT_EQ(j["tool"].get<std::string>().rfind(std::string("hetcim ") + HETCIM_VERSION, 0), 0u);
  EXPECT_NE(j["tool"].get<std::string>().find(HETCIM_GIT_COMMIT), std::string::npos);
  EXPECT_NE(j["command"].get<std::string>().find("profile mobilenetv2"), std::string::npos);
  EXPECT_EQ(j["seeds"], "weight 1, input 7, calibration 1 (2 samples)");
  const std::string q = j["quality"];
  EXPECT_TRUE(q.rfind("steady: ", 0) == 0 || q.rfind("noisy: ", 0) == 0) << q;
  // A noisy measurement is warned about on stderr, even with --quiet.
  EXPECT_EQ(q.rfind("noisy: ", 0) == 0, r.err.find("warning: noisy") != std::string::npos) << r.err;
  const Csv c = read_csv(csv);
  EXPECT_EQ(c.comment("quality"), q);
  EXPECT_EQ(c.comment("seeds"), "weight 1, input 7, calibration 1 (2 samples)");
}

TEST(Provenance, ClusterOutputsSayTheyAreModelled) {
  const fs::path csv = scratch("roof.csv"), json = scratch("roof.json");
  const CliRun r = run("cluster roofline --bus-widths 64 --utilizations 1 --csv " + csv.string() +
                       " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = read_json(json);
  expect_version(j["provenance"]);
  EXPECT_EQ(j["provenance"]["facts"]["source"].get<std::string>().rfind(
                "modelled by the pulp-pcm-cluster preset", 0),
            0u);
  const Csv c = read_csv(csv);
  EXPECT_EQ(c.comment("source").rfind("modelled by the pulp-pcm-cluster preset", 0), 0u);
  EXPECT_NE(r.out.find("# source: modelled by the pulp-pcm-cluster preset"), std::string::npos)
      << r.out;
}

}  // namespace
