// The figure style: a chart is drawn as SVG, PDF and PNG at the sizes the style promises (PNG
// pixels = inches x 300, PDF page = inches x 72 pt), the legend is in the figure, the footnote
// (provenance) in the SVG's and PNG's metadata and on the image only when asked, value labels
// stand above the paper's markers, axes are ticked and ranged as asked, and malformed charts are
// internal errors.
#include "report/figure_style.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "report/figure_metadata.h"
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
  for (const char* text :
       {"50 ns", "1000 ns", "paper (published)", "ARM host", "speedup (x)", "crossbars"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  // The footnote is the file's metadata, not a drawn text: once in <desc>, once in <metadata>.
  const size_t desc = svg.find("<desc>caption\nHost MODELLED: a footnote in the figure.</desc>");
  EXPECT_NE(desc, std::string::npos) << svg.substr(0, 600);
  EXPECT_NE(svg.find("<hetcim:source>Host MODELLED: a footnote in the figure.</hetcim:source>"),
            std::string::npos);
  size_t count = 0;
  for (size_t at = svg.find("Host MODELLED"); at != std::string::npos;
       at = svg.find("Host MODELLED", at + 1))
    ++count;
  EXPECT_EQ(count, 2u);
  EXPECT_NE(svg.find("<title>Sample</title>"), std::string::npos);
  // The PNG: iTXt chunks with valid CRCs before IEND, the footnote as Comment.
  bool comment = false;
  for (size_t at = 8; at + 12 <= png.size();) {
    const uint32_t n = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    ASSERT_LE(at + 12 + n, png.size());
    EXPECT_EQ(be32(png, at + 8 + n), hetcim::report::detail::crc32(png.substr(at + 4, 4 + n)))
        << type;
    if (type == "iTXt" && png.substr(at + 8, 8) == std::string("Comment\0", 8))
      comment = png.substr(at + 8, n).find("Host MODELLED: a footnote") != std::string::npos;
    if (type == "IEND") break;
    at += 12 + n;
  }
  EXPECT_TRUE(comment);
  // Value labels of ours on the bars (the paper's values are markers, not labels).
  EXPECT_NE(svg.find(">5.4<"), std::string::npos);
  EXPECT_EQ(svg.find(">30.9<"), std::string::npos);
  fs::remove_all(dir);
}

// Issue 36: asked (FigureOptions, the CLI's --provenance-on-image), the footnote is drawn on the
// image too: once more in the SVG, as the text of a drawn label.
TEST(FigureStyle, TheFootnoteIsDrawnWhenAsked) {
  const fs::path dir = fs::temp_directory_path() / ("hetcim_drawn_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    hetcim::OutputSet out;
    plot_chart(out, dir.string(), {"asked", "Sample", "caption", 7.16, 3.0}, sample(),
               FigureOptions{true});
    out.commit();
  }
  const std::string svg = slurp(dir / "asked.svg");
  size_t count = 0;
  for (size_t at = svg.find("Host MODELLED"); at != std::string::npos;
       at = svg.find("Host MODELLED", at + 1))
    ++count;
  EXPECT_EQ(count, 3u);  // <desc>, <metadata>, and the drawn text
  EXPECT_NE(svg.find(">Host MODELLED: a footnote in the figure.</text>"), std::string::npos);
  fs::remove_all(dir);
}

TEST(FigureStyle, LongFootnotesWrapAndLegendsStayOutsideThePanels) {
  Chart c = sample();
  c.footnote = std::string(400, 'x').replace(100, 1, " ").replace(200, 1, " ").replace(300, 1, " ");
  EXPECT_EQ(chart_body(c, 3.5, 3.0).find("xxxxxxxxxx"), std::string::npos);  // not drawn by default
  c.draw_footnote = true;
  const std::string body = chart_body(c, 3.5, 3.0);
  // Four words of ~100 characters on a 3.5 in figure: one label per line.
  EXPECT_NE(body.find("set label 4 "), std::string::npos);
  // The legend is drawn in screen coordinates above the panels, never with gnuplot's key.
  EXPECT_NE(body.find("unset key"), std::string::npos);
  EXPECT_EQ(body.find("title '50 ns'"), std::string::npos);
  EXPECT_NE(body.find("'50 ns' at screen"), std::string::npos);
}

// The positions gnuplot drew: each paper diamond (pt 12, gnuplot's gpPt11: a 2x2 square turned
// 45 degrees, scaled) and each value label (a text rotated to run upwards from its anchor).
struct Drawn {
  double x, y;
  double extent;  // a diamond's half height; a label's length (px)
  std::string text;
};

std::vector<Drawn> diamonds(const std::string& svg) {
  std::vector<Drawn> d;
  const std::regex re(
      "<use xlink:href='#gpPt11' transform='translate\\(([0-9.]+),([0-9.]+)\\) scale\\(([0-9.]+)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it)
    d.push_back(
        {std::stod((*it)[1]), std::stod((*it)[2]), std::sqrt(2.0) * std::stod((*it)[3]), ""});
  return d;
}

std::vector<Drawn> rotated_labels(const std::string& svg) {
  std::vector<Drawn> d;
  const std::regex re(
      "<g transform=\"translate\\(([0-9.]+),([0-9.]+)\\) rotate\\(-90\\)\"[^>]*font-size=\"([0-9."
      "]+)\"[^>]*>\\s*<text>([^<]*)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator();
       ++it) {
    const std::string text = (*it)[4];
    // DejaVu Sans: digits 0.636 em, the point 0.318 em; 0.64 em a character is an upper bound.
    d.push_back({std::stod((*it)[1]), std::stod((*it)[2]),
                 0.64 * std::stod((*it)[3]) * static_cast<double>(text.size()), text});
  }
  return d;
}

TEST(FigureStyle, ValueLabelsNeverOverlapThePapersMarkers) {
  // Drawn by gnuplot, read back from the SVG: no value label's extent meets its bar's diamond
  // (SVG y grows downwards; a label runs up from its anchor). In the first panel (0-40) a label
  // stays on its bar when the diamond is far above (5.4 vs 30.9) and moves above a diamond that
  // would cover it (1.1 vs 2.7).
  const fs::path dir = fs::temp_directory_path() / ("hetcim_labels_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Chart c = sample();
  std::get<Bars>(c.panels[1].chart).series[0].paper = {1.0, kNoValue};  // a bar above its paper
  {
    hetcim::OutputSet out;
    plot_chart(out, dir.string(), {"labels", "Labels", "", 7.16, 3.0}, c);
    out.commit();
  }
  const std::string svg = slurp(dir / "labels.svg");
  const std::vector<Drawn> all = diamonds(svg), labels = rotated_labels(svg);
  // The legend's diamond stands above the panels (y < 60 px of 288); the others are the bars'.
  std::vector<Drawn> marks;
  for (const Drawn& m : all)
    if (m.y > 60) marks.push_back(m);
  EXPECT_EQ(all.size(), marks.size() + 1) << svg;
  EXPECT_EQ(marks.size(), 7u) << svg;   // 4 paper values in panel 1, 3 in panel 2
  EXPECT_EQ(labels.size(), 8u) << svg;  // one per bar
  int above = 0, below = 0;
  for (const Drawn& m : marks) {
    // The label of this bar: the nearest in x (a rotated text's anchor is a few px right of the
    // bar's centre).
    const Drawn* l = nullptr;
    for (const Drawn& cand : labels)
      if (!l || std::abs(cand.x - m.x) < std::abs(l->x - m.x)) l = &cand;
    ASSERT_NE(l, nullptr);
    ASSERT_LT(std::abs(l->x - m.x), 6.0) << l->text;
    const bool is_above = l->y <= m.y - m.extent;              // the whole label above the diamond
    const bool is_below = l->y - l->extent >= m.y + m.extent;  // the whole label below it
    EXPECT_TRUE(is_above || is_below)
        << "label " << l->text << " from y " << l->y << " up " << l->extent
        << " px meets the diamond at " << m.y << " +- " << m.extent;
    above += is_above;
    below += is_below;
    if (m.x < 687 / 2.0) {  // the first panel, 0-40
      EXPECT_TRUE(l->text != "5.4" || is_below) << "5.4 should stay on its bar, under 30.9";
      EXPECT_TRUE(l->text != "1.1" || is_above) << "1.1 should move above the diamond at 2.7";
    }
  }
  EXPECT_GE(above, 1);
  EXPECT_GE(below, 1);
  fs::remove_all(dir);
}

TEST(FigureStyle, PanelsOfOneBarDraw) {
  // gnuplot 5.4.4 exits 139 on `with labels` over a one-row data block whose point is undefined;
  // the one-bar panels (the DW engine's speedup, a one-budget DSE) took that path through a NaN
  // filter. One group with and without a paper value, an undefined bar, one stacked bar whose
  // label sits above it: each is drawn, its labels present.
  const fs::path dir = fs::temp_directory_path() / ("hetcim_onebar_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Chart c;
  c.title = "one bar";
  c.panels.push_back({"paper", "", "x", 0, 35, Bars{{"engine over SW"}, {{"ours", {25}, {26}}}}});
  c.panels.push_back({"no paper", "", "x", kNoValue, kNoValue, Bars{{"g"}, {{"ours", {7}, {}}}}});
  c.panels.push_back(
      {"undefined", "", "x", kNoValue, kNoValue, Bars{{"g"}, {{"ours", {kNoValue}, {3}}}}});
  StackSegment seg{"host", "", {10}, {"base"}};  // inside its segment
  StackSegment seg2{"cim", "", {0.1}, {"top"}};  // too thin: above the bar and its marker
  c.panels.push_back({"stack", "", "ms", kNoValue, kNoValue,
                      Stacks{{"one"}, {}, {}, {seg, seg2}, {{"paper", {12}, true}}}});
  {
    hetcim::OutputSet out;
    ASSERT_NO_THROW(plot_chart(out, dir.string(), {"onebar", "One bar", "", 7.16, 3.0}, c));
    out.commit();
  }
  const std::string svg = slurp(dir / "onebar.svg");
  for (const char* text : {">25.0<", ">7.0<", ">base<", ">top<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text;
  // The stacked bar's "top" (10.1 high) would meet its paper diamond at 12: it stands above it.
  const std::vector<Drawn> labels = rotated_labels(svg), marks = diamonds(svg);
  const auto top =
      std::find_if(labels.begin(), labels.end(), [](const Drawn& l) { return l.text == "top"; });
  ASSERT_NE(top, labels.end());
  const Drawn* mark = nullptr;
  for (const Drawn& m : marks)
    if (!mark || std::abs(m.x - top->x) < std::abs(mark->x - top->x)) mark = &m;
  ASSERT_NE(mark, nullptr);
  EXPECT_LT(std::abs(mark->x - top->x), 8.0);
  EXPECT_LE(top->y, mark->y - mark->extent) << "the label meets the diamond";
  fs::remove_all(dir);
}

TEST(FigureStyle, AxesAsAsked) {
  // A front from 310 to 325 mJ: the y axis spans it with 8 % of the range either side, not 0.
  Chart c;
  c.title = "front";
  LineSeries front{"front", {10, 12, 15}, {325, 318, 310}};
  Lines l{{front}, false, false, {}, false};
  c.panels.push_back({"", "latency (ms)", "energy (mJ)", kNoValue, kNoValue, l});
  EXPECT_NE(chart_body(c, 5, 3).find("set yrange [308.8:326.2]"), std::string::npos);
  std::get<Lines>(c.panels[0].chart).y_from_zero = true;
  EXPECT_NE(chart_body(c, 5, 3).find("set yrange [0:357.5]"), std::string::npos);
  // A log time axis: named ticks where given, else 1e3-style labels (never 1000100001000001e+06).
  Chart d;
  d.title = "drift";
  Lines t{{{"acc", {1, 3600, 31557600}, {90, 88, 80}}},
          true,
          false,
          {{1, "1s"}, {3600, "1h"}, {31557600, "1y"}}};
  d.panels.push_back({"", "time after programming (log scale)", "accuracy (%)", 0, 100, t});
  const std::string body = chart_body(d, 5, 3);
  EXPECT_NE(body.find("set xtics ('1s' 1, '1h' 3600, '1y' 31557600) nomirror"), std::string::npos)
      << body;
  std::get<Lines>(d.panels[0].chart).xtics.clear();
  EXPECT_NE(chart_body(d, 5, 3).find("set format x '1e%T'"), std::string::npos);
}

// Issue 36: the roofline's log x axis (40-700 op/B) showed one labelled tick, "1e2".
TEST(FigureStyle, LogAxesOfFewDecadesAreTickedAtOneTwoFive) {
  EXPECT_EQ(log_ticks(32, 875), (std::vector<double>{50, 100, 200, 500}));
  EXPECT_EQ(log_ticks(100, 400), (std::vector<double>{100, 200, 300, 400}));  // 1..9 x 10^n
  const std::vector<double> small = log_ticks(0.008, 0.06);
  ASSERT_EQ(small.size(), 3u);
  EXPECT_NEAR(small[0], 0.01, 1e-15);
  EXPECT_NEAR(small[2], 0.05, 1e-15);
  EXPECT_TRUE(log_ticks(1, 31557600).empty());  // 8 decades: gnuplot's 1e0, 1e1, ...
  EXPECT_TRUE(log_ticks(0, 10).empty());
  Chart c;
  c.title = "roofline";
  Lines l{{{"attained", {40, 150, 700}, {35, 130, 340}}}, true, true, {}, true};
  c.panels.push_back({"", "intensity (op/B)", "throughput (GOPS)", kNoValue, kNoValue, l});
  const std::string body = chart_body(c, 5, 3);
  EXPECT_NE(body.find("set xtics ('50' 50, '100' 100, '200' 200, '500' 500) nomirror"),
            std::string::npos)
      << body;
  EXPECT_EQ(body.find("set format x '1e%T'"), std::string::npos);
}

// Issue 36: "250 MHz, pipelined" over the last of four panels of a 7.16 in figure ran off the
// image; a title wider than its panel is set smaller (not below the small size), others as before.
TEST(FigureStyle, PanelTitlesFitTheirPanels) {
  Chart c;
  c.title = "roofline";
  Lines l{{{"attained", {40, 150, 700}, {35, 130, 340}}}, true, true, {}, true};
  for (int k = 0; k < 4; ++k)
    c.panels.push_back({"250 MHz, pipelined", "intensity (op/B)", "GOPS", kNoValue, kNoValue, l});
  std::smatch m;
  std::string body = chart_body(c, 7.16, 3.0);
  ASSERT_TRUE(
      std::regex_search(body, m, std::regex("set title '250 MHz, pipelined' font ',([0-9.]+)'")))
      << body;
  const double pt = std::stod(m[1]);
  EXPECT_LT(pt, figure_style().font_pt);
  EXPECT_GE(pt, figure_style().small_pt);
  // Its estimated width, centred on the last panel, ends inside the image (0.12 in right margin).
  const double panel = (7.16 - 0.95 - 0.12 - 3 * 0.6) / 4;
  EXPECT_LE(18 * pt * figure_style().char_width_em / 72 / 2, panel / 2 + 0.12);
  c.panels.resize(3);
  body = chart_body(c, 7.16, 3.0);
  EXPECT_NE(body.find("set title '250 MHz, pipelined' font ',8'"), std::string::npos);
}

// Issue 36 ("legend samples are cut"): a dashed series' legend sample is two dashes drawn apart,
// not gnuplot's dash pattern over the short sample (which ended in a stub).
TEST(FigureStyle, DashedLegendSamplesAreTwoDashes) {
  Chart c;
  c.title = "roofs";
  LineSeries roof{"compute roof", {1, 2}, {3, 4}, true, false};
  roof.colour = 7;
  Lines l{{{"attained", {1, 2}, {1, 2}}, roof}, false, false, {}, true};
  c.panels.push_back({"", "x", "y", kNoValue, kNoValue, l});
  const std::string body = chart_body(c, 5, 3);
  const std::regex arrow(
      "set arrow [0-9]+ from screen [^\\n]* nohead lw 1.4 lc rgb '#000000'([^\\n]*)");
  size_t dashes = 0;
  for (auto it = std::sregex_iterator(body.begin(), body.end(), arrow);
       it != std::sregex_iterator(); ++it) {
    ++dashes;
    EXPECT_EQ((*it)[1].str().find("dt"), std::string::npos) << (*it)[0];
  }
  EXPECT_EQ(dashes, 2u) << body;
  EXPECT_NE(body.find("dt 2 lc rgb '#000000'"), std::string::npos);  // the data line stays dashed
}

TEST(FigureStyle, RoundTicksAtOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_EQ(round_ticks(28.41e-3), (std::vector<double>{0, 5e-3, 10e-3, 15e-3, 20e-3, 25e-3}));
  EXPECT_EQ(round_ticks(33.98e-3).size(), 4u);  // 0, 10, 20, 30 ms
  EXPECT_DOUBLE_EQ(round_ticks(33.98e-3)[3], 30e-3);
  EXPECT_EQ(round_ticks(1.0).size(), 6u);  // 0, 0.2, ..., 1.0
  for (const double span : {1e-7, 3.3e-5, 0.7, 9.99, 123.0, 4.6e4}) {
    const std::vector<double> t = round_ticks(span);
    EXPECT_GE(t.size(), 3u) << span;
    EXPECT_LE(t.size(), 11u) << span;
    EXPECT_LE(t.back(), span * (1 + 1e-9)) << span;
    const double step = t[1] - t[0], mag = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double m = step / mag;
    EXPECT_TRUE(std::abs(m - 1) < 1e-6 || std::abs(m - 2) < 1e-6 || std::abs(m - 5) < 1e-6)
        << span << ": step " << step;
  }
  EXPECT_EQ(round_ticks(0), (std::vector<double>{0}));
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
