// Results of the analog chip commands that report/analog.h renders: one accuracy row per chip of
// `hetcim analog eval` (api::analog_eval_rows) and the summary of a frozen policy served query by
// query (`hetcim analog serve`, api::AnalogServeResult::summary).
#pragma once

#include <cstdint>
#include <string>

#include "select/controller.h"

namespace hetcim::results {

struct AnalogEvalRow {
  std::string chip;  // profile name, or "digital"
  std::string mode;  // simulation mode, "-" for the digital model
  double accuracy = 0.0;
  int64_t images = 0;
  double seconds = 0.0;
};

// `hetcim analog serve`: what the policy did with the queries and what its monitors say.
struct AnalogServeSummary {
  std::string policy_file;
  std::string unit;  // "" when the policy selected none
  double threshold = 0.0;
  std::string score;  // confidence score name
  select::ControllerCounts counts;
  std::string queries;    // the queries' origin (data set name, file, <stdin>)
  bool labelled = false;  // queries from a data set: accepted answers checked, audit run
  int64_t accepted_wrong = 0;
  // The label-free coverage monitor against the certificate's coverage (anytime 95 %).
  double coverage = 0, coverage_lower = 0, coverage_upper = 1, certified_lower = 0,
         certified_upper = 1;
  int64_t shifted_at = -1;  // first query where it shifted (-1: never)
  // The labelled audit of every accepted query (anytime 95 % bounds on the error rate).
  double audit_lower = 0, audit_upper = 1, risk_target = 0;
  int64_t broken_at = -1;
};

}  // namespace hetcim::results
