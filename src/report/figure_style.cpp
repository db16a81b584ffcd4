#include "report/figure_style.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>

#include "formats/number_text.h"
#include "report/gnuplot.h"
#include "util/error.h"

namespace hetcim::report {
namespace {

// Every text of a chart reaches the script through gnuplot_string or gnuplot_datum (gnuplot.h).
std::string q(std::string_view s) {
  return gnuplot_string(s);
}

std::string num(double v) {
  return std::isfinite(v) ? formats::number_g9(v) : std::string("NaN");
}

std::string fmt(const std::string& f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f.c_str(), v);
  return b;
}

std::string colour(int i) {
  const auto& p = figure_style().palette;
  return p[static_cast<size_t>(i) % p.size()];
}

std::string font(double pt) {
  return "font '," + fmt("%g", pt) + "'";
}

// Largest finite value among the lists.
double max_of(std::initializer_list<const std::vector<double>*> lists) {
  double m = 0;
  for (const auto* l : lists)
    for (double v : *l)
      if (std::isfinite(v)) m = std::max(m, v);
  return m;
}

// Legend entries collected from every panel (first occurrence of a name wins), drawn once above
// the panels across the whole figure width.
struct LegendEntry {
  enum class Kind { Box, Line, Point } kind = Kind::Box;
  std::string name, colour;
  bool dashed = false;
  int point_type = 7;
};

struct Legend {
  std::vector<LegendEntry> entries;
  void add(LegendEntry e) {
    if (e.name.empty()) return;
    for (const auto& x : entries)
      if (x.name == e.name) return;
    entries.push_back(std::move(e));
  }
};

// Largest reference line of a panel (0 without any).
double ref_max(const Panel& p) {
  double m = 0;
  for (const RefLine& r : p.hlines)
    if (std::isfinite(r.y)) m = std::max(m, r.y);
  return m;
}

// The panel's reference lines as arrows in first-axis y across the graph, with legend entries.
std::string ref_lines(const Panel& p, Legend& legend) {
  std::string o;
  int id = 50;
  for (const RefLine& r : p.hlines) {
    if (!std::isfinite(r.y)) throw internal_error("reference line '", r.name, "' is not finite");
    o += "set arrow " + std::to_string(id++) + " from graph 0, first " + num(r.y) +
         " to graph 1, first " + num(r.y) + " nohead lw 1.4 dt 2 lc rgb " + q(colour(r.colour)) +
         " front\n";
    legend.add({LegendEntry::Kind::Line, r.name, colour(r.colour), true});
  }
  return o;
}

std::string yrange(const Panel& p, double data_max, bool log_y, double headroom) {
  if (std::isfinite(p.ymin) || std::isfinite(p.ymax)) {
    // A fixed bottom alone: the top still leaves room for value labels and reference lines
    // (gnuplot's autoscale sees neither).
    const std::string top = std::isfinite(p.ymax) ? num(p.ymax)
                            : !log_y && data_max > 0 && (std::isfinite(p.ymin) && p.ymin < data_max)
                                ? num(data_max * headroom)
                                : std::string("*");
    return "set yrange [" + (std::isfinite(p.ymin) ? num(p.ymin) : std::string("*")) + ":" + top +
           "]\n";
  }
  if (log_y) return "set yrange [*:" + num(std::max(data_max, 1e-12) * headroom * 2) + "]\n";
  return "set yrange [0:" + num(data_max > 0 ? data_max * headroom : 1) + "]\n";
}

// Value labels stand on their bar unless the paper's marker would cover them; then above the
// marker (issue 36, Fig. 3). Placed in data units from the panel's height in inches: a label is
// its text's length tall (rotated), the diamond (pt 12 ps 0.9) ~0.11 in, with a 0.03 in gap.
std::string bars_plot(const Panel& p, const Bars& b, int k, Legend& legend, double plot_height_in) {
  const size_t G = b.groups.size(), S = b.series.size();
  for (const BarSeries& s : b.series)
    if (s.values.size() != G || (!s.paper.empty() && s.paper.size() != G))
      throw internal_error("bar series '", s.name, "' has ", s.values.size(), " values for ", G,
                           " groups");
  const double w = 0.8 / static_cast<double>(std::max<size_t>(S, 1));
  std::string o;
  std::string tics = "set xtics (";
  for (size_t g = 0; g < G; ++g) tics += (g ? ", " : "") + q(b.groups[g]) + " " + std::to_string(g);
  o += tics + ") nomirror scale 0\nset xrange [-0.5:" + num(static_cast<double>(G) - 0.5) + "]\n";
  double m = 0;
  for (const BarSeries& s : b.series) m = std::max(m, max_of({&s.values, &s.paper}));
  m = std::max(m, ref_max(p));
  const double headroom = b.label_format.empty() ? 1.1 : 1.3;
  o += yrange(p, m, false, headroom);
  o += "set boxwidth " + num(w * 0.92) +
       " absolute\nset style fill solid 0.9 border lc rgb '#333333'\n";
  // Data units per inch of the panel (the range yrange() sets; a free top is the data's).
  const double y0 = std::isfinite(p.ymin) ? p.ymin : 0;
  const double y1 = std::isfinite(p.ymax) ? p.ymax : m > 0 ? m * headroom : 1;
  const double per_in = (y1 > y0 ? y1 - y0 : 1) / std::max(plot_height_in, 0.3);
  const FigureStyle& st = figure_style();
  const double gap = 0.03 * per_in, half_marker = 0.06 * per_in;
  std::string plot = "plot ";
  for (size_t s = 0; s < S; ++s) {
    const std::string name = "$b" + std::to_string(k) + "_" + std::to_string(s);
    std::string bars_rows, label_rows;
    for (size_t g = 0; g < G; ++g) {
      const double x = static_cast<double>(g) + (static_cast<double>(s) - (S - 1) / 2.0) * w;
      const double v = b.series[s].values[g];
      const double pv = b.series[s].paper.empty() ? kNoValue : b.series[s].paper[g];
      bars_rows += num(x) + " " + num(v) + " " + num(pv) + "\n";
      if (!std::isfinite(v) || b.label_format.empty()) continue;
      const std::string label = fmt(b.label_format, v);
      const double length =
          static_cast<double>(label.size()) * st.small_pt * st.char_width_em / 72.0 * per_in;
      double lo = std::max(v, y0) + gap;
      if (std::isfinite(pv) && pv + half_marker >= lo - gap / 2 && pv - half_marker <= lo + length)
        lo = pv + half_marker + gap;  // the marker would cover the label: above it
      // Only rows with a defined point: gnuplot 5.4.4 exits 139 on `with labels` over a one-row
      // block whose point is undefined (what a NaN filter in the using spec gave on one-bar
      // panels: dw_engine's speedup, a one-budget fig3).
      label_rows += num(x) + " " + num(lo) + " " + gnuplot_datum(label) + "\n";
    }
    o += name + " << EOD\n" + bars_rows + "EOD\n";
    plot += (s ? ", " : "") + name + " using 1:2 with boxes lc rgb " +
            q(colour(static_cast<int>(s))) + " notitle";
    legend.add({LegendEntry::Kind::Box, b.series[s].name, colour(static_cast<int>(s))});
    if (!label_rows.empty()) {
      o += name + "_labels << EOD\n" + label_rows + "EOD\n";
      plot += ", " + name + "_labels using 1:2:3 with labels rotate by 90 left " +
              font(st.small_pt) + " notitle";
    }
  }
  for (size_t s = 0; s < S; ++s) {
    if (b.series[s].paper.empty()) continue;
    const bool any = std::any_of(b.series[s].paper.begin(), b.series[s].paper.end(),
                                 [](double v) { return std::isfinite(v); });
    if (!any) continue;
    plot += ", $b" + std::to_string(k) + "_" + std::to_string(s) +
            " using 1:3 with points pt 12 ps 0.9 lw 1.2 lc rgb " + q(figure_style().paper) +
            " notitle";
    legend.add({LegendEntry::Kind::Point, "paper (published)", figure_style().paper, false, 12});
  }
  return o + plot + "\n";
}

std::string stacks_plot(const Panel& p, const Stacks& st, int k, Legend& legend,
                        double plot_height_in) {
  const size_t B = st.bars.size();
  for (const StackSegment& s : st.segments)
    if (s.values.size() != B || (!s.labels.empty() && s.labels.size() != B))
      throw internal_error("stack segment '", s.name, "' has ", s.values.size(), " values for ", B,
                           " bars");
  for (const Marker& m : st.markers)
    if (m.values.size() != B) throw internal_error("marker '", m.name, "' has wrong length");
  if (!st.groups.empty() && st.group_of_bar.size() != B)
    throw internal_error("stacked bars: group_of_bar has wrong length");
  // Bar positions: one unit per bar, a gap of 0.6 between groups.
  std::vector<double> x(B);
  for (size_t i = 0; i < B; ++i)
    x[i] = static_cast<double>(i) + (st.groups.empty() ? 0.0 : 0.6 * st.group_of_bar[i]);
  std::vector<std::vector<double>> top(st.segments.size(), std::vector<double>(B, 0));
  double m = 0;
  for (size_t i = 0; i < B; ++i) {
    double acc = 0;
    for (size_t s = 0; s < st.segments.size(); ++s) {
      const double v = st.segments[s].values[i];
      acc += std::isfinite(v) ? v : 0;
      top[s][i] = acc;
    }
    m = std::max(m, acc);
  }
  for (const Marker& mk : st.markers) m = std::max(m, max_of({&mk.values}));
  std::string o;
  std::string tics = "set xtics (";
  for (size_t i = 0; i < B; ++i) tics += (i ? ", " : "") + q(st.bars[i]) + " " + num(x[i]);
  o += tics + ") nomirror scale 0\n";
  o += "set xrange [" + num(B ? x.front() - 0.7 : -0.5) + ":" + num(B ? x.back() + 0.7 : 0.5) +
       "]\n";
  o += yrange(p, m, false, 1.18);
  for (size_t g = 0; g < st.groups.size(); ++g) {
    double lo = 1e300, hi = -1e300;
    for (size_t i = 0; i < B; ++i)
      if (st.group_of_bar[i] == static_cast<int>(g))
        lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
    if (lo <= hi)
      o += "set label " + q(st.groups[g]) + " at first " + num((lo + hi) / 2) +
           ", graph 0 center offset 0,-2.3\n";
  }
  o += "set boxwidth 0.8 absolute\nset style fill solid 1.0 border lc rgb '#333333'\n";
  const std::string name = "$s" + std::to_string(k);
  o += name + " << EOD\n";
  for (size_t i = 0; i < B; ++i) {
    o += num(x[i]);
    for (size_t s = 0; s < st.segments.size(); ++s) o += " " + num(top[s][i]);
    for (const Marker& mk : st.markers) o += " " + num(mk.values[i]);
    o += "\n";
  }
  o += "EOD\n";
  // Segment labels: inside the segment when it is tall enough (black, or white on the host's
  // dark shade), else above the bar (top segment only), each kind in its own block: no NaN
  // filters (gnuplot 5.4.4 crashes on `with labels` over a one-row block of an undefined point).
  const double ylim = std::isfinite(p.ymax) ? p.ymax : m * 1.18;
  std::string inside_rows, white_rows, above_rows;
  for (size_t i = 0; i < B; ++i)
    for (size_t s = 0; s < st.segments.size(); ++s) {
      const auto& seg = st.segments[s];
      if (seg.labels.empty() || seg.labels[i].empty()) continue;
      const double v = seg.values[i];
      const double lo = top[s][i] - (std::isfinite(v) ? v : 0);
      const bool inside = std::isfinite(v) && v >= 0.07 * ylim;
      const bool dark = seg.colour == figure_style().host;
      if (!inside && s + 1 != st.segments.size()) continue;  // no room and not on top: omit
      // Above the bar, rotated, unless a marker (paper diamond, our point) would cover it: then
      // above the marker (as bars_plot: in inches from the panel's height).
      const double per_in = ylim / std::max(plot_height_in, 0.3);
      const double gap = 0.03 * per_in, half_marker = 0.06 * per_in;
      const double length = static_cast<double>(seg.labels[i].size()) * figure_style().small_pt *
                            figure_style().char_width_em / 72.0 * per_in;
      double above = top.back()[i] + gap;
      for (bool moved = true; moved;) {
        moved = false;
        for (const Marker& mk : st.markers) {
          const double mv = mk.values[i];
          if (std::isfinite(mv) && mv + half_marker >= above - gap / 2 &&
              mv - half_marker <= above + length) {
            above = mv + half_marker + gap;
            moved = true;
          }
        }
      }
      const std::string row = num(x[i]) + " " + num(inside ? lo + v / 2 : above) + " " +
                              gnuplot_datum(seg.labels[i]) + "\n";
      (inside ? (dark ? white_rows : inside_rows) : above_rows) += row;
    }
  std::string plot = "plot ";
  for (size_t s = st.segments.size(); s-- > 0;) {
    const auto& seg = st.segments[s];
    plot += (s + 1 == st.segments.size() ? "" : ", ") + name + " using 1:" + std::to_string(s + 2) +
            " with boxes lc rgb " +
            q(seg.colour.empty() ? colour(static_cast<int>(s)) : seg.colour) + " notitle";
  }
  for (size_t s = 0; s < st.segments.size(); ++s)
    legend.add(
        {LegendEntry::Kind::Box, st.segments[s].name,
         st.segments[s].colour.empty() ? colour(static_cast<int>(s)) : st.segments[s].colour});
  const std::string sm = font(figure_style().small_pt);
  struct LabelBlock {
    const std::string* rows;
    const char *suffix, *style;
  };
  for (const LabelBlock& l :
       {LabelBlock{&inside_rows, "_inside", "center tc rgb '#000000'"},
        LabelBlock{&white_rows, "_white", "center tc rgb '#FFFFFF'"},
        LabelBlock{&above_rows, "_above", "rotate by 90 left tc rgb '#000000'"}}) {
    if (l.rows->empty()) continue;
    o += name + l.suffix + " << EOD\n" + *l.rows + "EOD\n";
    plot += ", " + name + l.suffix + " using 1:2:3 with labels " + l.style + " " + sm + " notitle";
  }
  for (size_t j = 0; j < st.markers.size(); ++j) {
    const Marker& mk = st.markers[j];
    const int col = static_cast<int>(st.segments.size() + j + 2);
    if (mk.paper) {
      plot += ", " + name + " using 1:" + std::to_string(col) +
              " with points pt 12 ps 1.1 lw 1.3 lc rgb " + q(figure_style().paper) + " notitle";
      legend.add({LegendEntry::Kind::Point, mk.name, figure_style().paper, false, 12});
    } else {
      plot += ", " + name + " using 1:" + std::to_string(col) +
              " with points pt 7 ps 0.6 lc rgb '#D55E00' notitle";
      legend.add({LegendEntry::Kind::Point, mk.name, "#D55E00", false, 7});
    }
  }
  return o + plot + "\n";
}

std::string lines_plot(const Panel& p, const Lines& l, int k, Legend& legend) {
  std::string o;
  if (l.log_x) o += "set logscale x\n";
  if (l.log_y) o += "set logscale y\n";
  double m = 0;
  for (const LineSeries& s : l.series) {
    if (s.x.size() != s.y.size()) throw internal_error("line series '", s.name, "': x/y lengths");
    m = std::max(m, max_of({&s.y}));
  }
  m = std::max(m, ref_max(p));
  if (std::isfinite(p.ymin) || std::isfinite(p.ymax)) {
    o += yrange(p, m, l.log_y, 1.1);
  } else if (!l.log_y && !l.y_from_zero) {
    double lo = 1e300, hi = -1e300;
    for (const LineSeries& s : l.series)
      for (double y : s.y)
        if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
    if (lo <= hi) {
      const double pad = hi > lo ? 0.08 * (hi - lo) : std::max(std::abs(hi) * 0.05, 1e-12);
      o += "set yrange [" + num(lo - pad) + ":" + num(hi + pad) + "]\n";
    }
  } else if (!l.log_y) {
    o += "set yrange [0:" + num(m > 0 ? m * 1.1 : 1) + "]\n";
  }
  double xmin = 1e300, xmax = -1e300;
  for (const LineSeries& s : l.series)
    for (double x : s.x)
      if (std::isfinite(x) && (!l.log_x || x > 0))
        xmin = std::min(xmin, x), xmax = std::max(xmax, x);
  if (xmin == xmax && !l.log_x) {  // one x value (a front of one point): a range around it
    const double pad = xmin != 0 ? std::abs(xmin) * 0.05 : 1;
    xmin -= pad;
    xmax += pad;
  }
  if (xmin <= xmax)
    o += l.log_x ? "set xrange [" + num(xmin / 1.25) + ":" + num(xmax * 1.25) + "]\n"
                 : "set xrange [" + num(xmin) + ":" + num(xmax) + "]\n";
  if (!l.xtics.empty()) {
    std::string tics = "set xtics (";
    for (size_t i = 0; i < l.xtics.size(); ++i)
      tics += (i ? ", " : "") + q(l.xtics[i].second) + " " + num(l.xtics[i].first);
    o += tics + ") nomirror\n";
  } else if (const std::vector<double> t = l.log_x && xmin <= xmax
                                               ? log_ticks(xmin / 1.25, xmax * 1.25)
                                               : std::vector<double>{};
             !t.empty()) {
    // A log axis of under three decades (a roofline's 40-700 op/B): 50, 100, 200, 500.
    std::string tics = "set xtics (";
    for (size_t i = 0; i < t.size(); ++i) {
      char label[32];
      std::snprintf(label, sizeof label, "%g", t[i]);
      tics += (i ? ", " : "") + q(label) + " " + num(t[i]);
    }
    o += tics + ") nomirror\n";
  } else {
    o += "set xtics nomirror\n";
    // gnuplot labels a log axis 1000 10000 100000 1e+06, which run together: 1e3 1e4 ...
    if (l.log_x) o += "set format x '1e%T'\n";
  }
  std::string plot = "plot ";
  int auto_colour = 0;
  for (size_t s = 0; s < l.series.size(); ++s) {
    const LineSeries& ls = l.series[s];
    const std::string name = "$l" + std::to_string(k) + "_" + std::to_string(s);
    o += name + " << EOD\n";
    for (size_t i = 0; i < ls.x.size(); ++i) o += num(ls.x[i]) + " " + num(ls.y[i]) + "\n";
    o += "EOD\n";
    plot += (s ? ", " : "") + name + " using 1:2 ";
    if (ls.paper) {
      plot += "with points pt 12 ps 1.3 lw 1.5 lc rgb " + q(figure_style().paper);
      legend.add({LegendEntry::Kind::Point, ls.name, figure_style().paper, false, 12});
    } else {
      const int c = ls.colour >= 0 ? ls.colour : auto_colour++;
      plot += std::string(ls.points ? "with linespoints pt 7 ps 0.45" : "with lines") + " lw 1.4" +
              (ls.dashed ? " dt 2" : "") + " lc rgb " + q(colour(c));
      legend.add({LegendEntry::Kind::Line, ls.name, colour(c), ls.dashed});
    }
    plot += " notitle";
  }
  return o + plot + "\n";
}

std::string gantt_plot(const Panel& p, const Gantt& g, int k, Legend& legend,
                       double plot_width_in) {
  if (g.kind_colours.size() != g.kinds.size()) throw internal_error("gantt: colours per kind");
  double span = 0;
  for (const GanttBar& b : g.bars) {
    if (b.lane < 0 || static_cast<size_t>(b.lane) >= g.lanes.size() || b.kind < 0 ||
        static_cast<size_t>(b.kind) >= g.kinds.size())
      throw internal_error("gantt: bar on an unknown lane or kind");
    span = std::max(span, b.finish);
  }
  if (span <= 0) span = 1;
  const FigureStyle& st = figure_style();
  std::string o = "set xrange [0:" + num(span * 1.01) + "]\nset yrange [" +
                  num(static_cast<double>(g.lanes.size()) - 0.4) + ":-0.6]\n";
  std::string tics = "set ytics (";
  for (size_t i = 0; i < g.lanes.size(); ++i)
    tics += (i ? ", " : "") + q(g.lanes[i]) + " " + std::to_string(i);
  o += tics + ") nomirror scale 0\nset xtics nomirror\nset grid xtics noytics\n";
  (void)p;
  // A label fits when its text is narrower than the bar.
  const double char_data = span / plot_width_in * st.small_pt * st.char_width_em / 72.0;
  std::string plot = "plot ";
  bool first = true;
  for (size_t kind = 0; kind < g.kinds.size(); ++kind) {
    const std::string name = "$g" + std::to_string(k) + "_" + std::to_string(kind);
    o += name + " << EOD\n";
    size_t n = 0;
    for (const GanttBar& b : g.bars)
      if (b.kind == static_cast<int>(kind)) {
        const bool fits =
            (b.finish - b.start) > char_data * (static_cast<double>(b.label.size()) + 1);
        o += num((b.start + b.finish) / 2) + " " + std::to_string(b.lane) + " " +
             num(std::max((b.finish - b.start) / 2, span * 5e-4)) + " " +
             gnuplot_datum(fits ? b.label : "") + "\n";
        ++n;
      }
    o += "EOD\n";
    legend.add({LegendEntry::Kind::Box, g.kinds[kind], g.kind_colours[kind]});
    if (!n) continue;
    plot += (first ? "" : ", ") + name +
            " using 1:2:3:(0.36) with boxxyerror lw 0.3 fs solid border lc rgb '#333333' fc rgb " +
            q(g.kind_colours[kind]) + " notitle, " + name + " using 1:2:4 with labels center " +
            font(st.small_pt) + " tc rgb " +
            q(g.kind_colours[kind] == st.host ? std::string("#FFFFFF") : std::string("#000000")) +
            " notitle";
    first = false;
  }
  return o + (first ? std::string() : plot + "\n");
}

}  // namespace

