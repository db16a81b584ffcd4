// Published numbers of a paper as data (data/paper/seedNNN.yaml): every value a table or figure
// of the paper prints, each table with the page element it comes from. Plain data, read and
// validated once; the reproduce reports put hetcim's figures beside these.
//
//   paper: "Klein et al., ... (2026)"
//   seed: "000"
//   tables:
//     fig3:
//       what: ResNet-18 speedup over CPU-only execution
//       source: "Fig. 3 (bar value labels), Sec. V-A"
//       unit: x
//       columns: {name: crossbars, keys: ["25", "50", "100", "200"]}
//       rows:
//         "arm 50ns": [8.7, 8.8, 30.9, 30.9]     # a number, null (not printed), or a
//                                                # qualified string "<0.01" / "~1"
//   values:
//     arm_peak_speedup: {value: 30.9, unit: x, source: "Abstract"}
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hetcim::formats {

struct PaperValue {
  bool present = false;                    // false: the paper does not print this cell (null)
  double value = 0;                        // the number (for "<0.01": 0.01)
  std::string qualifier;                   // "", "<" (below), "~" (about)
  [[nodiscard]] std::string text() const;  // as printed: "8.7", "<0.01", "~1", "" when absent
};

struct PaperTable {
  std::string id, what, source, unit;
  std::string column_name;
  std::vector<std::string> columns;
  std::vector<std::pair<std::string, std::vector<PaperValue>>> rows;  // in file order

  // nullptr when the row or column is not in the table.
  [[nodiscard]] const PaperValue* find(const std::string& row, const std::string& column) const;
};

struct PaperScalar {
  std::string id, unit, source;
  double value = 0;
};

struct PaperData {
  std::string paper, seed, origin;  // origin: the file read
  std::vector<PaperTable> tables;
  std::vector<PaperScalar> values;

  [[nodiscard]] const PaperTable* table(const std::string& id) const;
  [[nodiscard]] const PaperScalar* scalar(const std::string& id) const;
  // The table or value that must exist (a report that needs it); UserError naming the file.
  [[nodiscard]] const PaperTable& need_table(const std::string& id) const;
  [[nodiscard]] double need_value(const std::string& id) const;
  // Checks every table and value a report needs before it writes anything (UserError otherwise).
  void require(const std::vector<std::string>& table_ids,
               const std::vector<std::string>& value_ids) const;
};

// Parses the YAML text; `origin` names the file in errors ("seed000.yaml: tables.fig3.rows.'arm
// 50ns': expected 4 values, got 3").
[[nodiscard]] PaperData parse_paper_data(const std::string& text, const std::string& origin);
[[nodiscard]] PaperData load_paper_data(const std::string& path);

}  // namespace hetcim::formats
