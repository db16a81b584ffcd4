#include "report/cluster_tables.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cluster/area.h"
#include "cluster/constants.h"
#include "cluster/dw_engine.h"
#include "cluster/ima_model.h"
#include "util/paper_names.h"
#include "util/units.h"

namespace hetcim::report {

// The cluster model's types and functions, rendered here.
using namespace hetcim::cluster;  // NOLINT(google-build-using-namespace): one module rendered

namespace {

std::string fmt(const char* f, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, f, args...);
  return buf;
}

nlohmann::json config_json(const ClusterConfig& c) {
  nlohmann::json j;
  j["name"] = c.name;
  j["clock"] = {{"frequency_hz", c.clock.frequency}, {"voltage_v", c.clock.voltage}};
  j["cores"] = {{"count", c.cores.count},
                {"pointwise_mac_per_cycle", c.cores.pointwise_mac_per_cycle},
                {"depthwise_mac_per_cycle", c.cores.depthwise_mac_per_cycle},
                {"eltwise_per_cycle", c.cores.eltwise_per_cycle},
                {"marshal_bytes_per_cycle", c.cores.marshal_bytes_per_cycle},
                {"power_w", c.cores.power}};
  j["tcdm_bytes"] = c.tcdm_bytes;
  j["tcdm_banks"] = c.tcdm_banks;
  j["tcdm_contention"] = c.tcdm_contention;
  j["node_m"] = c.node;
  j["ima"] = {{"rows", c.ima.rows},
              {"cols", c.ima.cols},
              {"t_mvm_s", c.ima.t_mvm},
              {"bus_width_bits", c.ima.bus_width_bits},
              {"execution", execution_name(c.ima.execution)},
              {"config_cycles", c.ima.config_cycles},
              {"job_overhead_cycles", c.ima.job_overhead_cycles},
              {"e_job_j", c.ima.e_job},
              {"e_job_node_m", c.ima.e_job_node},
              {"e_job_voltage_v", c.ima.e_job_voltage},
              {"e_job_at_node_j", ima_job_energy(c)},
              {"power_w", c.ima.power},
              {"peak_ops", ima_peak_ops(c.ima)}};
  j["dw"] = {{"channels", c.dw.channels},
             {"kernel", c.dw.kernel},
             {"inner_loop_cycles", c.dw.inner_loop_cycles},
             {"bytes_per_cycle", c.dw.bytes_per_cycle},
             {"config_cycles", c.dw.config_cycles},
             {"power_w", c.dw.power}};
  j["base_power_w"] = c.base_power;
  j["area"] = {{"total_mm2", c.area.total * 1e6},
               {"ima_share", c.area.ima_share},
               {"tcdm_share", c.area.tcdm_share},
               {"dw_share", c.area.dw_share},
               {"interconnect_share", c.area.interconnect_share},
               {"reference_bus_width_bits", c.area.reference_bus_width_bits},
               {"pipeline_digital_overhead", c.area.pipeline_digital_overhead},
               {"pipeline_ima_overhead", c.area.pipeline_ima_overhead}};
  j["constants"] = nlohmann::json::array();
  for (const ConstantRow& r : constant_table(c))
    j["constants"].push_back({{"field", r.field},
                              {"value", r.value},
                              {"source", r.as_preset ? constant_source_name(r.source) : "given"},
                              {"reference", r.reference}});
  const AreaBreakdown a = cluster_area(c);
  j["area_breakdown_mm2"] = {{"ima", a.ima * 1e6},
                             {"ima_digital", a.ima_digital * 1e6},
                             {"ima_analog", a.ima_analog * 1e6},
                             {"tcdm", a.tcdm * 1e6},
                             {"dw", a.dw * 1e6},
                             {"interconnect", a.interconnect * 1e6},
                             {"rest", a.rest * 1e6},
                             {"total", a.total * 1e6}};
  return j;
}

}  // namespace

