#include "report/gantt.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "report/escape.h"
#include "report/figure_style.h"
#include "util/units.h"

namespace hetcim::report {

std::vector<size_t> pack_lanes(const std::vector<double>& start, const std::vector<double>& finish,
                               size_t& lanes) {
  std::vector<size_t> order(start.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return start[a] < start[b]; });
  std::vector<size_t> lane(start.size(), 0);
  std::vector<double> end;
  for (const size_t j : order) {
    size_t l = 0;
    while (l < end.size() && end[l] > start[j] + 1e-15) ++l;
    if (l == end.size()) end.push_back(0);
    end[l] = finish[j];
    lane[j] = l;
  }
  lanes = std::max<size_t>(1, end.size());
  return lane;
}

TwoDeviceLanes two_device_lanes(const partition::Schedule& s) {
  std::vector<size_t> cim;
  std::vector<double> start, finish;
  for (size_t v = 0; v < s.assignment.mode.size(); ++v)
    if (s.assignment.mode[v] >= 0) {
      cim.push_back(v);
      start.push_back(s.start[v]);
      finish.push_back(s.finish[v]);
    }
  TwoDeviceLanes t;
  const std::vector<size_t> lane = pack_lanes(start, finish, t.accelerator);
  t.lane.assign(s.assignment.mode.size(), 0);
  for (size_t k = 0; k < cim.size(); ++k) t.lane[cim[k]] = 2 + lane[k];
  return t;
}

std::string bar_label(const std::string& name) {
  std::string t = name;
  if (const size_t a = t.find_last_of('/'); a != std::string::npos && a > 0) {
    t = t.substr(0, a);
    if (const size_t b = t.find_last_of('/'); b != std::string::npos) t = t.substr(b + 1);
  }
  return t.empty() ? name : t;
}

std::string gantt_svg(const GanttChart& c) {
  const FigureStyle& st = figure_style();
  const double W = 1100, left = 110, right = 40, lane_h = 18;
  const double top = c.legend.empty() ? 40 : 58;
  const double span = c.span > 0 ? c.span : 1;
  const double scale = (W - left - right) / span;
  const auto lane_y = [&](size_t l) { return top + static_cast<double>(l) * (lane_h + 4); };
  const double axis_y = lane_y(c.lanes.size()) + 4;
  char buf[768];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"%s, sans-serif\" font-size=\"%.1f\">\n<rect width=\"100%%\" "
                "height=\"100%%\" fill=\"white\"/>\n",
                W, axis_y + 32, st.font.c_str(), st.font_pt * 96 / 72);
  std::string o = buf;
  o += "<text x=\"110\" y=\"20\" font-size=\"12\">" + html_escape(c.heading) + "</text>\n";
  double lx = left;
  for (const auto& [name, colour] : c.legend) {
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.0f\" y=\"30\" width=\"14\" height=\"12\" fill=\"%s\" "
                  "stroke=\"#333\" stroke-width=\"0.5\"/><text x=\"%.0f\" y=\"40\">",
                  lx, colour.c_str(), lx + 19);
    o += buf + html_escape(name) + "</text>\n";
    lx += 40 + 7.5 * static_cast<double>(name.size());
  }
  for (size_t l = 0; l < c.lanes.size(); ++l) {
    std::snprintf(buf, sizeof buf, "<text x=\"4\" y=\"%.1f\">", lane_y(l) + 13);
    o += buf + html_escape(c.lanes[l]) + "</text>\n";
  }
  for (const GanttChart::Bar& b : c.bars) {
    const double x = left + b.start * scale, w = std::max(0.5, (b.finish - b.start) * scale);
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" "
                  "stroke=\"#333\" stroke-width=\"0.3\"><title>",
                  x, lane_y(b.lane), w, lane_h, b.colour.c_str());
    o += buf + html_escape(b.title) + "</title></rect>\n";
    if (!b.inside.empty() && 6.2 * static_cast<double>(b.inside.size()) + 6 < w) {
      std::snprintf(buf, sizeof buf,
                    "<text x=\"%.2f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\" "
                    "fill=\"%s\">",
                    x + w / 2, lane_y(b.lane) + 13, b.inside_colour.c_str());
      o += buf + html_escape(b.inside) + "</text>\n";
    }
  }
  // Time axis: a line and ticks at a round step; a label near the end ends there (never clipped).
  std::snprintf(buf, sizeof buf,
                "<line class=\"time-axis\" x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
                "stroke=\"black\"/>\n",
                left, axis_y, W - right, axis_y);
  o += buf;
  for (const double tick : round_ticks(span)) {
    const double x = left + (W - left - right) * tick / span;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>"
                  "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">",
                  x, axis_y, x, axis_y + 4, x, axis_y + 17, x > W - right - 30 ? "end" : "middle");
    o += buf + html_escape(format_quantity(tick, Quantity::Time)) + "</text>\n";
  }
  o += "</svg>\n";
  return svg_with_metadata(o, c.metadata);
}

}  // namespace hetcim::report
