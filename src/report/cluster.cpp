#include "report/cluster.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <tuple>

namespace hetcim::report {
namespace {

std::string num(double v) {
  return gnuplot_number(v);
}

std::string mhz(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f MHz", f / 1e6);
  return b;
}

}  // namespace

std::vector<Figure> write_roofline_figures(OutputSet& outputs,
                                           const std::vector<cluster::RooflinePoint>& points,
                                           const std::string& dir, const std::string& footer) {
  const std::string foot = footer.empty() ? "" : gnuplot_footer(footer);
  outputs.make_directory(dir);
  // Panels: (frequency, execution) in first-seen order; lines: bus widths, then the compute roof.
  std::vector<std::pair<double, cluster::ImaExecution>> panels;
  std::vector<int64_t> widths;
  for (const auto& p : points) {
    if (std::find(panels.begin(), panels.end(), std::make_pair(p.frequency, p.execution)) ==
        panels.end())
      panels.emplace_back(p.frequency, p.execution);
    if (std::find(widths.begin(), widths.end(), p.bus_width_bits) == widths.end())
      widths.push_back(p.bus_width_bits);
  }
  const Figure f{"cluster_roofline", "IMA roofline: attained GOPS vs operational intensity",
                 "Like seed 001 Fig. 7: synthetic point-wise layers at crossbar utilisations from "
                 "the smallest to 100 %; one line per IMA bus width, the dashed line is the IMA's "
                 "compute roof (proportional to utilisation); panels: clock and execution model.",
                 960, 640};
  const size_t cols = panels.size() <= 2 ? panels.size() : 2;
  const size_t rows = (panels.size() + cols - 1) / std::max<size_t>(cols, 1);
  std::string body =
      foot + "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) +
      " title '" + f.title +
      "' font ',10'\n"
      "set logscale xy\nset xlabel 'op/B' font ',8'\nset ylabel 'GOPS' font ',8'\n"
      "set key top left font ',7'\nset grid\nset tics font ',7'\nset yrange [10:5000]\n";
  for (const auto& [freq, exec] : panels) {
    std::vector<const cluster::RooflinePoint*> sel;
    for (const auto& p : points)
      if (p.frequency == freq && p.execution == exec) sel.push_back(&p);
    std::sort(sel.begin(), sel.end(), [](const auto* a, const auto* b) {
      return std::tie(a->bus_width_bits, a->intensity) < std::tie(b->bus_width_bits, b->intensity);
    });
    std::string data;
    for (int64_t w : widths) {
      data += "$w" + std::to_string(w) + " << EOD\n";
      for (const auto* p : sel)
        if (p->bus_width_bits == w) data += num(p->intensity) + " " + num(p->attained / 1e9) + "\n";
      data += "EOD\n";
    }
    data += "$roof << EOD\n";
    for (const auto* p : sel)
      if (p->bus_width_bits == widths.front())
        data += num(p->intensity) + " " + num(p->compute_roof / 1e9) + "\n";
    data += "EOD\n";
    body += data + "set title '" + mhz(freq) + ", " + cluster::execution_name(exec) +
            "' font ',9'\nplot ";
    for (size_t i = 0; i < widths.size(); ++i)
      body += (i ? ", " : "") + std::string("$w") + std::to_string(widths[i]) +
              " using 1:2 with linespoints lw 1.5 pt 7 ps 0.5 title '" + std::to_string(widths[i]) +
              " bit'";
    body += ", $roof using 1:2 with lines dt 2 lc rgb 'black' title 'compute roof'\n";
  }
  plot(outputs, dir, f, body + "unset multiplot\n");
  return {f};
}

std::vector<Figure> write_bottleneck_figures(OutputSet& outputs,
                                             const cluster::BottleneckStudy& study,
                                             const std::string& dir, const std::string& footer) {
  const std::string foot = footer.empty() ? "" : gnuplot_footer(footer);
  outputs.make_directory(dir);
  std::vector<Figure> figs;
  const std::string base =
      study.results.empty() ? "" : cluster::mapping_name(study.results.front().mapping);
  {
    const Figure f{
        "cluster_gains", "Bottleneck: performance, energy and area efficiency over " + base,
        "Like seed 001 Fig. 9: each mapping's throughput, GOPS/W and GOPS/mm^2 divided by "
        "those of the first mapping (log scale)."};
    std::string data = "$d << EOD\n";
    for (const auto& r : study.results)
      data += "\"" + cluster::mapping_name(r.mapping) + "\" " + num(r.speedup) + " " +
              num(r.energy_gain) + " " + num(r.area_gain) + "\n";
    data += "EOD\n";
    plot(outputs, dir, f,
         foot + data +
             "set style data histograms\nset style histogram clustered gap 1\n"
             "set style fill solid 0.8 border -1\nset logscale y\nset yrange [0.1:*]\n"
             "set ylabel 'x over " +
             base +
             "'\nset grid ytics\nset key top left\n"
             "plot $d using 2:xtic(1) title 'performance', '' using 3 title 'energy efficiency', "
             "'' using 4 title 'area efficiency'\n");
    figs.push_back(f);
  }
  {
    const Figure f{"cluster_breakdown", "Bottleneck: cycles per layer and mapping",
                   "Like seed 001 Fig. 10: the execution cycles of each mapping split by layer "
                   "(point-wise expand, depth-wise, marshaling, point-wise project, partial sums, "
                   "residual)."};
    std::vector<std::string> layers;
    for (const auto& r : study.results)
      for (const auto& l : r.layers)
        if (std::find(layers.begin(), layers.end(), l.layer) == layers.end())
          layers.push_back(l.layer);
    std::string data = "$d << EOD\n";
    for (const auto& r : study.results) {
      data += "\"" + cluster::mapping_name(r.mapping) + "\"";
      for (const std::string& name : layers) {
        int64_t c = 0;
        for (const auto& l : r.layers) c += l.layer == name ? l.cycles : 0;
        data += " " + num(static_cast<double>(c) / 1e3);
      }
      data += "\n";
    }
    data += "EOD\n";
    std::string body =
        foot + data +
        "set style data histograms\nset style histogram rowstacked\n"
        "set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
        "set ylabel 'kcycles'\nset grid ytics\nset key outside right font ',8'\nplot ";
    for (size_t i = 0; i < layers.size(); ++i) {
      std::string title = layers[i];
      std::replace(title.begin(), title.end(), '_', ' ');
      body += (i ? ", " : "") + std::string(i ? "''" : "$d") + " using " + std::to_string(i + 2) +
              (i ? "" : ":xtic(1)") + " title '" + title + "'";
    }
    plot(outputs, dir, f, body + "\n");
    figs.push_back(f);
  }
  return figs;
}

}  // namespace hetcim::report
