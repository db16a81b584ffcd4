// The one style of every figure hetcim draws (gnuplot, report/gnuplot.h): fonts and sizes for a
// two-column paper, a colour-blind-safe palette, units on every axis, legends outside the data,
// value labels on bars above the published values (black markers beside ours), and a footnote
// (e.g. "host: modelled ...") that goes into the files' metadata (report/figure_metadata.h), drawn
// on the image only when asked (Chart::draw_footnote). Charts are plain data; `chart_body` turns
// one into a gnuplot body for `plot`.
//
//   Bars    grouped bars (groups x series) with value labels; optional paper value per bar
//   Stacks  stacked bars (segments) with a label inside or above each segment; optional markers
//   Lines   x-y series (solid or dashed, log axes), e.g. a roofline with its roofs
//   Gantt   a timeline of bars on lanes (host, bus, accelerator), labelled where they fit
// Bars and Lines panels may carry horizontal reference lines (RefLine, e.g. a target).
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "report/gnuplot.h"

namespace hetcim::report {

struct FigureStyle {
  std::string font = "DejaVu Sans";  // Debian fonts-dejavu-core: the same glyphs everywhere
  double font_pt = 8;                // tick labels, axis labels, legend
  double small_pt = 6.5;             // value labels on bars, footnote
  double title_pt = 9;
  double char_width_em = 0.70;     // average advance of the font, to size legends and wrap
  double column_in = 3.5;          // one column of a two-column paper
  double double_column_in = 7.16;  // full page width
  int png_dpi = 300;
  // Okabe-Ito: distinguishable with every common colour-vision deficiency and in greyscale order.
  std::vector<std::string> palette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                      "#56B4E9", "#D55E00", "#F0E442", "#000000"};
  std::string host = "#1F4E79";   // darker shade: the host CPU (seed 000 Fig. 5)
  std::string accel = "#9DC3E6";  // lighter shade: the accelerator
  std::string bus = "#009E73";    // transfers
  std::string paper = "#000000";  // published values
};

[[nodiscard]] const FigureStyle& figure_style();

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per group; NaN = no bar
  std::vector<double> paper;   // empty or one per group; NaN = not published
};

struct Bars {
  std::vector<std::string> groups;  // x tick labels
  std::vector<BarSeries> series;
  std::string label_format = "%.1f";  // value labels on the bars ("" = none)
};

struct StackSegment {
  std::string name;                 // legend entry
  std::string colour;               // "" = palette by position
  std::vector<double> values;       // one per bar
  std::vector<std::string> labels;  // one per bar ("" = none), drawn inside the segment or above
};

struct Marker {
  std::string name;            // legend entry
  std::vector<double> values;  // one per bar; NaN = none
  bool paper = false;          // black open diamond (published) vs filled circle (ours)
};

struct Stacks {
  std::vector<std::string> bars;       // tick label of each bar
  std::vector<std::string> groups;     // optional: a second tick row, one per run of bars
  std::vector<int> group_of_bar;       // with groups: index into groups per bar
  std::vector<StackSegment> segments;  // bottom to top
  std::vector<Marker> markers;
};

struct LineSeries {
  std::string name;
  std::vector<double> x, y;
  bool dashed = false;
  bool points = true;
  bool paper = false;  // published points: black open diamonds, no line
  int colour = -1;     // palette index; -1 = by position
};

struct Lines {
  std::vector<LineSeries> series;
  bool log_x = false, log_y = false;
  // Named x ticks (e.g. 1 h, 1 d, 1 y at their seconds on a log axis); empty: gnuplot's, and on a
  // log axis labelled 1e3, 1e4, ... so that they never run together.
  std::vector<std::pair<double, std::string>> xtics = {};
  // Whether the y axis starts at 0; false: it spans the data with 8 % of its range either side
  // (a Pareto front at 310-325 mJ would be flat from 0).
  bool y_from_zero = true;
};

// A timeline: bars on named lanes (top to bottom), one colour per kind, labelled inside when the
// bar is wide enough for its label.
struct GanttBar {
  int lane = 0;
  double start = 0, finish = 0;  // x units of the panel (e.g. ms)
  int kind = 0;
  std::string label;
};

struct Gantt {
  std::vector<std::string> lanes;
  std::vector<std::string> kinds;         // legend entries
  std::vector<std::string> kind_colours;  // one per kind
  std::vector<GanttBar> bars;
};

// A horizontal reference line across a panel (e.g. a risk target), dashed, in the legend.
struct RefLine {
  std::string name;  // legend entry
  double y = 0;      // in the panel's y units
  int colour = 5;    // palette index (vermillion)
};

struct Panel {
  std::string title;
  std::string xlabel, ylabel;  // with units, e.g. "latency (ms)"
  double ymin = kNoValue, ymax = kNoValue;
  std::variant<Bars, Stacks, Lines, Gantt> chart;
  std::vector<RefLine> hlines = {};  // drawn over Bars and Lines panels; the y range includes them
};

struct Chart {
  std::string title;
  std::vector<Panel> panels;   // laid out in one row
  std::string footnote;        // where the numbers come from: the files' metadata (plot_chart)
  bool draw_footnote = false;  // and also drawn at the bottom left of the image
  int key_columns = 0;         // legend entries per row above the panels (0 = all in one row)
};

// Axis ticks from 0 to `span` at a round step (1, 2 or 5 times a power of ten) giving 4 to 7
// ticks: 0, 5, 10, 15, 20, 25 for a 28.41 ms schedule, not 0, 5.682, 11.36, ... (the Gantt SVGs).
[[nodiscard]] std::vector<double> round_ticks(double span);

// Ticks of a log axis over [lo, hi] that spans fewer than three powers of ten, where gnuplot
// would label one or two (a roofline's 40-700 op/B showed only "1e2"): 1, 2 and 5 times the
// powers of ten inside, or 1..9 times them when those are fewer than three. Empty when the axis
// holds three powers of ten or more (gnuplot's decades, labelled 1e3, 1e4, ...).
[[nodiscard]] std::vector<double> log_ticks(double lo, double hi);

// The gnuplot body of a chart for a figure of width_in x height_in inches (terminal and output are
// set by `plot`; margins and the legend band are sized in text lines). Throws InternalError when
// a series' length does not match its groups or bars.
[[nodiscard]] std::string chart_body(const Chart& c, double width_in, double height_in);

// What the user asked of a command's figures beyond the style (the CLI's figure flags,
// cli/options.h `figure_flags`); every writer of figures takes one and hands it to plot_chart.
struct FigureOptions {
  // Also draw each chart's footnote (where its numbers come from) at the bottom of the image; it
  // is in the files' metadata either way (--footnote-on-image).
  bool draw_footnote = false;
};

// Draws the chart into <dir>/<f.name>.{svg,pdf,png} (report/gnuplot.h), with the footnote on the
// image when the chart or `options` asks for it.
void plot_chart(OutputSet& out, const std::string& dir, const Figure& f, const Chart& c,
                const FigureOptions& options = {});

}  // namespace hetcim::report
