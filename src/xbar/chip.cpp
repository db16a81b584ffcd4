#include "xbar/chip.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "util/error.h"
#include "xbar/rng.h"

namespace hetcim::xbar {

Chip::Chip(ChipProfile profile, uint64_t seed) : profile_(std::move(profile)), seed_(seed) {
  validate_profile(profile_);
}

ProgrammedLayer Chip::program(std::string_view layer_id, const float* w, int64_t rows, int64_t cols,
                              const ProgramOptions& options) const {
  const ChipProfile& p = profile_;
  if (rows <= 0 || cols <= 0)
    throw user_error("chip '", p.name, "', layer '", layer_id,
                     "': the weight matrix must be non-empty, got ", rows, "x", cols);
  const int64_t n = rows * cols;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(w[i]))
      throw user_error("chip '", p.name, "', layer '", layer_id, "': weight ", i / cols, ",",
                       i % cols, " is not finite (", w[i], ")");
  }
  if (!(options.gamma <= 0.0 || std::isfinite(options.gamma)))
    throw user_error("layer '", layer_id, "': gamma must be finite, got ", options.gamma);
  if (!std::isfinite(options.read_time) || options.read_time < 0.0)
    throw user_error("layer '", layer_id,
                     "': the read time must be a finite number of seconds >= 0, got ",
                     options.read_time);

  const LevelMapping m = map_levels(w, rows, cols, p.device_bits, options.gamma);

  ProgrammedLayer L;
  L.layer_id_ = std::string(layer_id);
  L.profile_ = p;
  // Read-noise growth (chip_profile.h): the noise of a read at options.read_time; 1 by default.
  L.profile_.read_noise = p.read_noise * p.read_noise_factor(options.read_time);
  L.rows_ = rows;
  L.cols_ = cols;
  L.gamma_ = m.gamma;
  if (p.mode == SimMode::Reference) {
    L.tile_rows_ = rows;
    L.tile_cols_ = cols;
  } else {
    L.tile_rows_ = std::min(rows, p.array_rows);
    L.tile_cols_ = std::min(cols, p.array_cols / 2);
  }
  L.row_tiles_ = (rows + L.tile_rows_ - 1) / L.tile_rows_;
  L.col_tiles_ = (cols + L.tile_cols_ - 1) / L.tile_cols_;

  MappingAudit& a = L.audit_;
  a.layer = L.layer_id_;
  a.rows = rows;
  a.cols = cols;
  a.gamma = m.gamma;
  a.clipped_weights = m.clipped_weights;
  a.tiles = L.row_tiles_ * L.col_tiles_;

  // Ideal mapping: eq. (4) levels reconstructed by eq. (5) without device errors.
  std::vector<bool> used(static_cast<size_t>(2 * m.q + 1), false);
  std::vector<float> quantized(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = m.levels[static_cast<size_t>(i)];
    used[static_cast<size_t>(k + m.q)] = true;
    quantized[static_cast<size_t>(i)] = static_cast<float>(m.gamma * k / m.q);
  }
  a.distinct_levels = std::count(used.begin(), used.end(), true);
  a.quantized = error_metrics(w, quantized.data(), n);

  // Programming: target pair, Gaussian write error, clamp to the device range, stuck devices.
  // Two streams per layer, so the stuck pattern does not depend on the write noise.
  Rng write_rng(Rng::derive(seed_, "write/" + L.layer_id_));
  Rng stuck_rng(Rng::derive(seed_, "stuck/" + L.layer_id_));
  L.g_plus_.resize(static_cast<size_t>(n));
  L.g_minus_.resize(static_cast<size_t>(n));
  const double stuck_high = p.stuck_fraction * p.stuck_high_share;
  // Drift: one exponent per device (both of a pair, in this order) from its own stream, drawn
  // for every device so the pattern does not depend on the read time; stuck devices do not drift.
  const bool drifting = p.drifts() && options.read_time > p.drift_t0;
  const double log_age = drifting ? std::log(options.read_time / p.drift_t0) : 0.0;
  Rng drift_rng(Rng::derive(seed_, "drift/" + L.layer_id_));
  auto drift = [&](float g, bool stuck) {
    if (!drifting) return g;
    const double nu = std::max(0.0, p.drift_nu + p.drift_nu_sd * drift_rng.normal());
    return stuck ? g : static_cast<float>(g * std::exp(-nu * log_age));
  };
  bool stuck = false;
  auto program_device = [&](double target) {
    stuck = false;
    double g = target;
    if (p.write_noise > 0.0) g += p.write_noise * write_rng.normal();
    if (g < p.g_min || g > p.g_max) {
      ++a.clamped_devices;
      g = std::clamp(g, p.g_min, p.g_max);
    }
    if (p.stuck_fraction > 0.0) {
      const double u = stuck_rng.uniform();
      if (u < stuck_high) {
        ++a.stuck_high;
        g = p.g_max;
        stuck = true;
      } else if (u < p.stuck_fraction) {
        ++a.stuck_low;
        g = p.g_min;
        stuck = true;
      }
    }
    return static_cast<float>(g);
  };
  // Column sums of G+ - G- at t0 and at the read time: the all-ones calibration read of the
  // global drift compensation.
  std::vector<double> col0(options.drift_compensation && drifting ? static_cast<size_t>(cols) : 0),
      col_t(col0.size());
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const auto [gp, gm] = pair_conductance(m.levels[k], m.q, p.g_min, p.g_max);
    const float gp0 = program_device(gp);
    const bool gp_stuck = stuck;
    const float gm0 = program_device(gm);
    const bool gm_stuck = stuck;
    L.g_plus_[k] = drift(gp0, gp_stuck);
    L.g_minus_[k] = drift(gm0, gm_stuck);
    if (!col0.empty()) {
      col0[static_cast<size_t>(i % cols)] += static_cast<double>(gp0) - gm0;
      col_t[static_cast<size_t>(i % cols)] += static_cast<double>(L.g_plus_[k]) - L.g_minus_[k];
    }
  }
  if (!col0.empty()) {
    double s0 = 0.0, st = 0.0;
    for (size_t c = 0; c < col0.size(); ++c) {
      s0 += std::fabs(col0[c]);
      st += std::fabs(col_t[c]);
    }
    if (st > 0.0) L.drift_compensation_ = s0 / st;
    L.gamma_ *= L.drift_compensation_;
  }
  const double inv_range = 1.0 / (p.g_max - p.g_min);
  L.dg_.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    L.dg_[k] = static_cast<float>((static_cast<double>(L.g_plus_[k]) - L.g_minus_[k]) * inv_range);
  }
  const int64_t padded_rows = L.row_tiles_ * L.tile_rows_;
  if (p.mode == SimMode::Physical && padded_rows != rows) {
    L.dg_pad_.assign(static_cast<size_t>(padded_rows * cols), 0.0f);
    std::copy(L.dg_.begin(), L.dg_.end(), L.dg_pad_.begin());
  }
  const std::vector<float> effective = L.effective_weights();
  a.programmed = error_metrics(w, effective.data(), n);
  return L;
}

}  // namespace hetcim::xbar
