// The index page of `hetcim reproduce all` (report/reproduce_page.h, issue 36): every paper's
// report is linked, every figure is a thumbnail of its SVG linking to its place in the report,
// the count of compared values within the tolerance is the one the test recounts from the
// differences, and text from runs (titles, citations) reaches the page escaped.
#include "report/reproduce_page.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace hetcim::report;

std::vector<std::string> attribute_values(const std::string& html, const std::string& attr) {
  std::vector<std::string> v;
  const std::regex re(attr + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), re); it != std::sregex_iterator();
       ++it)
    v.push_back((*it)[1]);
  return v;
}

IndexEntry entry(const std::string& dir, const std::string& key, std::vector<std::string> figures,
                 std::vector<std::pair<double, double>> ours_paper) {
  IndexEntry e{dir, "Someone et al., 'A paper' (" + key + ")", key, "computed", {}};
  for (const std::string& f : figures) e.output.figures.push_back({f, f + " title", "caption"});
  for (const auto& [ours, paper] : ours_paper)
    e.output.differences.push_back({"fig", "cell", ours, "p", paper, "reason"});
  return e;
}

TEST(ReproduceIndex, LinksEveryReportAndFigure) {
  const std::vector<IndexEntry> papers = {
      entry("seed000", "klein2026", {"fig3", "fig4"}, {{1.05, 1.0}, {2.0, 1.0}, {0.95, 1.0}}),
      entry("seed001", "garofalo2022", {"fig9", "dw_engine", "fig10"}, {{29.7, 29.7}}),
      entry("seed002", "yousuf2026", {"fig2d"}, {{0.5, 1.0}, {3.0, 0.0}})};
  hetcim::Provenance prov;
  prov.command_line = "hetcim reproduce all --quick";
  const std::string html = index_html(papers, 0.10, prov);
  const std::vector<std::string> hrefs = attribute_values(html, "href");
  const std::vector<std::string> srcs = attribute_values(html, "src");
  const std::set<std::string> href_set(hrefs.begin(), hrefs.end());
  size_t figures = 0;
  for (const IndexEntry& e : papers) {
    EXPECT_TRUE(href_set.count(e.dir + "/report.html")) << e.dir;
    for (const Figure& f : e.output.figures) {
      ++figures;
      EXPECT_TRUE(href_set.count(e.dir + "/report.html#" + f.name)) << f.name;
      EXPECT_NE(std::find(srcs.begin(), srcs.end(), e.dir + "/figures/" + f.name + ".svg"),
                srcs.end())
          << f.name;
    }
    // The agreement count, recounted here: |ours / paper - 1| <= 10 %, a paper value of 0 never.
    size_t agree = 0;
    for (const Difference& d : e.output.differences)
      agree += d.paper_value != 0 && std::fabs(d.ours / d.paper_value - 1) <= 0.10;
    const std::string sentence = std::to_string(agree) + " of " +
                                 std::to_string(e.output.differences.size()) +
                                 " compared values within 10 %";
    EXPECT_NE(html.find(sentence), std::string::npos) << sentence;
    EXPECT_NE(html.find("<code>hetcim reproduce " + e.key + "</code>"), std::string::npos);
  }
  EXPECT_EQ(srcs.size(), figures);  // one image per figure, nothing else
  EXPECT_NE(html.find("2 of 3 compared values"), std::string::npos);  // the hand count
  EXPECT_NE(html.find("0 of 2 compared values"), std::string::npos);
  EXPECT_NE(html.find("hetcim reproduce all --quick"), std::string::npos);  // the provenance
  // The papers by name (util/paper_names.h), not by the keys `reproduce` takes.
  EXPECT_NE(html.find("<p class=\"paper\">Papers: CPU-CIM partitioning (Klein et al. 2026); the "
                      "PULP + PCM IMA cluster (Garofalo et al. 2022); RACE-AIMC (Yousuf, "
                      "Lueker-Boden 2026)</p>"),
            std::string::npos)
      << html.substr(0, 900);
}

TEST(ReproduceIndex, TextFromRunsIsEscaped) {
  IndexEntry e = entry("seed000", "klein2026", {"fig3"}, {});
  e.citation = "<script>alert(1)</script>";
  e.output.figures[0].title = "a \"quoted\" <b>title</b>";
  e.status = "time limit & gap";
  const std::string html = index_html({e}, 0.10, {});
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<b>title"), std::string::npos);
  EXPECT_NE(html.find("time limit &amp; gap"), std::string::npos);
  // Every attribute value is closed where it should be: the quotes of the title are escaped.
  for (const std::string& alt : attribute_values(html, "alt"))
    EXPECT_EQ(alt.find('<'), std::string::npos) << alt;
}

}  // namespace

// Issue 36: a difference table says how close its values must be as a reader would: Table I's
// 0.1 % is "0.1 %", not "0 %", and a tolerance of zero (yes/no statements, exact counts) is
// "equal to the paper's".
namespace {

using namespace hetcim::report;

TEST(ReproducePage, TheToleranceLineReadsAsWritten) {
  const std::vector<Difference> rows = {{"t", "a", 38, "38", 38, "equal"},
                                        {"t", "b", 50, "38", 38, "more"}};
  EXPECT_NE(difference_table_html("c", rows, 0.10).find("1 of 2 values within 10 % of the paper"),
            std::string::npos);
  EXPECT_NE(difference_table_html("c", rows, 0.001).find("1 of 2 values within 0.1 % of the paper"),
            std::string::npos);
  EXPECT_NE(difference_table_html("c", rows, 0.0).find("1 of 2 values equal to the paper's"),
            std::string::npos);
  EXPECT_NE(difference_table_html("c", rows, 1e-9).find("values equal to the paper's"),
            std::string::npos);
}

}  // namespace