std::string config_text(const ClusterConfig& c) {
  std::ostringstream os;
  os << "cluster " << preset_shown(c.name) << ": " << c.cores.count << " cores, "
     << format_quantity(static_cast<double>(c.tcdm_bytes), Quantity::Bytes) << " TCDM; IMA "
     << c.ima.rows << "x" << c.ima.cols << ", " << format_quantity(c.ima.t_mvm, Quantity::Time)
     << " per MVM, peak " << fmt("%.4g", ima_peak_ops(c.ima) / 1e12) << " TOPS; DW "
     << c.dw.channels << " ch " << c.dw.kernel << "x" << c.dw.kernel << "\n";
  const AreaBreakdown a = cluster_area(c);
  os << fmt(
      "IMA job energy %.3g nJ at %.0f nm (%.3g nJ at %.0f nm, x %.3g: Garofalo et al. 2022's a b^2 "
      "scaling); "
      "area %.3f mm2 (%s IMA %.3f, TCDM %.3f, DW %.3f, LIC %.3f at %lld bit, rest %.3f)%s\n",
      ima_job_energy(c) * 1e9, c.node * 1e9, c.ima.e_job * 1e9, c.ima.e_job_node * 1e9,
      ima_job_energy(c) / c.ima.e_job, a.total * 1e6, execution_name(c.ima.execution), a.ima * 1e6,
      a.tcdm * 1e6, a.dw * 1e6, a.interconnect * 1e6, static_cast<long long>(c.ima.bus_width_bits),
      a.rest * 1e6,
      c.tcdm_contention > 0
          ? fmt("; TCDM contention %.3g per core-cycle", c.tcdm_contention).c_str()
          : "");
  return os.str();
}

std::string roofline_text(const ClusterConfig& c, const std::vector<RooflinePoint>& points) {
  std::ostringstream os;
  os << config_text(c);
  os << "IMA roofline (Garofalo et al. 2022, Fig. 7): synthetic point-wise layers, attained vs "
        "roofs in GOPS\n";
  os << fmt("%-8s %-10s %5s %6s %8s %9s %9s %9s %9s %7s %s\n", "f", "execution", "bus", "util",
            "I[op/B]", "compute", "memory", "roof", "attained", "stream", "bound");
  for (const RooflinePoint& p : points) {
    os << fmt("%-8s %-10s %5lld %5.1f%% %8.1f %9.1f %9.1f %9.1f %9.1f %6.1f%% %s\n",
              (fmt("%.0f", p.frequency / 1e6) + "MHz").c_str(), execution_name(p.execution),
              static_cast<long long>(p.bus_width_bits), 100 * p.utilization, p.intensity,
              p.compute_roof / 1e9, p.memory_roof / 1e9,
              std::min(p.compute_roof, p.memory_roof) / 1e9, p.attained / 1e9, 100 * p.stream_share,
              p.memory_bound ? "memory" : "compute");
  }
  // The paper picks the narrowest bus that sustains the IMA (the interconnect grows with it): per
  // clock and execution, the full-crossbar throughput per mm^2 of cluster at each width.
  os << "\nbus width choice (full crossbar; area of the whole cluster at that width, "
        "cluster/area.h)\n";
  os << fmt("%-8s %-10s %5s %9s %8s %9s %s\n", "f", "execution", "bus", "attained", "mm2",
            "GOPS/mm2", "");
  std::vector<const RooflinePoint*> full;
  for (const RooflinePoint& p : points)
    if (p.utilization >= 0.999) full.push_back(&p);
  for (size_t i = 0; i < full.size(); ++i) {
    const RooflinePoint& p = *full[i];
    double best = 0;
    for (const RooflinePoint* q : full)
      if (q->frequency == p.frequency && q->execution == p.execution)
        best = std::max(best, q->attained / q->area);
    os << fmt("%-8s %-10s %5lld %9.1f %8.3f %9.1f %s\n",
              (fmt("%.0f", p.frequency / 1e6) + "MHz").c_str(), execution_name(p.execution),
              static_cast<long long>(p.bus_width_bits), p.attained / 1e9, p.area * 1e6,
              p.attained / 1e9 / (p.area * 1e6),
              p.attained / p.area >= best ? "<- best per area" : "");
  }
  return os.str();
}

