#include "report/seed002_energy.h"

#include <cmath>
#include <numeric>

#include "report/reproduce_page.h"
#include "select/energy.h"
#include "util/error.h"

namespace hetcim::report {
namespace {

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The mean over runs of f(phi_i).
template <typename F>
double mean_of(const std::vector<double>& phi, F f) {
  double s = 0;
  for (double p : phi) s += f(p);
  return s / static_cast<double>(phi.size());
}

// Digits shown for a value of this unit in a reason (more than the paper prints, so that a
// rounding can be seen).
int digits(const std::string& unit) {
  return unit == "%" ? 3 : 4;
}

std::string num(double v, const std::string& unit) {
  return fixed(v, digits(unit)) + " " + unit;
}

// With its sign; a value that rounds to zero at the digits shown is "+0.0000" (never "-0.0000").
std::string signed_num(double v, const std::string& unit) {
  const double scale = std::pow(10.0, digits(unit));
  const double r = std::round(v * scale) / scale;
  return (r >= 0 ? "+" : "") + fixed(r == 0 ? 0.0 : r, digits(unit)) + " " + unit;
}

void check_coverages(const Seed002EnergyInput& in) {
  if (in.test_coverage.empty())
    throw user_error("RACE-AIMC energy: no test coverages (", in.coverage_source, ")");
  if (in.certified_coverage.size() != in.test_coverage.size())
    throw user_error("RACE-AIMC energy: ", in.test_coverage.size(), " test coverages but ",
                     in.certified_coverage.size(), " certified ones (", in.coverage_source, ")");
  for (const auto* v : {&in.test_coverage, &in.certified_coverage})
    for (double p : *v)
      if (!(p >= 0 && p <= 1))
        throw user_error("RACE-AIMC energy: coverage ", p, " outside [0, 1] (", in.coverage_source,
                         ")");
}

}  // namespace

void coverages_from_table2(const formats::PaperData& paper, Seed002EnergyInput& in) {
  const formats::PaperTable& t = paper.need_table("table2");
  for (const auto& [row, values] : t.rows) {
    if (row.rfind("run ", 0) != 0) continue;
    const formats::PaperValue* test = t.find(row, "test_coverage");
    const formats::PaperValue* cert = t.find(row, "cert_coverage");
    if (!test || !test->present || !cert || !cert->present)
      throw user_error(paper.origin, ": table2 row '", row,
                       "' lacks test_coverage or cert_coverage");
    in.test_coverage.push_back(test->value / 100);
    in.certified_coverage.push_back(cert->value / 100);
  }
  if (in.test_coverage.empty())
    throw user_error(paper.origin, ": table2 has no rows 'run 1', 'run 2', ...");
  in.coverage_source =
      "the " + std::to_string(in.test_coverage.size()) + " runs of Table II, typed from the paper";
}

std::vector<EnergyFigure> seed002_energy_figures(const Seed002EnergyInput& in,
                                                 const formats::PaperData& paper) {
  check_coverages(in);
  const double a = in.activation, e = in.ensemble, F = in.fallback;
  const auto& T = in.test_coverage;
  const auto& C = in.certified_coverage;
  const double uj = 1e6;
  auto selective = [&](double phi) { return uj * (a + (1 - phi) * F); };
  auto reduction = [&](double phi) { return 100 * (1 - (a + (1 - phi) * F) / e); };
  auto break_even = [&](double phi) { return uj * select::break_even_fallback(a, phi, e); };
  auto paper_figure = [&](EnergyFigure f, const std::string& id, int decimals) {
    f.paper = paper.need_value(id);
    f.paper_decimals = decimals;
    f.paper_text = fixed(f.paper, decimals);
    return f;
  };
  std::vector<EnergyFigure> out;
  {
    EnergyFigure f;
    f.cell = "one activation of the selected accelerator (uJ)";
    f.ours = f.at_mean = f.certified = uj * a;
    f.unit = "uJ";
    f.formula = "E_A0 + C + c_ctrl + K c_class = " + fixed(uj * in.accelerator, 4) + " + " +
                fixed(uj * in.communication, 4) + " + " + fixed(uj * in.controller, 4) + " + " +
                std::to_string(in.classes) + " x " + fixed(uj * in.per_class, 4) + " uJ";
    out.push_back(paper_figure(f, "e_selected_activation", 3));
  }
  {
    EnergyFigure f;
    f.cell = "always-on ensemble of six (uJ)";
    f.ours = f.at_mean = f.certified = uj * e;
    f.unit = "uJ";
    f.formula = "sum over the pool of E_i + C + c_ctrl + K c_class";
    out.push_back(paper_figure(f, "e_always_on", 2));
  }
  {
    EnergyFigure f;
    f.cell = "selective system at " + fixed(uj * F, 0) + " uJ fallback (uJ)";
    f.ours = mean_of(T, selective);
    f.at_mean = selective(mean(T));
    f.certified = mean_of(C, selective);
    f.uses_coverage = true;
    f.unit = "uJ";
    f.formula =
        "a + (1 - phi) F = " + fixed(uj * a, 4) + " + (1 - phi) x " + fixed(uj * F, 4) + " uJ";
    out.push_back(paper_figure(f, "e_selective", 2));
  }
  {
    EnergyFigure f;
    f.cell = "reduction vs always-on (%)";
    f.ours = mean_of(T, reduction);
    f.at_mean = reduction(mean(T));
    f.certified = mean_of(C, reduction);
    f.uses_coverage = true;
    f.unit = "%";
    f.formula = "1 - (a + (1 - phi) F) / ensemble";
    out.push_back(paper_figure(f, "energy_reduction", 2));
  }
  {
    EnergyFigure f;
    f.cell = "activation alone vs always-on (%)";
    f.ours = f.at_mean = f.certified = 100 * (1 - a / e);
    f.unit = "%";
    f.formula = "1 - a / ensemble = 1 - " + fixed(uj * a, 4) + " / " + fixed(uj * e, 4);
    out.push_back(paper_figure(f, "activation_reduction", 2));
  }
  {
    EnergyFigure f;
    f.cell = "break-even fallback cost (uJ)";
    f.ours = mean_of(T, break_even);
    f.at_mean = break_even(mean(T));
    f.certified = mean_of(C, break_even);
    f.uses_coverage = true;
    f.linear = false;
    f.unit = "uJ";
    f.formula = "(ensemble - a) / (1 - phi) = " + fixed(uj * (e - a), 4) + " uJ / (1 - phi)";
    out.push_back(paper_figure(f, "break_even_fallback", 2));
  }
  return out;
}

std::string energy_reason(const EnergyFigure& f, const Seed002EnergyInput& in) {
  const std::string& u = f.unit;
  const size_t n = in.test_coverage.size();
  const double half = 0.5 * std::pow(10.0, -f.paper_decimals);
  const double tol = half * (1 + 1e-9);
  const double diff = f.ours - f.paper;
  std::string s = f.formula;
  if (f.uses_coverage) {
    if (f.linear)
      s += ", linear in the coverage phi: the mean over the " + std::to_string(n) +
           " runs equals the value at the mean coverage (averaging moves it by " +
           signed_num(f.ours - f.at_mean, u) + ")";
    else
      s += ", not linear in phi: the mean over the " + std::to_string(n) + " runs is " +
           num(f.ours, u) + ", the value at the mean coverage " + num(f.at_mean, u) +
           " (averaging moves it by " + signed_num(f.ours - f.at_mean, u) + ")";
    s += "; at the test coverage (the paper's definition; mean " +
         fixed(100 * mean(in.test_coverage), 3) + " %, " + in.coverage_source + ") " +
         num(f.ours, u) + ", at the certified coverage (mean " +
         fixed(100 * mean(in.certified_coverage), 3) + " %) it would be " + num(f.certified, u) +
         " (" + signed_num(f.certified - f.ours, u) + ")";
  } else {
    s += " = " + num(f.ours, u) + ", independent of the coverage";
  }
  s += "; ";
  const std::string precision = fixed(half, f.paper_decimals + 1) + " " + u;
  if (std::fabs(diff) <= tol) {
    s += "ours rounds to the paper's " + f.paper_text +
         " (|ours - paper| = " + num(std::fabs(diff), u) + " <= " + precision +
         ", half its last printed digit)";
    if (f.uses_coverage && std::fabs(f.certified - f.paper) > tol)
      s += "; the certified coverage would not (" + num(std::fabs(f.certified - f.paper), u) +
           " off)";
  } else if (f.uses_coverage && std::fabs(f.certified - f.paper) <= tol) {
    s += "the paper's " + f.paper_text + " is what the certified coverage gives (" +
         num(std::fabs(f.certified - f.paper), u) + " off), ours at the test coverage is " +
         signed_num(diff, u) + " off";
  } else if (!f.linear && std::fabs(f.at_mean - f.paper) <= tol) {
    s += "the paper's " + f.paper_text +
         " is the value at the mean coverage, not the mean over runs; ours is " +
         signed_num(diff, u) + " off";
  } else {
    s += "ours differs from the paper's " + f.paper_text + " by " + signed_num(diff, u) +
         ", more than its printed precision (" + precision + ")";
    if (f.uses_coverage)
      s += "; neither the coverage definition (" + signed_num(f.certified - f.ours, u) +
           ") nor averaging over runs (" + signed_num(f.ours - f.at_mean, u) + ") accounts for it";
    else
      s += "; the inputs differ from the paper's (check the profiles' E and Sec. IV-C's costs)";
  }
  return s;
}

std::vector<Difference> seed002_energy_rows(const Seed002EnergyInput& in,
                                            const formats::PaperData& paper) {
  std::vector<Difference> rows;
  for (const EnergyFigure& f : seed002_energy_figures(in, paper))
    rows.push_back({"energy", f.cell, f.ours, f.paper_text, f.paper, energy_reason(f, in)});
  return rows;
}

}  // namespace hetcim::report
