#include "report/cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cluster/ima_model.h"
#include "report/cluster_tables.h"
#include "report/figure_style.h"
#include "report/provenance.h"
#include "util/files.h"

namespace hetcim::report {
namespace {

std::string mhz(double f) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f MHz", f / 1e6);
  return b;
}

}  // namespace

std::vector<Figure> write_roofline_figures(
    OutputSet& outputs, const std::vector<cluster::RooflinePoint>& points, const std::string& dir,
    const std::vector<RooflinePaperPoint>& paper, const std::string& name,
    const std::string& caption, const std::string& footnote, const FigureOptions& fig_options) {
  outputs.make_directory(dir);
  // Panels: (frequency, execution) in first-seen order; lines: bus widths.
  std::vector<std::pair<double, cluster::ImaExecution>> panels;
  std::vector<int64_t> widths;
  for (const auto& p : points) {
    if (std::find(panels.begin(), panels.end(), std::make_pair(p.frequency, p.execution)) ==
        panels.end())
      panels.emplace_back(p.frequency, p.execution);
    if (std::find(widths.begin(), widths.end(), p.bus_width_bits) == widths.end())
      widths.push_back(p.bus_width_bits);
  }
  std::sort(widths.begin(), widths.end());
  Chart c;
  c.title = "IMA roofline: attained throughput vs operational intensity";
  c.footnote =
      !footnote.empty()
          ? footnote
          : "Modelled: hetcim cluster model (pulp-pcm-cluster preset), synthetic point-wise "
            "layers; solid: attained, dashed: memory roof of the same width, black: "
            "compute roof.";
  for (const auto& [freq, exec] : panels) {
    std::vector<const cluster::RooflinePoint*> sel;
    for (const auto& p : points)
      if (p.frequency == freq && p.execution == exec) sel.push_back(&p);
    std::sort(sel.begin(), sel.end(), [](const auto* a, const auto* b) {
      return std::tie(a->bus_width_bits, a->intensity) < std::tie(b->bus_width_bits, b->intensity);
    });
    Lines l;
    l.log_x = l.log_y = true;
    for (size_t i = 0; i < widths.size(); ++i) {
      LineSeries att{std::to_string(widths[i]) + " bit", {}, {}};
      LineSeries mem{"", {}, {}, true, false};
      att.colour = mem.colour = static_cast<int>(i);
      for (const auto* p : sel)
        if (p->bus_width_bits == widths[i]) {
          att.x.push_back(p->intensity);
          att.y.push_back(p->attained / 1e9);
          mem.x.push_back(p->intensity);
          mem.y.push_back(p->memory_roof / 1e9);
        }
      l.series.push_back(std::move(att));
      l.series.push_back(std::move(mem));
    }
    LineSeries roof{"compute roof", {}, {}, true, false};
    roof.colour = 7;  // black
    for (const auto* p : sel)
      if (p->bus_width_bits == widths.front()) {
        roof.x.push_back(p->intensity);
        roof.y.push_back(p->compute_roof / 1e9);
      }
    l.series.push_back(std::move(roof));
    for (const RooflinePaperPoint& pp : paper)
      if (pp.frequency == freq && pp.execution == exec)
        l.series.push_back({pp.name, {pp.intensity}, {pp.gops}, false, true, true});
    Panel p{mhz(freq) + ", " + cluster::execution_name(exec),
            "intensity (op/B)",
            "throughput (GOPS)",
            10,
            3000,
            std::move(l)};
    c.panels.push_back(std::move(p));
  }
  c.key_columns = 4;
  const Figure f{
      name, c.title,
      caption.empty()
          ? "Like Garofalo et al. 2022 Fig. 7 (modelled by hetcim's cluster model): synthetic "
            "point-wise layers at crossbar utilisations from the smallest to 100 %; one "
            "colour per IMA bus width: solid the attained throughput, dashed the memory "
            "roof (bus bytes x clock x intensity); black dashed: the IMA's compute roof "
            "(proportional to utilisation); panels: clock and execution model."
          : caption,
      7.16, 3.3};
  plot_chart(outputs, dir, f, c, fig_options);
  return {f};
}

