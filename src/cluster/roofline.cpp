#include "cluster/roofline.h"

#include <algorithm>
#include <cmath>

#include "cluster/area.h"
#include "cluster/ima_model.h"
#include "util/error.h"

namespace hetcim::cluster {

std::vector<RooflinePoint> roofline(const ClusterConfig& config, const RooflineOptions& o) {
  if (o.vectors < 1) throw user_error("roofline: vectors must be >= 1, got ", o.vectors);
  for (const int64_t w : o.bus_widths_bits)
    if (w < 8 || w % 8 != 0)
      throw user_error("roofline: bus width ", w, " bit is not a positive multiple of 8 bit");
  for (const double u : o.utilizations)
    if (!(u > 0 && u <= 1)) throw user_error("roofline: utilization ", u, " is outside (0, 1]");
  const std::vector<OperatingPoint>& points =
      o.operating_points.empty() ? config.operating_points : o.operating_points;
  for (const OperatingPoint& p : points)
    if (!(p.frequency > 0)) throw user_error("roofline: frequency must be positive");

  std::vector<RooflinePoint> out;
  for (const OperatingPoint& op : points) {
    for (const ImaExecution e : o.executions) {
      for (const int64_t width : o.bus_widths_bits) {
        ClusterConfig at = config;
        at.ima.bus_width_bits = width;
        at.ima.execution = e;
        const ImaConfig ima = ima_with_tcdm(at, at.ima);
        const double area = cluster_area(at).total;
        for (const double u : o.utilizations) {
          RooflinePoint p;
          p.frequency = op.frequency;
          p.voltage = op.voltage;
          p.bus_width_bits = width;
          p.execution = e;
          p.area = area;
          const double side = std::sqrt(u);
          p.rows_used =
              std::clamp<int64_t>(std::llround(static_cast<double>(ima.rows) * side), 1, ima.rows);
          p.cols_used =
              std::clamp<int64_t>(std::llround(static_cast<double>(ima.cols) * side), 1, ima.cols);
          p.utilization = static_cast<double>(p.rows_used * p.cols_used) /
                          static_cast<double>(ima.rows * ima.cols);
          const double ops_per_job = 2.0 * static_cast<double>(p.rows_used * p.cols_used);
          const double bytes_per_job =
              static_cast<double>(p.rows_used * ima.in_bytes + p.cols_used * ima.out_bytes);
          p.intensity = ops_per_job / bytes_per_job;
          p.compute_roof = ops_per_job / ima.t_mvm;
          p.memory_roof =
              static_cast<double>(bus_bytes_per_cycle(ima)) * op.frequency * p.intensity;
          p.memory_bound = p.memory_roof < p.compute_roof;
          const ImaLayer layer = dense_ima_layer(ima, p.rows_used, p.cols_used, o.vectors);
          const ImaLayerCost cost = ima_layer_cost(ima, op.frequency, layer);
          p.cycles = cost.cycles;
          p.attained = ops_per_job * static_cast<double>(o.vectors) /
                       (static_cast<double>(cost.cycles) / op.frequency);
          const JobPhases ph = job_phases(ima, op.frequency, layer.jobs_per_vector.front());
          p.stream_share = static_cast<double>(ph.stream_in + ph.stream_out) /
                           static_cast<double>(ph.stream_in + ph.compute + ph.stream_out);
          out.push_back(p);
        }
      }
    }
  }
  return out;
}

}  // namespace hetcim::cluster
