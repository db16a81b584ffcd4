// A chip: one physical analog accelerator, i.e. a profile plus the seed of its persistent state.
// Programming a layer draws that layer's programming noise and stuck devices from streams derived
// from (chip seed, layer id), so the same chip programs the same layer identically every time, two
// layers of one chip are independent, and two chips with different seeds differ.
#pragma once

#include <cstdint>
#include <string_view>

#include "xbar/chip_profile.h"
#include "xbar/programmed_layer.h"

namespace hetcim::xbar {

struct ProgramOptions {
  // Per-layer scale of eq. (4); <= 0 selects gamma = max |W|. A smaller gamma clips the larger
  // weights at +/-gamma (counted in the audit).
  double gamma = 0.0;
  // Seconds after programming at which the layer is read: with a drifting profile and read_time >
  // drift_t0, every device holds G (read_time / t0)^(-nu) (chip_profile.h); otherwise (and by
  // default) the conductances as programmed. Must be finite and >= 0.
  double read_time = 0.0;
  // Global drift compensation (Le Gallo et al. 2018; as in IBM's aihwkit): a calibration read
  // with an all-ones input at t0 and at read_time; the ratio of the summed |column currents|
  // (at t0 over at read_time) scales the layer's digital output. The calibration read is taken
  // without read noise (an average of many reads, an assumption). No effect without drift.
  bool drift_compensation = false;
};

class Chip {
 public:
  // Validates the profile (UserError naming the profile and the field).
  Chip(ChipProfile profile, uint64_t seed);

  [[nodiscard]] const ChipProfile& profile() const { return profile_; }
  [[nodiscard]] uint64_t seed() const { return seed_; }

  // Programs the weight matrix w (rows = inputs x cols = outputs, row-major; see layout.h for
  // Linear and Conv weights) under the name layer_id. UserError on an empty or non-finite matrix.
  [[nodiscard]] ProgrammedLayer program(std::string_view layer_id, const float* w, int64_t rows,
                                        int64_t cols, const ProgramOptions& options = {}) const;

 private:
  ChipProfile profile_;
  uint64_t seed_;
};

}  // namespace hetcim::xbar
