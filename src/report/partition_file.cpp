#include "report/partition_file.h"

#include "util/files.h"

namespace hetcim::report {

std::string partition_file_text(const results::PartitionRun& r, const partition::Problem& p,
                                const partition::Schedule& s) {
  return partition_json(r, p, s).dump(1) + "\n";
}

void write_partition_file(const std::string& path, const results::PartitionRun& r,
                          const partition::Problem& p, const partition::Schedule& s) {
  write_file_atomically(path, partition_file_text(r, p, s));
}

}  // namespace hetcim::report
