// `hetcim reproduce seed000`: Table I, Fig. 3, 4, 5 of Klein et al. beside the published values.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include "report/dse_grid.h"
#include "report/figure_style.h"
#include "report/gantt.h"
#include "report/provenance.h"
#include "report/reproduce.h"
#include "report/reproduce_page.h"
#include "util/files.h"
#include "util/shipped_data.h"

namespace hetcim::report {
namespace {

// The DSE grid of the run, with the run itself (its models' workloads, its host sources).
struct Grid : DseGrid {
  const results::Seed000Run& run;
  explicit Grid(const results::Seed000Run& r) : DseGrid(r.points), run(r) {}
};

double paper_cell(const formats::PaperTable& t, const std::string& row, int64_t crossbars) {
  const formats::PaperValue* v = t.find(row, std::to_string(crossbars));
  return v && v->present ? v->value : kNoValue;
}

// `text` without the first `part` in it.
std::string without(std::string text, const std::string& part) {
  if (const size_t at = text.find(part); at != std::string::npos) text.erase(at, part.size());
  return text;
}

// The host part of a reason: how our host latencies were obtained vs the paper's.
std::string host_reason(const results::Seed000Run& run, const std::string& host) {
  const auto it = run.hosts.find(host);
  if (it == run.hosts.end()) return "";
  const results::Seed000HostInfo& h = it->second;
  std::string src = h.source;
  for (const char* prefix : {"modelled: ", "measured: "})
    if (src.rfind(prefix, 0) == 0) src = src.substr(std::string(prefix).size());
  // "modelled by arm-cortex-a72 (...)" says it already; a bare source gets the word.
  if (src.rfind("modelled", 0) != 0 && src.rfind("measured", 0) != 0)
    src = std::string(h.modelled ? "modelled (" : "measured (") + src + ")";
  return "host " + src + ", paper measured with ONNX Runtime on " + h.paper_cpu;
}

const results::Seed000HostInfo* host_info(const results::Seed000Run& run, const std::string& h) {
  const auto it = run.hosts.find(h);
  return it == run.hosts.end() ? nullptr : &it->second;
}

// The paper's rows a host is compared with: "arm" for the CALIBRATION of the ARM host, "x86" for
// this machine measured now, else its own name.
std::string paper_row(const results::Seed000Run& run, const std::string& h) {
  const results::Seed000HostInfo* i = host_info(run, h);
  return i && !i->paper_row.empty() ? i->paper_row : h;
}

std::string panel_title(const results::Seed000Run& run, const std::string& h) {
  const results::Seed000HostInfo* i = host_info(run, h);
  if (i && i->calibration) return "ARM host, CALIBRATION";
  if (h == "this") return "this machine (measured)";
  return host_title(h);
}

// For a CALIBRATION host, what a cell is to the fit: one of its targets, or a figure it was not
// fitted to; "" for any other host.
std::string calibration_note(const results::Seed000Run& run, const std::string& h,
                             const std::string& model, int64_t crossbars, double t, bool latency) {
  const results::Seed000HostInfo* i = host_info(run, h);
  if (!i || !i->calibration || !run.calibration) return "";
  for (const results::Seed000FitPoint& p : run.calibration->points)
    if (p.model == model && p.crossbars == crossbars && std::fabs(p.t_mvm - t) < 1e-12 &&
        p.latency == latency)
      return "CALIBRATION: a value the host model was fitted to (not independent evidence)";
  return "CALIBRATION: the host model fitted to the paper's other ARM values, not to this one";
}

std::string with_note(const std::string& note, const std::string& reason) {
  return note.empty() ? reason : note + "; " + reason;
}

// Smallest budget of the grid from which the series stays within 1 % of its last value.
int64_t saturation(const std::vector<int64_t>& xbars, const std::vector<double>& v) {
  if (v.empty() || !std::isfinite(v.back())) return 0;
  int64_t at = xbars.back();
  for (size_t i = v.size(); i-- > 0;) {
    if (!std::isfinite(v[i]) || std::fabs(v[i] / v.back() - 1) > 0.01) break;
    at = xbars[i];
  }
  return at;
}

// The reason of one speedup cell (model, host, T_mvm, budget).
std::string speedup_reason(const Grid& g, const formats::PaperData& paper, const std::string& model,
                           const std::string& host, double t, int64_t c, double ours,
                           double published, const std::vector<double>& ours_series,
                           const std::vector<double>& paper_series) {
  if (std::fabs(ours / published - 1) <= 0.10) return "agrees within 10 %";
  std::vector<std::string> parts;
  char b[200];
  std::snprintf(b, sizeof b, "ours %.2fx the paper's", ours / published);
  parts.push_back(b);
  if (const std::string h = host_reason(g.run, host); !h.empty()) parts.push_back(h);
  if (const auto it = g.run.models.find(model); it != g.run.models.end()) {
    const results::Seed000ModelInfo& m = it->second;
    if (m.crossbars_all <= c)
      std::snprintf(b, sizeof b,
                    "eq. (1): all %lld offloadable operators fit (%lld <= %lld crossbars)",
                    static_cast<long long>(m.offloadable), static_cast<long long>(m.crossbars_all),
                    static_cast<long long>(c));
    else
      std::snprintf(
          b, sizeof b,
          "eq. (1): the budget binds (all offloadable operators need %lld > %lld crossbars)",
          static_cast<long long>(m.crossbars_all), static_cast<long long>(c));
    parts.push_back(b);
    if (const formats::PaperValue* ops = paper.need_table("table1").find(model, "operators");
        ops && ops->present && static_cast<int64_t>(ops->value) != m.operators) {
      std::snprintf(b, sizeof b, "graph has %lld operators, the paper's %g",
                    static_cast<long long>(m.operators), ops->value);
      parts.push_back(b);
    }
  }
  const int64_t so = saturation(g.xbars, ours_series), sp = saturation(g.xbars, paper_series);
  if (so && sp && so != sp) {
    if (so == g.xbars.back())
      std::snprintf(b, sizeof b, "still rising at %lld crossbars (the paper's saturates at %lld)",
                    static_cast<long long>(so), static_cast<long long>(sp));
    else
      std::snprintf(b, sizeof b, "saturates at %lld crossbars (paper: %lld)",
                    static_cast<long long>(so), static_cast<long long>(sp));
    parts.push_back(b);
  }
  (void)t;
  std::string r;
  for (const std::string& p : parts) r += (r.empty() ? "" : "; ") + p;
  return r;
}

std::string host_footnote(const results::Seed000Run& run, const std::vector<std::string>& hosts) {
  std::string modelled, measured;
  for (const std::string& h : hosts) {
    const auto it = run.hosts.find(h);
    if (it == run.hosts.end()) continue;
    std::string src = it->second.source;
    for (const char* prefix : {"modelled: ", "measured: "})
      if (src.rfind(prefix, 0) == 0) src = src.substr(std::string(prefix).size());
    if (it->second.calibration) src = "CALIBRATION, fitted to the paper's values: " + src;
    std::string& list = it->second.modelled ? modelled : measured;
    list += (list.empty() ? "" : ", ") + h + ": " + src;
  }
  std::string o;
  if (!modelled.empty()) o += "Host MODELLED, not measured (" + modelled + ")";
  if (!measured.empty())
    o += std::string(o.empty() ? "" : "; ") + "host measured (" + measured + ")";
  return o + ". CIM and bus: eq. (1)-(3). Diamonds: paper.";
}

}  // namespace

ReproduceOutput write_seed000_report(OutputSet& outputs, const results::Seed000Run& run,
                                     const formats::PaperData& paper, const Provenance& provenance,
                                     const std::string& out, const FigureOptions& fig_options) {
  paper.require({"fig3", "fig4", "fig5_cim_ops", "fig5_latency", "table1"}, {});
  const std::string dir = out + "/figures";
  outputs.make_directory(dir);
  const Grid g(run);
  ReproduceOutput res;
  std::string body;
  const double t_min = g.tmvms.empty() ? 0 : g.tmvms.front();
  bool any_modelled = false;
  for (const auto& [name, h] : run.hosts) any_modelled = any_modelled || h.modelled;
  const std::string diamonds =
      "; paper values (diamonds) typed from " + cited_data_path(paper.origin);
  const std::string data_source =
      "Data: hetcim's exact partitioning solver (proven optimal) on the modelled CIM (eq. 1-3) "
      "with host latencies " +
      std::string(any_modelled ? "MODELLED by hetcim's analytical CPU models" : "measured") +
      diamonds + "." +
      (run.calibration
           ? " The panel '" + panel_title(run, run.calibration->host) +
                 "' is a CALIBRATION: its host model was fitted to the paper's ARM values "
                 "(Fig. 5 latencies, Fig. 3/4 speedups; table 'Calibration'), so where it "
                 "agrees with them it is by construction."
           : std::string());

  // Fig. 3: ResNet-18, speedup per crossbar budget and MVM latency, one panel per host.
  const std::string fig3_model = "resnet18";
  if (std::find(g.models.begin(), g.models.end(), fig3_model) != g.models.end()) {
    const formats::PaperTable& pt = paper.need_table("fig3");
    Chart c;
    c.title = "ResNet-18: speedup of the optimal partition over CPU-only execution";
    c.footnote = host_footnote(run, g.hosts);
    std::vector<Difference> diffs;
    for (const std::string& h : g.hosts) {
      Bars b;
      for (int64_t x : g.xbars) b.groups.push_back(std::to_string(x));
      for (double t : g.tmvms) {
        BarSeries s{ns_label(t) + " ns", {}, {}};
        const std::string row = paper_row(run, h) + " " + ns_label(t) + "ns";
        for (int64_t x : g.xbars) {
          const dse::DsePoint* p = g.find(fig3_model, h, x, t);
          s.values.push_back(p ? p->speedup : kNoValue);
          s.paper.push_back(paper_cell(pt, row, x));
        }
        for (size_t i = 0; i < g.xbars.size(); ++i)
          if (std::isfinite(s.values[i]) && std::isfinite(s.paper[i]))
            diffs.push_back(
                {"fig3",
                 h + ", " + ns_label(t) + " ns, " + std::to_string(g.xbars[i]) + " crossbars",
                 s.values[i], pt.find(row, std::to_string(g.xbars[i]))->text(), s.paper[i],
                 with_note(calibration_note(run, h, fig3_model, g.xbars[i], t, false),
                           speedup_reason(g, paper, fig3_model, h, t, g.xbars[i], s.values[i],
                                          s.paper[i], s.values, s.paper))});
        b.series.push_back(std::move(s));
      }
      c.panels.push_back({panel_title(run, h), "crossbars", "speedup over CPU-only (x)", kNoValue,
                          kNoValue, std::move(b)});
    }
    const Figure f{
        "fig3", c.title,
        "Fig. 3 analogue (Klein et al. 2026): ResNet-18 speedup per crossbar budget (groups) and "
        "MVM latency (colours); labels: ours; diamonds: the paper's bar labels. " +
            data_source,
        7.16, 3.1};
    plot_chart(outputs, dir, f, c, fig_options);
    res.figures.push_back(f);
    body += "<h2>Fig. 3: ResNet-18 speedup</h2>\n" + figure_html(f) +
            difference_table_html("Fig. 3: ours vs paper", diffs, 0.10);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Fig. 4: every model at the smallest MVM latency.
  {
    const formats::PaperTable& pt = paper.need_table("fig4");
    Chart c;
    c.title = "Speedup per model at " + ns_label(t_min) + " ns MVM latency";
    c.footnote = host_footnote(run, g.hosts);
    std::vector<Difference> diffs;
    for (const std::string& h : g.hosts) {
      Bars b;
      for (int64_t x : g.xbars) b.groups.push_back(std::to_string(x));
      for (const std::string& m : g.models) {
        BarSeries s{m, {}, {}};
        const std::string row = paper_row(run, h) + " " + m;
        for (int64_t x : g.xbars) {
          const dse::DsePoint* p = g.find(m, h, x, t_min);
          s.values.push_back(p ? p->speedup : kNoValue);
          s.paper.push_back(std::fabs(t_min - 50e-9) < 1e-12 ? paper_cell(pt, row, x) : kNoValue);
        }
        for (size_t i = 0; i < g.xbars.size(); ++i)
          if (std::isfinite(s.values[i]) && std::isfinite(s.paper[i]))
            diffs.push_back(
                {"fig4", h + ", " + m + ", " + std::to_string(g.xbars[i]) + " crossbars",
                 s.values[i], pt.find(row, std::to_string(g.xbars[i]))->text(), s.paper[i],
                 with_note(calibration_note(run, h, m, g.xbars[i], t_min, false),
                           speedup_reason(g, paper, m, h, t_min, g.xbars[i], s.values[i],
                                          s.paper[i], s.values, s.paper))});
        b.series.push_back(std::move(s));
      }
      c.panels.push_back({panel_title(run, h), "crossbars", "speedup over CPU-only (x)", kNoValue,
                          kNoValue, std::move(b)});
    }
    const Figure f{
        "fig4", c.title,
        "Fig. 4 analogue (Klein et al. 2026): speedup per model (colours) and crossbar budget "
        "(groups) at " +
            ns_label(t_min) + " ns; labels: ours; diamonds: the paper's bar labels. " + data_source,
        7.16, 3.1};
    plot_chart(outputs, dir, f, c, fig_options);
    res.figures.push_back(f);
    body += "<h2>Fig. 4: speedup per model</h2>\n" + figure_html(f) +
            difference_table_html("Fig. 4: ours vs paper", diffs, 0.10);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Fig. 5: YOLOv5n latency, host busy vs host idle (waiting for CIM / bus), operator counts.
  const std::string fig5_model = "yolov5n";
  if (std::find(g.models.begin(), g.models.end(), fig5_model) != g.models.end()) {
    const formats::PaperTable& pc = paper.need_table("fig5_cim_ops");
    const formats::PaperTable& pl = paper.need_table("fig5_latency");
    Chart c;
    c.title = "YOLOv5n: end-to-end latency of the optimal partition, split by what the host does";
    c.footnote = host_footnote(run, g.hosts);
    std::vector<Difference> diffs;
    for (const std::string& h : g.hosts) {
      Stacks st;
      StackSegment busy{"host busy (label: host operators)", figure_style().host, {}, {}};
      StackSegment idle{
          "host idle, CIM or bus busy (label: CIM operators)", figure_style().accel, {}, {}};
      Marker pm{"paper latency (stated in the text)", {}, true};
      for (size_t k = 0; k < g.tmvms.size(); ++k) {
        st.groups.push_back(ns_label(g.tmvms[k]) + " ns");
        const std::string row = paper_row(run, h) + " " + ns_label(g.tmvms[k]) + "ns";
        for (int64_t x : g.xbars) {
          const dse::DsePoint* p = g.find(fig5_model, h, x, g.tmvms[k]);
          st.bars.push_back(std::to_string(x));
          st.group_of_bar.push_back(static_cast<int>(k));
          busy.values.push_back(p ? p->host_busy * 1e3 : kNoValue);
          idle.values.push_back(p ? (p->latency - p->host_busy) * 1e3 : kNoValue);
          busy.labels.push_back(p ? std::to_string(p->host_ops) : "");
          idle.labels.push_back(p ? std::to_string(p->cim_ops) : "");
          pm.values.push_back(paper_cell(pl, row, x));
          const double pcim = paper_cell(pc, row, x);
          if (p && std::isfinite(pcim)) {
            std::string reason;
            if (std::fabs(p->cim_ops - pcim) <= std::max(1.0, 0.1 * pcim)) {
              reason = "agrees within 10 %";
            } else {
              reason = host_reason(run, h);
              const auto mi = run.models.find(fig5_model);
              if (mi != run.models.end()) {
                char b[160];
                std::snprintf(b, sizeof b,
                              "; %lld of our %lld operators are offloadable (%lld crossbars for "
                              "all, budget %lld)",
                              static_cast<long long>(mi->second.offloadable),
                              static_cast<long long>(mi->second.operators),
                              static_cast<long long>(mi->second.crossbars_all),
                              static_cast<long long>(x));
                reason += b;
              }
            }
            diffs.push_back(
                {"fig5",
                 h + ", " + ns_label(g.tmvms[k]) + " ns, " + std::to_string(x) +
                     " crossbars: operators on CIM",
                 static_cast<double>(p->cim_ops), pc.find(row, std::to_string(x))->text(), pcim,
                 with_note(calibration_note(run, h, fig5_model, x, g.tmvms[k], false).empty()
                               ? ""
                               : "CALIBRATION: the host model fitted to the paper's "
                                 "ARM latencies and speedups, not to operator counts",
                           reason)});
          }
          if (p && std::isfinite(pm.values.back())) {
            const double ours = p->latency * 1e3;
            diffs.push_back({"fig5",
                             h + ", " + ns_label(g.tmvms[k]) + " ns, " + std::to_string(x) +
                                 " crossbars: latency (ms)",
                             ours, pl.find(row, std::to_string(x))->text(), pm.values.back(),
                             with_note(calibration_note(run, h, fig5_model, x, g.tmvms[k], true),
                                       std::fabs(ours / pm.values.back() - 1) <= 0.1
                                           ? std::string("agrees within 10 %")
                                           : host_reason(run, h))});
          }
        }
      }
      st.segments = {busy, idle};
      if (std::any_of(pm.values.begin(), pm.values.end(),
                      [](double v) { return std::isfinite(v); }))
        st.markers.push_back(pm);
      c.panels.push_back({panel_title(run, h), "crossbars, per MVM latency", "latency (ms)",
                          kNoValue, kNoValue, std::move(st)});
    }
    c.key_columns = 2;
    const Figure f{
        "fig5", c.title,
        "Fig. 5 analogue (Klein et al. 2026): each bar is YOLOv5n's end-to-end latency of the "
        "optimal "
        "partition (ours), split into the time the host CPU computes (dark, label: operators on "
        "the host) and the time it waits for the CIM accelerator or the bus (light, label: "
        "operators on CIM); diamonds: the two latencies the paper states. The paper's operator "
        "counts are in the table below. " +
            data_source,
        7.16, 3.4};
    plot_chart(outputs, dir, f, c, fig_options);
    res.figures.push_back(f);
    body += "<h2>Fig. 5: YOLOv5n latency and operators per device</h2>\n" + figure_html(f) +
            difference_table_html("Fig. 5: ours vs paper", diffs, 0.10);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // The CALIBRATION: the fitted parameters and every target, before and after.
  if (run.calibration) {
    const cost::HostFitResult& fit = run.calibration->fit;
    auto row3 = [](const std::string& what, const std::string& a, const std::string& b) {
      return "<tr><td class=\"l\">" + what + "</td><td>" + a + "</td><td>" + b + "</td></tr>\n";
    };
    std::string t =
        "<table class=\"calibration\"><caption>CALIBRATION of the ARM host model: " +
        html_escape(fit.start.name) + " (hetcim's preset) and the parameters fitted to the " +
        std::to_string(fit.targets.size()) +
        " published ARM values below (sum of squared log ratios " + fixed(fit.objective_start, 4) +
        " -> " + fixed(fit.objective, 4) + ", " + std::to_string(fit.evaluations) +
        " evaluations of the exact solver's optima; the peak MAC rates and the power are the "
        "preset's)</caption>\n<tr><th class=\"l\">parameter</th><th>preset</th><th>fitted "
        "(CALIBRATION)</th></tr>\n" +
        row3("efficiency (of the int8 peak)", fixed(fit.start.efficiency, 4),
             fixed(fit.fitted.efficiency, 4)) +
        row3("effective int8 MAC rate (GMAC/s)",
             fixed(fit.start.peak_int8_macs * fit.start.efficiency / 1e9, 3),
             fixed(fit.fitted.peak_int8_macs * fit.fitted.efficiency / 1e9, 3)) +
        row3("sustained bandwidth (GB/s)", fixed(fit.start.memory_bandwidth / 1e9, 3),
             fixed(fit.fitted.memory_bandwidth / 1e9, 3)) +
        row3("overhead per operator (us)", fixed(fit.start.op_overhead * 1e6, 2),
             fixed(fit.fitted.op_overhead * 1e6, 2)) +
        "</table>\n<table class=\"calibration\"><caption>CALIBRATION targets: the paper's "
        "value, the preset's and the fitted model's (exact solver, this run's grid)</caption>\n"
        "<tr><th class=\"l\">figure</th><th class=\"l\">cell</th><th class=\"paper\">paper"
        "</th><th>preset</th><th>CALIBRATION</th></tr>\n";
    for (const cost::HostFitTarget& x : fit.targets)
      t += "<tr><td class=\"l\">" + html_escape(x.figure) + "</td><td class=\"l\">" +
           html_escape(x.cell) + "</td><td class=\"paper\">" + fixed(x.published, 1) + "</td><td>" +
           fixed(x.before, 2) + "</td><td>" + fixed(x.after, 2) + "</td></tr>\n";
    body += "<h2>Calibration of the ARM host (CALIBRATION, not a measurement)</h2>\n<p>" +
            html_escape(fit.fitted.description) + ".</p>\n" + t + "</table>\n";
  }

  // The schedule of one optimal partition (beyond the paper's figures: what the optimum does).
  if (run.gantt) {
    const results::Seed000Gantt& gt = *run.gantt;
    const partition::Problem& p = gt.problem;
    const partition::Schedule& s = gt.schedule;
    Gantt g;
    g.lanes = {"host", "bus"};
    g.kinds = {"host operator", "CIM operator", "bus transfer"};
    g.kind_colours = {figure_style().host, figure_style().accel, figure_style().bus};
    // Accelerator operators that overlap go on separate lanes.
    const TwoDeviceLanes packed = two_device_lanes(s);
    for (size_t l = 0; l < packed.accelerator; ++l)
      g.lanes.push_back("CIM " + std::to_string(l + 1));
    for (size_t v = 0; v < p.size(); ++v) {
      const bool on_cim = s.assignment.mode[v] >= 0;
      g.bars.push_back({static_cast<int>(packed.lane[v]), s.start[v] * 1e3, s.finish[v] * 1e3,
                        on_cim ? 1 : 0, bar_label(p.names[v])});
    }
    for (const partition::Transfer& t : s.transfers)
      g.bars.push_back({1, t.start * 1e3, t.finish * 1e3, 2, ""});
    const double lanes = static_cast<double>(g.lanes.size());
    Chart c;
    c.title = gt.model + " on the " + gt.host + " host, " + std::to_string(gt.crossbars) +
              " crossbars, " + ns_label(gt.t_mvm) + " ns: the optimal schedule";
    c.footnote = host_footnote(run, {gt.host});
    if (const size_t at = c.footnote.find(" Diamonds: paper."); at != std::string::npos)
      c.footnote.erase(at);
    c.panels.push_back({"", "time (ms)", "", kNoValue, kNoValue, std::move(g)});
    const Figure f{"gantt_" + gt.model, c.title,
                   "The schedule of one optimal partition (beyond the paper's figures): each "
                   "operator on the host or on the CIM accelerator (overlapping accelerator "
                   "operators on separate lanes) and each transfer on the shared bus, labelled "
                   "with the operator's module where the bar is wide enough. " +
                       without(data_source, diamonds),  // no paper values on a schedule
                   7.16, 1.6 + 0.3 * lanes};
    plot_chart(outputs, dir, f, c, fig_options);
    res.figures.push_back(f);
    body += "<h2>The optimal schedule</h2>\n" + figure_html(f);
  }

  // Table I: problem sizes and solver figures, Gurobi (paper) beside CBC and the exact solver.
  {
    const formats::PaperTable& pt = paper.need_table("table1");
    std::vector<Difference> diffs;
    std::string rows;
    const std::string arm = std::find(g.hosts.begin(), g.hosts.end(), "arm") != g.hosts.end()
                                ? "arm"
                                : (g.hosts.empty() ? "" : g.hosts.front());
    for (const auto& row : pt.rows) {
      const std::string& model = row.first;  // a plain name: lambdas below capture it
      const auto mi = run.models.find(model);
      if (mi == run.models.end()) continue;
      const results::Seed000ModelInfo& m = mi->second;
      auto paper_txt = [&](const char* col) {
        const formats::PaperValue* v = pt.find(model, col);
        return v ? v->text() : std::string();
      };
      // Exact solver: every point of the grid on this host.
      double exact_sum = 0;
      size_t exact_n = 0, exact_cached = 0, exact_optimal = 0;
      for (const auto& p : run.points)
        if (p.model == model && p.host == arm) {
          exact_sum += p.seconds;
          ++exact_n;
          exact_cached += p.cached;
          exact_optimal += p.status == "optimal";
        }
      // CBC on the paper's MILP: the chosen points.
      double cbc_sum = 0, gap_sum = 0;
      size_t cbc_n = 0, gap_n = 0, cbc_optimal = 0, cbc_cached = 0;
      for (const auto& p : run.milp_points)
        if (p.model == model && p.host == arm && p.milp_run) {
          cbc_sum += p.milp_seconds;
          ++cbc_n;
          cbc_cached += p.cached;
          cbc_optimal += p.milp_status == "optimal";
          if (std::isfinite(p.milp_gap) && p.milp_objective > 0) gap_sum += p.milp_gap, ++gap_n;
        }
      auto cmp = [&](const char* col, double ours, const std::string& reason) {
        const formats::PaperValue* v = pt.find(model, col);
        if (!v || !v->present) return;
        diffs.push_back({"table1", model + ": " + col, ours, v->text(), v->value,
                         std::fabs(ours / v->value - 1) <= 0.001 ? "equal" : reason});
      };
      char b[240];
      std::snprintf(b, sizeof b, "our lowered graph has %lld operators (paper %s)",
                    static_cast<long long>(m.operators), paper_txt("operators").c_str());
      const std::string graph_reason = b;
      cmp("operators", static_cast<double>(m.operators), graph_reason);
      cmp("variables", static_cast<double>(m.milp_variables),
          "N + |P| on our graph; " + graph_reason);
      cmp("constraints", static_cast<double>(m.milp_constraints),
          "3|E| + 2|P| + N + (N - |V_acc|) + 2 on our graph; " + graph_reason);
      const double cbc_mean = cbc_n ? cbc_sum / static_cast<double>(cbc_n) : kNoValue;
      const double gap_mean = gap_n ? 100 * gap_sum / static_cast<double>(gap_n) : kNoValue;
      if (cbc_n) {
        std::snprintf(b, sizeof b,
                      "CBC (ours) vs Gurobi (paper) on a different machine; CBC limit %.0f s vs "
                      "Gurobi 600 s; %zu of %zu CBC runs proven optimal",
                      run.milp_time_limit, cbc_optimal, cbc_n);
        cmp("solve_s", cbc_mean, b);
      }
      if (gap_n) cmp("gap_percent", gap_mean, b);
      rows += "<tr><td class=\"l\">" + html_escape(model) + "</td><td class=\"paper\">" +
              paper_txt("operators") + "</td><td>" + std::to_string(m.operators) +
              "</td><td class=\"paper\">" + paper_txt("variables") + "</td><td>" +
              std::to_string(m.milp_variables) + "</td><td class=\"paper\">" +
              paper_txt("constraints") + "</td><td>" + std::to_string(m.milp_constraints) +
              "</td><td class=\"paper\">" + paper_txt("solve_s") + "</td><td>" +
              (cbc_n ? fixed(cbc_mean, 3) : std::string("not run")) + "</td><td>" +
              (exact_n ? fixed(exact_sum / static_cast<double>(exact_n), 4) : std::string("n/a")) +
              "</td><td class=\"paper\">" + paper_txt("gap_percent") + "</td><td>" +
              (gap_n   ? fixed(gap_mean, 2)
               : cbc_n ? std::string("no incumbent")
                       : std::string("not run")) +
              "</td><td>" +
              (exact_n ? "0 (" + std::to_string(exact_optimal) + "/" + std::to_string(exact_n) +
                             " proven optimal)"
                       : std::string("n/a")) +
              "</td><td class=\"l\">" + std::to_string(cbc_n) + " MILP point(s)" +
              (cbc_cached ? ", " + std::to_string(cbc_cached) + " from the cache" : "") + "; " +
              std::to_string(exact_n) + " exact point(s)" +
              (exact_cached ? ", " + std::to_string(exact_cached) + " from the cache" : "") +
              "</td></tr>\n";
    }
    std::string table =
        "<table class=\"table1\"><caption>Table I: ILP statistics on the " + arm +
        " setup. Paper: Gurobi; ours: the paper's MILP on COIN-OR CBC (limit " +
        fixed(run.milp_time_limit, 0) +
        " s) and hetcim's exact solver, both measured on this machine (see provenance)</caption>\n"
        "<tr><th class=\"l\" rowspan=\"2\">model</th><th colspan=\"2\">operators</th>"
        "<th colspan=\"2\">decision variables</th><th colspan=\"2\">constraints</th>"
        "<th colspan=\"3\">mean solving time (s)</th><th colspan=\"3\">mean MIP gap (%)</th>"
        "<th class=\"l\" rowspan=\"2\">points solved</th></tr>\n"
        "<tr><th class=\"paper\">paper</th><th>ours</th><th class=\"paper\">paper</th><th>ours</th>"
        "<th class=\"paper\">paper</th><th>ours</th><th class=\"paper\">paper (Gurobi)</th>"
        "<th>CBC (MILP)</th><th>exact</th><th class=\"paper\">paper (Gurobi)</th>"
        "<th>CBC (MILP)</th><th>exact</th></tr>\n" +
        rows + "</table>\n";
    body = "<h2>Table I: ILP size and solver statistics</h2>\n" + table +
           difference_table_html("Table I: ours vs paper", diffs, 0.001, true) + body;
    res.differences.insert(res.differences.begin(), diffs.begin(), diffs.end());
  }

  std::string intro =
      "<p>Every figure below is regenerated by hetcim from its own models and solvers and drawn "
      "beside the values the paper prints (black diamonds in the figures, the <em>paper</em> "
      "columns in the tables). Where they differ, the reason column is computed from this run: "
      "how the host was obtained, what eq. (1) says about the crossbar budget, the operator "
      "counts of our graphs, and where a series saturates.</p>\n";
  if (run.calibration)
    intro += "<p><strong>CALIBRATION:</strong> the panels '" +
             panel_title(run, run.calibration->host) +
             "' use hetcim's ARM host model fitted to the paper's own ARM values (table "
             "'Calibration' below); they show what the other figures become under that fit, not "
             "a measurement of a Cortex-A72.</p>\n";
  if (run.quick)
    intro +=
        "<p><strong>Quick run:</strong> a reduced grid (see provenance); run without "
        "--quick for every point of the paper.</p>\n";
  stage_reproduce_report(outputs, out, paper,
                         "Klein et al. 2026 reproduced: CPU-CIM workload partitioning", intro, body,
                         provenance, res);
  return res;
}

}  // namespace hetcim::report
