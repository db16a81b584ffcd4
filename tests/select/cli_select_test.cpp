// `hetcim analog select` as a user meets it: a tiny model trained by `hetcim train`, a two-chip
// pool, the printed/JSON figures checked against formulas recomputed here, byte-identical reruns,
// and user errors that name the culprit and leave no output file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "require_data.h"

namespace {

namespace fs = std::filesystem;

struct CliRun {
  int status;
  std::string out, err;
};

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("hetcim_select_cli_" + std::to_string(::getpid()));
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
  const int raw =
      std::system((std::string(HETCIM_BIN) + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

// P[Binomial(n, p) <= k], summed directly.
double binomial_cdf(int64_t k, int64_t n, double p) {
  long double sum = 0.0L;
  for (int64_t i = 0; i <= k; ++i)
    sum += std::exp(std::lgamma(n + 1.0L) - std::lgamma(i + 1.0L) - std::lgamma(n - i + 1.0L) +
                    i * std::log(static_cast<long double>(p)) +
                    (n - i) * std::log1p(-static_cast<long double>(p)));
  return static_cast<double>(sum);
}

const std::string kChips = std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml";

bool have_fashion_mnist() {
  return fs::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz");
}

TEST(CliSelect, TinyModelEndToEnd) {
  HETCIM_REQUIRE_DATA_OR_SKIP(have_fashion_mnist(), "dataset-fashion-mnist");
  const std::string model = scratch("tiny.onnx").string();
  CliRun r =
      run("train race-cnn --dataset fashion-mnist --epochs 2 --train-limit 3000 --batch-size 64 "
          "--test-limit 256 --seed 5 "
          "--quiet --out " +
          model);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json1 = scratch("select1.json").string(),
                    json2 = scratch("select2.json").string();
  const std::string args =
      "analog select " + model + " --chips " + kChips +
      " --pool A0,A5 --limit 1600 --hardware 300 --policy 500 --certificate 500 --test 300 "
      "--split-seed 3 --seed 11 --read-seed 4 --json ";
  r = run(args + json1);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("certificate:"), std::string::npos) << r.out;
  ASSERT_EQ(run(args + json2).status, 0);
  // Same seeds, same results: identical bytes but for the provenance, which names this run (its
  // command line holds the output path; its date is the clock unless SOURCE_DATE_EPOCH is set).
  {
    nlohmann::json a = nlohmann::json::parse(slurp(json1)), b = nlohmann::json::parse(slurp(json2));
    EXPECT_EQ(a["provenance"]["facts"]["seeds"], "split 3, chips 11..12, read noise 4..5");
    EXPECT_NE(a["provenance"]["facts"]["source"].get<std::string>().find("simulated chips"),
              std::string::npos);
    a.erase("provenance");
    b.erase("provenance");
    EXPECT_EQ(a.dump(1), b.dump(1));
  }

  const nlohmann::json j = nlohmann::json::parse(slurp(json1));
  EXPECT_EQ(j["rows"], 1600);
  const auto& accs = j["accelerators"];
  ASSERT_EQ(accs.size(), 2u);
  EXPECT_EQ(accs[0]["name"], "A0");
  EXPECT_EQ(accs[0]["chip_seed"], 11);
  EXPECT_EQ(accs[1]["chip_seed"], 12);  // distinct chip per pool member
  EXPECT_EQ(accs[1]["read_seed"], 5);
  // Eq. (9) recomputed from the policy coverage and Table I's E plus C = 0.12 uJ.
  const double e[2] = {0.7, 1.2};
  double best_u = 0.0;
  std::string best;
  for (size_t i = 0; i < 2; ++i) {
    const auto& pol = accs[i]["fit"]["policy"];
    EXPECT_EQ(pol["rows"], 500);
    const double cov = pol["accepted"].get<double>() / 500.0;
    EXPECT_NEAR(pol["coverage"].get<double>(), cov, 1e-12);
    EXPECT_NEAR(accs[i]["utility_per_uJ"].get<double>(), cov / (e[i] + 0.12), 1e-9);
    if (accs[i]["fit"]["feasible"]) {
      EXPECT_LE(accs[i]["fit"]["upper_bound"].get<double>(), 0.08);
    } else {
      EXPECT_EQ(pol["accepted"], 0);
    }
    if (cov / (e[i] + 0.12) > best_u) {
      best_u = cov / (e[i] + 0.12);
      best = accs[i]["name"];
    }
  }
  // Always-on ensemble of A0 and A5 with 10 classes: 0.7 + 1.2 + 2 x (0.12 + 0.003 + 10 x 0.0002).
  EXPECT_NEAR(j["energy_uJ"]["ensemble"].get<double>(), 2.15, 1e-9);
  const auto& c = j["certificate"];
  EXPECT_EQ(c["split"]["rows"], 500);
  const int64_t n = c["split"]["accepted"], errs = c["split"]["errors"];
  if (best.empty()) {
    EXPECT_TRUE(j["selected"].is_null());
    EXPECT_EQ(n, 0);
  } else {
    EXPECT_EQ(j["selected"], best);
    const double act = (best == "A0" ? 0.7 : 1.2) + 0.125;
    EXPECT_NEAR(j["energy_uJ"]["selected_activation"].get<double>(), act, 1e-9);
    EXPECT_NEAR(j["energy_uJ"]["selective"].get<double>(), act + (1.0 - n / 500.0) * 4.0, 1e-9);
  }
  // The certificate's bound solves P[Binomial(n, U) <= e] = 0.05 (U = 1 when nothing or all is
  // wrong).
  const double u = c["upper_bound"];
  if (n > 0 && errs < n) {
    EXPECT_NEAR(binomial_cdf(errs, n, u), 0.05, 1e-9);
  } else {
    EXPECT_EQ(u, 1.0);
  }
  EXPECT_EQ(c["certified"].get<bool>(), u <= 0.10);
  // A trained model beats chance on the test split.
  EXPECT_GT(j["test"]["digital_accuracy"].get<double>(), 0.5);

  // Splits that do not fit the rows: a user error naming the sizes, and no JSON written.
  const std::string json3 = scratch("select3.json").string();
  r = run("analog select " + model + " --chips " + kChips +
          " --pool A0 --limit 1000 --hardware 300 --policy 500 --certificate 500 --test 0 --json " +
          json3);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("the data has only 1000"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json3));
  fs::remove_all(scratch("").parent_path());
}

TEST(CliSelect, ProfilesWithoutEnergyAndUnknownNamesAreUserErrors) {
  // The pool is checked before the model is read: any existing file serves as the model here.
  CliRun r = run("analog select " + kChips + " --chips " + kChips);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'pcm_ima' has no 'energy'"), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0,A9");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no profile 'A9'"), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0 --fallback-energy 4");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--fallback-energy"), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0 --score margin");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown confidence score 'margin'"), std::string::npos) << r.err;
}

}  // namespace
