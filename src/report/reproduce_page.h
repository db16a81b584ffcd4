// The HTML page and shared pieces of the `hetcim reproduce` reports (report/reproduce.h): the
// page skeleton with its provenance block, a figure with its caption and downloads, and the
// difference table (ours | paper | ratio | reason).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/gnuplot.h"
#include "report/reproduce.h"
#include "util/provenance.h"

namespace hetcim::report {

// printf-style number, e.g. fixed(3.14159, 2) = "3.14".
[[nodiscard]] std::string fixed(double v, int digits);

// <figure id=name> with the SVG as an <img>, the caption (which names the data source) and links
// to the SVG, PDF and PNG files under figures/.
[[nodiscard]] std::string figure_html(const Figure& f);

// A table of differences with a "paper" column; rows within `tolerance` (relative) are counted in
// a line above the table instead of listed, unless `all` is set.
[[nodiscard]] std::string difference_table_html(const std::string& caption,
                                                const std::vector<Difference>& rows,
                                                double tolerance, bool all = false);

// The whole page: title, the line citing the paper(s) ("Paper: Klein et al., ..."), an
// introduction, the body, and the provenance block.
[[nodiscard]] std::string page_html(const std::string& title, const std::string& cited,
                                    const std::string& intro_html, const std::string& body_html,
                                    const Provenance& provenance);

// One paper of `hetcim reproduce all` on the index page.
struct IndexEntry {
  std::string dir;       // the paper's report directory, relative to the index page
  std::string citation;  // authors: title (venue)
  std::string key;       // what `hetcim reproduce` takes, e.g. klein2026
  std::string status;    // api::status_text of its reproduction
  ReproduceOutput output;
};

// <out>/index.html of `reproduce all`: per paper its citation, status, the number of compared
// values and how many agree within `tolerance`, a link to its report and its figures as
// thumbnails linking to them in the report.
[[nodiscard]] std::string index_html(const std::vector<IndexEntry>& papers, double tolerance,
                                     const Provenance& provenance);

[[nodiscard]] nlohmann::json differences_json(const std::vector<Difference>& rows);
[[nodiscard]] nlohmann::json figures_json(const std::vector<Figure>& figures);

// Stages a paper's <out>/report.html (page_html) and <out>/reproduce.json (paper, seed,
// provenance, figures, differences) in `outputs`.
void stage_reproduce_report(OutputSet& outputs, const std::string& out,
                            const formats::PaperData& paper, const std::string& title,
                            const std::string& intro, const std::string& body,
                            const Provenance& provenance, const ReproduceOutput& res);

}  // namespace hetcim::report
