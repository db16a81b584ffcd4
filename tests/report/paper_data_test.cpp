// The published-numbers files parse, and hold the values typed here independently from the text
// of each paper (page element in the comment), plus identities the papers' numbers must obey.
#include "formats/paper_data.h"

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"

namespace {

using hetcim::formats::load_paper_data;
using hetcim::formats::PaperData;
using hetcim::formats::parse_paper_data;

PaperData load(const std::string& seed) {
  return load_paper_data(std::string(HETCIM_SOURCE_DIR) + "/data/paper/seed" + seed + ".yaml");
}

double cell(const PaperData& d, const std::string& t, const std::string& r, const std::string& c) {
  const auto* v = d.need_table(t).find(r, c);
  EXPECT_NE(v, nullptr) << t << " " << r << " " << c;
  EXPECT_TRUE(v && v->present) << t << " " << r << " " << c;
  return v && v->present ? v->value : -1;
}

TEST(PaperData, Seed000MatchesTheText) {
  const PaperData d = load("000");
  EXPECT_EQ(d.seed, "000");
  // Abstract and Sec. V-A: 30.9x on ARM, 7.3x on x86; 21.1x at 100 ns.
  EXPECT_DOUBLE_EQ(cell(d, "fig3", "arm 50ns", "100"), 30.9);
  EXPECT_DOUBLE_EQ(cell(d, "fig3", "x86 50ns", "200"), 7.3);
  EXPECT_DOUBLE_EQ(cell(d, "fig3", "arm 100ns", "100"), 21.1);
  // Sec. V-A: x86 above 500 ns gives no speedup.
  EXPECT_DOUBLE_EQ(cell(d, "fig3", "x86 1000ns", "25"), 1.0);
  // Sec. V-A: YOLOv5n peaks at 3.1x (ARM) and 1.9x (x86).
  EXPECT_DOUBLE_EQ(cell(d, "fig4", "arm yolov5n", "200"), 3.1);
  EXPECT_DOUBLE_EQ(cell(d, "fig4", "x86 yolov5n", "100"), 1.9);
  // Fig. 3 is Fig. 4's ResNet-18 series at 50 ns.
  for (const char* c : {"25", "50", "100", "200"}) {
    EXPECT_DOUBLE_EQ(cell(d, "fig3", "arm 50ns", c), cell(d, "fig4", "arm resnet18", c));
    EXPECT_DOUBLE_EQ(cell(d, "fig3", "x86 50ns", c), cell(d, "fig4", "x86 resnet18", c));
  }
  // Sec. V-B: 16 of 251 offloaded at 25 crossbars, 59 at 100, 33 at 1000 ns; 48 on x86; 6 at
  // 1000 ns on x86 for every budget.
  EXPECT_DOUBLE_EQ(cell(d, "fig5_cim_ops", "arm 50ns", "25"), 16);
  EXPECT_DOUBLE_EQ(cell(d, "fig5_cim_ops", "arm 50ns", "100"), 59);
  EXPECT_DOUBLE_EQ(cell(d, "fig5_cim_ops", "arm 1000ns", "100"), 33);
  EXPECT_DOUBLE_EQ(cell(d, "fig5_cim_ops", "x86 50ns", "100"), 48);
  for (const char* c : {"25", "50", "100", "200"})
    EXPECT_DOUBLE_EQ(cell(d, "fig5_cim_ops", "x86 1000ns", c), 6);
  // Every Fig. 5 bar splits YOLOv5n's 251 operators (Sec. V-B) between the two devices.
  const auto& cim = d.need_table("fig5_cim_ops");
  for (const auto& [row, values] : cim.rows)
    for (size_t i = 0; i < values.size(); ++i)
      EXPECT_DOUBLE_EQ(values[i].value + cell(d, "fig5_host_ops", row, cim.columns[i]),
                       d.need_value("yolov5n_operators"))
          << row << " " << cim.columns[i];
  EXPECT_DOUBLE_EQ(cell(d, "fig5_latency", "arm 50ns", "25"), 270);
  EXPECT_FALSE(d.need_table("fig5_latency").find("arm 50ns", "50")->present);
  // Table I.
  EXPECT_DOUBLE_EQ(cell(d, "table1", "resnet18", "variables"), 44);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "resnet50", "constraints"), 412);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "yolov5n", "variables"), 3041);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "yolov5n", "gap_percent"), 6.97);
  const auto* t18 = d.need_table("table1").find("resnet18", "solve_s");
  EXPECT_EQ(t18->qualifier, "<");
  EXPECT_EQ(t18->text(), "<0.01");
  // Sec. V-C: YOLOv5n has 3.2x the operators, 33x the variables, 17x the constraints of ResNet-50.
  EXPECT_NEAR(
      cell(d, "table1", "yolov5n", "operators") / cell(d, "table1", "resnet50", "operators"), 3.2,
      0.05);
  EXPECT_NEAR(
      cell(d, "table1", "yolov5n", "variables") / cell(d, "table1", "resnet50", "variables"), 33,
      0.5);
  EXPECT_NEAR(
      cell(d, "table1", "yolov5n", "constraints") / cell(d, "table1", "resnet50", "constraints"),
      17, 0.1);
}

