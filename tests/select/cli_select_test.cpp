// `hetcim analog select` as a user meets it: a tiny model trained by `hetcim train`, a two-chip
// pool, the printed/JSON figures checked against formulas recomputed here, byte-identical reruns,
// and user errors that name the culprit and leave no output file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
          "--eval-limit 256 --seed 5 "
          "--quiet --out " +
          model);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string json1 = scratch("select1.json").string(),
                    json2 = scratch("select2.json").string();
  const std::string args =
      "analog select " + model + " --chips " + kChips +
      " --pool A0,A5 --calibration test --limit 1600 --hardware 300 --policy 500 --certificate "
      "500 --test 300 --split-seed 3 --seed 11 --read-seed 4 --quiet --json ";
  r = run(args + json1);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("certificate:"), std::string::npos) << r.out;
  ASSERT_EQ(run(args + json2).status, 0);
  // Same seeds, same results: identical bytes but for the provenance, which names this run (its
  // command line holds the output path; its date is the clock unless SOURCE_DATE_EPOCH is set).
  {
    nlohmann::json a = nlohmann::json::parse(slurp(json1)), b = nlohmann::json::parse(slurp(json2));
    // Chip seeds follow the unit names (seed 002's pool), so the provenance lists them per unit,
    // the same numbers as each accelerator's row.
    const std::string seeds = a["provenance"]["facts"]["seeds"];
    EXPECT_EQ(seeds.rfind("split 3; chip/read seeds per unit: ", 0), 0u) << seeds;
    for (const auto& acc : a["accelerators"])
      EXPECT_NE(seeds.find(acc["name"].get<std::string>() + " " +
                           std::to_string(acc["chip_seed"].get<uint64_t>()) + "/" +
                           std::to_string(acc["read_seed"].get<uint64_t>())),
                std::string::npos)
          << seeds;
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
  // Distinct chip per unit, seeded by the unit's name (not its pool position).
  EXPECT_NE(accs[0]["chip_seed"], accs[1]["chip_seed"]);
  EXPECT_NE(accs[0]["read_seed"], accs[1]["read_seed"]);
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
    // Beside the paper's definition (test-split coverage), the certificate-coverage variant.
    EXPECT_NEAR(j["energy_uJ"]["at_certificate"]["selective"].get<double>(),
                act + (1.0 - n / 500.0) * 4.0, 1e-9);
    const double test_cov = accs[best == "A0" ? 0 : 1]["test"]["coverage"];
    EXPECT_NEAR(j["energy_uJ"]["at_test"]["selective"].get<double>(), act + (1.0 - test_cov) * 4.0,
                1e-9);
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

  // The README's `--policy-out` line, without --pool: the pool is every profile with an energy
  // (A0..A5 of data/chips.yaml, not pcm_ima), and the policy file is written.
  {
    const std::string all = scratch("select_all.json").string(),
                      policy = scratch("policy_all.json").string();
    r = run("analog select " + model + " --chips " + kChips +
            " --calibration test --limit 1600 --hardware 300 --policy 500 --certificate 500 "
            "--test 300 --quiet --json " +
            all + " --policy-out " + policy);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json ja = nlohmann::json::parse(slurp(all));
    std::vector<std::string> names;
    for (const auto& acc : ja["accelerators"]) names.push_back(acc["name"]);
    EXPECT_EQ(names, (std::vector<std::string>{"A0", "A1", "A2", "A3", "A4", "A5"}));
    EXPECT_TRUE(fs::exists(policy));
  }

  // Splits that do not fit the rows: a user error naming the sizes, and no JSON written.
  const std::string json3 = scratch("select3.json").string();
  r = run("analog select " + model + " --chips " + kChips +
          " --pool A0 --calibration test --limit 1000 --hardware 300 --policy 500 --certificate "
          "500 --test 0 --json " +
          json3);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("the data has only 1000"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(json3));
  fs::remove_all(scratch("").parent_path());
}