std::string roofline_csv(const std::vector<RooflinePoint>& points) {
  std::ostringstream os;
  os << "frequency_hz,voltage_v,execution,bus_width_bits,rows_used,cols_used,utilization,intensity_"
        "op_per_b,"
        "compute_roof_gops,memory_roof_gops,attained_gops,cycles,stream_share,memory_bound,area_"
        "mm2\n";
  for (const RooflinePoint& p : points)
    os << fmt("%.6g,%.6g,%s,%lld,%lld,%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%lld,%.6g,%d,%.6g\n",
              p.frequency, p.voltage, execution_name(p.execution),
              static_cast<long long>(p.bus_width_bits), static_cast<long long>(p.rows_used),
              static_cast<long long>(p.cols_used), p.utilization, p.intensity, p.compute_roof / 1e9,
              p.memory_roof / 1e9, p.attained / 1e9, static_cast<long long>(p.cycles),
              p.stream_share, p.memory_bound ? 1 : 0, p.area * 1e6);
  return os.str();
}

std::string roofline_json(const ClusterConfig& c, const std::vector<RooflinePoint>& points) {
  nlohmann::json j;
  j["config"] = config_json(c);
  j["points"] = nlohmann::json::array();
  for (const RooflinePoint& p : points)
    j["points"].push_back({{"frequency_hz", p.frequency},
                           {"voltage_v", p.voltage},
                           {"execution", execution_name(p.execution)},
                           {"bus_width_bits", p.bus_width_bits},
                           {"rows_used", p.rows_used},
                           {"cols_used", p.cols_used},
                           {"utilization", p.utilization},
                           {"intensity_op_per_b", p.intensity},
                           {"compute_roof_gops", p.compute_roof / 1e9},
                           {"memory_roof_gops", p.memory_roof / 1e9},
                           {"attained_gops", p.attained / 1e9},
                           {"cycles", p.cycles},
                           {"stream_share", p.stream_share},
                           {"memory_bound", p.memory_bound},
                           {"area_mm2", p.area * 1e6}});
  return j.dump(1) + "\n";
}