TEST(PaperData, Seed001MatchesTheText) {
  const PaperData d = load("001");
  // Sec. V-B: 256 x 256 x 2 ops in 130 ns.
  EXPECT_NEAR(d.need_value("ima_peak_tops"), 256.0 * 256 * 2 / 130e-9 / 1e12, 0.001);
  EXPECT_DOUBLE_EQ(d.need_value("ima_peak_pipelined_250mhz_128bit"), 958);
  EXPECT_DOUBLE_EQ(d.need_value("dw_mac_per_cycle"), 29.7);
  EXPECT_DOUBLE_EQ(cell(d, "fig9", "ima-cjob8", "performance"), 1.23);
  EXPECT_DOUBLE_EQ(cell(d, "fig9", "ima+dw", "performance"), 11.5);
  EXPECT_DOUBLE_EQ(cell(d, "fig9", "ima+dw", "area_efficiency"), 10.2);
  EXPECT_EQ(d.need_table("fig9").find("ima-cjob16", "energy_efficiency")->text(), "~1");
  EXPECT_FALSE(d.need_table("fig9").find("hybrid", "area_efficiency")->present);
  // The ratios the text states between mappings agree with the ratios over the cores to the
  // paper's rounding: ima+dw 11.5x / hybrid 4.6x = 2.5 (stated 2.6), hybrid 4.6 / cjob16 2.27
  // = 2.0.
  EXPECT_NEAR(cell(d, "fig9", "ima+dw", "performance") / cell(d, "fig9", "hybrid", "performance"),
              d.need_value("imadw_over_hybrid_performance"), 0.11);
  EXPECT_NEAR(
      cell(d, "fig9", "hybrid", "performance") / cell(d, "fig9", "ima-cjob16", "performance"),
      d.need_value("hybrid_over_cjob16_performance"), 0.05);
  EXPECT_DOUBLE_EQ(cell(d, "fig7_memory_bound", "500MHz sequential", "32"), 1);
  EXPECT_DOUBLE_EQ(cell(d, "fig7_memory_bound", "500MHz sequential", "64"), 0);
  EXPECT_DOUBLE_EQ(cell(d, "fig7_memory_bound", "250MHz pipelined", "128"), 0);
}

TEST(PaperData, Seed002MatchesTheTextAndItsEnergyArithmetic) {
  const PaperData d = load("002");
  EXPECT_DOUBLE_EQ(cell(d, "table1", "A0", "read_noise_uS"), 1.0);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "A3", "write_noise_uS"), 18.8);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "A5", "stuck_percent"), 0.5);
  EXPECT_DOUBLE_EQ(cell(d, "table1", "A4", "latency_ms"), 0.150);
  EXPECT_DOUBLE_EQ(cell(d, "table2", "mean", "cert_coverage"), 70.88);
  EXPECT_DOUBLE_EQ(cell(d, "table2", "run 3", "upper_95"), 8.87);  // "worst case: 8.87%"
  EXPECT_DOUBLE_EQ(cell(d, "table3", "negative_entropy", "test_risk"), 7.29);
  // Table II's mean row is the mean of its five runs (to the printed rounding).
  const auto& t2 = d.need_table("table2");
  for (const std::string& c : t2.columns) {
    double sum = 0;
    for (int r = 1; r <= 5; ++r) sum += cell(d, "table2", "run " + std::to_string(r), c);
    EXPECT_NEAR(sum / 5, cell(d, "table2", "mean", c), 0.011) << c;
  }
  // Sec. V-D by hand: A0 selected: 0.7 + 0.12 + 0.003 + 10 x 0.0002 = 0.825 uJ; always on:
  // 5.7 + 6 (0.12 + 0.003 + 10 x 0.0002) = 6.45 uJ.
  const double per_activation = d.need_value("e_communication") + d.need_value("e_controller") +
                                d.need_value("classes") * d.need_value("e_per_fused_class");
  EXPECT_NEAR(cell(d, "table1", "A0", "energy_uJ") + per_activation,
              d.need_value("e_selected_activation"), 1e-12);
  double ensemble = 0;
  for (const auto& [row, values] : d.need_table("table1").rows)
    ensemble += cell(d, "table1", row, "energy_uJ") + per_activation;
  EXPECT_NEAR(ensemble, d.need_value("e_always_on"), 1e-9);
  EXPECT_NEAR(1 - d.need_value("e_selected_activation") / d.need_value("e_always_on"),
              d.need_value("activation_reduction") / 100, 5e-5);
}

TEST(PaperData, BadFilesNameTheFileAndTheField) {
  auto message = [](const std::string& text) {
    try {
      (void)parse_paper_data(text, "p.yaml");
    } catch (const hetcim::UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "paper: P\nseed: '9'\n";
  EXPECT_NE(message(head + "tables:\n  t:\n    what: w\n    source: s\n    unit: x\n"
                           "    columns: {name: c, keys: [a, b]}\n    rows:\n      r: [1]\n")
                .find("p.yaml: tables.t.rows.'r': expected 2 values"),
            std::string::npos);
  EXPECT_NE(message(head + "tables:\n  t:\n    what: w\n    source: s\n    unit: x\n"
                           "    columns: {name: c, keys: [a]}\n    rows:\n      r: [abc]\n")
                .find("tables.t.rows.'r'[0]: expected a number"),
            std::string::npos);
  EXPECT_NE(message(head + "values:\n  v: {value: 1, unit: x}\n").find("'source'"),
            std::string::npos);
  EXPECT_NE(message("seed: '1'\n").find("'paper'"), std::string::npos);
  EXPECT_NE(message(head + "tabels: {}\n").find("tabels"), std::string::npos);
  EXPECT_THROW((void)load_paper_data("/nonexistent/x.yaml"), hetcim::UserError);
  const PaperData ok =
      parse_paper_data(head + "values:\n  v: {value: 2, unit: x, source: s}\n", "p");
  EXPECT_THROW((void)ok.need_value("w"), hetcim::UserError);
  EXPECT_DOUBLE_EQ(ok.need_value("v"), 2);
}

}  // namespace
