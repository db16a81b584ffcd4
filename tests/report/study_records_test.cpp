// Seed 002's study records (formats/study_records.h): study.json files this test writes (through
// race_study_json, as `hetcim analog study` does) read back from a directory, merged in model-seed
// order with the passes and means recomputed, and labelled with how many of the paper's runs of
// which protocol they hold; records that do not fit together, and broken ones, are refused with
// the file and the field.
#include "formats/study_records.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/paper_data.h"
#include "formats/race_study_file.h"
#include "util/error.h"

namespace hetcim::formats {
namespace {

namespace fs = std::filesystem;

const PaperData& paper() {
  static const PaperData p = load_paper_data(HETCIM_SOURCE_DIR "/data/paper/seed002.yaml");
  return p;
}

select::RunFigures run(double coverage, bool certified) {
  select::RunFigures f;
  f.selected = "A0";
  f.certified = certified;
  f.certified_coverage = coverage;
  f.certified_risk = 0.07;
  f.upper_bound = certified ? 0.08 : 0.11;
  f.test_coverage = coverage - 0.01;
  f.test_risk = 0.07;
  f.hybrid_accuracy = f.digital_accuracy = 0.9;
  f.forced_accuracy = 0.89;
  f.ensemble_accuracy = 0.85;
  f.selected_activation = 0.825e-6;
  f.ensemble_energy = 6.45e-6;
  f.selective_energy = 2e-6;
  f.reduction = 0.69;
  f.break_even = 19e-6;
  f.selective_energy_certificate = 2e-6;
  f.reduction_certificate = 0.69;
  f.break_even_certificate = 19e-6;
  return f;
}

select::StudyResult study(const std::vector<select::RunFigures>& runs) {
  select::StudyResult s;
  s.base.label = "base";
  select::Variant rd, sc, bi;
  rd.label = "r_d = 0.08";
  sc.label = "max_softmax";
  bi.label = "bias correction on";
  for (const auto& f : runs) s.base.add(f), rd.add(f), sc.add(f), bi.add(f);
  s.design_risk = {rd};
  s.scores = {sc};
  s.bias = {bi};
  return s;
}

nlohmann::json paper_options(uint64_t seed, size_t models) {
  return {
      {"dataset", "fashion-mnist"},
      {"models", models},
      {"epochs", 30},
      {"lr", 0.002},
      {"seed", seed},
      {"holdout", 10000},
      {"pool", {"A0", "A1", "A2", "A3", "A4", "A5"}},
      {"mode", "profiles"},
      {"risk", 0.1},
      {"design_risk", 0.08},
      {"splits", {{"hardware", 3000}, {"policy", 2000}, {"certificate", 5000}, {"test", 10000}}},
      {"split_seed", seed},
      {"availability", 3},
      {"fallback_uJ", 4},
      {"train_limit", 0},
      {"holdout_seed", 1},
      {"preset", "paper"}};
}

struct Dir {
  fs::path path;
  explicit Dir(const std::string& name)
      : path(fs::temp_directory_path() / ("hetcim_study_records_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  void write(const std::string& file, const nlohmann::json& j) const {
    std::ofstream(path / file) << j.dump(1);
  }
  void write(const std::string& file, const select::StudyResult& s,
             const nlohmann::json& options) const {
    results::RaceStudyInfo info;
    info.provenance = {{"models", file}, {"machine", "test"}};
    write(file, race_study_json(s, info, options));
  }
};

std::string error_of(const std::string& dir) {
  try {
    (void)read_study_records(dir, paper());
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(StudyRecords, RecordsOfOneProtocolAreMergedInModelSeedOrder) {
  const Dir d("merge");
  // Session 1 ran model seed 3 alone, session 2 seeds 1..2; file names sort the other way.
  d.write("a_session1.json", study({run(0.70, true)}), paper_options(3, 1));
  d.write("b_session2.json", study({run(0.60, true), run(0.66, false)}), paper_options(1, 2));
  EXPECT_TRUE(has_study_records(d.path.string()));
  const StudyRecords r = read_study_records(d.path.string(), paper());
  ASSERT_EQ(r.files.size(), 2U);
  EXPECT_EQ(r.model_seeds, (std::vector<uint64_t>{1, 2, 3}));
  const select::Variant& b = r.merged.study.base;
  ASSERT_EQ(b.runs.size(), 3U);
  EXPECT_DOUBLE_EQ(b.runs[0].certified_coverage, 0.60);
  EXPECT_DOUBLE_EQ(b.runs[1].certified_coverage, 0.66);
  EXPECT_DOUBLE_EQ(b.runs[2].certified_coverage, 0.70);
  EXPECT_EQ(b.passes, 2);  // recounted: run 2's certificate fails
  EXPECT_NEAR(b.over(&select::RunFigures::certified_coverage).mean, (0.60 + 0.66 + 0.70) / 3,
              1e-15);
  ASSERT_EQ(r.merged.study.scores.size(), 1U);
  EXPECT_EQ(r.merged.study.scores[0].runs.size(), 3U);
  EXPECT_EQ(r.merged.options.at("models"), 3);
  EXPECT_EQ(r.merged.options.at("seed"), 1);
  EXPECT_EQ(r.paper_runs, 5);
  EXPECT_TRUE(r.protocol_differences.empty());
  EXPECT_EQ(r.label, "3 of 5 models of the paper protocol (fashion-mnist, model seeds 1, 2, 3)");
  // The provenance line that differs between the records names each record.
  for (const auto& [k, v] : r.merged.info.provenance)
    if (k == "models") {
      EXPECT_NE(v.find("a_session1.json: a_session1.json"), std::string::npos) << v;
      EXPECT_NE(v.find("b_session2.json: b_session2.json"), std::string::npos) << v;
    }
}

TEST(StudyRecords, AnotherProtocolIsLabelledWithEveryDifference) {
  const Dir d("fast");
  nlohmann::json o = paper_options(1, 1);
  o["epochs"] = 2;
  o["train_limit"] = 6000;
  o.erase("preset");
  d.write("study.json", study({run(0.3, true)}), o);
  const StudyRecords r = read_study_records(d.path.string(), paper());
  EXPECT_EQ(r.label,
            "1 model of another protocol than the paper's (fashion-mnist, model seeds 1): "
            "epochs 2 (paper 30), train_limit 6000 (paper 0: every training image not held out)");
  // A record written before train_limit was recorded is not claimed as the paper's.
  o = paper_options(1, 1);
  o.erase("train_limit");
  EXPECT_EQ(paper_protocol_differences(o, paper()),
            std::vector<std::string>{
                "train_limit not recorded (paper 0: every training image not held out)"});
  // A record alone without its seeds (hand-made, or older) is read, its runs counted 1..n.
  const Dir d2("seedless");
  o = paper_options(1, 1);
  o.erase("seed");
  o.erase("split_seed");
  o.erase("models");
  d2.write("study.json", study({run(0.3, true), run(0.4, true)}), o);
  const StudyRecords s = read_study_records(d2.path.string(), paper());
  EXPECT_FALSE(s.seeds_recorded);
  EXPECT_EQ(s.label,
            "2 of 5 models of the paper protocol (fashion-mnist, model seeds not recorded)");
  o = paper_options(1, 1);
  o["pool"] = {"A0", "A1"};
  o["splits"]["certificate"] = 1500;
  EXPECT_EQ(paper_protocol_differences(o, paper()),
            (std::vector<std::string>{"splits.certificate 1500 (paper 5000)",
                                      "pool A0,A1 (paper A0..A5)"}));
}

TEST(StudyRecords, RecordsThatDoNotFitAreRefusedNamingFileAndField) {
  {
    const Dir d("twice");
    d.write("a.json", study({run(0.7, true), run(0.7, true)}), paper_options(1, 2));
    d.write("b.json", study({run(0.7, true)}), paper_options(2, 1));
    const std::string e = error_of(d.path.string());
    EXPECT_NE(e.find("b.json: model seed 2 (run 1) is already in another record"),
              std::string::npos)
        << e;
  }
  {
    const Dir d("protocol");
    nlohmann::json o = paper_options(2, 1);
    o["epochs"] = 2;
    d.write("a.json", study({run(0.7, true)}), paper_options(1, 1));
    d.write("b.json", study({run(0.7, true)}), o);
    const std::string e = error_of(d.path.string());
    EXPECT_NE(e.find("b.json: field 'options.epochs' is 2,"), std::string::npos) << e;
    EXPECT_NE(e.find("a.json has 30"), std::string::npos) << e;
  }
  {
    const Dir d("offset");
    nlohmann::json o = paper_options(2, 1);
    o["split_seed"] = 7;
    d.write("a.json", study({run(0.7, true)}), paper_options(1, 1));
    d.write("b.json", study({run(0.7, true)}), o);
    EXPECT_NE(error_of(d.path.string()).find("b.json: field 'options.split_seed' is 7"),
              std::string::npos);
  }
  {
    const Dir d("models");
    d.write("a.json", study({run(0.7, true)}), paper_options(1, 2));
    EXPECT_NE(error_of(d.path.string())
                  .find("a.json: field 'options.models' is 2, the record holds 1 runs"),
              std::string::npos);
  }
  {
    const Dir d("variants");
    select::StudyResult s = study({run(0.7, true)});
    s.scores[0].label = "logit_margin";
    d.write("a.json", study({run(0.7, true)}), paper_options(1, 1));
    d.write("b.json", s, paper_options(2, 1));
    EXPECT_NE(
        error_of(d.path.string()).find("b.json: field 'scores' has the variants [logit_margin]"),
        std::string::npos);
  }
  {
    const Dir d("broken");
    d.write("a.json", nlohmann::json{{"format", 1},
                                     {"options", nlohmann::json::object()},
                                     {"provenance", nlohmann::json::object()}});
    EXPECT_NE(error_of(d.path.string()).find("a.json: field 'base': missing"), std::string::npos);
  }
  {
    const Dir d("empty");
    std::ofstream(d.path / "README.md") << "not a record\n";
    EXPECT_FALSE(has_study_records(d.path.string()));  // the shipped default is then not used
    EXPECT_FALSE(has_study_records((d.path / "nothing").string()));
    EXPECT_NE(error_of(d.path.string()).find("has no study.json (nor another study record *.json"),
              std::string::npos);
    EXPECT_NE(error_of((d.path / "nothing").string()).find("is not a directory"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace hetcim::formats
