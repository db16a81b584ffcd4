// Shared by the cost tests: the hardware YAML error of a text, and the operator they compute by
// hand.
#pragma once

#include <string>

#include "cost/hardware.h"
#include "util/error.h"
#include "workload/workload.h"

namespace hetcim::cost::testing {

// The message parse_hardware_yaml throws for `yaml` (origin "hw.yaml"), "" if it accepts it.
inline std::string error_of(const std::string& yaml) {
  try {
    (void)parse_hardware_yaml(yaml, "hw.yaml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// ResNet-18's layer1 3x3 convolution, 64x56x56 in and out, weight matrix 576 x 64 -> eq. (1):
// 3 x 1 = 3 crossbars of 256x256, 3136 MVMs.
inline workload::OpWorkload layer1_conv() {
  workload::OpWorkload op;
  op.name = "layer1.0.conv1";
  op.offloadable = true;
  op.in_elems = op.out_elems = 64 * 56 * 56;
  op.in_bytes = op.out_bytes = 64 * 56 * 56;
  op.rows = 576;
  op.cols = 64;
  op.crossbars = 3;
  op.n_mvm = 56 * 56;
  op.macs = 64LL * 56 * 56 * 576;
  op.params = 64 * 64 * 9;
  return op;
}

}  // namespace hetcim::cost::testing
