// The shipped example inputs (examples/) work with the commands the README shows, and mean what
// their comments say: cim.yaml is seed 000's ARM preset written out, cluster.yaml is the seed001
// preset with a 64-bit sequential IMA, host_resnet18.csv is a measured ResNet-18 profile whose
// operators are the 38 of the paper's Table I. Also: the example study and the ARM CALIBRATION
// drawn by `reproduce` with their labels.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

const std::string kRoot = HETCIM_SOURCE_DIR;

int run(const std::string& args, std::string* log = nullptr) {
  const std::string cmd = std::string(HETCIM_BIN) + " " + args + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int raw = ::pclose(pipe);
  if (log) *log = out;
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("hetcim_examples_" + std::to_string(::getpid()) + "_" + name);
}

TEST(Examples, HardwareYamlIsTheArmPresetWrittenOut) {
  const fs::path a = scratch("hw.json"), b = scratch("preset.json");
  std::string log;
  ASSERT_EQ(
      run("partition resnet18 --hw " + kRoot + "/examples/cim.yaml --json " + a.string(), &log), 0)
      << log;
  ASSERT_EQ(run("partition resnet18 --preset seed000-arm --crossbars 100 --t-mvm 50ns --json " +
                    b.string(),
                &log),
            0)
      << log;
  const auto ja = read_json(a), jb = read_json(b);
  EXPECT_DOUBLE_EQ(ja["latency_s"].get<double>(), jb["latency_s"].get<double>());
  EXPECT_DOUBLE_EQ(ja["cpu_only_s"].get<double>(), jb["cpu_only_s"].get<double>());
  EXPECT_EQ(ja["crossbar_budget"], 100);
  EXPECT_EQ(ja["energy_j"].dump(), jb["energy_j"].dump());  // the preset's energy defaults
  fs::remove(a);
  fs::remove(b);
}

// The Gantt chart of `partition --gantt` carries a legend, names the host source, labels the
// operators that fit inside their bars, and ticks its time axis at a round step inside the picture.
TEST(Examples, GanttHasALegendAndReadableLabels) {
  const fs::path svg = scratch("gantt.svg");
  std::string log;
  ASSERT_EQ(
      run("partition resnet18 --hw " + kRoot + "/examples/cim.yaml --gantt " + svg.string(), &log),
      0)
      << log;
  std::ifstream in(svg);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  for (const char* text :
       {">host operator<", ">CIM operator<", ">bus transfer<", "host modelled by arm-cortex-a72",
        ">layer4.1.conv2<", ">5 ms<", ">25 ms<"})
    EXPECT_NE(s.find(text), std::string::npos) << text;
  // Its 28.41 ms schedule (the latency in the title) is ticked at a round step, 0 to 25 ms by 5;
  // no tick lies past the axis end.
  EXPECT_NE(s.find("latency 28.41 ms"), std::string::npos);
  EXPECT_EQ(s.find(">30 ms<"), std::string::npos);
  fs::remove(svg);
}

TEST(Examples, MeasuredHostProfileDrivesThePartition) {
  const std::string profile = kRoot + "/examples/host_resnet18.csv";
  // The profile's operator medians, summed by hand: the CPU-only latency of the partition.
  std::ifstream in(profile);
  std::string line;
  double sum = 0;
  int ops = 0;
  bool rows = false;
  while (std::getline(in, line)) {
    if (line.rfind("name,", 0) == 0) {
      rows = true;
      continue;
    }
    if (!rows || line.empty() || line[0] == '#') continue;
    std::stringstream ss(line);
    std::string f;
    for (int i = 0; i < 4 && std::getline(ss, f, ','); ++i) {
    }
    sum += std::stod(f);  // median_s, the 4th column
    ++ops;
  }
  EXPECT_EQ(ops, 38);  // seed 000 Table I: ResNet-18 has 38 operators
  const fs::path out = scratch("measured.json");
  std::string log;
  ASSERT_EQ(run("partition resnet18 --hw " + kRoot + "/examples/cim.yaml --host " + profile +
                    " --json " + out.string(),
                &log),
            0)
      << log;
  const auto j = read_json(out);
  EXPECT_EQ(j["host"].get<std::string>().rfind("measured on ", 0), 0u) << j["host"];
  EXPECT_EQ(j["host_ops"].get<int>() + j["cim_ops"].get<int>(), 38);
  EXPECT_NEAR(j["cpu_only_s"].get<double>(), sum, 1e-9 * sum);
  fs::remove(out);
}

