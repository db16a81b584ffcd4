// hetcim cluster: seed 001's heterogeneous PULP cluster (8 cores + PCM IMA + depth-wise engine)
// as an analytical model: `roofline` (Fig. 7) and `bottleneck` (Fig. 8-10).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/cluster.h"
#include "api/common.h"
#include "cli/commands.h"
#include "cli/flags.h"
#include "cluster/cluster_config.h"
#include "cluster/constants.h"
#include "report/cluster.h"
#include "report/cluster_tables.h"
#include "report/figure_style.h"
#include "util/output_set.h"

namespace hetcim::cli {
namespace {

struct ClusterSource {
  std::string preset = "seed001";
  std::string config;
  std::string csv, json, figures;
  std::string bus_width;                  // "" = the configuration's
  std::string execution;                  // "" = the configuration's
  std::optional<double> tcdm_contention;  // unset = the configuration's
};

struct RooflineArgs {
  ClusterSource src;
  api::RooflineRequest request;
};

struct BottleneckArgs {
  ClusterSource src;
  api::BottleneckRequest request;
};

struct CalibrateArgs {
  ClusterSource src;
  std::string report;  // directory: calibration.txt, calibration.json, figures
  api::CalibrateRequest request;
};

// The cluster flags into the request: the preset or file, "--bus-width 128bit", "--execution".
api::ClusterRequest cluster_request(const ClusterSource& s) {
  api::ClusterRequest r;
  r.preset = s.preset;
  r.config = s.config;
  if (!s.bus_width.empty()) r.bus_width_bits = api::parse_bus_width(s.bus_width);
  r.execution = s.execution;
  r.tcdm_contention = s.tcdm_contention;
  return r;
}

// The tables (CSV, JSON) and the figures of one study, committed together after the last check.
template <typename DrawFigures>
void write_outputs(const ClusterSource& s, const std::string& csv, const std::string& json,
                   const DrawFigures& draw) {
  OutputSet out;
  if (!s.csv.empty()) out.add(s.csv, csv);
  if (!s.json.empty()) out.add(s.json, json);
  std::vector<report::Figure> figures;
  if (!s.figures.empty()) figures = draw(out, s.figures);
  out.commit();
  if (!s.csv.empty()) std::printf("wrote %s\n", s.csv.c_str());
  if (!s.json.empty()) std::printf("wrote %s\n", s.json.c_str());
  for (const report::Figure& f : figures)
    std::printf("wrote %s.svg and .png\n",
                (std::filesystem::path(s.figures) / f.name).string().c_str());
}

void add_source_options(CLI::App* cmd, ClusterSource& s) {
  auto* preset =
      cmd->add_option("--preset", s.preset, "Built-in cluster: seed001")->capture_default_str();
  auto* config = cmd->add_option("--config", s.config,
                                 "Cluster description (YAML, see src/cluster/cluster_config.h)");
  preset->excludes(config);
  config->excludes(preset);
  cmd->add_option("--csv", s.csv, "Write the table as CSV");
  cmd->add_option("--json", s.json, "Write the result as JSON");
  cmd->add_option("--figures", s.figures,
                  "Draw the figures (SVG and PNG, gnuplot) into this directory");
  cmd->add_option("--tcdm-contention", s.tcdm_contention,
                  "TCDM bank conflicts: probability that each core accesses the TCDM in a cycle "
                  "while an accelerator streams (0 = none, the default; cluster/area.h)")
      ->check(finite_range(0.0, 1.0));
}

void run_roofline(RooflineArgs a, const Provenance& base) {
  a.request.cluster = cluster_request(a.src);
  const api::RooflineResult r = api::cluster_roofline(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const std::string text =
      report::cluster_text_with_provenance(report::roofline_text(r.config, r.points), prov);
  write_outputs(a.src,
                a.src.csv.empty()
                    ? ""
                    : report::cluster_text_with_provenance(report::roofline_csv(r.points), prov),
                a.src.json.empty() ? ""
                                   : report::cluster_json_with_provenance(
                                         report::roofline_json(r.config, r.points), prov),
                [&](OutputSet& out, const std::string& dir) {
                  return report::write_roofline_figures(out, r.points, dir, {}, "cluster_roofline",
                                                        report::cluster_figure_footer(prov));
                });
  std::fputs(text.c_str(), stdout);
}

void run_bottleneck(BottleneckArgs a, const Provenance& base) {
  a.request.cluster = cluster_request(a.src);
  const api::BottleneckResult r = api::cluster_bottleneck(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const std::string text =
      report::cluster_text_with_provenance(report::bottleneck_text(r.config, r.study), prov);
  write_outputs(a.src,
                a.src.csv.empty()
                    ? ""
                    : report::cluster_text_with_provenance(report::bottleneck_csv(r.study), prov),
                a.src.json.empty() ? ""
                                   : report::cluster_json_with_provenance(
                                         report::bottleneck_json(r.config, r.study), prov),
                [&](OutputSet& out, const std::string& dir) {
                  return report::write_bottleneck_figures(out, r.study, dir, {},
                                                          report::cluster_figure_footer(prov));
                });
  std::fputs(text.c_str(), stdout);
}

void run_calibrate(CalibrateArgs a, const Provenance& base) {
  a.request.cluster = cluster_request(a.src);
  const api::CalibrateResult r = api::cluster_calibrate(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const cluster::Fig9Calibration& cal = r.calibration;
  const std::string text =
      report::cluster_text_with_provenance(report::calibration_text(r.config, cal), prov);
  OutputSet out;
  if (!a.src.json.empty())
    out.add(a.src.json,
            report::cluster_json_with_provenance(report::calibration_json(r.config, cal), prov));
  std::vector<report::Figure> figures;
  if (!a.report.empty())
    figures = report::write_calibration_report(out, a.report, r.config, cal,
                                               a.request.options.targets, text, prov);
  out.commit();
  if (!a.src.json.empty()) std::printf("wrote %s\n", a.src.json.c_str());
  if (!a.report.empty()) {
    std::printf("wrote %s/calibration.txt and calibration.json\n", a.report.c_str());
    for (const report::Figure& f : figures)
      std::printf("wrote %s.svg and .png\n",
                  (std::filesystem::path(a.report) / f.name).string().c_str());
  }
  std::fputs(text.c_str(), stdout);
}

}  // namespace

void register_cluster(CLI::App& app, const Provenance& provenance) {
  CLI::App* cmd = app.add_subcommand(
      "cluster",
      "Seed 001's heterogeneous cluster (8 RISC-V cores, PCM IMA, depth-wise engine, 512 kB TCDM) "
      "as an analytical performance / energy / area model");
  cmd->require_subcommand(1);

  auto r = std::make_shared<RooflineArgs>();
  CLI::App* roof =
      cmd->add_subcommand("roofline",
                          "Fig. 7: IMA throughput vs operational intensity for bus widths, "
                          "operating points and sequential / pipelined execution");
  add_source_options(roof, r->src);
  roof->add_option("--bus-widths", r->request.bus_widths, "IMA data-interface widths in bits")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{8}, int64_t{1} << 20))
      ->capture_default_str();
  roof->add_option("--utilizations", r->request.utilizations,
                   "Crossbar shares used by the synthetic layers, in (0, 1]")
      ->delimiter(',')
      ->check(finite_range(1e-9, 1.0))
      ->capture_default_str();
  roof->add_option("--executions", r->request.executions, "sequential and/or pipelined")
      ->delimiter(',')
      ->check(CLI::IsMember({"sequential", "pipelined"}))
      ->capture_default_str();
  roof->add_option("--vectors", r->request.vectors, "Jobs per synthetic layer")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24))
      ->capture_default_str();
  roof->callback([r, &provenance] { run_roofline(*r, provenance); });

