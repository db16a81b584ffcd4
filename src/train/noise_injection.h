// Hardware-aware training (`hetcim train --hardware-aware FILE:PROFILE`): noise injected into the
// analog layers of the training forward pass, following a chip profile with the semantics of
// src/xbar (physical mode; chip_profile.h, src/xbar/README.md), so that a network learns weights
// that survive the chip it will run on (the idea of IBM aihwkit's hardware-aware training).
//
// Per forward pass and analog Linear layer (weights W, out x in; input x, batch x in):
//
//  weights   eq. (4)-(5) mapping with the per-layer gamma = max |W| (xbar::map_levels: 8-bit
//            levels, a differential pair with the idle device at G_min), then a freshly drawn chip
//            instance: every device G = clamp(target + N(0, write_noise^2), G_min, G_max), stuck
//            with probability `stuck` (a share at G_max, the rest at G_min), and with a read time
//            t > drift_t0 the drift G (t / t0)^-nu, nu ~ N(drift_nu, drift_nu_sd^2) floored at 0
//            (stuck devices do not drift). W_hat = gamma (G+ - G-) / (G_max - G_min).
//  inputs    DAC per input vector and row tile of array_rows inputs: s = max |x|, codes
//            round(x / s * M), M = 2^(dac_bits - 1) - 1 (v = code / M).
//  outputs   per row tile the current v . dG plus read noise N(0, 2 read_noise^2 ||v||^2 /
//            (G_max - G_min)^2) per column (the exact equivalent of per-device read noise, as in
//            xbar), then the ADC per vector and column tile of array_cols / 2 weight columns:
//            full scale = the largest |current| (max_abs ranging) or adc_full_scale (fixed),
//            codes clamp(round(c / F * M), -M - 1, M); y = sum over row tiles gamma s adc(...).
//
// Gradients: straight-through estimators. The weight gradient is taken at the programmed
// weights and applied to W; the DAC and ADC roundings pass gradients unchanged; read noise is an
// additive constant. The bias and the ReLU stay digital, as in evaluation (train/evaluate.h).
//
// Differences from the evaluation's chip (stated, not hidden): evaluation programs a chip ONCE
// (persistent state from its seed); training draws a new chip instance every forward pass, so the
// network sees the distribution of chips rather than one. Reference mode (XBTorch-like) is not
// mirrored: a profile with mode: reference is refused. Global drift compensation is not applied.
//
// Determinism: every draw comes from streams derived from `seed` (write, stuck, drift, read), so
// the same seed, data and thread count give the same bytes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "xbar/chip_profile.h"
#include "xbar/rng.h"

namespace hetcim::train {

class NoiseInjector {
 public:
  // UserError when the profile is in reference mode or invalid, or read_time is negative or not
  // finite.
  NoiseInjector(const xbar::ChipProfile& profile, uint64_t seed, double read_time = 0.0);

  // The weights w[0..n) (any layout) as programmed on a fresh chip instance and read back:
  // w_hat = gamma (G+ - G-) / (G_max - G_min). Returns gamma = max |w| (0: all zero, w_hat = 0).
  double program(const float* w, int64_t n, float* w_hat);

  // n standard normals of the read-noise stream.
  void read_normals(float* z, int64_t n);

  [[nodiscard]] const xbar::ChipProfile& profile() const { return profile_; }
  [[nodiscard]] double read_time() const { return read_time_; }
  [[nodiscard]] bool drifting() const;
  // The four streams (write, stuck, drift, read), to checkpoint and resume training.
  [[nodiscard]] std::array<xbar::Rng*, 4> streams() { return {&write_, &stuck_, &drift_, &read_}; }

 private:
  xbar::ChipProfile profile_;
  double read_time_ = 0.0;
  xbar::Rng write_, stuck_, drift_, read_;
};

// One analog Linear layer (no bias) as the hardware-aware forward computes it: x (batch x in,
// row-major), w (out x in, libtorch's Linear layout) -> y (batch x out). The same code as
// training's forward (for tests and for a look at what training sees).
[[nodiscard]] std::vector<float> hardware_aware_linear(const float* x, int64_t batch, int64_t in,
                                                       int64_t out, const float* w,
                                                       NoiseInjector& injector);

}  // namespace hetcim::train