TEST(CliSelect, ProfilesWithoutEnergyAndUnknownNamesAreUserErrors) {
  // The pool is checked before the model is read: any existing file serves as the model here.
  // Without --pool: every profile with an energy, as --help says (issue 36: the README's
  // `--policy-out` line was refused over pcm_ima); the run then stops at the model, not the pool.
  CliRun r = run("analog select " + kChips + " --chips " + kChips);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err.find("energy"), std::string::npos) << r.err;
  // A profile without energy named in the pool, or a file where none has one: refused.
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0,pcm_ima");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'pcm_ima' has no 'energy'"), std::string::npos) << r.err;
  const std::string no_energy = scratch("no_energy.yaml").string();
  std::ofstream(no_energy) << "profiles:\n  pcm:\n    g_min: 0uS\n    g_max: 25uS\n"
                              "    device_bits: 3\n    array: 256x256\n    latency: 130ns\n";
  r = run("analog select " + kChips + " --chips " + no_energy);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no chip profile has an 'energy'"), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0,A9");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no profile 'A9'"), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0 --fallback-energy 4");
  EXPECT_EQ(r.status, 1);
  // The field's name, as Python names it (api::analog_select_fields).
  EXPECT_NE(r.err.find("hetcim: error: fallback_energy: "), std::string::npos) << r.err;
  r = run("analog select " + kChips + " --chips " + kChips + " --pool A0 --score margin");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("unknown confidence score 'margin'"), std::string::npos) << r.err;
}

