#include "dse/sweep_notes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "platform/build.h"
#include "util/units.h"

namespace hetcim::dse {
namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// (max - min) / max of a field over the points `idx`.
double spread(const std::vector<PlatformDsePoint>& points, const std::vector<size_t>& idx,
              double PlatformDsePoint::*field) {
  double lo = points[idx.front()].*field, hi = lo;
  for (size_t i : idx) {
    lo = std::min(lo, points[i].*field);
    hi = std::max(hi, points[i].*field);
  }
  return hi > 0 ? (hi - lo) / hi : 0.0;
}

}  // namespace

std::vector<std::string> unchanged_axis_notes(const std::vector<PlatformDseModel>& models,
                                              const platform::Platform& base,
                                              const std::vector<platform::SweepAxis>& axes,
                                              const std::vector<PlatformDsePoint>& points,
                                              const std::string& objective) {
  const std::vector<std::vector<std::string>> grid = platform::sweep_grid(axes);
  const size_t g_count = grid.size();
  if (points.size() != models.size() * g_count) return {};
  const auto problem_at = [&](size_t model, size_t g) {
    platform::Platform pf = base;
    for (size_t a = 0; a < axes.size(); ++a) platform::apply_sweep(pf, axes[a].key, grid[g][a]);
    return platform::build_platform_problem(models[model].lowered, pf, objective).problem;
  };
  std::vector<std::string> notes;
  for (size_t k = 0; k < axes.size(); ++k) {
    if (axes[k].values.size() < 2) continue;
    // The points that differ in axis k only: one group per model and values of the other axes.
    std::map<std::pair<size_t, std::vector<std::string>>, std::vector<size_t>> groups;
    for (size_t m = 0; m < models.size(); ++m)
      for (size_t g = 0; g < g_count; ++g) {
        std::vector<std::string> rest = grid[g];
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
        groups[{m, rest}].push_back(m * g_count + g);
      }
    // How much the axis moves any result, at any value of the other axes.
    double worst = 0.0, worst_latency_change = 0.0;
    for (const auto& [key, idx] : groups) {
      for (double PlatformDsePoint::*f :
           {&PlatformDsePoint::latency, &PlatformDsePoint::energy, &PlatformDsePoint::objective})
        worst = std::max(worst, spread(points, idx, f));
      double lo = points[idx.front()].latency, hi = lo;
      for (size_t i : idx) {
        lo = std::min(lo, points[i].latency);
        hi = std::max(hi, points[i].latency);
      }
      worst_latency_change = std::max(worst_latency_change, hi - lo);
    }
    // A change the table's four significant digits can show is a result: no note.
    if (worst >= 1e-4) continue;
    // The options whose cost (duration, energy or presence) the axis changes, and how the plans
    // use them: operators on such options, and per engine those on untouched options.
    size_t moved_count = 0;
    int64_t most_on_moved = 0;
    std::set<std::string> moved_engines;
    std::map<std::string, int64_t> untouched_on;  // of the example point
    std::string example;
    for (const auto& [key, idx] : groups) {
      std::vector<partition::MultiProblem> problems;
      for (size_t i : idx) problems.push_back(problem_at(key.first, i % g_count));
      const partition::MultiProblem& p0 = problems.front();
      std::set<std::pair<size_t, size_t>> moved;  // (operator, option)
      for (const partition::MultiProblem& p : problems)
        for (size_t v = 0; v < p0.size(); ++v) {
          const auto& o0 = p0.options[v];
          const auto& o = p.options[v];
          for (size_t j = 0; j < std::max(o0.size(), o.size()); ++j)
            if (o0.size() != o.size() || o0[j].duration != o[j].duration ||
                o0[j].energy != o[j].energy)
              moved.insert({v, j});
        }
      moved_count = std::max(moved_count, moved.size());
      for (const auto& [v, j] : moved)
        if (j < p0.options[v].size())
          moved_engines.insert(p0.engines[static_cast<size_t>(p0.options[v][j].engine)].name);
      for (size_t n = 0; n < idx.size(); ++n) {
        const PlatformDsePoint& pt = points[idx[n]];
        int64_t on_moved = 0;
        for (size_t v = 0; v < pt.option.size(); ++v) {
          const bool is_moved = moved.count({v, static_cast<size_t>(pt.option[v])}) > 0;
          on_moved += is_moved ? 1 : 0;
          if (example.empty() && !is_moved)
            ++untouched_on[problems[n]
                               .engines[static_cast<size_t>(
                                   problems[n].option(static_cast<int>(v), pt.option[v]).engine)]
                               .name];
        }
        if (example.empty()) example = pt.model;
        most_on_moved = std::max(most_on_moved, on_moved);
      }
    }
    std::vector<std::string> untouched;
    for (const auto& [engine, n] : untouched_on)
      untouched.push_back(engine + " " + std::to_string(n));
    const std::vector<std::string> engines(moved_engines.begin(), moved_engines.end());
    const int64_t operators = points.front().operators;
    std::string why;
    if (moved_count == 0) {
      why = "it changes no operator's cost on any engine at these values";
    } else if (most_on_moved == 0) {
      why = "it changes the cost of " + std::to_string(moved_count) + " option(s) on " +
            join(engines, ", ") +
            ", but no optimal plan maps an operator to them; the plans run (" + example + ") " +
            join(untouched, ", ");
    } else {
      why = "each optimal plan runs at most " + std::to_string(most_on_moved) + " of its " +
            std::to_string(operators) + " operators on options whose cost it changes (" +
            join(engines, ", ") + "); the other operators (" + example + ": " +
            join(untouched, ", ") + ") run on options it does not touch" +
            (worst == 0.0 ? ", and set the latency" : "");
    }
    char change[160];
    std::snprintf(change, sizeof change, "%.2g %%", worst * 100);
    const std::string what =
        worst == 0.0
            ? "changes no result (latency, energy and objective equal for every model at every "
              "other grid value)"
            : "changes no result by more than " + std::string(change) + " (latency by at most " +
                  format_quantity(worst_latency_change, Quantity::Time) +
                  ", below the four digits printed)";
    notes.push_back("note: " + axes[k].key + "=" + join(axes[k].values, ",") + " " + what + ": " +
                    why);
  }
  return notes;
}

}  // namespace hetcim::dse
