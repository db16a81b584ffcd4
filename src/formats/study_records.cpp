#include "formats/study_records.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

#include "formats/race_study_file.h"
#include "util/error.h"

namespace hetcim::formats {
namespace {

namespace fs = std::filesystem;

// The options that tell the runs of one protocol apart rather than the protocol.
bool per_run_option(const std::string& key) {
  return key == "seed" || key == "split_seed" || key == "models" || key == "model_seeds";
}

uint64_t whole(const results::RaceStudyFile& r, const std::string& key) {
  const nlohmann::json* v = r.options.contains(key) ? &r.options.at(key) : nullptr;
  if (v == nullptr || !v->is_number_unsigned())
    throw user_error(r.origin, ": field 'options.", key,
                     "': expected a whole number >= 0 (written by `hetcim analog study`)");
  return v->get<uint64_t>();
}

// A record alone may lack its seeds (hand-made, or written before they were recorded): its runs
// are then counted 1..n and said to be so; records merged with others must carry them.
bool has_seeds(const results::RaceStudyFile& r) {
  return r.options.contains("seed") || r.options.contains("split_seed");
}

std::string labels_of(const std::vector<select::Variant>& vs) {
  std::string s;
  for (const auto& v : vs) s += (s.empty() ? "" : ", ") + v.label;
  return "[" + s + "]";
}

std::string seeds_text(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (uint64_t x : seeds) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

std::string number_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

}  // namespace

std::vector<std::string> paper_protocol_differences(const nlohmann::json& options,
                                                    const PaperData& paper) {
  std::vector<std::string> d;
  auto num = [&](const std::string& path, const nlohmann::json* v, double want,
                 const std::string& want_text) {
    if (v == nullptr || !v->is_number())
      d.push_back(path + " not recorded (paper " + want_text + ")");
    else if (std::fabs(v->get<double>() - want) > 1e-9 * std::max(1.0, std::fabs(want)))
      d.push_back(path + " " + v->dump() + " (paper " + want_text + ")");
  };
  auto at = [&](const nlohmann::json& j, const std::string& key) -> const nlohmann::json* {
    return j.is_object() && j.contains(key) ? &j.at(key) : nullptr;
  };
  auto paper_num = [&](const std::string& path, const nlohmann::json* v, const std::string& id,
                       double scale = 1.0) {
    const double want = paper.need_value(id) * scale;
    num(path, v, want, number_text(want));
  };
  paper_num("epochs", at(options, "epochs"), "epochs");
  paper_num("lr", at(options, "lr"), "learning_rate");
  const nlohmann::json* splits = at(options, "splits");
  const nlohmann::json none;
  const nlohmann::json& sp = splits ? *splits : none;
  paper_num("splits.hardware", at(sp, "hardware"), "hardware_split");
  paper_num("splits.policy", at(sp, "policy"), "policy_split");
  paper_num("splits.certificate", at(sp, "certificate"), "certificate_split");
  paper_num("splits.test", at(sp, "test"), "test_images");
  num("holdout", at(options, "holdout"),
      paper.need_value("hardware_split") + paper.need_value("policy_split") +
          paper.need_value("certificate_split"),
      "H + P + C");
  num("train_limit", at(options, "train_limit"), 0, "0: every training image not held out");
  paper_num("risk", at(options, "risk"), "risk_target", 0.01);
  paper_num("design_risk", at(options, "design_risk"), "design_risk", 0.01);
  std::vector<std::string> want_pool;
  for (const auto& [name, values] : paper.need_table("table1").rows) want_pool.push_back(name);
  std::vector<std::string> pool;
  if (const nlohmann::json* p = at(options, "pool"); p && p->is_array())
    for (const auto& u : *p)
      if (u.is_string()) pool.push_back(u.get<std::string>());
  if (pool != want_pool) {
    std::string s;
    for (const auto& u : pool) s += (s.empty() ? "" : ",") + u;
    d.push_back("pool " + (s.empty() ? std::string("not recorded") : s) + " (paper " +
                want_pool.front() + ".." + want_pool.back() + ")");
  }
  return d;
}

StudyRecords merge_study_records(const std::vector<results::RaceStudyFile>& records,
                                 const PaperData& paper, const std::string& dir) {
  if (records.empty()) throw user_error(dir, ": no study record to merge");
  StudyRecords out;
  out.dir = dir;
  const results::RaceStudyFile& first = records.front();
  // (model seed, record, run) of every run; the protocol and the variants checked per record.
  std::vector<std::tuple<uint64_t, size_t, size_t>> runs;
  std::set<uint64_t> seen;
  const bool seeds = records.size() > 1 || has_seeds(first);
  out.seeds_recorded = seeds;
  const int64_t offset =
      seeds ? static_cast<int64_t>(whole(first, "split_seed") - whole(first, "seed")) : 0;
  for (size_t r = 0; r < records.size(); ++r) {
    const results::RaceStudyFile& f = records[r];
    out.files.push_back(f.origin);
    const uint64_t seed = seeds ? whole(f, "seed") : 1;
    const size_t n = f.study.base.runs.size();
    if ((seeds || f.options.contains("models")) && whole(f, "models") != n)
      throw user_error(f.origin, ": field 'options.models' is ", f.options.at("models").dump(),
                       ", the record holds ", n, " runs");
    if (seeds && static_cast<int64_t>(whole(f, "split_seed") - seed) != offset)
      throw user_error(f.origin, ": field 'options.split_seed' is ", whole(f, "split_seed"),
                       " for seed ", seed, "; ", first.origin, " splits with seed + ", offset,
                       ": records of one study keep split_seed - seed");
    if (!f.options.is_object()) throw user_error(f.origin, ": field 'options': expected an object");
    std::set<std::string> keys;
    for (const auto& [k, v] : f.options.items()) keys.insert(k);
    for (const auto& [k, v] : first.options.items()) keys.insert(k);
    for (const std::string& k : keys) {
      if (per_run_option(k)) continue;
      const nlohmann::json a = first.options.contains(k) ? first.options.at(k) : nlohmann::json();
      const nlohmann::json b = f.options.contains(k) ? f.options.at(k) : nlohmann::json();
      if (a != b)
        throw user_error(f.origin, ": field 'options.", k, "' is ",
                         b.is_null() ? std::string("missing") : b.dump(), ", ", first.origin,
                         " has ", a.is_null() ? std::string("none") : a.dump(),
                         ": the records of one directory must be of one protocol");
    }
    for (const auto& [name, a, b] :
         {std::tuple{"design_risk", &first.study.design_risk, &f.study.design_risk},
          std::tuple{"availability", &first.study.availability, &f.study.availability},
          std::tuple{"scores", &first.study.scores, &f.study.scores},
          std::tuple{"bias", &first.study.bias, &f.study.bias}})
      if (labels_of(*a) != labels_of(*b))
        throw user_error(f.origin, ": field '", name, "' has the variants ", labels_of(*b), ", ",
                         first.origin, " has ", labels_of(*a));
    for (size_t i = 0; i < n; ++i) {
      const uint64_t s = seed + i;
      if (!seen.insert(s).second)
        throw user_error(f.origin, ": model seed ", s, " (run ", i + 1,
                         ") is already in another record of ", dir,
                         ": each model may be counted once");
      runs.emplace_back(s, r, i);
    }
  }
  std::sort(runs.begin(), runs.end());
  auto merge = [&](auto pick) {
    select::Variant v;
    v.label = pick(first).label;
    for (const auto& [s, r, i] : runs) v.add(pick(records[r]).runs.at(i));
    return v;
  };
  results::RaceStudyFile& m = out.merged;
  m.study.base =
      merge([](const results::RaceStudyFile& f) -> const select::Variant& { return f.study.base; });
  for (const auto& member : {&select::StudyResult::design_risk, &select::StudyResult::availability,
                             &select::StudyResult::scores, &select::StudyResult::bias})
    for (size_t j = 0; j < (first.study.*member).size(); ++j)
      (m.study.*member)
          .push_back(merge([&](const results::RaceStudyFile& f) -> const select::Variant& {
            return (f.study.*member).at(j);
          }));
  m.study.break_even = m.study.base.over(&select::RunFigures::break_even);
  for (const auto& [s, r, i] : runs) out.model_seeds.push_back(s);

  m.options = first.options;
  m.options["models"] = out.model_seeds.size();
  if (seeds) {
    m.options["model_seeds"] = out.model_seeds;
    m.options["seed"] = out.model_seeds.front();
    m.options["split_seed"] = static_cast<int64_t>(out.model_seeds.front()) + offset;
  }
  m.info = first.info;
  if (records.size() > 1) {  // a provenance line that differs between records names each
    for (auto& [key, value] : m.info.provenance) {
      std::string joined;
      bool differs = false;
      for (const auto& f : records) {
        std::string v;
        for (const auto& [k2, v2] : f.info.provenance)
          if (k2 == key) v = v2;
        differs = differs || v != value;
        joined += (joined.empty() ? "" : "; ") + f.origin + ": " + v;
      }
      if (differs) value = joined;
    }
  }
  m.origin = dir + " (" + std::to_string(records.size()) + " record" +
             (records.size() == 1 ? "" : "s") + ")";

  for (const auto& [row, values] : paper.need_table("table2").rows)
    out.paper_runs += row.rfind("run ", 0) == 0;
  out.protocol_differences = paper_protocol_differences(m.options, paper);
  const size_t k = out.model_seeds.size();
  const std::string dataset = m.options.contains("dataset") && m.options.at("dataset").is_string()
                                  ? m.options.at("dataset").get<std::string>()
                                  : std::string("data set not recorded");
  const std::string what =
      "(" + dataset +
      (seeds ? ", model seeds " + seeds_text(out.model_seeds) : ", model seeds not recorded") + ")";
  if (out.protocol_differences.empty()) {
    out.label = std::to_string(k) + " of " + std::to_string(out.paper_runs) +
                " models of the paper protocol " + what;
  } else {
    std::string d;
    for (const auto& s : out.protocol_differences) d += (d.empty() ? "" : ", ") + s;
    out.label = std::to_string(k) + (k == 1 ? " model" : " models") +
                " of another protocol than the paper's " + what + ": " + d;
  }
  return out;
}

bool has_study_records(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return false;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().extension() == ".json" && e.is_regular_file(ec)) return true;
  return false;
}

StudyRecords read_study_records(const std::string& dir, const PaperData& paper) {
  if (!fs::is_directory(dir))
    throw user_error("study: '", dir,
                     "' is not a directory (expected study records: the study.json of `hetcim "
                     "analog study`, one or several)");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json" && e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw user_error("study: '", dir,
                     "' has no study.json (nor another study record *.json; expected the "
                     "study.json of a finished `hetcim analog study`)");
  std::vector<results::RaceStudyFile> records;
  for (const std::string& f : files) records.push_back(read_race_study(f));
  return merge_study_records(records, paper, dir);
}

}  // namespace hetcim::formats
