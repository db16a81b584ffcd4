#include "report/reproduce_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "report/figure_style.h"
#include "report/provenance.h"
#include "util/files.h"
#include "util/paper_names.h"

namespace hetcim::report {

std::string fixed(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

std::string figure_html(const Figure& f) {
  const std::string base = "figures/" + f.name;
  // Shown at the share of the page a full-width (two-column) figure takes that its own width is of
  // that width, so that every figure's text appears at one size (a 3.5 in figure stretched to
  // the page would show its fonts twice as large as a 7.16 in one's).
  const double share = std::clamp(f.width_in / figure_style().double_column_in, 0.2, 1.0);
  return "<figure class=\"figure\" id=\"" + html_escape(f.name) + "\"><img src=\"" + base +
         ".svg\" style=\"width:" + fixed(100 * share, 1) + "%\" alt=\"" + html_escape(f.title) +
         "\" onload=\"this.dataset.loaded='1'\" "
         "onerror=\"this.dataset.failed='1';this.alt='figure missing: '+this.src\">"
         "<figcaption>" +
         html_escape(f.caption) + " <span class=\"files\">[<a href=\"" + base +
         ".svg\">SVG</a> <a href=\"" + base + ".pdf\">PDF</a> <a href=\"" + base +
         ".png\">PNG 300 dpi</a>]</span></figcaption></figure>\n";
}

std::string difference_table_html(const std::string& caption, const std::vector<Difference>& rows,
                                  double tolerance, bool all) {
  size_t agree = 0;
  std::string body;
  for (const Difference& d : rows) {
    const double ratio = d.paper_value != 0 ? d.ours / d.paper_value : NAN;
    const bool close = std::isfinite(ratio) && std::fabs(ratio - 1) <= tolerance;
    agree += close;
    if (close && !all) continue;
    body += "<tr><td class=\"l\">" + html_escape(d.cell) + "</td><td>" +
            html_escape(fixed(d.ours, std::fabs(d.ours) < 10 ? 2 : 1)) + "</td><td>" +
            html_escape(d.paper) + "</td><td>" + fixed(ratio, 2) + "</td><td class=\"l\">" +
            html_escape(d.reason) + "</td></tr>\n";
  }
  std::string o =
      "<p class=\"agree\">" + std::to_string(agree) + " of " + std::to_string(rows.size()) +
      // 0.1 % reads as such, not "0 %"; under 0.01 % the values are equal.
      (tolerance >= 1e-4 ? " values within " + fixed(100 * tolerance, tolerance >= 0.01 ? 0 : 1) +
                               " % of the paper"
                         : std::string(" values equal to the paper's")) +
      (all || agree == rows.size() ? "" : "; the others:") + "</p>\n";
  if (body.empty() && !all) return o;
  return o + "<table class=\"diff\"><caption>" + html_escape(caption) +
         "</caption>\n<tr><th>cell</th><th>ours</th><th>paper</th><th>ours / paper</th>"
         "<th>reason (computed from this run)</th></tr>\n" +
         body + "</table>\n";
}

std::string page_html(const std::string& title, const std::string& cited,
                      const std::string& intro_html, const std::string& body_html,
                      const Provenance& provenance) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" +
         html_escape(title) +
         "</title>\n<style>"
         "body{font-family:sans-serif;max-width:1100px;margin:auto;padding:0 12px;color:#222}"
         "figure{margin:28px 0}figure img{width:100%;height:auto;border:1px solid #eee}"
         "figcaption{font-size:13px;color:#333}.files{white-space:nowrap}"
         "table{border-collapse:collapse;font-size:13px;margin:8px 0 20px}"
         "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}td.l,th.l{text-align:left}"
         "th{background:#f3f3f3}caption{text-align:left;font-weight:bold;padding:4px 0}"
         "th.paper,td.paper{background:#fff6e0}.agree{font-size:13px;color:#555}"
         "dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:13px}"
         "dt{font-weight:bold}dd{margin:0;word-break:break-word}"
         "pre{white-space:pre-wrap;overflow-wrap:anywhere}"  // a long command wraps, not cut
         "</style></head><body>\n<h1>" +
         html_escape(title) + "</h1>\n<p class=\"paper\">" + html_escape(cited) + "</p>\n" +
         intro_html + body_html + provenance_html(provenance) + "</body></html>\n";
}

std::string index_html(const std::vector<IndexEntry>& papers, double tolerance,
                       const Provenance& provenance) {
  std::string cited, body;
  for (const IndexEntry& e : papers) {
    // The papers by their names (util/paper_names.h), not the keys `reproduce` takes.
    const PaperName* p = find_paper(e.key);
    cited += (cited.empty() ? "" : "; ") + (p ? std::string(p->short_name) : e.citation);
    size_t agree = 0;
    for (const Difference& d : e.output.differences) {
      const double ratio = d.paper_value != 0 ? d.ours / d.paper_value : NAN;
      agree += std::isfinite(ratio) && std::fabs(ratio - 1) <= tolerance;
    }
    const std::string report = e.dir + "/report.html";
    body += "<section class=\"paper\" id=\"" + html_escape(e.key) + "\"><h2><a href=\"" +
            html_escape(report) + "\">" + html_escape(e.citation) + "</a></h2>\n<p>" +
            html_escape(e.status) + "; " + std::to_string(e.output.figures.size()) + " figures; " +
            std::to_string(agree) + " of " + std::to_string(e.output.differences.size()) +
            " compared values within " + fixed(100 * tolerance, 0) +
            " % of the paper (<code>hetcim reproduce " + html_escape(e.key) +
            "</code>)</p>\n<div class=\"thumbs\">";
    // Thumbnails at one scale (a 7.16 in figure 340 px wide), so their text is alike in size.
    for (const Figure& f : e.output.figures)
      body += "<a href=\"" + html_escape(report + "#" + f.name) + "\"><img src=\"" +
              html_escape(e.dir + "/figures/" + f.name + ".svg") + "\" style=\"width:" +
              fixed(340 * std::clamp(f.width_in / figure_style().double_column_in, 0.2, 1.0), 0) +
              "px\" alt=\"" + html_escape(f.title) + "\" title=\"" + html_escape(f.title) +
              "\" onload=\"this.dataset.loaded='1'\"></a>";
    body += "</div></section>\n";
  }
  const std::string intro =
      "<style>.thumbs{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}"
      ".thumbs img{height:auto;border:1px solid #eee}</style>\n<p>Each paper's "
      "tables and figures regenerated by hetcim beside the published numbers; the reports hold "
      "the difference tables and the provenance of every figure.</p>\n";
  return page_html("hetcim reproduce all", (papers.size() == 1 ? "Paper: " : "Papers: ") + cited,
                   intro, body, provenance);
}

nlohmann::json differences_json(const std::vector<Difference>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const Difference& d : rows)
    a.push_back({{"figure", d.figure},
                 {"cell", d.cell},
                 {"ours", d.ours},
                 {"paper", d.paper},
                 {"paper_value", d.paper_value},
                 {"reason", d.reason}});
  return a;
}

nlohmann::json figures_json(const std::vector<Figure>& figures) {
  nlohmann::json a = nlohmann::json::array();
  for (const Figure& f : figures)
    a.push_back({{"name", f.name},
                 {"title", f.title},
                 {"caption", f.caption},
                 {"files",
                  {"figures/" + f.name + ".svg", "figures/" + f.name + ".pdf",
                   "figures/" + f.name + ".png"}}});
  return a;
}

void stage_reproduce_report(OutputSet& outputs, const std::string& out,
                            const formats::PaperData& paper, const std::string& title,
                            const std::string& intro, const std::string& body,
                            const Provenance& provenance, const ReproduceOutput& res) {
  outputs.add(join_path(out, "report.html"),
              page_html(title, "Paper: " + paper.paper, intro, body, provenance));
  const nlohmann::json j = {{"paper", paper.paper},
                            {"seed", paper.seed},
                            {"provenance", formats::provenance_json(provenance)},
                            {"figures", figures_json(res.figures)},
                            {"differences", differences_json(res.differences)}};
  outputs.add(join_path(out, "reproduce.json"), j.dump(1) + "\n");
}

}  // namespace hetcim::report
