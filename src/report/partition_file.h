// The partition file, both directions: write_partition_file writes the JSON of partition_json
// (report/partition.h: the assignment, the schedule and the run); read_partition_file reads that
// JSON (or one a user writes by hand) back and replays it. The file gives every operator's device
// and mode, and optionally the host order and the bus order; the simulator replays it on the
// problem at hand and the checker verifies it.
//   {"operators": [{"name": "conv1", "mode": -1}, {"name": "conv2", "mode": 0}, ...],
//    "host_order": ["conv1", ...],      // optional: else the best order (exact sequencing)
//    "bus_order": [3, 7, ...]}          // serial bus, optional with host_order: transfer keys
// "mode" is -1 for the host and k >= 0 for accelerator mode k; "device": "host" alone also works.
#pragma once

#include <string>

#include "partition/problem.h"
#include "partition/schedule.h"
#include "report/partition.h"

namespace hetcim::report {

// UserError naming the file and the operator or field when the file does not fit `p` (unknown or
// missing operators, a mode the operator lacks, orders that are not permutations or deadlock) or
// when the replayed schedule breaks a constraint (the budget, for instance).
[[nodiscard]] partition::Schedule read_partition_file(const std::string& path,
                                                      const partition::Problem& p);

// partition_json(r, p, s) as the file's text (what an OutputSet stages).
[[nodiscard]] std::string partition_file_text(const PartitionRun& r, const partition::Problem& p,
                                              const partition::Schedule& s);

// partition_file_text(r, p, s) written atomically to `path`.
void write_partition_file(const std::string& path, const PartitionRun& r,
                          const partition::Problem& p, const partition::Schedule& s);

}  // namespace hetcim::report