std::string bottleneck_text(const ClusterConfig& c, const BottleneckStudy& s) {
  std::ostringstream os;
  os << config_text(c);
  const auto& sh = s.shape;
  os << fmt(
      "MobileNetV2 Bottleneck (Garofalo et al. 2022, Fig. 8-10): %lldx%lldx%lld input, expansion "
      "%lld, %lld "
      "outputs, "
      "stride %lld; IMA %s, %lld-bit bus, %.0f MHz\n",
      static_cast<long long>(sh.height), static_cast<long long>(sh.width),
      static_cast<long long>(sh.c_in), static_cast<long long>(sh.expansion),
      static_cast<long long>(sh.c_out), static_cast<long long>(sh.stride),
      execution_name(c.ima.execution), static_cast<long long>(c.ima.bus_width_bits),
      c.clock.frequency / 1e6);
  os << fmt(
      "weights %lld B + activations %lld B = %lld B of %lld B TCDM: %s\n\n",
      static_cast<long long>(s.weights), static_cast<long long>(s.activation_bytes),
      static_cast<long long>(s.weights + s.activation_bytes), static_cast<long long>(c.tcdm_bytes),
      s.fits_tcdm ? "fits" : "does NOT fit (the model assumes no tiling; figures are optimistic)");
  if (s.default_shape)
    os << "shape: CHOSEN (a calibration, zoo/bottleneck.h), not read from the paper: the paper's "
          "Fig. 8 shape is not in our copy; this one matches its +25 % / +54 % devices, ~4 % "
          "depth-wise weights, 23x dense cells and the 512 kB fit\n";
  os << fmt(
      "point-wise layers on a %lldx%lld crossbar (the paper: the layer fits the one array):\n",
      static_cast<long long>(c.ima.rows), static_cast<long long>(c.ima.cols));
  for (const PointwiseFootprint& p : s.pointwise)
    os << fmt("  %-10s %lldx%lld: %lld cells = %.2f crossbars of cells, %lld crossbar tiles\n",
              p.layer.c_str(), static_cast<long long>(p.rows), static_cast<long long>(p.cols),
              static_cast<long long>(p.cells), p.crossbars, static_cast<long long>(p.tiles));
  {
    double lo = 0, hi = 0;
    bool any = false;
    for (const MappingResult& r : s.results) {
      if (r.ima_devices == 0) continue;
      lo = any ? std::min(lo, r.ima_crossbars) : r.ima_crossbars;
      hi = any ? std::max(hi, r.ima_crossbars) : r.ima_crossbars;
      any = true;
    }
    if (any && hi > 1.0)
      os << fmt(
          "  the IMA mappings need %.2f to %.2f crossbars of cells in all; hetcim adds the "
          "crossbars and charges their area (the \"xbars\" column)\n",
          lo, hi);
  }
  os << "\nper-layer cycles (Fig. 10)\n";
  os << fmt("%-10s %-24s %-6s %10s %8s\n", "mapping", "layer", "engine", "cycles", "share");
  for (const MappingResult& r : s.results)
    for (const LayerCost& l : r.layers)
      os << fmt("%-10s %-24s %-6s %10lld %7.1f%%\n", mapping_name(r.mapping).c_str(),
                l.layer.c_str(), l.engine.c_str(), static_cast<long long>(l.cycles),
                100.0 * static_cast<double>(l.cycles) / static_cast<double>(r.cycles));
  os << "\nper mapping (Fig. 9; x = relative to " << mapping_name(s.results.front().mapping)
     << ")\n";
  os << fmt("%-10s %10s %9s %8s %9s %8s %9s %8s %6s %8s %9s %8s\n", "mapping", "cycles", "time[us]",
            "GOPS", "speedup", "E[uJ]", "GOPS/W", "x", "xbars", "mm2", "GOPS/mm2", "x");
  for (const MappingResult& r : s.results)
    os << fmt("%-10s %10lld %9.1f %8.2f %8.2fx %8.2f %9.1f %7.2fx %6.2f %8.3f %9.2f %7.2fx\n",
              mapping_name(r.mapping).c_str(), static_cast<long long>(r.cycles), r.seconds * 1e6,
              r.gops, r.speedup, r.energy * 1e6, r.gops_per_watt, r.energy_gain, r.ima_crossbars,
              r.area * 1e6, r.gops_per_mm2, r.area_gain);
  return os.str();
}

std::string bottleneck_csv(const BottleneckStudy& s) {
  std::ostringstream os;
  os << "mapping,layer,engine,cycles,macs,jobs,energy_j\n";
  for (const MappingResult& r : s.results) {
    for (const LayerCost& l : r.layers)
      os << fmt("%s,%s,%s,%lld,%lld,%lld,%.6g\n", mapping_name(r.mapping).c_str(), l.layer.c_str(),
                l.engine.c_str(), static_cast<long long>(l.cycles), static_cast<long long>(l.macs),
                static_cast<long long>(l.jobs), l.energy);
    os << fmt("%s,total,all,%lld,,,%.6g\n", mapping_name(r.mapping).c_str(),
              static_cast<long long>(r.cycles), r.energy);
  }
  return os.str();
}

