// Seed 002's study records: the study.json files (race_study_file.h) of `hetcim analog study`
// runs of ONE protocol, read from a directory and merged into one study of every run they hold.
// The paper's protocol trains five models of 30 epochs (about an hour each on a 2-core machine),
// so a record may hold k < 5 of them, e.g. one per session from the same seeds:
//
//   hetcim analog study --preset paper --models 1 --seed 2 --split-seed 2 --out s2/  # run 2
//
// is run 2 of `--models 5 --seed 1 --split-seed 1` (run i trains with seed + i - 1 and splits with
// split-seed + i - 1; chip and read seeds follow from the same seed and the unit's name). Records
// are merged only when they are of one protocol (every option but seed, split_seed and models
// equal, the same split-seed offset) and hold different models (disjoint model seeds); the
// merged study's runs are in model-seed order. How many of the paper's runs it holds and whether
// its protocol is the paper's is stated with it (`label`), computed from the options the records
// carry against the paper's protocol typed in data/paper/seed002.yaml.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/paper_data.h"
#include "results/race_study.h"

namespace hetcim::formats {

struct StudyRecords {
  std::string dir;
  std::vector<std::string> files;     // the records read, in name order
  results::RaceStudyFile merged;      // options: the shared protocol, "models" = k, "model_seeds"
  std::vector<uint64_t> model_seeds;  // of each merged run, in order
  bool seeds_recorded = true;         // false: one record without seeds, its runs counted 1..n
  int paper_runs = 0;                 // the paper's runs (Table II's "run N" rows)
  // Where the protocol is not the paper's, one entry per field ("epochs 2 (paper 30)"); empty:
  // the paper's protocol as hetcim runs it (on the data set the record names).
  std::vector<std::string> protocol_differences;
  // "2 of 5 models of the paper protocol (fashion-mnist, model seeds 1, 2)" or "3 models of
  // another protocol than the paper's: epochs 2 (paper 30), ...": stated on every table drawn.
  std::string label;
};

// Every *.json in `dir` (a study.json alone included); UserError naming the directory when it
// holds none, the file and the field when a record is broken (read_race_study) or does not fit
// the others (another protocol, a model seed twice, other ablation variants).
[[nodiscard]] StudyRecords read_study_records(const std::string& dir, const PaperData& paper);

// Whether `dir` is a directory holding at least one *.json (a study record to read).
[[nodiscard]] bool has_study_records(const std::string& dir);

// The same for records already read (`files` names them in errors, in order).
[[nodiscard]] StudyRecords merge_study_records(const std::vector<results::RaceStudyFile>& records,
                                               const PaperData& paper, const std::string& dir);

// The fields where `options` (a study.json's) differ from the paper's protocol of `paper`
// (seed002.yaml: epochs, learning_rate, the H/P/C splits, test_images, risk_target, design_risk,
// Table I's profiles as the pool; training on every image not held out).
[[nodiscard]] std::vector<std::string> paper_protocol_differences(const nlohmann::json& options,
                                                                  const PaperData& paper);

}  // namespace hetcim::formats
