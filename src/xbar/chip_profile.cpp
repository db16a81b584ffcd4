#include "xbar/chip_profile.h"

#include <cmath>

#include "util/error.h"

namespace hetcim::xbar {

std::string_view sim_mode_name(SimMode m) {
  switch (m) {
    case SimMode::Physical:
      return "physical";
    case SimMode::Reference:
      return "reference";
  }
  return "?";
}

std::string_view adc_ranging_name(AdcRanging r) {
  switch (r) {
    case AdcRanging::MaxAbsPerVector:
      return "max_abs";
    case AdcRanging::Fixed:
      return "fixed";
  }
  return "?";
}

void validate_profile(const ChipProfile& p, std::string_view source) {
  const std::string where = (source.empty() ? std::string() : std::string(source) + ": ") +
                            "chip profile '" + p.name + "'";
  if (p.name.empty())
    throw user_error(source, source.empty() ? "" : ": ", "chip profile without a name");
  auto finite_nonneg = [&](double v, const char* field, const char* unit) {
    if (!std::isfinite(v) || v < 0.0)
      throw user_error(where, ": field '", field, "' must be a finite value >= 0 ", unit, ", got ",
                       v);
  };
  finite_nonneg(p.g_min, "g_min", "S");
  finite_nonneg(p.g_max, "g_max", "S");
  if (!(p.g_min < p.g_max))
    throw user_error(where, ": field 'g_min' (", p.g_min * 1e6, " uS) must be below 'g_max' (",
                     p.g_max * 1e6, " uS)");
  if (p.device_bits < 1 || p.device_bits > 16)
    throw user_error(where, ": field 'device_bits' must be in [1, 16], got ", p.device_bits);
  finite_nonneg(p.write_noise, "write_noise", "S");
  finite_nonneg(p.read_noise, "read_noise", "S");
  auto fraction = [&](double v, const char* field) {
    if (!std::isfinite(v) || v < 0.0 || v > 1.0)
      throw user_error(where, ": field '", field,
                       "' must be a fraction in [0, 1] (0% to 100%), got ", v);
  };
  fraction(p.stuck_fraction, "stuck");
  fraction(p.stuck_high_share, "stuck_high_share");
  auto bits = [&](int b, const char* field) {
    if (b != 0 && (b < 2 || b > 16))
      throw user_error(where, ": field '", field, "' must be 0 (ideal) or in [2, 16], got ", b);
  };
  bits(p.dac_bits, "dac_bits");
  bits(p.adc_bits, "adc_bits");
  if (p.adc_ranging == AdcRanging::Fixed) {
    if (!std::isfinite(p.adc_full_scale) || p.adc_full_scale <= 0.0)
      throw user_error(where, ": field 'adc_full_scale' must be > 0 with adc_ranging 'fixed', got ",
                       p.adc_full_scale);
    if (p.adc_bits == 0)
      throw user_error(where,
                       ": adc_ranging 'fixed' needs a real ADC, but 'adc_bits' is 0 (ideal)");
  }
  if (p.mode == SimMode::Reference && p.adc_ranging != AdcRanging::MaxAbsPerVector)
    throw user_error(where,
                     ": field 'adc_ranging' must be 'max_abs' with mode 'reference' (RACE-AIMC's "
                     "simulator ranges every vector by its max-abs)");
  if (p.array_rows < 1 || p.array_cols < 2)
    throw user_error(
        where, ": field 'array' must be at least 1x2 (a signed weight takes two columns), got ",
        p.array_rows, "x", p.array_cols);
  if (!std::isfinite(p.drift_nu) || p.drift_nu < 0.0 || p.drift_nu >= 1.0)
    throw user_error(where, ": field 'drift_nu' must be a drift exponent in [0, 1), got ",
                     p.drift_nu);
  finite_nonneg(p.drift_nu_sd, "drift_nu_sd", "");
  if (!std::isfinite(p.drift_t0) || p.drift_t0 <= 0.0)
    throw user_error(where, ": field 'drift_t0' must be a time > 0 s, got ", p.drift_t0);
  if (p.read_noise_growth && (!std::isfinite(p.read_noise_t_read) || p.read_noise_t_read <= 0.0 ||
                              p.read_noise_t_read >= p.drift_t0))
    throw user_error(where,
                     ": field 'read_noise_t_read' must be a time in (0, drift_t0 = ", p.drift_t0,
                     " s), got ", p.read_noise_t_read, " s");
  if (p.energy) finite_nonneg(*p.energy, "energy", "J");
  if (p.latency) finite_nonneg(*p.latency, "latency", "s");
}

double ChipProfile::read_noise_factor(double read_time) const {
  if (!read_noise_growth || !(read_time > drift_t0)) return 1.0;
  const double tr = read_noise_t_read;
  return std::sqrt(std::log((read_time + tr) / (2 * tr)) / std::log((drift_t0 + tr) / (2 * tr)));
}

}  // namespace hetcim::xbar