std::string bottleneck_json(const ClusterConfig& c, const BottleneckStudy& s) {
  nlohmann::json j;
  j["config"] = config_json(c);
  j["shape"] = {{"height", s.shape.height}, {"width", s.shape.width},
                {"c_in", s.shape.c_in},     {"expansion", s.shape.expansion},
                {"c_out", s.shape.c_out},   {"stride", s.shape.stride}};
  j["weights"] = s.weights;
  j["activation_bytes"] = s.activation_bytes;
  j["fits_tcdm"] = s.fits_tcdm;
  j["shape_origin"] =
      s.default_shape ? "chosen (a calibration, zoo/bottleneck.h) to match the paper's +25 % / +54 "
                        "% devices, ~4 % depth-wise weights, 23x dense cells and 512 kB TCDM fit; "
                        "the paper's Fig. 8 shape is not in our copy"
                      : "given by the caller";
  j["pointwise_on_crossbar"] = nlohmann::json::array();
  for (const PointwiseFootprint& p : s.pointwise)
    j["pointwise_on_crossbar"].push_back({{"layer", p.layer},
                                          {"rows", p.rows},
                                          {"cols", p.cols},
                                          {"cells", p.cells},
                                          {"crossbars", p.crossbars},
                                          {"tiles", p.tiles}});
  j["paper_says_pointwise_fits_one_crossbar"] = true;
  j["mappings"] = nlohmann::json::array();
  for (const MappingResult& r : s.results) {
    nlohmann::json m = {{"mapping", mapping_name(r.mapping)},
                        {"cycles", r.cycles},
                        {"seconds", r.seconds},
                        {"ops", r.ops},
                        {"gops", r.gops},
                        {"energy_j", r.energy},
                        {"gops_per_watt", r.gops_per_watt},
                        {"area_mm2", r.area * 1e6},
                        {"gops_per_mm2", r.gops_per_mm2},
                        {"ima_devices", r.ima_devices},
                        {"ima_crossbars", r.ima_crossbars},
                        {"speedup", r.speedup},
                        {"energy_gain", r.energy_gain},
                        {"area_gain", r.area_gain}};
    m["layers"] = nlohmann::json::array();
    for (const LayerCost& l : r.layers)
      m["layers"].push_back({{"layer", l.layer},
                             {"engine", l.engine},
                             {"cycles", l.cycles},
                             {"macs", l.macs},
                             {"jobs", l.jobs},
                             {"energy_j", l.energy}});
    j["mappings"].push_back(std::move(m));
  }
  return j.dump(1) + "\n";
}

namespace {

const char* const kCalibrationLabel =
    "CALIBRATION (not a reproduction): constants fitted to Garofalo et al. 2022's Fig. 9 speedups";

// The full-crossbar points of a roofline (100 % utilization), in sweep order.
std::vector<const RooflinePoint*> full_crossbar(const std::vector<RooflinePoint>& points) {
  std::vector<const RooflinePoint*> v;
  for (const RooflinePoint& p : points)
    if (p.utilization >= 0.999) v.push_back(&p);
  return v;
}

std::string method_text(const Fig9Calibration& cal) {
  const Fig9FitOptions& o = cal.options;
  return fmt(
      "method: exhaustive grid search, residual = rms over the targets of ln(model / paper);\n"
      "  ima.job_overhead_cycles every integer in [%lld, %lld]; cores.pointwise_mac_per_cycle "
      "%lld geometric points in [%g, %g];\n  cores.depthwise_mac_per_cycle %lld geometric points "
      "in [%g, %g]; %lld grid points evaluated\n",
      static_cast<long long>(o.overhead_min), static_cast<long long>(o.overhead_max),
      static_cast<long long>(o.rate_points), o.pointwise_min, o.pointwise_max,
      static_cast<long long>(o.rate_points), o.depthwise_min, o.depthwise_max,
      static_cast<long long>(cal.fit.evaluated));
}

}  // namespace