// The paper's protocol: the model is trained with images held out of the training set, and
// `analog select` calibrates on exactly those (read from the model's .train.json) while the test
// columns come from the official test set; the logits go to a cache that a replay reads without
// simulating; chip seeds follow unit names, so a sub-pool replays the same chips.
TEST(CliSelect, HeldOutProtocolCacheAndReplay) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const std::string model = scratch("held.onnx").string();
  CliRun r = run(
      "train race-cnn --dataset fashion-mnist --preset fast --epochs 1 --train-limit 2000 "
      "--holdout 1500 --holdout-seed 4 --eval-limit 300 --batch-size 64 --seed 6 --quiet --out " +
      model);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json rec = nlohmann::json::parse(slurp(model + ".train.json"));
  EXPECT_EQ(rec["holdout"]["images"], 1500);
  EXPECT_EQ(rec["holdout"]["seed"], 4);
  EXPECT_EQ(rec["holdout"]["of"], 60000);
  EXPECT_EQ(rec["train_images"], 2000);
  EXPECT_EQ(rec["eval_set"], "held-out training images");
  EXPECT_EQ(rec["options"]["lr"], 2e-3);  // the paper's, not tuned on any of our data

  const std::string cache = scratch("cache").string();
  const std::string base = "analog select " + model + " --chips " + kChips +
                           " --hardware 300 --policy 500 --certificate 600 --test 400 "
                           "--split-seed 2 --seed 3 --read-seed 8 --quiet "
                           "--design-alpha 0.25 --alpha 0.3 ";  // a 1-epoch model: loose targets
  const std::string j1 = scratch("h1.json").string(), j2 = scratch("h2.json").string(),
                    j3 = scratch("h3.json").string();
  const std::string policy = scratch("policy.json").string();
  r = run(base + "--pool A0,A1 --cache " + cache + " --json " + j1 + " --policy-out " + policy);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("held-out training images n=1500 seed=4"), std::string::npos) << r.out;
  const nlohmann::json a = nlohmann::json::parse(slurp(j1));
  EXPECT_EQ(a["rows"], 1500 + 400);  // every held-out image, then the first 400 test images
  EXPECT_EQ(a["certificate"]["split"]["rows"], 600);
  EXPECT_EQ(a["accelerators"][0]["test"]["rows"], 400);
  // digital, A0, A1, each over the calibration and the test images
  EXPECT_EQ(a["logits_source"]["simulated"], 6);
  EXPECT_EQ(a["logits_source"]["cached"], 0);

  // Replay: no simulation, the same result.
  r = run(base + "--pool A0,A1 --logits " + cache + " --json " + j2);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json b = nlohmann::json::parse(slurp(j2));
  EXPECT_EQ(b["logits_source"]["simulated"], 0);
  EXPECT_EQ(b["logits_source"]["cached"], 6);
  EXPECT_EQ(a["accelerators"], b["accelerators"]);
  EXPECT_EQ(a["certificate"], b["certificate"]);
  EXPECT_EQ(a["energy_uJ"], b["energy_uJ"]);

  // A sub-pool in another order replays the same A1 instance from the cache.
  r = run(base + "--pool A1 --logits " + cache + " --json " + j3);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json c = nlohmann::json::parse(slurp(j3));
  EXPECT_EQ(c["accelerators"][0]["chip_seed"], a["accelerators"][1]["chip_seed"]);
  EXPECT_EQ(c["accelerators"][0]["bias"], a["accelerators"][1]["bias"]);
  EXPECT_EQ(c["accelerators"][0]["fit"], a["accelerators"][1]["fit"]);

  // A homogeneous pool: two units of profile A0, named distinctly, with distinct programmed states.
  const std::string j4 = scratch("h4.json").string();
  r = run(base + "--pool A0#1,A0#2 --cache " + cache + " --json " + j4);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json hom = nlohmann::json::parse(slurp(j4));
  EXPECT_EQ(hom["accelerators"][0]["name"], "A0#1");
  EXPECT_EQ(hom["accelerators"][1]["name"], "A0#2");
  EXPECT_NE(hom["accelerators"][0]["chip_seed"], hom["accelerators"][1]["chip_seed"]);
  EXPECT_NE(hom["accelerators"][0]["bias"], hom["accelerators"][1]["bias"]);
  EXPECT_EQ(hom["accelerators"][0]["energy_uJ"], 0.7);

  // Online: the frozen policy served on the same test images takes the offline decisions.
  ASSERT_FALSE(a["selected"].is_null())
      << "a tiny model selected nothing; the serve check needs one";
  const size_t sel = a["selected"] == "A0" ? 0 : 1;
  const std::string served = scratch("served.json").string(),
                    decisions = scratch("decisions.csv").string();
  r = run("analog serve " + policy + " --dataset fashion-mnist --split test --limit 400 --quiet " +
          "--json " + served + " --decisions " + decisions);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json sv = nlohmann::json::parse(slurp(served));
  EXPECT_EQ(sv["queries"], 400);
  EXPECT_EQ(sv["accepted"], a["accelerators"][sel]["test"]["accepted"]);
  EXPECT_EQ(sv["accepted_wrong"], a["accelerators"][sel]["test"]["errors"]);
  EXPECT_EQ(sv["accepted"].get<int64_t>() + sv["fallback"].get<int64_t>(), 400);
  EXPECT_NEAR(sv["energy_uJ_per_query"].get<double>(),
              a["energy_uJ"]["at_test"]["selective"].get<double>(), 1e-9);
  // `analog drift --policy`: at t0 (and at 1 s, before the profile's t0 = 20 s) the frozen policy
  // takes the served decisions on the same images; a year later the chip has drifted. Same
  // seeds and date, same bytes.
  {
    const fs::path dd = scratch("drift");
    const std::string args = "analog drift " + model + " --policy " + policy +
                             " --times 1s,1y --limit 400 --compensation none --audit 50 --quiet "
                             "--out " +
                             dd.string();
    ::setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string text = slurp(dd / "drift.json");
    ASSERT_EQ(run(args).status, 0);
    ::unsetenv("SOURCE_DATE_EPOCH");
    EXPECT_EQ(text, slurp(dd / "drift.json"));
    for (const char* f : {"drift.svg", "drift.pdf", "drift.png", "drift.txt"})
      EXPECT_TRUE(fs::exists(dd / f)) << f;
    const nlohmann::json dj = nlohmann::json::parse(text);
    ASSERT_EQ(dj["points"].size(), 3u);
    const nlohmann::json& at0 = dj["points"][0]["policy"];
    EXPECT_NEAR(at0["coverage"].get<double>(), sv["accepted"].get<double>() / 400, 1e-12);
    if (sv["accepted"].get<int64_t>() > 0) {
      EXPECT_NEAR(at0["accepted_risk"].get<double>(),
                  sv["accepted_wrong"].get<double>() / sv["accepted"].get<double>(), 1e-12);
    }
    EXPECT_EQ(dj["points"][1]["policy"], at0);
    // The monitor at t0: the score distribution is its own reference (KS 0), the audit took the
    // first min(50, accepted) accepted queries with the served errors among them when all fit,
    // and its bound brackets their error rate.
    const nlohmann::json& mon = at0["monitor"];
    EXPECT_EQ(mon["score_ks_distance"], 0.0);
    EXPECT_FALSE(mon["score_shift"].get<bool>());
    EXPECT_EQ(mon["audited"], std::min<int64_t>(50, sv["accepted"].get<int64_t>()));
    if (mon["audited"].get<int64_t>() > 0) {
      const double rate = mon["audit_errors"].get<double>() / mon["audited"].get<double>();
      EXPECT_GE(mon["audit_upper_bound"].get<double>(), rate);
    }
    EXPECT_EQ(dj["policy"]["audit"], 50);
    EXPECT_EQ(dj["points"][1]["accuracy"], dj["points"][0]["accuracy"]);
    EXPECT_NE(dj["points"][2]["policy"], at0);  // drift over a year changes the decisions
    EXPECT_EQ(dj["policy"]["certificate_upper_bound"], a["certificate"]["upper_bound"]);
  }
  // The monitors' bounds bracket what they watch (an exact interval contains its estimate).
  const double acc = sv["accepted"].get<double>(), cov = acc / 400.0;
  EXPECT_LE(sv["coverage_monitor"]["lower"].get<double>(), cov);
  EXPECT_GE(sv["coverage_monitor"]["upper"].get<double>(), cov);
  if (acc > 0) {
    const double rate = sv["accepted_wrong"].get<double>() / acc;
    EXPECT_LE(sv["audit"]["lower"].get<double>(), rate);
    EXPECT_GE(sv["audit"]["upper"].get<double>(), rate);
  }
  // Queries as an .npy of uint8 images, from a file and from stdin: the same routes. (Random
  // pixels: the decisions, not their accuracy, are compared.)
  const std::string npy = scratch("queries.npy").string();
  {
    std::string header = "{'descr': '|u1', 'fortran_order': False, 'shape': (30, 28, 28), }";
    header.resize(118 - 1, ' ');
    header += '\n';
    std::ofstream f(npy, std::ios::binary);
    f << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size()) << '\x00' << header;
    for (int i = 0; i < 30 * 28 * 28; ++i) f << static_cast<char>((i * 37 + i / 28 * 11) % 256);
  }
  const std::string d1 = scratch("d1.csv").string(), d2 = scratch("d2.csv").string();
  r = run("analog serve " + policy + " --quiet --input " + npy + " --decisions " + d1);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("analog serve " + policy + " --quiet --input - --decisions " + d2 + " < " + npy);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(d1), slurp(d2));
  const std::string routes = slurp(d1);
  EXPECT_EQ(std::count(routes.begin(), routes.end(), '\n'), 31);  // header + 30 queries
  // Streamed on stdin in batches of 8 (four reads of the chip for 30 queries), each batch's routes
  // printed as soon as it is decided: the routes of the same file read in batches of 8; the
  // summary goes to stderr. A stream that ends early is an error naming stdin and the count.
  const std::string d3 = scratch("d3.csv").string();
  r = run("analog serve " + policy + " --quiet --batch-size 8 --input " + npy + " --decisions " +
          d3);
  ASSERT_EQ(r.status, 0) << r.err;
  r = run("analog serve " + policy + " --quiet --batch-size 8 --input - --decisions - < " + npy);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, slurp(d3));
  EXPECT_NE(r.err.find("30 queries: "), std::string::npos) << r.err;
  {
    const std::string whole = slurp(npy);
    std::ofstream(scratch("short.npy"), std::ios::binary)
        << whole.substr(0, whole.size() - 5 * 28 * 28);
  }
  r = run("analog serve " + policy + " --quiet --batch-size 8 --input - --decisions - < " +
          scratch("short.npy").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("<stdin>: the stream ended after 25 of 30 records"), std::string::npos)
      << r.err;

  // Policies that do not fit: another model, another chip set, an unknown profile.
  const std::string bad_out = scratch("bad_out.json").string();
  const std::string other_model = scratch("other_model.onnx").string();
  ASSERT_EQ(run("export race_cnn_mnist --onnx " + other_model).status, 0);
  r = run("analog serve " + policy + " --model " + other_model +
          " --dataset fashion-mnist --limit 10 --json " + bad_out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("field 'model.hash'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("certified for another model"), std::string::npos) << r.err;
  nlohmann::json pol = nlohmann::json::parse(slurp(policy));
  pol["chips"]["unit"]["fingerprint"] = "g_min=1";
  const std::string pol2 = scratch("policy2.json").string();
  std::ofstream(pol2) << pol.dump();
  r = run("analog serve " + pol2 + " --dataset fashion-mnist --limit 10 --json " + bad_out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("certified for another chip set"), std::string::npos) << r.err;
  pol["chips"]["unit"]["profile"] = "A9";
  std::ofstream(pol2) << pol.dump();
  r = run("analog serve " + pol2 + " --dataset fashion-mnist --limit 10 --json " + bad_out);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no profile 'A9'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bad_out));

  // Bad input: a clear message naming the culprit, exit 1, no JSON.
  const std::string bad = scratch("bad.json").string();
  r = run(base + "--pool A0,A2 --logits " + cache + " --json " + bad);  // A2 never simulated
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no cached logits of 'A2'"), std::string::npos) << r.err;
  r = run(base + "--pool A0 --holdout 1000 --json " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("field 'holdout.images' = 1500"), std::string::npos) << r.err;
  r = run("analog select " + model + " --chips " + kChips +
          " --pool A0 --certificate 5000 --json " + bad);  // 3000 + 2000 + 5000 > 1500
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("the data has only 1500"), std::string::npos) << r.err;
  r = run(base + "--pool A0,A9 --json " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no profile 'A9'"), std::string::npos) << r.err;
  const std::string other = scratch("other.onnx").string();
  ASSERT_EQ(run("export race_cnn_mnist --onnx " + other).status, 0);
  r = run("analog select " + other + " --chips " + kChips +
          " --pool A0 --calibration test --limit 1000 --hardware 100 --policy 100 --certificate "
          "100 --test 100 --logits " +
          cache + " --json " + bad);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("holds logits of another model"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(bad));
  fs::remove_all(scratch("").parent_path());
}