TEST(Examples, ClusterYamlIsThePresetWithA64BitSequentialIma) {
  const fs::path a = scratch("cluster.json"), b = scratch("flags.json");
  std::string log;
  ASSERT_EQ(
      run("cluster bottleneck --config " + kRoot + "/examples/cluster.yaml --json " + a.string(),
          &log),
      0)
      << log;
  ASSERT_EQ(
      run("cluster bottleneck --bus-width 64bit --execution sequential --json " + b.string(), &log),
      0)
      << log;
  const auto ja = read_json(a), jb = read_json(b);
  ASSERT_EQ(ja["mappings"].size(), 5u);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(ja["mappings"][i]["cycles"], jb["mappings"][i]["cycles"]) << i;
  // The cores do not use the IMA: the same cycles as the preset's (3,596,512 by hand in
  // tests/cluster/bottleneck_mapping_test.cpp).
  EXPECT_EQ(ja["mappings"][0]["cycles"], 3596512);
  fs::remove(a);
  fs::remove(b);
  // And seed 001's reproduction takes it.
  const fs::path out = scratch("repro001");
  ASSERT_EQ(run("reproduce seed001 --quick --cluster-config " + kRoot +
                    "/examples/cluster.yaml --out " + out.string(),
                &log),
            0)
      << log;
  EXPECT_NE(
      read_json(out / "reproduce.json")["provenance"]["facts"]["model"].get<std::string>().find(
          "examples/cluster.yaml"),
      std::string::npos);
  fs::remove_all(out);
}

TEST(Examples, ChipsAndPaperDataFeedSeed002) {
  const fs::path out = scratch("repro002");
  std::string log;
  ASSERT_EQ(run("reproduce seed002 --chips " + kRoot + "/data/chips.yaml --paper-data " + kRoot +
                    "/data/paper --out " + out.string(),
                &log),
            0)
      << log;
  const auto j = read_json(out / "reproduce.json");
  size_t equal = 0;
  for (const auto& d : j["differences"])
    if (d["figure"] == "table1") {
      EXPECT_NEAR(d["ours"].get<double>(), d["paper_value"].get<double>(), 1e-9) << d["cell"];
      ++equal;
    }
  EXPECT_EQ(equal, 30u);  // 6 profiles x 5 fields of Table I
  fs::remove_all(out);
}

// The example study (examples/seed002-study: 3 models of 2 epochs on 6000 images) is drawn with
// what it is on every table and figure: formats/study_records.h's label, computed from its
// options against the paper's protocol; its energy rows are the paper's formula at its own test
// coverages, checked here by hand: 0.825 + (1 - phi_i) x 4 uJ per run, then the mean.
TEST(Examples, TheExampleStudyIsLabelledAndItsEnergyIsTheFormulaAtItsCoverage) {
  const fs::path out = scratch("repro002study");
  std::string log;
  ASSERT_EQ(
      run("reproduce seed002 --study " + kRoot + "/examples/seed002-study --out " + out.string(),
          &log),
      0)
      << log;
  const auto j = read_json(out / "reproduce.json");
  const std::string label =
      "3 models of another protocol than the paper's (fashion-mnist, model seeds 1, 2, 3): "
      "epochs 2 (paper 30)";
  EXPECT_NE(j["provenance"]["facts"]["study record"].get<std::string>().find(label),
            std::string::npos)
      << j["provenance"]["facts"].dump();
  size_t figures = 0;
  for (const auto& f : j["figures"]) {
    const std::string caption = f["caption"].get<std::string>();
    EXPECT_NE(caption.find(label), std::string::npos) << f["name"] << ": " << caption;
    ++figures;
  }
  EXPECT_EQ(figures, 4U);  // Fig. 2 a-c and the energy figure
  size_t table2 = 0;
  for (const auto& d : j["differences"])
    if (d["figure"] == "table2") {
      EXPECT_NE(d["reason"].get<std::string>().find(label), std::string::npos) << d.dump();
      ++table2;
    }
  EXPECT_GT(table2, 0U);
  // The energy rows from the study's own test coverages, by hand.
  const auto study = read_json(fs::path(kRoot) / "examples/seed002-study/study.json");
  double selective = 0;
  size_t n = 0;
  for (const auto& r : study["base"]["runs"]) {
    selective += 0.825 + (1 - r["test_coverage"].get<double>()) * 4.0;
    ++n;
  }
  ASSERT_EQ(n, 3U);
  selective /= static_cast<double>(n);
  bool found = false;
  for (const auto& d : j["differences"])
    if (d["figure"] == "energy" &&
        d["cell"].get<std::string>().rfind("selective system at 4 uJ", 0) == 0) {
      EXPECT_NEAR(d["ours"].get<double>(), selective, 1e-9) << d.dump();
      found = true;
    }
  EXPECT_TRUE(found);
  fs::remove_all(out);
}

