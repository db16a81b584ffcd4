// The axes of a DSE result and the lookup of one point: what every DSE figure and table needs
// (`hetcim dse`'s report and `hetcim reproduce seed000`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dse/dse.h"

namespace hetcim::report {

// Models and hosts in the order the points list them; crossbar budgets and MVM latencies sorted
// ascending. Keeps a pointer to the points: they must outlive the grid.
class DseGrid {
 public:
  explicit DseGrid(const std::vector<dse::DsePoint>& points);
  std::vector<std::string> models, hosts;
  std::vector<int64_t> xbars;
  std::vector<double> tmvms;
  // The point of (model, host, budget, latency), or nullptr when the grid lacks it.
  [[nodiscard]] const dse::DsePoint* find(const std::string& model, const std::string& host,
                                          int64_t crossbars, double t_mvm) const;
  [[nodiscard]] const std::vector<dse::DsePoint>& points() const { return *points_; }

 private:
  const std::vector<dse::DsePoint>* points_;
};

// An MVM latency in whole nanoseconds, as figure labels print it: 5e-7 -> "500".
std::string ns_label(double seconds);

// A host's panel title: "arm" -> "ARM host", "x86" -> "x86 host", anything else "<name> host".
std::string host_title(const std::string& host);

}  // namespace hetcim::report
