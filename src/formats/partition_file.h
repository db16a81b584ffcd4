// The partition file read back: the JSON that `hetcim partition --json` writes
// (report::write_partition_file, report/partition_file.h) or one a user writes by hand, replayed
// on the problem at hand. The file gives every operator's device and mode, and optionally the
// host order and the bus order; the simulator replays it and the checker verifies it.
//   {"operators": [{"name": "conv1", "mode": -1}, {"name": "conv2", "mode": 0}, ...],
//    "host_order": ["conv1", ...],      // optional: else the best order (exact sequencing)
//    "bus_order": [3, 7, ...]}          // serial bus, optional with host_order: transfer keys
// "mode" is -1 for the host and k >= 0 for accelerator mode k; "device": "host" alone also works.
#pragma once

#include <string>

#include "partition/problem.h"
#include "partition/schedule.h"

namespace hetcim::formats {

// UserError naming the file and the operator or field when the file does not fit `p` (unknown or
// missing operators, a mode the operator lacks, orders that are not permutations or deadlock) or
// when the replayed schedule breaks a constraint (the budget, for instance).
[[nodiscard]] partition::Schedule read_partition_file(const std::string& path,
                                                      const partition::Problem& p);

}  // namespace hetcim::formats