// `reproduce seed000 --calibrate` on the quick grid with the ARM host alone: the fitted host
// (cost/host_fit.h) is drawn as its own panel, and every figure, every compared row of it and the
// provenance say CALIBRATION; the values it was fitted to are told from those it was not.
TEST(ReproduceCalibration, EveryFigureAndRowOfTheFittedHostSaysCalibration) {
  const fs::path out = scratch("repro000cal");
  std::string log;
  ASSERT_EQ(
      run("reproduce seed000 --quick --calibrate --hosts arm --no-cache --out " + out.string(),
          &log),
      0)
      << log;
  const auto j = read_json(out / "reproduce.json");
  EXPECT_EQ(j["provenance"]["facts"]["calibration"].get<std::string>().rfind(
                "host arm-calibrated: CALIBRATION of arm-cortex-a72 to published figures", 0),
            0U)
      << j["provenance"]["facts"].dump();
  for (const auto& f : j["figures"]) {
    const std::string name = f["name"].get<std::string>();
    if (name == "fig3" || name == "fig4" || name == "fig5") {
      EXPECT_NE(f["caption"].get<std::string>().find("is a CALIBRATION"), std::string::npos)
          << name;
    }
  }
  size_t fitted = 0, not_fitted = 0, latency = 0;
  for (const auto& d : j["differences"]) {
    const std::string cell = d["cell"].get<std::string>();
    if (cell.rfind("arm-calibrated, ", 0) != 0) continue;
    const std::string reason = d["reason"].get<std::string>();
    EXPECT_EQ(reason.rfind("CALIBRATION: ", 0), 0U) << cell << ": " << reason;
    fitted += reason.find("a value the host model was fitted to") != std::string::npos;
    not_fitted += reason.find("not to") != std::string::npos;
    latency += cell.find("latency (ms)") != std::string::npos;
  }
  EXPECT_GT(fitted, 0U);
  EXPECT_GT(not_fitted, 0U);  // Fig. 5's operator counts were not fitted
  EXPECT_EQ(latency, 2U);     // Sec. V-B's 270 ms and 127 ms, both on the quick grid
  fs::remove_all(out);
}

TEST(Examples, BadPaperDataIsAUserErrorAndWritesNothing) {
  const fs::path dir = scratch("badpaper"), out = scratch("badout");
  fs::create_directories(dir);
  // Every value of Fig. 7 but none of the tables: the check before any figure is drawn fails.
  std::ofstream(dir / "seed001.yaml")
      << "paper: P\nseed: '001'\nvalues:\n  ima_peak_pipelined_250mhz_128bit: {value: 958, "
         "unit: GOPS, source: s}\n  ima_peak_tops: {value: 1.008, unit: TOPS, source: s}\n";
  std::string log;
  EXPECT_EQ(run("reproduce seed001 --paper-data " + dir.string() + " --out " + out.string(), &log),
            1)
      << log;
  EXPECT_NE(log.find("seed001.yaml: table 'fig7_memory_bound' is missing"), std::string::npos)
      << log;
  EXPECT_FALSE(fs::exists(out / "report.html"));
  EXPECT_FALSE(fs::exists(out / "figures"));
  fs::remove_all(dir);
  fs::remove_all(out);
}

}  // namespace