std::string calibration_text(const ClusterConfig& c, const Fig9Calibration& cal) {
  const Fig9Fit& f = cal.fit;
  std::ostringstream os;
  os << kCalibrationLabel << "\n" << config_text(c) << method_text(cal);
  os << fmt(
      "fitted: ima.job_overhead_cycles %lld (given %lld), cores.pointwise_mac_per_cycle %.4g "
      "(given %.4g), cores.depthwise_mac_per_cycle %.4g (given %.4g)\n",
      static_cast<long long>(f.job_overhead_cycles),
      static_cast<long long>(c.ima.job_overhead_cycles), f.pointwise_mac_per_cycle,
      c.cores.pointwise_mac_per_cycle, f.depthwise_mac_per_cycle, c.cores.depthwise_mac_per_cycle);
  for (const std::string& b : f.at_bound)
    os << "warning: " << b << " sits on an end of its range; the optimum may lie outside it\n";
  os << "\nFig. 9 speedup over the cores (the fit targets)\n";
  os << fmt("%-12s %8s %8s %8s\n", "mapping", "paper", "given", "fitted");
  for (size_t t = 0; t < cal.options.targets.size(); ++t)
    os << fmt("%-12s %7.3gx %7.3fx %7.3fx\n", cal.options.targets[t].mapping.c_str(),
              cal.options.targets[t].speedup, f.start_speedups[t], f.speedups[t]);
  os << fmt("%-12s %8s %8.4f %8.4f   (0.01 = 1 %% rms)\n", "residual", "", f.start_residual,
            f.residual);
  os << "\nwhat the fitted constants do to the rest of Fig. 9 (energy and area efficiency "
        "over the cores; power figures are assumptions)\n";
  os << fmt("%-12s %10s %10s %10s %10s\n", "mapping", "E given", "E fitted", "A given", "A fitted");
  for (size_t i = 0; i < cal.before.results.size(); ++i) {
    const MappingResult &b = cal.before.results[i], &a = cal.after.results[i];
    os << fmt("%-12s %9.2fx %9.2fx %9.2fx %9.2fx\n", mapping_name(b.mapping).c_str(), b.energy_gain,
              a.energy_gain, b.area_gain, a.area_gain);
  }
  os << fmt(
      "\nthe depth-wise engine over the cores' software (paper 26x): given %.1fx, fitted %.1fx "
      "(%.2f MAC/cycle of the engine on the Bottleneck's depth-wise layer)\n",
      cal.dw_over_software_before, cal.dw_over_software_after, cal.dw.macs_per_cycle());
  os << "\nwhat the fitted constants do to Fig. 7 (the roofline, full 256x256 crossbar, GOPS; "
        "paper: 958 GOPS at 250 MHz, pipelined, 128 bit)\n";
  os << fmt("%-8s %-10s %5s %9s %9s %9s %8s\n", "f", "execution", "bus", "roof", "given", "fitted",
            "change");
  const auto before = full_crossbar(cal.roofline_before), after = full_crossbar(cal.roofline_after);
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const RooflinePoint &b = *before[i], &a = *after[i];
    os << fmt("%-8s %-10s %5lld %9.1f %9.1f %9.1f %7.1f%%\n",
              (fmt("%.0f", b.frequency / 1e6) + "MHz").c_str(), execution_name(b.execution),
              static_cast<long long>(b.bus_width_bits),
              std::min(b.compute_roof, b.memory_roof) / 1e9, b.attained / 1e9, a.attained / 1e9,
              100.0 * (a.attained / b.attained - 1));
  }
  // Fig. 7(c)'s one printed throughput: 958 GOPS at 250 MHz, pipelined, 128 bit, full crossbar.
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    const RooflinePoint &b = *before[i], &a = *after[i];
    if (b.frequency != 250e6 || b.execution != ImaExecution::Pipelined || b.bus_width_bits != 128)
      continue;
    const double paper = 958e9;
    os << fmt(
        "Fig. 7(c) peak (250 MHz, pipelined, 128 bit): paper 958 GOPS, given %.0f GOPS (%+.1f %%), "
        "fitted %.0f GOPS (%+.1f %%)\n",
        b.attained / 1e9, 100 * (b.attained / paper - 1), a.attained / 1e9,
        100 * (a.attained / paper - 1));
    if (std::fabs(a.attained / paper - 1) > 0.10 && f.residual < f.start_residual)
      os << "The constants that fit Fig. 9 miss Fig. 7 by more than 10 %: with these model "
            "parameters no single set fits both figures.\n";
  }
  return os.str();
}