  auto b = std::make_shared<BottleneckArgs>();
  CLI::App* bn =
      cmd->add_subcommand("bottleneck",
                          "Fig. 8-10: the MobileNetV2 Bottleneck under the mappings cores, "
                          "ima-cjobN, hybrid, ima+dw: per-layer cycles, speedup, energy and "
                          "area efficiency");
  add_source_options(bn, b->src);
  bn->add_option("--bus-width", b->src.bus_width,
                 "Override the IMA data-interface width, e.g. 128bit");
  bn->add_option("--execution", b->src.execution, "Override the IMA execution model")
      ->check(CLI::IsMember({"sequential", "pipelined"}));
  bn->add_option("--mappings", b->request.mappings,
                 "Mappings, the first is the reference of the ratios")
      ->delimiter(',')
      ->capture_default_str();
  const auto range = CLI::Range(int64_t{1}, int64_t{1} << 20);
  bn->add_option("--height", b->request.shape.height, "Input feature map height")
      ->check(range)
      ->capture_default_str();
  bn->add_option("--width", b->request.shape.width, "Input feature map width")
      ->check(range)
      ->capture_default_str();
  bn->add_option("--c-in", b->request.shape.c_in, "Input channels")
      ->check(range)
      ->capture_default_str();
  bn->add_option("--expansion", b->request.shape.expansion,
                 "Expansion factor t (hidden = t * c_in)")
      ->check(range)
      ->capture_default_str();
  bn->add_option("--c-out", b->request.shape.c_out, "Output channels")
      ->check(range)
      ->capture_default_str();
  bn->add_option("--stride", b->request.shape.stride, "Depth-wise stride")
      ->check(CLI::IsMember({1, 2}))
      ->capture_default_str();
  bn->callback([b, &provenance] { run_bottleneck(*b, provenance); });

