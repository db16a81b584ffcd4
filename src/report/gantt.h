// The one Gantt chart of a schedule (SVG), drawn for both partitioning paths (report/partition.h:
// host, bus and accelerator lanes; report/multi_partition.h: a lane per engine and per serial
// link): a heading, an optional legend, named lanes, bars with their full name as hover text and
// a short label inside where it fits, a time axis at round ticks, and where the numbers come from
// in the file's metadata (report/figure_metadata.h), not on the image.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "partition/schedule.h"
#include "report/figure_metadata.h"

namespace hetcim::report {

struct GanttChart {
  struct Bar {
    size_t lane = 0;
    double start = 0, finish = 0;  // seconds
    std::string colour;
    std::string title;   // hover text
    std::string inside;  // drawn inside the bar when it fits ("": nothing)
    std::string inside_colour = "#000";
  };
  std::string heading;                                      // the line above the lanes
  std::vector<std::pair<std::string, std::string>> legend;  // (name, colour); empty: none
  std::vector<std::string> lanes;
  std::vector<Bar> bars;
  double span = 0;  // seconds the time axis covers (the makespan)
  FigureMetadata metadata;
};

// Lanes for jobs of one engine that may overlap: each job (by start) on the first lane free at its
// start. Returns each job's lane; `lanes` is set to their number (at least 1).
[[nodiscard]] std::vector<size_t> pack_lanes(const std::vector<double>& start,
                                             const std::vector<double>& finish, size_t& lanes);

// A two-device schedule's lanes (this file's SVG and reproduce's figure): host 0, bus 1, the
// accelerator's from 2, as many as its operators overlap.
struct TwoDeviceLanes {
  std::vector<size_t> lane;  // per operator
  size_t accelerator = 1;    // accelerator lanes
};
[[nodiscard]] TwoDeviceLanes two_device_lanes(const partition::Schedule& s);

// An operator's name as a bar shows it: its module path without the last part
// ("/model/layer4/layer4.1/conv2/Conv" -> "conv2"), or the name when it has none.
[[nodiscard]] std::string bar_label(const std::string& name);

[[nodiscard]] std::string gantt_svg(const GanttChart& chart);

}  // namespace hetcim::report
