// A chip profile: what one kind of analog accelerator does to the numbers. Plain data with SI
// units (siemens, joules, seconds); chips_yaml.h reads it from a file with human units.
//
// Two simulation modes share the device description (see src/xbar/README.md for the full rules):
//
//  physical (default)  read noise is Gaussian, independent per device and per read (every batch
//                      item is a separate read), never clamped; layers are tiled over arrays of
//                      array_rows x array_cols devices, each array with its own DAC scaling and
//                      ADC, partial sums accumulated digitally in fp32.
//  reference           the simulator seed 002 used: read noise uniform in [-a, +a] drawn once per
//                      device per forward call and shared by the whole batch, noisy reads clamped
//                      to [G_min, G_max]; per-vector max-abs DAC and ADC ranging; the whole layer
//                      on one array (no tiling; seed 002's 2500x2500 arrays hold every layer).
//
// In both modes programming (write) noise is Gaussian with std write_noise, drawn once per chip
// and layer, and the programmed conductance is clamped to [G_min, G_max]; then a fraction
// stuck_fraction of the devices is stuck, a share stuck_high_share of those at G_max, the rest at
// G_min.
//
// Optional conductance drift (PCM; beyond seed 002, src/xbar/README.md "Drift"): a device read at
// a time t > drift_t0 after programming holds G(t) = G(t0) (t / t0)^(-nu), with its own exponent
// nu ~ N(drift_nu, drift_nu_sd^2) (floored at 0) drawn once per chip and layer. Drift acts only
// when a caller reads at a later time (ProgramOptions::read_time); at t0 (every command but
// `hetcim analog drift`) the conductances are the programmed ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hetcim::xbar {

enum class SimMode { Physical, Reference };

// How an ADC's full scale is set. MaxAbsPerVector: per input vector and per array, the full
// scale is the largest |column output| of that array (an ideal auto-ranging converter; seed 002's
// rule). Fixed: a constant full scale of adc_full_scale in units of "devices at full conductance
// difference driven at full input", i.e. (G_max - G_min) * V_read; outputs beyond it clip.
enum class AdcRanging { MaxAbsPerVector, Fixed };

[[nodiscard]] std::string_view sim_mode_name(SimMode m);
[[nodiscard]] std::string_view adc_ranging_name(AdcRanging r);

struct ChipProfile {
  std::string name;
  double g_min = 133e-6;  // S, conductance of an idle device (eq. 5)
  double g_max = 233e-6;  // S
  // Magnitude levels per device: Q = 2^device_bits - 1 steps above G_min (eq. 4). A signed weight
  // then takes 2Q + 1 values (device_bits 8: seed 002; device_bits 3: -7..7, seed 001's "4-bit
  // signed" weights). Range [1, 16].
  int device_bits = 8;
  double write_noise = 0.0;  // S; std of the Gaussian programming error, drawn once per chip
  // S; physical mode: std of the Gaussian noise of each device read; reference mode: half-width a
  // of the uniform noise drawn once per forward call.
  double read_noise = 0.0;
  double stuck_fraction = 0.0;    // fraction of devices stuck, [0, 1]
  double stuck_high_share = 0.5;  // share of the stuck devices stuck at G_max, [0, 1]
  // Converter resolutions in bits, signed codes in [-2^(b-1), 2^(b-1) - 1] (8: -128..127);
  // 0 = ideal converter (no quantization). Otherwise [2, 16].
  int dac_bits = 8;
  int adc_bits = 8;
  AdcRanging adc_ranging = AdcRanging::MaxAbsPerVector;
  double adc_full_scale = 0.0;    // AdcRanging::Fixed only, > 0 (see AdcRanging)
  int64_t array_rows = 256;       // physical array: inputs (word lines)
  int64_t array_cols = 256;       // bit lines; a signed weight takes two (G+ and G-), so an array
                                  // holds array_cols / 2 weight columns
  std::optional<double> energy;   // J per activation of the accelerator (seed 002 Table I, E)
  std::optional<double> latency;  // s per activation (Table I, L); nullopt: not given
  SimMode mode = SimMode::Physical;
  // Drift (see above); drift_nu = drift_nu_sd = 0: no drift (the default).
  double drift_nu = 0.0;     // mean drift exponent, [0, 1)
  double drift_nu_sd = 0.0;  // device-to-device standard deviation of the exponent, >= 0
  double drift_t0 = 20.0;    // s, the reference time after programming (> 0)
  [[nodiscard]] bool drifts() const { return drift_nu > 0.0 || drift_nu_sd > 0.0; }
  // Read-noise growth over time (beyond seed 002; off by default, and then every result is as
  // without it). PCM's 1/f read noise integrated from t_read to the time since programming grows
  // as sqrt(log((t + t_read) / (2 t_read))) (Nandakumar et al., JAP 2019 / IEDM 2018; the form of
  // IBM aihwkit's PCMLikeNoiseModel, whose t_read = 250 ns is the default here: an assumption,
  // not a measurement). With it, read_noise is the noise of a read at drift_t0, and a read at
  // t > drift_t0 draws read_noise * read_noise_factor(t), the ratio of the two square roots.
  bool read_noise_growth = false;
  double read_noise_t_read = 250e-9;  // s, in (0, drift_t0)
  // 1 without growth or at t <= drift_t0; else sqrt(log((t + tr) / 2tr) / log((t0 + tr) / 2tr)).
  [[nodiscard]] double read_noise_factor(double read_time) const;
};

// Throws UserError naming `source` (a file name or "" ), the profile and the field when a value is
// out of range: g_min < 0, g_min >= g_max, negative or non-finite noise, fractions outside [0, 1],
// bits outside their range, a non-positive array size, a fixed ADC without full scale.
void validate_profile(const ChipProfile& p, std::string_view source = "");

}  // namespace hetcim::xbar