std::string calibration_json(const ClusterConfig& c, const Fig9Calibration& cal) {
  const Fig9Fit& f = cal.fit;
  nlohmann::json j;
  j["kind"] = "calibration";
  j["label"] = kCalibrationLabel;
  j["config"] = config_json(c);
  const Fig9FitOptions& o = cal.options;
  j["method"] = {{"search", "exhaustive grid"},
                 {"residual", "rms over the targets of ln(model / paper)"},
                 {"job_overhead_cycles", {{"min", o.overhead_min}, {"max", o.overhead_max}}},
                 {"pointwise_mac_per_cycle",
                  {{"min", o.pointwise_min}, {"max", o.pointwise_max}, {"points", o.rate_points}}},
                 {"depthwise_mac_per_cycle",
                  {{"min", o.depthwise_min}, {"max", o.depthwise_max}, {"points", o.rate_points}}},
                 {"evaluated", f.evaluated}};
  j["fitted"] = {{"job_overhead_cycles", f.job_overhead_cycles},
                 {"pointwise_mac_per_cycle", f.pointwise_mac_per_cycle},
                 {"depthwise_mac_per_cycle", f.depthwise_mac_per_cycle},
                 {"at_bound", f.at_bound}};
  j["residual"] = {{"given", f.start_residual}, {"fitted", f.residual}};
  j["targets"] = nlohmann::json::array();
  for (size_t t = 0; t < o.targets.size(); ++t)
    j["targets"].push_back({{"mapping", o.targets[t].mapping},
                            {"paper_speedup", o.targets[t].speedup},
                            {"given_speedup", f.start_speedups[t]},
                            {"fitted_speedup", f.speedups[t]}});
  j["fig9"] = nlohmann::json::array();
  for (size_t i = 0; i < cal.before.results.size(); ++i) {
    const MappingResult &b = cal.before.results[i], &a = cal.after.results[i];
    j["fig9"].push_back(
        {{"mapping", mapping_name(b.mapping)},
         {"given",
          {{"speedup", b.speedup}, {"energy_gain", b.energy_gain}, {"area_gain", b.area_gain}}},
         {"fitted",
          {{"speedup", a.speedup}, {"energy_gain", a.energy_gain}, {"area_gain", a.area_gain}}}});
  }
  j["dw_over_software"] = {{"paper", 26.0},
                           {"given", cal.dw_over_software_before},
                           {"fitted", cal.dw_over_software_after}};
  j["fig7_full_crossbar"] = nlohmann::json::array();
  const auto before = full_crossbar(cal.roofline_before), after = full_crossbar(cal.roofline_after);
  for (size_t i = 0; i < before.size() && i < after.size(); ++i)
    j["fig7_full_crossbar"].push_back(
        {{"frequency_hz", before[i]->frequency},
         {"execution", execution_name(before[i]->execution)},
         {"bus_width_bits", before[i]->bus_width_bits},
         {"roof_gops", std::min(before[i]->compute_roof, before[i]->memory_roof) / 1e9},
         {"given_gops", before[i]->attained / 1e9},
         {"fitted_gops", after[i]->attained / 1e9}});
  return j.dump(1) + "\n";
}

std::string constant_table_text(const ClusterConfig& c) {
  std::ostringstream os;
  for (const ConstantRow& r : constant_table(c)) {
    char b[256];
    std::snprintf(b, sizeof b, "%-32s %-22s %-10s ", r.field.c_str(), r.value.c_str(),
                  r.as_preset ? constant_source_name(r.source) : "given");
    os << b << r.reference << "\n";
  }
  return os.str();
}

}  // namespace hetcim::report
