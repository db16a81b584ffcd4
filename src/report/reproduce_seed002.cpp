// `hetcim reproduce seed002`: Table I (the chip profiles) and the energy arithmetic of Sec. V-D of
// Yousuf and Lueker-Boden beside the published values. Table II/III and Fig. 2 a-c need the study
// (`hetcim analog study`) and are not drawn here.
#include <cmath>
#include <filesystem>

#include "report/figure_style.h"
#include "report/provenance.h"
#include "report/reproduce.h"
#include "report/reproduce_page.h"
#include "util/files.h"

namespace hetcim::report {

ReproduceOutput write_seed002_report(OutputSet& outputs, const Seed002Run& run,
                                     const PaperData& paper, const Provenance& provenance,
                                     const std::string& out) {
  paper.require({"table1"}, {"activation_reduction", "break_even_fallback", "e_always_on",
                             "e_selected_activation", "e_selective", "energy_reduction"});
  const std::string dir = out + "/figures";
  outputs.make_directory(dir);
  ReproduceOutput res;
  std::string body;

  // Table I: paper | ours (the simulator's input file) per field.
  {
    const PaperTable& t = paper.need_table("table1");
    std::vector<Difference> diffs;
    std::string rows;
    const char* cols[] = {"read_noise_uS", "write_noise_uS", "stuck_percent", "energy_uJ",
                          "latency_ms"};
    for (const Seed002Chip& c : run.chips) {
      if (!t.find(c.name, cols[0])) continue;
      const double ours[] = {c.read_noise * 1e6, c.write_noise * 1e6, c.stuck_fraction * 100,
                             c.energy * 1e6, c.latency * 1e3};
      rows += "<tr><td class=\"l\">" + html_escape(c.name) + "</td>";
      for (size_t i = 0; i < 5; ++i) {
        const PaperValue* v = t.find(c.name, cols[i]);
        rows += "<td class=\"paper\">" + (v ? v->text() : std::string()) + "</td><td>" +
                fixed(ours[i], i == 2   ? 3
                               : i == 4 ? 3
                                        : 1) +
                "</td>";
        if (v && v->present)
          diffs.push_back({"table1", c.name + ": " + cols[i], ours[i], v->text(), v->value,
                           std::fabs(ours[i] - v->value) <= 1e-9 * std::max(1.0, v->value)
                               ? "equal: " + run.chips_origin + " holds the paper's profile"
                               : run.chips_origin + " differs from the paper's Table I"});
      }
      rows += "</tr>\n";
    }
    body +=
        "<h2>Table I: accelerator profiles</h2>\n<table class=\"table1\"><caption>Table I: "
        "the six 8-bit AIMC profiles, paper beside the profiles hetcim simulates (" +
        html_escape(run.chips_origin) +
        ")</caption>\n<tr><th class=\"l\" rowspan=\"2\">profile</th><th colspan=\"2\">read "
        "noise (uS)</th><th colspan=\"2\">write noise (uS)</th><th colspan=\"2\">stuck "
        "(%)</th><th colspan=\"2\">E (uJ)</th><th colspan=\"2\">L (ms)</th></tr>\n<tr>";
    for (int i = 0; i < 5; ++i) body += "<th class=\"paper\">paper</th><th>ours</th>";
    body += "</tr>\n" + rows + "</table>\n" +
            difference_table_html("Table I: ours vs paper", diffs, 1e-9);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  // Energy per query (Sec. V-D) at the coverage given.
  {
    auto uj = [](double j) { return j * 1e6; };
    const std::string why = "select/energy.h on Table I's E and Sec. IV-C's costs, coverage " +
                            fixed(100 * run.coverage, 2) + " % (" + run.coverage_source + ")";
    std::vector<Difference> diffs = {
        {"energy", "one activation of the selected accelerator (uJ)", uj(run.activation),
         fixed(paper.need_value("e_selected_activation"), 3),
         paper.need_value("e_selected_activation"), "E_A0 + C + c_ctrl + 10 c_class: " + why},
        {"energy", "always-on ensemble of six (uJ)", uj(run.ensemble),
         fixed(paper.need_value("e_always_on"), 2), paper.need_value("e_always_on"),
         "sum over A0..A5: " + why},
        {"energy", "selective system at " + fixed(uj(run.fallback), 0) + " uJ fallback (uJ)",
         uj(run.selective), fixed(paper.need_value("e_selective"), 2),
         paper.need_value("e_selective"),
         "the paper's 2.00 is the mean over five runs of their own coverages; " + why},
        {"energy", "reduction vs always-on (%)", 100 * (1 - run.selective / run.ensemble),
         fixed(paper.need_value("energy_reduction"), 2), paper.need_value("energy_reduction"),
         "mean over runs (paper) vs from the mean coverage (ours); " + why},
        {"energy", "activation alone vs always-on (%)", 100 * (1 - run.activation / run.ensemble),
         fixed(paper.need_value("activation_reduction"), 2),
         paper.need_value("activation_reduction"), why},
        {"energy", "break-even fallback cost (uJ)", uj(run.break_even),
         fixed(paper.need_value("break_even_fallback"), 2), paper.need_value("break_even_fallback"),
         "(ensemble - activation) / (1 - coverage); paper: mean over five runs; ours: from the "
         "mean coverage; " +
             why}};
    Chart c;
    c.title = "Energy per query vs fallback cost";
    c.footnote = "Modelled: select/energy.h, Table I's energies, coverage " +
                 fixed(100 * run.coverage, 2) +
                 " % typed from Table II (not a hetcim study). Diamonds: paper.";
    Lines l;
    LineSeries sel{"selective (A0 + fallback)", {}, {}, false, false};
    LineSeries ens{"always-on ensemble", {}, {}, true, false};
    for (size_t i = 0; i < run.sweep_fallback.size(); ++i) {
      sel.x.push_back(uj(run.sweep_fallback[i]));
      sel.y.push_back(uj(run.sweep_selective[i]));
      ens.x.push_back(uj(run.sweep_fallback[i]));
      ens.y.push_back(uj(run.ensemble));
    }
    l.series = {sel,
                ens,
                {"paper: operating point and break-even",
                 {uj(run.fallback), paper.need_value("break_even_fallback")},
                 {paper.need_value("e_selective"), paper.need_value("e_always_on")},
                 false,
                 true,
                 true}};
    c.panels.push_back(
        {"", "fallback cost per deferred query (uJ)", "energy per query (uJ)", 0, kNoValue, l});
    const Figure f{"fig2d", c.title,
                   "Fig. 2(d) analogue (seed 002): modelled energy per query of the selective "
                   "system and of the always-on ensemble as the fallback cost grows; diamonds: the "
                   "paper's operating point (2.00 uJ at 4 uJ) and mean break-even (19.19 uJ). "
                   "Modelled with the paper's coverage, typed from Table II; the study-based "
                   "figures (Fig. 2 a-c, Table II, III) come with `hetcim analog study`.",
                   5.0, 3.4};
    plot_chart(outputs, dir, f, c);
    res.figures.push_back(f);
    body += "<h2>Energy per query (Sec. V-D)</h2>\n" + figure_html(f) +
            difference_table_html("Energy: ours vs paper", diffs, 0.01, true);
    res.differences.insert(res.differences.end(), diffs.begin(), diffs.end());
  }

  const std::string intro =
      "<p>Seed 002 before its study: Table I (the chip profiles hetcim simulates) and the energy "
      "arithmetic of Sec. V-D beside the published values. Table II, Table III and Fig. 2 a-c "
      "need the certified-selection study over trained networks and noisy chips and are not "
      "reproduced on this page yet.</p>\n";
  stage_reproduce_report(outputs, out, paper, "Seed 002 reproduced (Table I and energy): RACE-AIMC",
                         intro, body, provenance, res);
  return res;
}

}  // namespace hetcim::report