// `analog study` on a tiny configuration: the files it promises, Table II's run 1 equal to an
// independent `analog select --logits` replay of the same model, cache and seeds, a rerun that
// trains and simulates nothing, and a rerun with other training options refused without touching
// the outputs.
TEST(CliSelect, StudyWritesTablesFiguresAndMatchesAReplay) {
  if (!have_fashion_mnist()) GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const fs::path out = scratch("study");
  const std::string args =
      "analog study --chips " + kChips +
      " --pool A0,A1 --models 2 --preset fast --epochs 1 --train-limit 1500 --holdout 1500 "
      "--hardware 300 --policy 500 --certificate 600 --test 400 --availability 1 --seed 1 "
      "--split-seed 1 --quiet --out " +
      out.string();
  CliRun r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* f : {"report.html", "study.json", "study.txt", "fig2a_certificates.svg",
                        "fig2a_certificates.png", "fig2b_design_risk.svg", "fig2c_availability.png",
                        "fig2d_fallback.svg", "models/run1.onnx", "models/run2.onnx.train.json"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  const nlohmann::json st = nlohmann::json::parse(slurp(out / "study.json"));
  ASSERT_EQ(st["base"]["runs"].size(), 2u);
  EXPECT_EQ(st["availability"][0]["label"], "without A0");
  EXPECT_EQ(st["scores"].size(), 5u);
  EXPECT_NE(st["provenance"]["logits"].get<std::string>().find("simulated"), std::string::npos);

  const std::string json = scratch("replay.json").string();
  r = run("analog select " + (out / "models/run1.onnx").string() + " --chips " + kChips +
          " --pool A0,A1 --seed 1 --read-seed 1 --split-seed 1 --hardware 300 --policy 500 "
          "--certificate 600 --test 400 --quiet --logits " +
          (out / "cache").string() + " --json " + json);
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json sel = nlohmann::json::parse(slurp(json));
  const nlohmann::json& run1 = st["base"]["runs"][0];
  EXPECT_EQ(run1["selected"], sel["selected"].is_null() ? "" : sel["selected"]);
  EXPECT_EQ(run1["upper_bound"], sel["certificate"]["upper_bound"]);
  EXPECT_EQ(run1["certified_coverage"], sel["certificate"]["split"]["coverage"]);
  EXPECT_EQ(run1["hybrid_accuracy"], sel["test"]["hybrid_accuracy"]);

  // `hetcim reproduce seed002 --study`: reads study.json back; Table II's means are the means of
  // the per-run values the study wrote, and Fig. 2 a-c join Fig. 2d.
  const fs::path repro = scratch("repro");
  r = run("reproduce seed002 --study " + out.string() + " --out " + repro.string());
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json rj = nlohmann::json::parse(slurp(repro / "reproduce.json"));
  EXPECT_EQ(rj["figures"].size(), 4u);
  double mean_cov = 0;
  for (const auto& run_j : st["base"]["runs"])
    mean_cov += run_j["certified_coverage"].get<double>();
  mean_cov /= static_cast<double>(st["base"]["runs"].size());
  bool found = false;
  for (const auto& d : rj["differences"])
    if (d["figure"] == "table2" && d["cell"] == "mean cert_coverage (%)") {
      EXPECT_NEAR(d["ours"].get<double>(), 100 * mean_cov, 1e-9);
      EXPECT_EQ(d["paper_value"].get<double>(), 70.88);  // Table II, typed in data/paper
      found = true;
    }
  EXPECT_TRUE(found) << rj["differences"].dump();
  EXPECT_NE(slurp(repro / "report.html").find("Table III"), std::string::npos);

  // Rerun: everything from the models directory and the cache.
  r = run(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("0 trained now, 2 reused"), std::string::npos) << r.out;
  EXPECT_NE(
      r.out.find("simulated (hetcim xbar, classifier layers on chip) 0 now, 12 from the cache"),
      std::string::npos)
      << r.out;
  // Other training options for the same directory: refused, naming the record and the field.
  const std::string before = slurp(out / "study.json");
  r = run(args + " --lr 0.01");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("run1.onnx.train.json: field 'options.lr'"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out / "study.json"), before);
  // An unknown profile: refused before any training, no output directory.
  const fs::path out2 = scratch("study2");
  r = run("analog study --chips " + kChips + " --pool A0,B7 --out " + out2.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no profile 'B7'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out2));
  fs::remove_all(scratch("").parent_path());
}

}  // namespace
