// The `inspect` report: a per-operator table and the totals of a workload, as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "workload/workload.h"

namespace hetcim::report {

struct InspectHeader {
  std::string model;                   // zoo name or file
  std::string precision;               // "int8" | "fp32"
  int64_t params_before_lowering = 0;  // as published (BatchNorm unfolded)
};

[[nodiscard]] std::string inspect_table(const InspectHeader& h, const workload::Workload& w,
                                        const workload::WorkloadOptions& o);
[[nodiscard]] nlohmann::json inspect_json(const InspectHeader& h, const workload::Workload& w,
                                          const workload::WorkloadOptions& o);

}  // namespace hetcim::report
