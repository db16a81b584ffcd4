// The hetcim binary as a user meets it: exit codes, messages that name the culprit, no partial
// output files.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status;
  std::string out, err;
};

// BIN ARGS run under a command prefix (such as "env VAR=VALUE").
CliRun run_env(const std::string& prefix, const std::string& args,
               const std::string& bin = HETCIM_BIN) {
  const fs::path dir = fs::temp_directory_path() / ("hetcim_cli_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "out.txt").string(), err = (dir / "err.txt").string();
  const std::string cmd =
      prefix + (prefix.empty() ? "" : " ") + bin + " " + args + " >" + out + " 2>" + err;
  const int raw = std::system(cmd.c_str());
  auto slurp = [](const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

CliRun run(const std::string& args) {
  return run_env("", args);
}

fs::path scratch(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("hetcim_cli_files_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

TEST(Cli, InspectPrintsTheTotals) {
  const CliRun r = run("inspect resnet18");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("operators N                        38"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("crossbars (eq. 1)                  201"), std::string::npos);
}

TEST(Cli, VersionNamesTheCommitAndTheLibraries) {
  const CliRun r = run("--version");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("hetcim ", 0), 0u) << r.out;
  for (const char* lib : {"(commit ", "\n  oneDNN 2.", "\n  CBC 2.", "\n  ONNX 1."})
    EXPECT_NE(r.out.find(lib), std::string::npos) << lib << " in " << r.out;
}

// An old spelling (cli/options.h hidden_alias) is not in --help, and with its new spelling on the
// same command line it is a user error naming both (before: "--chip-seed excludes " with the
// hidden name blank, in the help and in the error).
TEST(Cli, HiddenAliasIsRefusedBesideItsNewSpelling) {
  const CliRun help = run("partition --help");
  EXPECT_EQ(help.status, 0);
  EXPECT_EQ(help.out.find("Excludes"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("--seed "), std::string::npos) << help.out;
  const CliRun both = run("partition resnet18 --seed 3 --chip-seed 3 --quiet");
  EXPECT_EQ(both.status, 1);
  EXPECT_EQ(both.err,
            "hetcim: error: --seed is the old spelling of --chip-seed; give only --chip-seed\n");
  EXPECT_EQ(run("partition resnet18 --seed 3 --quiet").status, 0);  // alone it still works
}

// `hetcim reproduce` takes its options from api::reproduce_fields (api/reproduce.h): a bad value
// gets the table's message (bounds known from the table: threads in [0, 1024], a positive time)
// before anything runs, and no output directory appears.
TEST(Cli, ReproduceOptionsAreTheApiTables) {
  const fs::path out = scratch("repro_bad");
  CliRun r = run("reproduce seed001 --threads 2000 --out " + out.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "hetcim: error: threads: expected a whole number in [0, 1024], got 2000\n");
  r = run("reproduce seed000 --milp-time-limit 0s --out " + out.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "hetcim: error: milp_time_limit: expected a positive time such as 50ns, got 0 s\n");
  r = run("reproduce seed001 --hosts '' --out " + out.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.rfind("hetcim: error: hosts: expected at least one host", 0), 0U) << r.err;
  EXPECT_FALSE(fs::exists(out));
  const CliRun help = run("reproduce --help");
  EXPECT_NE(help.out.find("--milp-time-limit TIME"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--threads INT=0"), std::string::npos) << help.out;
}

// util/omp_wait.h: `--version` names the spin-wait libgomp runs with, as libgomp's own
// OMP_DISPLAY_ENV listing (printed once, while it loads) shows it.
TEST(Cli, VersionNamesLibgompsSpinWait) {
  auto version = [](const std::string& env) {
    return run_env("env -u GOMP_SPINCOUNT -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose " + env,
                   "--version");
  };
  auto count = [](const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
  };
  const struct {
    std::string env, libgomp, named;
  } cases[] = {
      {"", "GOMP_SPINCOUNT = '300000'", "libgomp's default (GOMP_SPINCOUNT=300000)"},
      {"OMP_WAIT_POLICY=PASSIVE", "GOMP_SPINCOUNT = '0'", "OMP_WAIT_POLICY=PASSIVE (environment)"},
      {"GOMP_SPINCOUNT=12345", "GOMP_SPINCOUNT = '12345'", "GOMP_SPINCOUNT=12345 (environment)"},
  };
  for (const auto& c : cases) {
    const CliRun r = version(c.env);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(count(r.err, "OPENMP DISPLAY ENVIRONMENT BEGIN"), 1u) << r.err;
    EXPECT_EQ(count(r.err, c.libgomp), 1u) << c.env << ": " << r.err;
    EXPECT_NE(r.out.find("OpenMP spin-wait " + c.named), std::string::npos) << r.out;
  }
}

TEST(Cli, UnknownModelNamesTheZoo) {
  const CliRun r = run("inspect resnet19");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown model 'resnet19'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("resnet18"), std::string::npos);
}

TEST(Cli, MissingAndMalformedFilesAreUserErrors) {
  CliRun r = run("inspect /nonexistent/model.onnx");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.onnx"), std::string::npos) << r.err;

  const fs::path junk = scratch("junk.onnx");
  std::ofstream(junk) << "this is not a protobuf";
  r = run("inspect " + junk.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(junk.string()), std::string::npos) << r.err;
}

TEST(Cli, FailedRunLeavesNoOutputFile) {
  const fs::path json = scratch("never.json");
  fs::remove(json);
  const CliRun r = run("inspect resnet19 --json " + json.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(fs::exists(json));
  const CliRun bad_dir = run("inspect resnet18 --json /nonexistent/dir/x.json");
  EXPECT_EQ(bad_dir.status, 1);
  EXPECT_NE(bad_dir.err.find("does not exist"), std::string::npos) << bad_dir.err;
}

TEST(Cli, BadFlagsAreRejected) {
  EXPECT_NE(run("inspect resnet18 --precision int4").status, 0);
  const CliRun r = run("inspect resnet18 --dump-after nosuchstep");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown step 'nosuchstep'"), std::string::npos) << r.err;
  EXPECT_NE(run("inspect resnet18 --crossbar 0x256").status, 0);
}

TEST(Cli, ExportThenInspectGivesTheSameTable) {
  const fs::path onnx = scratch("yolov5n.onnx");
  CliRun r = run("export yolov5n --seed 5 --onnx " + onnx.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const CliRun zoo = run("inspect yolov5n --quiet --json " + scratch("a.json").string());
  const CliRun file =
      run("inspect " + onnx.string() + " --quiet --json " + scratch("b.json").string());
  ASSERT_EQ(zoo.status, 0) << zoo.err;
  ASSERT_EQ(file.status, 0) << file.err;
  auto ops_of = [](const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string s = ss.str();
    return s.substr(s.find("\"operators\""));  // everything but the model name
  };
  EXPECT_EQ(ops_of(scratch("a.json")), ops_of(scratch("b.json")));
}

}  // namespace

#include <nlohmann/json.hpp>

namespace {

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

TEST(Cli, PartitionExactAndPaperMilpAgreeOnResNet18) {
  const fs::path a = scratch("exact.json"), b = scratch("milp.json"), svg = scratch("gantt.svg");
  CliRun r = run("partition resnet18 --crossbars 100 --t-mvm 100ns --json " + a.string() +
                 " --gantt " + svg.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = run(
      "partition resnet18 --crossbars 100 --t-mvm 100ns --solver milp --time-limit 120s --json " +
      b.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json x = read_json(a), y = read_json(b);
  EXPECT_EQ(x["solver"]["status"], "optimal");
  ASSERT_EQ(y["solver"]["status"], "optimal");
  EXPECT_NEAR(x["latency_s"].get<double>(), y["latency_s"].get<double>(),
              1e-6 * x["latency_s"].get<double>());
  EXPECT_LE(x["crossbars_used"].get<int64_t>(), 100);
  EXPECT_GT(x["speedup"].get<double>(), 1.0);
  EXPECT_EQ(x["milp"]["paper_binaries"], 44);
  EXPECT_EQ(x["milp"]["paper_constraints"], 204);
  EXPECT_GT(fs::file_size(svg), 1000u);
}

TEST(Cli, PartitionOnASerialBusAgreesWithTheMilpAndListsTheBusOrder) {
  // A 1 GB/s bus makes transfers long enough to collide on ResNet-18.
  const fs::path hw = scratch("slow_bus.yaml"), a = scratch("serial_exact.json"),
                 b = scratch("serial_milp.json"), c = scratch("parallel.json");
  std::ofstream(hw) << "host: {model: ryzen9-3900x}\ncim: {crossbars: 100, t_mvm: 50ns}\n"
                       "bus: {bandwidth: 1GB/s}\n";
  CliRun r =
      run("partition resnet18 --hw " + hw.string() + " --bus-model serial --json " + a.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("serial (one transfer at a time)"), std::string::npos) << r.out;
  r = run("partition resnet18 --hw " + hw.string() + " --bus-model serial --solver milp --json " +
          b.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("partition resnet18 --hw " + hw.string() + " --json " + c.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json x = read_json(a), y = read_json(b), z = read_json(c);
  EXPECT_EQ(x["bus_model"], "serial");
  ASSERT_EQ(y["solver"]["status"], "optimal");
  EXPECT_NEAR(x["latency_s"].get<double>(), y["latency_s"].get<double>(),
              1e-6 * x["latency_s"].get<double>());
  // A resource can only slow the optimum down.
  EXPECT_GE(x["latency_s"].get<double>(), z["latency_s"].get<double>() * (1 - 1e-12));
  // The bus order lists every transfer once, and the transfers never overlap in that order.
  ASSERT_EQ(x["bus_order"].size(), x["transfers"].size());
  std::map<int, std::pair<double, double>> window;
  for (const auto& t : x["transfers"]) window[t["key"].get<int>()] = {t["start_s"], t["finish_s"]};
  double free_at = 0.0;
  for (const auto& k : x["bus_order"]) {
    const auto [s0, f0] = window.at(k.get<int>());
    EXPECT_GE(s0, free_at - 1e-12);
    free_at = f0;
  }
  EXPECT_TRUE(z["bus_order"].empty());
  r = run("partition resnet18 --bus-model shared");
  EXPECT_NE(r.status, 0);
  // The api's message (the one Python raises), not CLI11's.
  EXPECT_NE(r.err.find("bus_model: expected parallel or serial, got 'shared'"), std::string::npos)
      << r.err;
}

TEST(Cli, PartitionFullFrontHoldsTheSupportedFront) {
  const fs::path sup = scratch("front_sup.json"), full = scratch("front_full.json");
  const std::string base = "partition resnet18 --preset seed000-x86 --t-mvm 500ns --pareto ";
  CliRun r = run(base + sup.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = run(base + full.string() + " --front full");
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json s = read_json(sup), f = read_json(full);
  EXPECT_EQ(s["kind"], "supported");
  EXPECT_EQ(f["kind"], "full");
  EXPECT_TRUE(f["complete"].get<bool>());
  std::vector<nlohmann::json> hull;
  for (const auto& q : f["points"]) {
    EXPECT_EQ(q["weight_s_per_j"].is_null(), !q["supported"].get<bool>());
    if (q["supported"].get<bool>()) hull.push_back(q);
  }
  ASSERT_EQ(hull.size(), s["points"].size());
  for (size_t k = 0; k < hull.size(); ++k) {
    const double l = s["points"][k]["latency_s"], e = s["points"][k]["energy_j"]["total"];
    EXPECT_NEAR(hull[k]["latency_s"].get<double>(), l, 1e-9 * l);
    EXPECT_NEAR(hull[k]["energy_j"]["total"].get<double>(), e, 1e-9 * e);
  }
  r = run("partition resnet18 --front full");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--front"), std::string::npos) << r.err;
  r = run(base + full.string() + " --front hull");
  EXPECT_NE(r.status, 0);
}

TEST(Cli, PartitionLatencyEnergyFrontAndWeightedSolvesAgree) {
  const fs::path front = scratch("front.json"), svg = scratch("front.svg"),
                 a = scratch("w_exact.json"), b = scratch("w_milp.json");
  CliRun r = run("partition resnet18 --preset seed000-x86 --t-mvm 500ns --pareto " +
                 front.string() + " --pareto-svg " + svg.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json f = read_json(front);
  ASSERT_GE(f["points"].size(), 2u);
  EXPECT_TRUE(f["complete"].get<bool>());
  for (size_t k = 1; k < f["points"].size(); ++k) {
    EXPECT_GT(f["points"][k]["latency_s"].get<double>(),
              f["points"][k - 1]["latency_s"].get<double>());
    EXPECT_LT(f["points"][k]["energy_j"]["total"].get<double>(),
              f["points"][k - 1]["energy_j"]["total"].get<double>());
  }
  EXPECT_GT(fs::file_size(svg), 500u);
  // The fastest point is the latency optimum.
  r = run("partition resnet18 --preset seed000-x86 --t-mvm 500ns --json " + a.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(read_json(a)["latency_s"].get<double>(), f["points"][0]["latency_s"].get<double>(),
              1e-12);
  // A weight between two neighbours' slopes picks one of the front's points, with either solver.
  const auto& p0 = f["points"][0];
  const auto& p1 = f["points"][1];
  const double slope =
      (p1["latency_s"].get<double>() - p0["latency_s"].get<double>()) /
      (p0["energy_j"]["total"].get<double>() - p1["energy_j"]["total"].get<double>());
  const std::string w = std::to_string(slope * 1.001);
  r = run("partition resnet18 --preset seed000-x86 --t-mvm 500ns --energy-weight " + w +
          " --json " + a.string());
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("partition resnet18 --preset seed000-x86 --t-mvm 500ns --energy-weight " + w +
          " --solver milp --json " + b.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json x = read_json(a), y = read_json(b);
  EXPECT_NEAR(x["latency_s"].get<double>(), p1["latency_s"].get<double>(), 1e-9);
  EXPECT_NEAR(x["energy_j"]["total"].get<double>(), p1["energy_j"]["total"].get<double>(), 1e-9);
  const double wx = std::stod(w);
  EXPECT_NEAR(x["latency_s"].get<double>() + wx * x["energy_j"]["total"].get<double>(),
              y["latency_s"].get<double>() + wx * y["energy_j"]["total"].get<double>(), 1e-6);
  r = run("partition resnet18 --energy-weight -1");
  EXPECT_NE(r.status, 0);
}

TEST(Cli, PartitionReplaysAFileAndRejectsInfeasibleOnes) {
  const fs::path solved = scratch("solved.json"), replayed = scratch("replayed.json"),
                 greedy = scratch("greedy.json"), out = scratch("replay_out.json");
  CliRun r = run("partition resnet18 --bus-model serial --json " + solved.string());
  ASSERT_EQ(r.status, 0) << r.err;
  // The solver's own file replays to the same latency, with its orders or without them.
  r = run("partition resnet18 --bus-model serial --replay " + solved.string() + " --json " +
          replayed.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("no optimality claim"), std::string::npos) << r.out;
  nlohmann::json x = read_json(solved);
  EXPECT_NEAR(read_json(replayed)["latency_s"].get<double>(), x["latency_s"].get<double>(), 1e-12);
  EXPECT_EQ(read_json(replayed)["solver"]["status"], "replayed");
  // Every offloadable operator on the accelerator: far over 100 crossbars.
  for (auto& op : x["operators"]) op["mode"] = op["t_acc_s"].is_null() ? -1 : 0;
  x.erase("host_order");
  std::ofstream(greedy) << x.dump();
  r = run("partition resnet18 --bus-model serial --replay " + greedy.string() + " --json " +
          out.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("budget"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(greedy.string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  // The same file fits 1000 crossbars.
  r = run("partition resnet18 --bus-model serial --crossbars 1000 --replay " + greedy.string());
  EXPECT_EQ(r.status, 0) << r.err;
  x["operators"][0]["name"] = "no_such_op";
  std::ofstream(greedy) << x.dump();
  r = run("partition resnet18 --replay " + greedy.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'no_such_op'"), std::string::npos) << r.err;
}

TEST(Cli, PartitionRejectsBadHardwareFlags) {
  CliRun r = run("partition resnet18 --t-mvm 50");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("t_mvm: cannot read '50' as a time"), std::string::npos) << r.err;
  r = run("partition resnet18 --host pentium");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("host: expected arm, x86"), std::string::npos) << r.err;
  r = run("partition resnet18 --preset seed999");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("preset: unknown hardware preset 'seed999'"), std::string::npos) << r.err;
  r = run("partition resnet18 --crossbars=-3");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("crossbars: expected a whole number >= 1, got -3"), std::string::npos)
      << r.err;
  const fs::path hw = scratch("bad.yaml");
  std::ofstream(hw) << "cim: {t_mvm: 50ns, crossbarz: 3}\n";
  r = run("partition resnet18 --hw " + hw.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown field 'cim.crossbarz'"), std::string::npos) << r.err;
}

}  // namespace

namespace {

TEST(Cli, PartitionOnThisMachineUsesAMeasuredProfile) {
  const fs::path json = scratch("this.json");
  const CliRun r = run("partition mobilenetv2 --host this --crossbars 50 --json " + json.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = read_json(json);
  // Measured here, and named so: not the preset's host.
  EXPECT_EQ(j["host"].get<std::string>().rfind("measured on ", 0), 0u) << j["host"];
  EXPECT_NE(j["host"].get<std::string>().find("in this run"), std::string::npos) << j["host"];
  EXPECT_EQ(j["hardware"].get<std::string>().rfind("this machine as host", 0), 0u) << j["hardware"];
  EXPECT_EQ(r.out.find("partition of mobilenetv2 on seed000-arm\n"), std::string::npos) << r.out;
  EXPECT_NE(j["provenance"]["facts"]["seeds"].get<std::string>().find("input seed 7"),
            std::string::npos);
  EXPECT_EQ(j["solver"]["status"], "optimal");
  // Every operator of the int8 graph got a measured, positive host latency.
  ASSERT_EQ(j["operators"].size(), 71u);
  for (const auto& op : j["operators"]) EXPECT_GT(op["t_host_s"].get<double>(), 0.0) << op["name"];
}

// --quiet silences progress only (README; issue 36: `partition --quiet` printed nothing at all):
// the result is still printed on stdout, and stderr stays empty.
TEST(Cli, QuietSilencesProgressOnly) {
  const CliRun r = run("partition resnet18 --crossbars 25 --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("partitioned latency"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("speedup"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  const CliRun front = run("partition resnet18 --t-mvm 500ns --pareto " +
                           scratch("quiet_front.json").string() + " --quiet");
  ASSERT_EQ(front.status, 0) << front.err;
  EXPECT_FALSE(front.out.empty());
  EXPECT_EQ(front.err, "");
}

// The shipped examples/host_resnet18.csv is a noisy profile: its operator medians sum to about
// 4.26 ms against a 15 ms whole-model median (issue 36). `partition --host` uses it with a warning
// that gives both numbers, summed from the file's operators here independently; the same profile
// with a whole-model median equal to that sum draws no warning.
TEST(Cli, PartitionWarnsOfANoisyHostProfile) {
  const std::string src = std::string(HETCIM_SOURCE_DIR) + "/examples/host_resnet18.csv";
  std::ifstream in(src);
  std::string text, line;
  double sum = 0, model_median = 0;
  int ops = 0;
  bool header = false;
  while (std::getline(in, line)) {
    if (line.rfind("# model_median_s: ", 0) == 0) model_median = std::stod(line.substr(18));
    if (line.rfind("name,", 0) == 0) {
      header = true;
    } else if (header && !line.empty()) {
      std::stringstream row(line);
      std::string cell;
      for (int c = 0; c < 4; ++c) std::getline(row, cell, ',');
      sum += std::stod(cell);  // median_s, the fourth column
      ++ops;
    }
    text += line + "\n";
  }
  ASSERT_GT(ops, 30);
  ASSERT_NEAR(sum, 4.26e-3, 0.01e-3);
  ASSERT_NEAR(model_median, 15.0e-3, 0.01e-3);
  CliRun r = run("partition resnet18 --host " + src + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("hetcim: warning: " + src + ": its " + std::to_string(ops) +
                       " operators sum to 4.26"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("whole-model median of 15"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-71.6 %"), std::string::npos) << r.err;  // 4.2595 / 15.0009 - 1
  EXPECT_NE(r.out.find("partitioned latency"), std::string::npos) << r.out;
  // Steady: the whole-model median and p90 set to the operators' sum.
  char value[64];
  std::snprintf(value, sizeof value, "%.9g", sum);
  std::string steady = text;
  for (const char* key : {"# model_median_s: ", "# model_p90_s: ", "# model_min_s: "}) {
    const size_t at = steady.find(key) + std::string(key).size();
    steady.replace(at, steady.find('\n', at) - at, value);
  }
  const std::string path = scratch("steady_host.csv").string();
  std::ofstream(path) << steady;
  r = run("partition resnet18 --host " + path + " --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

// Issue 36: `hetcim analog --help` took 1-2 s, exec'ing hetcim-torch (which loads libtorch) to
// print help. hetcim declares train's and analog's flags itself (cli/torch_flags.h): a hard link
// of hetcim alone in a directory, without hetcim-torch beside it, answers every help and a bad
// flag; only a run that needs libtorch says it cannot start hetcim-torch.
TEST(Cli, AnalogHelpIsAnsweredWithoutHetcimTorch) {
  const fs::path dir = fs::path(HETCIM_BIN).parent_path().parent_path() /
                       ("cli_alone_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::error_code ec;
  fs::create_hard_link(HETCIM_BIN, dir / "hetcim", ec);
  if (ec) {
    fs::remove_all(dir);
    GTEST_SKIP() << "no hard link of " << HETCIM_BIN << ": " << ec.message();
  }
  const std::string alone = (dir / "hetcim").string();
  const CliRun help = run_env("", "analog --help", alone);
  EXPECT_EQ(help.status, 0) << help.err;
  for (const char* sub : {"eval", "audit", "run", "select", "study", "serve", "drift"})
    EXPECT_TRUE(std::regex_search(help.out, std::regex(std::string("\\n +") + sub + "\\b")))
        << sub << " missing from:\n"
        << help.out;
  EXPECT_NE(help.out.find("RACE-AIMC"), std::string::npos) << help.out;
  const CliRun select = run_env("", "analog select --help", alone);
  EXPECT_EQ(select.status, 0) << select.err;
  EXPECT_NE(select.out.find("--policy-out"), std::string::npos) << select.out;
  EXPECT_NE(select.out.find("--chips"), std::string::npos) << select.out;
  const CliRun train = run_env("", "train --help", alone);
  EXPECT_EQ(train.status, 0) << train.err;
  EXPECT_NE(train.out.find("--hardware-aware"), std::string::npos) << train.out;
  const std::string model = (dir / "model.onnx").string();
  std::ofstream(model) << "not read";
  const CliRun bad = run_env(
      "", "analog drift " + model + " --out " + (dir / "d").string() + " --no-such-flag", alone);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("--no-such-flag"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("hetcim-torch"), std::string::npos) << bad.err;
  // A run needs libtorch: the one message naming the program it could not start.
  const CliRun eval = run_env("", "analog eval " + model + " --digital", alone);
  EXPECT_EQ(eval.status, 1);
  EXPECT_NE(eval.err.find("hetcim analog eval: cannot start " + (dir / "hetcim-torch").string()),
            std::string::npos)
      << eval.err;
  fs::remove_all(dir);
}

// Issue 36: the provenance footnote is in a figure's metadata, drawn on the image only when
// asked: every command that draws figures takes the one flag (cli/options.h figure_flags).
TEST(Cli, EveryFigureCommandTakesProvenanceOnImage) {
  for (const char* cmd : {"reproduce", "dse", "partition", "cluster roofline", "cluster bottleneck",
                          "cluster calibrate", "analog study", "analog drift"}) {
    const CliRun help = run(std::string(cmd) + " --help");
    EXPECT_EQ(help.status, 0) << cmd << ": " << help.err;
    EXPECT_NE(help.out.find("--provenance-on-image"), std::string::npos) << cmd;
  }
}

// Issue 36: --help names the papers and the machines, not the project's first names for them
// ("seed 000", seed001-cluster), which collided with --seed. A first name may appear only where a
// command says it still works ("first named ...", "... still work"); the defaults are the
// machines' names, and the old names are accepted, not listed. (Shipped file names such as
// data/paper/seed002.yaml keep theirs.)
TEST(Cli, HelpNamesThePapersNotTheSeeds) {
  const std::regex first_name("[Ss]eed[ -]?00[0-2](?!\\.yaml)");
  for (const char* cmd : {"",
                          "models",
                          "inspect",
                          "export",
                          "run",
                          "profile",
                          "partition",
                          "execute",
                          "sensitivity",
                          "dse",
                          "reproduce",
                          "train",
                          "train race-cnn",
                          "cluster",
                          "cluster roofline",
                          "cluster bottleneck",
                          "cluster constants",
                          "cluster calibrate",
                          "analog",
                          "analog eval",
                          "analog audit",
                          "analog run",
                          "analog select",
                          "analog study",
                          "analog serve",
                          "analog drift"}) {
    const CliRun help = run(std::string(cmd) + " --help");
    ASSERT_EQ(help.status, 0) << cmd << ": " << help.err;
    std::istringstream lines(help.out);
    for (std::string line; std::getline(lines, line);) {
      if (!std::regex_search(line, first_name)) continue;
      EXPECT_TRUE(line.find("first named") != std::string::npos ||
                  line.find("still work") != std::string::npos)
          << "hetcim " << cmd << " --help: " << line;
    }
  }
  EXPECT_NE(run("partition --help").out.find("--preset TEXT=cortex-a72-rram"), std::string::npos);
  EXPECT_NE(run("cluster roofline --help").out.find("{pulp-pcm-cluster}=pulp-pcm-cluster"),
            std::string::npos);
  const CliRun old = run("cluster constants --preset seed001");  // the first name still works
  EXPECT_EQ(old.status, 0) << old.err;
  EXPECT_NE(old.out.find("the pulp-pcm-cluster preset"), std::string::npos) << old.out;
  EXPECT_NE(run("reproduce --help").out.find("{klein2026,garofalo2022,yousuf2026,all}"),
            std::string::npos);
  const CliRun bad = run("reproduce seed003 --out " + scratch("r003").string());
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("'seed003' is not a paper: expected klein2026, garofalo2022, yousuf2026 "
                         "or all"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(fs::exists(scratch("r003")));
}

}  // namespace
