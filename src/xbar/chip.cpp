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

  const LevelMapping m = map_levels(w, rows, cols, p.device_bits, options.gamma);

  ProgrammedLayer L;
  L.layer_id_ = std::string(layer_id);
  L.profile_ = p;
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
  auto program_device = [&](double target) {
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
      } else if (u < p.stuck_fraction) {
        ++a.stuck_low;
        g = p.g_min;
      }
    }
    return static_cast<float>(g);
  };
  for (int64_t i = 0; i < n; ++i) {
    const auto [gp, gm] = pair_conductance(m.levels[static_cast<size_t>(i)], m.q, p.g_min, p.g_max);
    L.g_plus_[static_cast<size_t>(i)] = program_device(gp);
    L.g_minus_[static_cast<size_t>(i)] = program_device(gm);
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
