// `hetcim cluster` as a user meets it: the tables, the files, errors that name the field, and
// no partial output on failure.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_cluster_cli_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

CliRun run(const std::string& args) {
  const std::string out = scratch("out.txt").string(), err = scratch("err.txt").string();
  const int raw =
      std::system((std::string(HETCIM_BIN) + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

TEST(ClusterCli, RooflineWritesCsvAndJson) {
  const fs::path csv = scratch("roof.csv"), json = scratch("roof.json");
  const CliRun r =
      run("cluster roofline --bus-widths 64,128 --utilizations 1 --executions pipelined --csv " +
          csv.string() + " --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("peak 1.008 TOPS"), std::string::npos) << r.out;
  // 2 operating points x 2 widths x 1 utilization + header, after the "# " provenance lines.
  const std::string c = slurp(csv);
  std::istringstream lines(c);
  int rows = 0, comments = 0;
  for (std::string line; std::getline(lines, line);) ++(line.rfind("# ", 0) == 0 ? comments : rows);
  EXPECT_EQ(rows, 5);
  EXPECT_GE(comments, 5);
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["points"].size(), 4u);
  // 250 MHz, 128 bit, pipelined, full crossbar: 8630 cycles (see roofline_test).
  bool found = false;
  for (const auto& p : j["points"])
    if (p["frequency_hz"] == 250e6 && p["bus_width_bits"] == 128) {
      EXPECT_EQ(p["cycles"], 8630);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(ClusterCli, BottleneckFromAConfigFile) {
  const fs::path cfg = scratch("c.yaml"), json = scratch("b.json");
  std::ofstream(cfg) << "preset: seed001\nima: {execution: sequential}\n";
  const CliRun r = run("cluster bottleneck --config " + cfg.string() +
                       " --mappings cores,ima+dw --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("IMA sequential"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(json));
  ASSERT_EQ(j["mappings"].size(), 2u);
  EXPECT_EQ(j["mappings"][0]["cycles"], 3596512);  // the cores' figure by hand (bottleneck test)
  EXPECT_EQ(j["shape"]["c_in"], 120);
}

// The figures exist in both formats and carry drawn data (gnuplot draws lines and bars as paths).
TEST(ClusterCli, FiguresAreDrawn) {
  const fs::path dir = scratch("figures");
  fs::remove_all(dir);
  CliRun r = run("cluster roofline --figures " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("cluster bottleneck --figures " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* name : {"cluster_roofline", "cluster_gains", "cluster_breakdown"}) {
    ASSERT_TRUE(fs::exists(dir / (std::string(name) + ".svg"))) << name;
    EXPECT_GT(fs::file_size(dir / (std::string(name) + ".png")), 5000u) << name;
    std::ifstream in(dir / (std::string(name) + ".svg"));
    std::stringstream ss;
    ss << in.rdbuf();
    size_t paths = 0;
    for (size_t at = ss.str().find("<path"); at != std::string::npos;
         at = ss.str().find("<path", at + 1))
      ++paths;
    EXPECT_GT(paths, 20u) << name;
  }
  // Five bus widths and the roof in each of the four panels.
  std::ifstream in(dir / "cluster_roofline.svg");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("250 MHz, pipelined"), std::string::npos);
  EXPECT_NE(ss.str().find("512 bit"), std::string::npos);
}

TEST(ClusterCli, BadInputNamesTheFieldAndWritesNothing) {
  const fs::path cfg = scratch("bad.yaml"), json = scratch("never.json");
  fs::remove(json);
  std::ofstream(cfg) << "ima: {t_mvm: 130}\n";
  CliRun r = run("cluster bottleneck --config " + cfg.string() + " --json " + json.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("ima.t_mvm"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(cfg.string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json));
  r = run("cluster bottleneck --mappings cores,gpu --json " + json.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown mapping 'gpu'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json));
  const fs::path csv = scratch("partial.csv");
  fs::remove(csv);
  r = run("cluster roofline --csv " + csv.string() + " --json /nonexistent/dir/x.json");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(csv));
}

TEST(ClusterCli, CalibrateWritesAReportLabelledCalibration) {
  const fs::path dir = scratch("calibration");
  fs::remove_all(dir);
  const CliRun r = run(
      "cluster calibrate --fit fig9 --rate-points 31 --max-overhead 100 --report " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("CALIBRATION (not a reproduction)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# calibration: CALIBRATION, not a reproduction"), std::string::npos);
  for (const char* f : {"calibration.txt", "calibration.json", "calibrated_roofline.svg",
                        "cluster_gains.svg", "cluster_breakdown.svg"})
    EXPECT_TRUE(fs::exists(dir / f)) << f;
  const auto j = nlohmann::json::parse(slurp(dir / "calibration.json"));
  EXPECT_EQ(j["kind"], "calibration");
  EXPECT_NE(j["provenance"].dump().find("CALIBRATION"), std::string::npos);
  // The fit improves on the model as given, which is far from Fig. 9.
  EXPECT_LT(j["residual"]["fitted"].get<double>(), j["residual"]["given"].get<double>());
  std::ifstream in(dir / "calibrated_roofline.svg");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("CALIBRATION"), std::string::npos);
}

TEST(ClusterCli, ConstantsNameTheirSourceAndOverridesAreGiven) {
  const fs::path cfg = scratch("power.yaml");
  std::ofstream(cfg) << "cores: {power: 50mW}\n";
  CliRun r = run("cluster constants --config " + cfg.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cores.depthwise_mac_per_cycle    1.142"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CALIBRATED"), std::string::npos);
  EXPECT_NE(r.out.find("cores.power                      50mW                   given"),
            std::string::npos)
      << r.out;
}

}  // namespace
