// execute: a partition plan run end to end (issue 13, items 4 and 5). The plan (what `hetcim
// partition --json` writes, read by formats::read_partition_file) is replayed on the partition
// problem of its hardware for the modelled latency and energy of the plan and of the all-host
// path; then the network runs over a labelled data set with the plan's CIM operators on a
// simulated chip (xbar's crossbar backend inside the oneDNN engine: hybrid::evaluate) and once
// all on the host, for the top-1 accuracy of both and the simulator's wall time. With `certify`,
// seed 002's pipeline (select::run_race: bias correction, score, Clopper-Pearson threshold,
// certificate) is applied to the plan's logits with the all-host run as the fallback, and both
// paths' modelled energy and latency enter the per-query accounting.
//
// Precision: the plan's costs are those of the partition problem (seed 000's int8 host); the
// execution runs the host operators in fp32 (the simulator takes float inputs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/hardware.h"
#include "api/status.h"
#include "results/execution.h"
#include "util/provenance.h"

namespace hetcim::api {

struct ExecuteRequest {
  std::string plan;  // partition file (JSON), required
  std::string chip;  // FILE:PROFILE (xbar/chips_yaml.h), required
  std::string mode;  // "" (the profile's) | "physical" | "reference"
  // The hardware of the partition problem; nullopt: the plan's ("hardware" a preset name or a
  // file, "crossbar_budget", "t_mvm_s", "transfer_model", "bus_model"). The host must give the
  // plan's "host" either way.
  std::optional<HardwareRequest> hardware;
  std::string host;  // "" = the hardware's; else its host (cost::apply_host_choice's choices)
  std::string dataset = "fashion-mnist";  // data::load_dataset name
  std::string dataset_dir;                // "" = the name's default directory
  std::string split = "test";             // "test" | "train"
  int64_t limit = 0;                      // first n images (0: all), >= 0
  int64_t batch = 100;                    // images per engine run, 1..65536
  int threads = 1;                        // 1..1024
  uint64_t chip_seed = 1;
  uint64_t read_seed = 1;
  uint64_t weight_seed = 1;  // weights the model does not carry
  // Certified fallback (seed 002): risk r, delta_C, design risk (default 0.8 r) and delta_d,
  // seeded H/P/C/T splits of the evaluated images in proportion 2:2:4:2.
  bool certify = false;
  double risk = 0.10;
  double certificate_delta = 0.05;
  std::optional<double> design_risk;
  double design_delta = 0.10;
  uint64_t split_seed = 1;

  // UserError naming the field.
  void validate() const;
};

struct ExecuteResult {
  Status status;  // origin: measured (accuracy and wall time on this machine)
  Provenance provenance;
  results::Execution execution;
};

// `model`: a zoo name or an ONNX path (api::load_model), loaded at batch 1 for the partition
// problem and at request.batch for the execution. UserError naming the plan file and its field
// for a plan of another model ("model"), hardware that does not give the plan's "host", or an
// operator the chip cannot hold ("operators"); naming the data set's file when it is missing.
[[nodiscard]] ExecuteResult execute(const std::string& model, const ExecuteRequest& request);

}  // namespace hetcim::api
