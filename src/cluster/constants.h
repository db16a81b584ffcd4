// Every constant of the cluster model in one table: its field (as in the YAML description), the
// value of a configuration, and where the preset's value comes from: the paper (seed 001), derived
// from the paper's figures, the literature (cited), assumed (with the reasoning), or calibrated
// (chosen to hit a figure of the paper; then that figure is not a prediction).
// src/cluster/README.md prints the same table; a test keeps the two and the YAML fields in step.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster_config.h"

namespace hetcim::cluster {

enum class ConstantSource { Paper, Derived, Literature, Assumed, Calibrated };

[[nodiscard]] const char* constant_source_name(ConstantSource s);

struct ConstantRow {
  std::string field;                                // YAML path, e.g. "ima.t_mvm"
  std::string value;                                // of the configuration, with its unit
  ConstantSource source = ConstantSource::Assumed;  // of the seed001 preset's value
  std::string reference;  // the paper's section, the citation, or the reasoning
  bool as_preset = true;  // false: the configuration overrides the preset (then source is moot)
};

[[nodiscard]] std::vector<ConstantRow> constant_table(const ClusterConfig& config);

}  // namespace hetcim::cluster
