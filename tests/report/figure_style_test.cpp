// The figure style: a chart is drawn as SVG, PDF and PNG at the sizes the style promises (PNG
// pixels = inches x 300, PDF page = inches x 72 pt), the legend and footnote are in the figure,
// and malformed charts are internal errors.
#include "report/figure_style.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "util/error.h"
#include "util/output_set.h"

namespace {

namespace fs = std::filesystem;
using namespace hetcim::report;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

uint32_t be32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<unsigned char>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<unsigned char>(s[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<unsigned char>(s[at + 3]));
}

Chart sample() {
  Chart c;
  c.title = "Sample";
  c.footnote = "Host MODELLED: a footnote in the figure.";
  Bars b;
  b.groups = {"25", "100"};
  b.series = {{"50 ns", {1.5, 5.4}, {8.7, 30.9}}, {"1000 ns", {1.1, 2.9}, {2.7, 3.1}}};
  c.panels.push_back({"ARM host", "crossbars", "speedup (x)", kNoValue, kNoValue, b});
  c.panels.push_back({"x86 host", "crossbars", "speedup (x)", kNoValue, kNoValue, b});
  return c;
}

TEST(FigureStyle, DrawsSvgPdfAndPngAtTheStyleSizes) {
  const fs::path dir = fs::temp_directory_path() / ("hetcim_style_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const Figure f{"sample", "Sample", "caption", 7.16, 3.0};
  {
    hetcim::OutputSet out;
    plot_chart(out, dir.string(), f, sample());
    out.commit();
  }
  const std::string png = slurp(dir / "sample.png");
  ASSERT_GT(png.size(), 24u);
  ASSERT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(be32(png, 16), 2148u);  // 7.16 in x 300 dpi
  EXPECT_EQ(be32(png, 20), 900u);   // 3.0 in x 300 dpi
  const std::string pdf = slurp(dir / "sample.pdf");
  ASSERT_EQ(pdf.substr(0, 5), "%PDF-");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(pdf, m, std::regex("/MediaBox \\[ ?0 0 ([0-9.]+) ([0-9.]+) ?\\]")));
  EXPECT_NEAR(std::stod(m[1]), 7.16 * 72, 1.0);
  EXPECT_NEAR(std::stod(m[2]), 3.0 * 72, 1.0);
  const std::string svg = slurp(dir / "sample.svg");
  for (const char* text : {"50 ns", "1000 ns", "paper (published)", "Host MODELLED", "ARM host",
                           "speedup (x)", "crossbars"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  // Value labels of ours on the bars (the paper's values are markers, not labels).
  EXPECT_NE(svg.find(">5.4<"), std::string::npos);
  EXPECT_EQ(svg.find(">30.9<"), std::string::npos);
  fs::remove_all(dir);
}

TEST(FigureStyle, LongFootnotesWrapAndLegendsStayOutsideThePanels) {
  Chart c = sample();
  c.footnote = std::string(400, 'x').replace(100, 1, " ").replace(200, 1, " ").replace(300, 1, " ");
  const std::string body = chart_body(c, 3.5, 3.0);
  // Four words of ~100 characters on a 3.5 in figure: one label per line.
  EXPECT_NE(body.find("set label 4 "), std::string::npos);
  // The legend is drawn in screen coordinates above the panels, never with gnuplot's key.
  EXPECT_NE(body.find("unset key"), std::string::npos);
  EXPECT_EQ(body.find("title '50 ns'"), std::string::npos);
  EXPECT_NE(body.find("'50 ns' at screen"), std::string::npos);
}

TEST(FigureStyle, MalformedChartsAreInternalErrors) {
  Chart c = sample();
  std::get<Bars>(c.panels[0].chart).series[0].values.pop_back();
  EXPECT_THROW((void)chart_body(c, 7.16, 3.0), hetcim::InternalError);
  Chart empty;
  EXPECT_THROW((void)chart_body(empty, 7.16, 3.0), hetcim::InternalError);
  Chart g;
  Gantt gantt;
  gantt.lanes = {"host"};
  gantt.kinds = {"op"};
  gantt.kind_colours = {"#000000"};
  gantt.bars = {{3, 0, 1, 0, ""}};  // lane 3 does not exist
  g.panels.push_back({"", "time (ms)", "", kNoValue, kNoValue, gantt});
  EXPECT_THROW((void)chart_body(g, 7.16, 3.0), hetcim::InternalError);
}

}  // namespace
