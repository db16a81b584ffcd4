// profile: measure this machine as a host. Prepare the model (seeded weights, int8 calibration),
// run the oneDNN engine with warm-up and timed runs, and express the result as a host profile: the
// document `hetcim profile` writes and the partitioner reads (cost/host_profile.h).
#pragma once

#include <cstdint>
#include <string>

#include "api/model.h"
#include "api/status.h"
#include "cost/host_profile.h"
#include "util/provenance.h"

namespace hetcim::api {

struct ProfileRequest {
  std::string precision = "int8";  // "int8" | "fp32"
  int threads = 1;                 // 1..1024
  int warmup = 10;                 // 0..100000
  int runs = 50;                   // 1..100000
  uint64_t weight_seed = 1;        // weights the model does not carry
  uint64_t input_seed = 7;         // the random input
  uint64_t calibration_seed = 1;   // int8 calibration inputs
  int calibration_samples = 2;     // 1..1000

  // UserError naming the field.
  void validate() const;
};

struct ProfileResult {
  Status status;  // origin: measured
  Provenance provenance;
  cost::HostProfile profile;
};

[[nodiscard]] ProfileResult profile(const Model& model, const ProfileRequest& request = {});

}  // namespace hetcim::api