  auto t = std::make_shared<ClusterSource>();
  CLI::App* con = cmd->add_subcommand(
      "constants",
      "Every constant of the cluster model with its value and source: the paper, derived, the "
      "literature (cited), assumed or calibrated");
  auto* tp =
      con->add_option("--preset", t->preset, "Built-in cluster: seed001")->capture_default_str();
  auto* tc = con->add_option("--config", t->config,
                             "Cluster description (YAML, see src/cluster/cluster_config.h)");
  tp->excludes(tc);
  tc->excludes(tp);
  con->callback([t, &provenance] {
    const api::ConstantsResult r = api::cluster_constants(cluster_request(*t));
    std::fputs(report::cluster_text_with_provenance(cluster::constant_table_text(r.config),
                                                    api::with_caller(r.provenance, provenance))
                   .c_str(),
               stdout);
  });

  auto k = std::make_shared<CalibrateArgs>();
  CLI::App* cal = cmd->add_subcommand(
      "calibrate",
      "A CALIBRATION, not a reproduction: fit the IMA's per-job overhead and the cores' "
      "point-wise / depth-wise rates to Fig. 9's Bottleneck speedups (exhaustive grid search) and "
      "show what Fig. 7 becomes with them");
  auto* preset = cal->add_option("--preset", k->src.preset, "Built-in cluster: seed001")
                     ->capture_default_str();
  auto* config = cal->add_option("--config", k->src.config,
                                 "Cluster description (YAML, see src/cluster/cluster_config.h)");
  preset->excludes(config);
  config->excludes(preset);
  cal->add_option("--fit", k->request.fit, "The figure to fit: fig9")
      ->check(CLI::IsMember({"fig9"}))
      ->capture_default_str();
  cal->add_option("--report", k->report,
                  "Write calibration.txt, calibration.json and the figures (fitted Fig. 7, 9, 10) "
                  "into this directory");
  cal->add_option("--json", k->src.json, "Write the result as JSON");
  cal->add_option("--max-overhead", k->request.options.overhead_max,
                  "Largest per-job overhead searched (cycles; every integer from 0)")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  cal->add_option("--rate-points", k->request.options.rate_points,
                  "Grid points per cores' rate axis (geometric)")
      ->check(CLI::Range(int64_t{2}, int64_t{100'000}))
      ->capture_default_str();
  cal->callback([k, &provenance] { run_calibrate(*k, provenance); });
}

}  // namespace hetcim::cli
