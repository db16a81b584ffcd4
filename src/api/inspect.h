// inspect: what a network asks of a crossbar system, per operator and in total, at the partitioning
// granularity (the lowered int8 or fp32 graph).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/model.h"
#include "api/status.h"
#include "graph/graph.h"
#include "util/provenance.h"
#include "workload/workload.h"

namespace hetcim::api {

struct InspectRequest {
  std::string precision = "int8";  // "int8" | "fp32"
  int64_t xbar_rows = 256;         // crossbar size M x N
  int64_t xbar_cols = 256;
  bool differential = false;  // two columns per signed weight (G+/G-) in the crossbar count
  std::string dump_after;     // a passes::pipeline_steps() name: keep the graph after that step

  // UserError naming the field: precision, crossbar size, dump_after.
  void validate() const;
  // The crossbar size from "ROWSxCOLS" (util/numbers.h parse_dims: the one parser of it, for the
  // CLI's --crossbar and Python's crossbar=); UserError naming `crossbar` otherwise.
  void set_crossbar(const std::string& text);
};

struct InspectResult {
  Status status;
  Provenance provenance;
  std::string model;                   // the model's spec
  std::string precision;               // as requested
  int64_t params_before_lowering = 0;  // as published (BatchNorm unfolded)
  workload::WorkloadOptions options;   // what the crossbar counts assume
  workload::Workload workload;
  std::optional<graph::Graph> dumped;  // the graph after request.dump_after
  // The operators the oneDNN engine has no kernel for ("node (op, opset N)"), which run() refuses
  // before executing anything (exec::unsupported_operators); empty when run can execute it all.
  std::vector<std::string> run_cannot_execute;
};

[[nodiscard]] InspectResult inspect(const Model& model, const InspectRequest& request = {});

}  // namespace hetcim::api
