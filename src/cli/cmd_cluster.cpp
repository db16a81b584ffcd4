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
#include "cli/options.h"
#include "cluster/cluster_config.h"
#include "report/cluster.h"
#include "report/cluster_tables.h"
#include "report/figure_style.h"
#include "util/files.h"
#include "util/output_set.h"

namespace hetcim::cli {
namespace {

// Where a study writes its tables and figures.
struct Outputs {
  std::string csv, json, figures;
  report::FigureOptions drawing;
};

struct RooflineArgs {
  Outputs out;
  api::RooflineRequest request;
};

struct BottleneckArgs {
  Outputs out;
  api::BottleneckRequest request;
};

struct CalibrateArgs {
  std::string json;
  std::string report;  // directory: calibration.txt, calibration.json, figures
  report::FigureOptions drawing;
  api::CalibrateRequest request;
};

// --preset and --config (from a request's table) exclude each other.
void exclusive_source(CLI::App* cmd) {
  CLI::Option* preset = cmd->get_option("--preset");
  CLI::Option* config = cmd->get_option("--config");
  preset->excludes(config);
  config->excludes(preset);
}

// The request's flags from its table (api/options.h): the cluster, the study's scalars.
template <typename R>
void add_request_flags(CLI::App* cmd, const api::FieldTable<R>& table, R& target) {
  options::add_fields(cmd, table, target);
  exclusive_source(cmd);
}

// The tables (CSV, JSON) and the figures of one study, committed together after the last check.
template <typename DrawFigures>
void write_outputs(const Outputs& s, const std::string& csv, const std::string& json,
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
    std::printf("wrote %s.svg, .pdf and .png\n",
                (std::filesystem::path(s.figures) / f.name).string().c_str());
}

void add_output_options(CLI::App* cmd, Outputs& s) {
  cmd->add_option("--csv", s.csv, "Write the table as CSV");
  cmd->add_option("--json", s.json, "Write the result as JSON");
  cmd->add_option("--figures", s.figures,
                  "Draw the figures (SVG, PDF and 300-dpi PNG, gnuplot) into this directory");
  options::figure_flags(cmd, s.drawing);
}

void run_roofline(RooflineArgs a, const Provenance& base) {
  const api::RooflineResult r = api::cluster_roofline(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const std::string text =
      report::cluster_text_with_provenance(report::roofline_text(r.config, r.points), prov);
  write_outputs(a.out,
                a.out.csv.empty()
                    ? ""
                    : report::cluster_text_with_provenance(report::roofline_csv(r.points), prov),
                a.out.json.empty() ? ""
                                   : report::cluster_json_with_provenance(
                                         report::roofline_json(r.config, r.points), prov),
                [&](OutputSet& out, const std::string& dir) {
                  return report::write_roofline_figures(out, r.points, dir, {}, "cluster_roofline",
                                                        report::cluster_figure_footer(prov), "",
                                                        a.out.drawing);
                });
  std::fputs(text.c_str(), stdout);
}

void run_bottleneck(BottleneckArgs a, const Provenance& base) {
  const api::BottleneckResult r = api::cluster_bottleneck(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const std::string text =
      report::cluster_text_with_provenance(report::bottleneck_text(r.config, r.study), prov);
  write_outputs(a.out,
                a.out.csv.empty()
                    ? ""
                    : report::cluster_text_with_provenance(report::bottleneck_csv(r.study), prov),
                a.out.json.empty() ? ""
                                   : report::cluster_json_with_provenance(
                                         report::bottleneck_json(r.config, r.study), prov),
                [&](OutputSet& out, const std::string& dir) {
                  return report::write_bottleneck_figures(
                      out, r.study, dir, {}, report::cluster_figure_footer(prov), a.out.drawing);
                });
  std::fputs(text.c_str(), stdout);
}

void run_calibrate(CalibrateArgs a, const Provenance& base) {
  const api::CalibrateResult r = api::cluster_calibrate(a.request);
  const Provenance prov = api::with_caller(r.provenance, base);
  const cluster::Fig9Calibration& cal = r.calibration;
  const std::string text =
      report::cluster_text_with_provenance(report::calibration_text(r.config, cal), prov);
  OutputSet out;
  if (!a.json.empty())
    out.add(a.json,
            report::cluster_json_with_provenance(report::calibration_json(r.config, cal), prov));
  std::vector<report::Figure> figures;
  if (!a.report.empty())
    figures = report::write_calibration_report(out, a.report, r.config, cal,
                                               a.request.options.targets, text, prov, a.drawing);
  out.commit();
  if (!a.json.empty()) std::printf("wrote %s\n", a.json.c_str());
  if (!a.report.empty()) {
    std::printf("wrote %s and calibration.json\n", join_path(a.report, "calibration.txt").c_str());
    for (const report::Figure& f : figures)
      std::printf("wrote %s.svg, .pdf and .png\n",
                  (std::filesystem::path(a.report) / f.name).string().c_str());
  }
  std::fputs(text.c_str(), stdout);
}

}  // namespace

void register_cluster(CLI::App& app, const Provenance& provenance) {
  CLI::App* cmd = app.add_subcommand(
      "cluster",
      "The heterogeneous cluster of Garofalo et al. 2022 ('A Heterogeneous In-Memory Computing "
      "Cluster For Flexible End-to-End Inference of Real-World Deep Neural Networks', JETCAS; 8 "
      "RISC-V cores, PCM IMA, depth-wise engine, 512 kB TCDM; preset pulp-pcm-cluster, first "
      "named seed001) as an analytical performance / energy / area model");
  cmd->require_subcommand(1);

  auto r = std::make_shared<RooflineArgs>();
  CLI::App* roof =
      cmd->add_subcommand("roofline",
                          "Fig. 7: IMA throughput vs operational intensity for bus widths, "
                          "operating points and sequential / pipelined execution");
  // The cluster and the layers (api::roofline_fields); the sweep's lists by hand.
  add_request_flags(roof, api::roofline_fields(), r->request);
  add_output_options(roof, r->out);
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
  roof->callback([r, &provenance] { run_roofline(*r, provenance); });

  auto b = std::make_shared<BottleneckArgs>();
  CLI::App* bn =
      cmd->add_subcommand("bottleneck",
                          "Fig. 8-10: the MobileNetV2 Bottleneck under the mappings cores, "
                          "ima-cjobN, hybrid, ima+dw: per-layer cycles, speedup, energy and "
                          "area efficiency");
  // The cluster's overrides and the block's shape (api::bottleneck_fields) in the table's order,
  // --bus-width by hand: it also takes "128bit", then reads as the table's field.
  const api::FieldTable<api::BottleneckRequest>& table = api::bottleneck_fields();
  std::vector<std::string> skip_first{"bus_width"}, skip_second{"bus_width"};
  bool seen = false;
  for (const api::Field<api::BottleneckRequest>& f : table) {
    if (f.name == "bus_width") {
      seen = true;
      continue;
    }
    (seen ? skip_first : skip_second).push_back(f.name);
  }
  options::add_fields(bn, table, b->request, skip_first);
  for (const api::Field<api::BottleneckRequest>& f : table) {
    if (f.name != "bus_width") continue;
    bn->add_option_function<std::string>(
          f.flag(),
          [b, f](const std::string& text) {
            std::string bits = text;
            if (bits.ends_with("bit")) bits.resize(bits.size() - 3);
            api::set_from_text(f, f.ref(b->request), bits);
          },
          api::full_help(f, false, ""))
        ->type_name("BITS");
  }
  options::add_fields(bn, table, b->request, skip_second);
  exclusive_source(bn);
  add_output_options(bn, b->out);
  bn->add_option("--mappings", b->request.mappings,
                 "Mappings, the first is the reference of the ratios")
      ->delimiter(',')
      ->capture_default_str();
  bn->callback([b, &provenance] { run_bottleneck(*b, provenance); });

  auto t = std::make_shared<api::ClusterRequest>();
  CLI::App* con = cmd->add_subcommand(
      "constants",
      "Every constant of the cluster model with its value and source: the paper, derived, the "
      "literature (cited), assumed or calibrated");
  add_request_flags(con, api::cluster_constants_fields(), *t);
  con->callback([t, &provenance] {
    const api::ConstantsResult r = api::cluster_constants(*t);
    std::fputs(report::cluster_text_with_provenance(report::constant_table_text(r.config),
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
  add_request_flags(cal, api::calibrate_fields(), k->request);
  cal->add_option("--report", k->report,
                  "Write calibration.txt, calibration.json and the figures (fitted Fig. 7, 9, 10) "
                  "into this directory");
  cal->add_option("--json", k->json, "Write the result as JSON");
  options::figure_flags(cal, k->drawing);
  cal->callback([k, &provenance] { run_calibrate(*k, provenance); });
}

}  // namespace hetcim::cli
