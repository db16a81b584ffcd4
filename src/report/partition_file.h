// The partition file written: the JSON of partition_json (report/partition.h: the assignment, the
// schedule and the run), which formats::read_partition_file (formats/partition_file.h) reads
// back and replays.
#pragma once

#include <string>

#include "partition/problem.h"
#include "partition/schedule.h"
#include "report/partition.h"
#include "results/partition_run.h"

namespace hetcim::report {

// partition_json(r, p, s) as the file's text (what an OutputSet stages).
[[nodiscard]] std::string partition_file_text(const results::PartitionRun& r,
                                              const partition::Problem& p,
                                              const partition::Schedule& s);

// partition_file_text(r, p, s) written atomically to `path`.
void write_partition_file(const std::string& path, const results::PartitionRun& r,
                          const partition::Problem& p, const partition::Schedule& s);

}  // namespace hetcim::report
