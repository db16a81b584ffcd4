#include "report/dse_grid.h"

#include <algorithm>
#include <cstdio>

namespace hetcim::report {
namespace {

template <typename T>
std::vector<T> distinct(const std::vector<dse::DsePoint>& pts, T dse::DsePoint::*field) {
  std::vector<T> out;
  for (const auto& p : pts)
    if (std::find(out.begin(), out.end(), p.*field) == out.end()) out.push_back(p.*field);
  return out;
}

}  // namespace

DseGrid::DseGrid(const std::vector<dse::DsePoint>& points)
    : models(distinct(points, &dse::DsePoint::model)),
      hosts(distinct(points, &dse::DsePoint::host)),
      xbars(distinct(points, &dse::DsePoint::crossbars)),
      tmvms(distinct(points, &dse::DsePoint::t_mvm)),
      points_(&points) {
  std::sort(xbars.begin(), xbars.end());
  std::sort(tmvms.begin(), tmvms.end());
}

const dse::DsePoint* DseGrid::find(const std::string& model, const std::string& host,
                                   int64_t crossbars, double t_mvm) const {
  for (const auto& p : *points_)
    if (p.model == model && p.host == host && p.crossbars == crossbars && p.t_mvm == t_mvm)
      return &p;
  return nullptr;
}

std::string ns_label(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.0f", seconds * 1e9);
  return b;
}

std::string host_title(const std::string& host) {
  return host == "arm" ? "ARM host" : host == "x86" ? "x86 host" : host + " host";
}

}  // namespace hetcim::report