std::vector<Figure> write_bottleneck_figures(OutputSet& outputs,
                                             const cluster::BottleneckStudy& study,
                                             const std::string& dir,
                                             const BottleneckPaperGains& paper,
                                             const std::string& source_note,
                                             const FigureOptions& fig_options) {
  outputs.make_directory(dir);
  std::vector<Figure> figs;
  const std::string base =
      study.results.empty() ? "" : cluster::mapping_name(study.results.front().mapping);
  const std::string modelled = source_note.empty()
                                   ? "Modelled: hetcim cluster model (analytical), not measured."
                                   : source_note;
  {
    Chart c;
    c.title = "MobileNetV2 Bottleneck: gains of each mapping over " + base;
    c.footnote = modelled;
    Bars b;
    b.label_format = "%.2f";
    const char* metrics[] = {"performance", "energy efficiency", "area efficiency"};
    for (const auto& r : study.results) b.groups.push_back(cluster::mapping_name(r.mapping));
    for (size_t m = 0; m < 3; ++m) {
      BarSeries s{metrics[m], {}, {}};
      for (const auto& r : study.results) {
        s.values.push_back(m == 0 ? r.speedup : m == 1 ? r.energy_gain : r.area_gain);
        if (!paper.empty()) {
          const auto it = paper.find(cluster::mapping_name(r.mapping));
          s.paper.push_back(it == paper.end() || it->second.size() <= m ? kNoValue : it->second[m]);
        }
      }
      b.series.push_back(std::move(s));
    }
    c.panels.push_back({"", "mapping", "gain over " + base + " (x)", kNoValue, kNoValue, b});
    const Figure f{
        "cluster_gains", c.title,
        "Like Garofalo et al. 2022 Fig. 9: each mapping's throughput, energy efficiency (GOPS/W) "
        "and area efficiency (GOPS/mm^2) divided by those of " +
            base + "; labels: ours" +
            (paper.empty() ? std::string(".") : "; black diamonds: the values the paper states.") +
            " " + modelled,
        7.16, 3.0};
    plot_chart(outputs, dir, f, c, fig_options);
    figs.push_back(f);
  }
  {
    Chart c;
    c.title = "MobileNetV2 Bottleneck: execution cycles per layer and mapping";
    c.footnote = modelled;
    Stacks st;
    std::vector<std::string> layers;
    for (const auto& r : study.results) {
      st.bars.push_back(cluster::mapping_name(r.mapping));
      for (const auto& l : r.layers)
        if (std::find(layers.begin(), layers.end(), l.layer) == layers.end())
          layers.push_back(l.layer);
    }
    for (size_t i = 0; i < layers.size(); ++i) {
      StackSegment seg;
      seg.name = layers[i];
      std::replace(seg.name.begin(), seg.name.end(), '_', ' ');
      for (const auto& r : study.results) {
        int64_t cyc = 0;
        for (const auto& l : r.layers) cyc += l.layer == layers[i] ? l.cycles : 0;
        seg.values.push_back(static_cast<double>(cyc) / 1e3);
        char b[32];
        std::snprintf(
            b, sizeof b, "%.0f%%",
            100.0 * static_cast<double>(cyc) / static_cast<double>(std::max<int64_t>(1, r.cycles)));
        seg.labels.push_back(cyc > 0 ? b : "");
      }
      st.segments.push_back(std::move(seg));
    }
    c.key_columns = 3;
    c.panels.push_back({"", "mapping", "execution (kcycles)", kNoValue, kNoValue, st});
    const Figure f{
        "cluster_breakdown", c.title,
        "Like Garofalo et al. 2022 Fig. 10: the execution cycles of each mapping split by layer "
        "(labels: share of the mapping's cycles). " +
            modelled,
        7.16, 3.2};
    plot_chart(outputs, dir, f, c, fig_options);
    figs.push_back(f);
  }
  return figs;
}

std::string cluster_text_with_provenance(const std::string& text, const Provenance& p) {
  return provenance_text(p, "# ") + text;
}

std::string cluster_json_with_provenance(const std::string& json, const Provenance& p) {
  nlohmann::json j = nlohmann::json::parse(json);
  j["provenance"] = formats::provenance_json(p);
  return j.dump(1) + "\n";
}

std::string cluster_figure_footer(const Provenance& p) {
  return *p.find("source") + "; hetcim " + p.version + " (commit " + p.commit + ")";
}

std::vector<Figure> write_calibration_report(OutputSet& out, const std::string& dir,
                                             const cluster::ClusterConfig& config,
                                             const cluster::Fig9Calibration& cal,
                                             const std::vector<cluster::FitTarget>& targets,
                                             const std::string& text, const Provenance& prov,
                                             const FigureOptions& fig_options) {
  out.make_directory(dir);
  out.add(join_path(dir, "calibration.txt"), text);
  out.add(join_path(dir, "calibration.json"),
          cluster_json_with_provenance(calibration_json(config, cal), prov));
  char note_buf[320];
  std::snprintf(
      note_buf, sizeof note_buf,
      "CALIBRATION, not a reproduction: constants fitted to Garofalo et al. 2022's Fig. 9 "
      "speedups (job overhead %lld cycles, cores %.3g / %.3g MAC/cycle point-wise / "
      "depth-wise); diamonds: the paper.",
      static_cast<long long>(cal.fit.job_overhead_cycles), cal.fit.pointwise_mac_per_cycle,
      cal.fit.depthwise_mac_per_cycle);
  const std::string note = note_buf;
  double full_intensity = 0;
  for (const cluster::RooflinePoint& p : cal.roofline_after)
    if (p.utilization >= 0.999) full_intensity = p.intensity;
  const std::vector<RooflinePaperPoint> paper7 = {{250e6, cluster::ImaExecution::Pipelined,
                                                   full_intensity, 958.0,
                                                   "paper: 958 GOPS (250 MHz, 128 bit)"}};
  std::vector<Figure> figures = write_roofline_figures(
      out, cal.roofline_after, dir, paper7, "calibrated_roofline",
      "Garofalo et al. 2022 Fig. 7 as the model gives it with the constants fitted to Fig. 9 "
      "(a CALIBRATION): synthetic point-wise layers, one colour per IMA bus width, solid the "
      "attained throughput, dashed the memory roof, black the compute roof; the diamond is the "
      "paper's 958 GOPS. " +
          note,
      note, fig_options);
  BottleneckPaperGains gains;
  for (const cluster::FitTarget& t : targets) gains[t.mapping] = {t.speedup, kNoValue, kNoValue};
  gains["cores"] = {1.0, kNoValue, kNoValue};
  const auto more = write_bottleneck_figures(out, cal.after, dir, gains, note, fig_options);
  figures.insert(figures.end(), more.begin(), more.end());
  return figures;
}

}  // namespace hetcim::report