std::vector<double> round_ticks(double span) {
  if (!(span > 0) || !std::isfinite(span)) return {0};
  const double raw = span / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (const double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw * 0.999) {
      step = m * mag;
      break;
    }
  std::vector<double> ticks;
  for (int k = 0; k * step <= span * (1 + 1e-9); ++k) ticks.push_back(k * step);
  return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return {};
  const auto inside = [&](std::initializer_list<double> mantissas) {
    std::vector<double> t;
    for (int e = static_cast<int>(std::floor(std::log10(lo))); std::pow(10.0, e) <= hi; ++e)
      for (const double m : mantissas)
        if (const double v = m * std::pow(10.0, e); v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9))
          t.push_back(v);
    return t;
  };
  if (inside({1}).size() >= 3) return {};  // gnuplot's decades suffice
  std::vector<double> t = inside({1, 2, 5});
  if (t.size() < 3) t = inside({1, 2, 3, 4, 5, 6, 7, 8, 9});
  return t;
}

const FigureStyle& figure_style() {
  static const FigureStyle style;
  return style;
}

std::string chart_body(const Chart& c, double width_in, double height_in) {
  if (c.panels.empty()) throw internal_error("chart '", c.title, "' has no panels");
  const FigureStyle& st = figure_style();
  const double line = st.font_pt * 1.4 / 72.0;  // one text line in inches
  // The panels first: they collect the legend, which sets the panels' height; drawn again at that
  // height (bar labels are placed in inches).
  Legend legend;
  std::vector<std::string> panels;
  bool groups = false;
  // The width of one panel, as the multiplot margins and spacing below leave it (inches).
  const bool shared_all = std::all_of(c.panels.begin(), c.panels.end(), [&](const Panel& p) {
    return p.ylabel == c.panels.front().ylabel;
  });
  const double panel_width_in =
      (width_in - 0.95 - 0.12 -
       (shared_all ? 0.6 : 0.95) * static_cast<double>(c.panels.size() - 1)) /
      static_cast<double>(c.panels.size());
  const auto draw_panels = [&](double plot_height_in) {
    legend = {};
    panels.clear();
    groups = false;
    for (size_t k = 0; k < c.panels.size(); ++k) {
      const Panel& p = c.panels[k];
      // A title wider than its panel (with a little of the gap beside it) is set smaller, down
      // to the small size: "250 MHz, pipelined" over the last of four 7.16 in panels ran off the
      // image's right edge.
      const double title_in =
          static_cast<double>(p.title.size()) * st.font_pt * st.char_width_em / 72.0;
      const double title_pt =
          title_in > panel_width_in + 0.2
              ? std::max(st.small_pt, st.font_pt * (panel_width_in + 0.2) / title_in)
              : st.font_pt;
      std::string o = "set title " + q(p.title) + " " + font(std::round(title_pt * 10) / 10) + "\n";
      if (const auto* s = std::get_if<Stacks>(&p.chart)) groups = groups || !s->groups.empty();
      const bool shared_y = k > 0 && p.ylabel == c.panels[k - 1].ylabel;
      o += "set ylabel " + q(shared_y ? std::string() : p.ylabel) + "\n";
      if (!p.hlines.empty() && !std::holds_alternative<Bars>(p.chart) &&
          !std::holds_alternative<Lines>(p.chart))
        throw internal_error("chart '", c.title, "': reference lines on a stacked or Gantt panel");
      o += ref_lines(p, legend);
      if (const auto* b = std::get_if<Bars>(&p.chart))
        o += bars_plot(p, *b, static_cast<int>(k), legend, plot_height_in);
      else if (const auto* s = std::get_if<Stacks>(&p.chart))
        o += stacks_plot(p, *s, static_cast<int>(k), legend, plot_height_in);
      else if (const auto* g = std::get_if<Gantt>(&p.chart))
        o += gantt_plot(p, *g, static_cast<int>(k), legend,
                        (width_in - 1.1) / static_cast<double>(c.panels.size()));
      else
        o += lines_plot(p, std::get<Lines>(p.chart), static_cast<int>(k), legend);
      panels.push_back("set xlabel " + q(p.xlabel) + (groups ? " offset 0,-1.1" : "") + "\n" + o);
    }
  };
  draw_panels(height_in * 0.6);
  // Legend rows: entries laid out left to right across the figure, centred.
  const double sample = 0.26, gap = 0.06, after = 0.2,
               char_w = st.font_pt * st.char_width_em / 72.0;
  const double avail = width_in - 0.3;
  std::vector<std::vector<size_t>> rows;
  std::vector<double> row_width;
  for (size_t i = 0; i < legend.entries.size(); ++i) {
    const double w =
        sample + gap + char_w * static_cast<double>(legend.entries[i].name.size()) + after;
    if (rows.empty() || row_width.back() + w > avail ||
        (c.key_columns > 0 && rows.back().size() >= static_cast<size_t>(c.key_columns))) {
      rows.emplace_back();
      row_width.push_back(0);
    }
    rows.back().push_back(i);
    row_width.back() += w;
  }
  const double title_h = 1.9 * line, key_h = static_cast<double>(rows.size()) * 1.3 * line;
  const bool titled = std::any_of(c.panels.begin(), c.panels.end(),
                                  [](const Panel& p) { return !p.title.empty(); });
  const double top = 1 - (title_h + key_h + (titled ? 2.4 : 0.9) * line) / height_in;
  // The footnote, wrapped at word boundaries to the figure width.
  std::vector<std::string> foot;
  if (c.draw_footnote) {
    const size_t max_chars =
        static_cast<size_t>((width_in - 0.15) * 72.0 / (st.small_pt * st.char_width_em));
    std::string cur;
    size_t pos = 0;
    while (pos < c.footnote.size()) {
      size_t end = c.footnote.find(' ', pos);
      if (end == std::string::npos) end = c.footnote.size();
      const std::string word = c.footnote.substr(pos, end - pos);
      if (!cur.empty() && cur.size() + 1 + word.size() > max_chars) {
        foot.push_back(cur);
        cur.clear();
      }
      cur += (cur.empty() ? "" : " ") + word;
      pos = end + 1;
    }
    if (!cur.empty()) foot.push_back(cur);
  }
  const double small_line = st.small_pt * 1.45 / 72.0;
  const double bottom =
      ((groups ? 4.6 : 3.5) * line +
       (foot.empty() ? 0.2 * line : (static_cast<double>(foot.size()) + 0.4) * small_line)) /
      height_in;
  draw_panels((top - bottom) * height_in);
  const double left = 0.95 / width_in, right = 1 - 0.12 / width_in;
  const double spacing = (shared_all ? 0.6 : 0.95) / width_in;
  std::string o = "set termoption noenhanced\nset encoding utf8\n";
  o += "set multiplot layout 1," + std::to_string(c.panels.size()) + " title " + q(c.title) + " " +
       font(st.title_pt) + " margins " + num(left) + "," + num(right) + "," + num(bottom) + "," +
       num(top) + " spacing " + num(spacing) + ",0\n";
  o += "set border 3 lw 1\nset tics out nomirror\nset grid ytics lc rgb '#DDDDDD' lw 0.8\nunset "
       "key\n";
  std::string legend_cmds;
  int id = 100;
  for (size_t r = 0; r < rows.size(); ++r) {
    const double y = 1 - (title_h + (static_cast<double>(r) + 0.6) * 1.3 * line) / height_in;
    double x = (width_in - row_width[r]) / 2;
    for (size_t i : rows[r]) {
      const LegendEntry& e = legend.entries[i];
      const double x0 = x / width_in, x1 = (x + sample) / width_in;
      const double h = 0.35 * line / height_in;
      const std::string n = std::to_string(id++);
      if (e.kind == LegendEntry::Kind::Box)
        legend_cmds += "set object " + n + " rect from screen " + num(x0) + "," + num(y - h) +
                       " to screen " + num(x1) + "," + num(y + h) + " fc rgb " + q(e.colour) +
                       " fs solid 1.0 border lc rgb '#333333' front\n";
      else if (e.kind == LegendEntry::Kind::Line && !e.dashed)
        legend_cmds += "set arrow " + n + " from screen " + num(x0) + "," + num(y) + " to screen " +
                       num(x1) + "," + num(y) + " nohead lw 1.4 lc rgb " + q(e.colour) + " front\n";
      else if (e.kind == LegendEntry::Kind::Line)
        // Dashed: two dashes drawn apart (gnuplot's dt 2 over the short sample ended in a stub
        // that read as a cut line, "- '").
        for (const auto& [from, to] : {std::pair{0.0, 0.4}, std::pair{0.6, 1.0}})
          legend_cmds += "set arrow " + (from == 0 ? n : std::to_string(id++)) + " from screen " +
                         num(x0 + from * (x1 - x0)) + "," + num(y) + " to screen " +
                         num(x0 + to * (x1 - x0)) + "," + num(y) + " nohead lw 1.4 lc rgb " +
                         q(e.colour) + " front\n";
      else
        legend_cmds += "set label " + n + " '' at screen " + num((x0 + x1) / 2) + "," + num(y) +
                       " point pt " + std::to_string(e.point_type) + " ps 1.0 lw 1.3 lc rgb " +
                       q(e.colour) + " front\n";
      legend_cmds += "set label " + std::to_string(id++) + " " + q(e.name) + " at screen " +
                     num((x + sample + gap) / width_in) + "," + num(y) + " left " +
                     font(st.font_pt) + " front\n";
      x += sample + gap + char_w * static_cast<double>(e.name.size()) + after;
    }
  }
  for (size_t k = 0; k < panels.size(); ++k) {
    // No setting leaks from one panel into the next.
    o += "unset label\nunset logscale\nunset arrow\nunset object\nset format x '% h'\n"
         "set format y '% h'\nset xtics autofreq\n"
         "set ytics autofreq\nset xrange [*:*]\nset yrange [*:*]\nset style fill empty\n"
         "set grid noxtics ytics\n";
    if (k == 0) {
      o += legend_cmds;
      for (size_t i = 0; i < foot.size(); ++i)
        o += "set label " + std::to_string(i + 1) + " " + q(foot[i]) + " at screen " +
             num(0.06 / width_in) + ", screen " +
             num((0.5 + static_cast<double>(foot.size() - 1 - i)) * small_line / height_in) +
             " left " + font(st.small_pt) + " tc rgb '#333333'\n";
    }
    o += panels[k];
  }
  return o + "unset multiplot\n";
}

void plot_chart(OutputSet& out, const std::string& dir, const Figure& f, const Chart& c,
                const FigureOptions& options) {
  Figure with = f;
  if (with.provenance.empty()) with.provenance = c.footnote;
  if (!options.draw_footnote || c.draw_footnote) {
    plot(out, dir, with, chart_body(c, f.width_in, f.height_in));
    return;
  }
  Chart drawn = c;
  drawn.draw_footnote = true;
  if (drawn.footnote.empty()) drawn.footnote = with.provenance;
  plot(out, dir, with, chart_body(drawn, f.width_in, f.height_in));
}

}  // namespace hetcim::report
