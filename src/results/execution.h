// What `hetcim execute` measured and modelled (api::ExecuteResult::execution): the plan's host
// operators on the oneDNN engine and its CIM operators on a simulated chip over a labelled data
// set; top-1 accuracy beside the all-digital run, the plan's modelled latency and energy, the
// simulator's wall time, and with --certify seed 002's certified fallback around the analog part.
// Plain data; report/execution.h renders it as text and JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "accuracy/paired.h"
#include "util/provenance.h"

namespace hetcim::results {

// A query's path: the plan (host + chip) or the all-host digital fallback.
struct PathCost {
  double latency_s = 0.0;  // modelled: the schedule's makespan (partition problem)
  double energy_j = 0.0;   // modelled: partition/energy.h's total (host, CIM, bus, static)
};

struct ExecutionCertificate {
  double risk = 0.0, delta = 0.0, design_risk = 0.0, design_delta = 0.0;
  std::string score;
  bool bias_correction = true;
  uint64_t split_seed = 0;
  int64_t hardware_rows = 0, policy_rows = 0, certificate_rows = 0, test_rows = 0;
  bool feasible = false;  // a threshold meets the design risk on P
  double threshold = 0.0;
  double upper_bound = 1.0;  // Clopper-Pearson bound of the selective risk on C
  bool certified = false;    // upper_bound <= risk
  double certificate_coverage = 0.0;
  double test_coverage = 0.0;
  double test_selective_risk = 0.0;
  double hybrid_accuracy = 0.0;   // on T: accepted -> analog answer, deferred -> digital answer
  double analog_accuracy = 0.0;   // on T: the plan alone
  double digital_accuracy = 0.0;  // on T: the fallback alone
  // Per query at the test coverage phi: every query runs the plan, a deferred one (share 1 - phi)
  // then runs the whole network on the host (sequential fallback).
  double expected_energy_j = 0.0;   // E_plan + (1 - phi) E_host
  double expected_latency_s = 0.0;  // L_plan + (1 - phi) L_host
  double worst_latency_s = 0.0;     // L_plan + L_host
};

struct Execution {
  std::string model, plan, chip, dataset, hardware, host_source;
  std::string weights;  // "from the model" | "N initializers seeded (weight seed S)"
  uint64_t chip_seed = 1, read_seed = 1, weight_seed = 1;
  int64_t images = 0, batch = 0, classes = 0;
  int threads = 1;
  std::vector<std::string> cim_operators;  // the plan's, run on the chip
  int64_t host_operators = 0;              // the plan's operators on the host
  int64_t correct = 0, digital_correct = 0;
  double accuracy = 0.0, digital_accuracy = 0.0;
  accuracy::PairedDrop paired;  // the drop, paired image by image, with its exact 95 % interval
  PathCost plan_cost, host_only_cost;
  double simulator_seconds = 0.0;        // measured: the batches with the chip, wall
  double simulator_build_seconds = 0.0;  // measured: lowering, engine build, chip programming
  double digital_seconds = 0.0;          // measured: the same batches all on the host, wall
  double simulator_cpu_seconds = 0.0;    // measured: process CPU time of the batches with the chip
  double digital_cpu_seconds = 0.0;      // ... and all on the host
  int64_t dac_conversions = 0, adc_conversions = 0, adc_clipped = 0;
  std::optional<ExecutionCertificate> certificate;
  // E.g. the plan's accuracy budget was measured on images this evaluation reuses.
  std::vector<std::string> warnings;
  Provenance provenance;
};

}  // namespace hetcim::results
