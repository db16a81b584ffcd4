#include "xbar/mapping.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::xbar {

LevelMapping map_levels(const float* w, int64_t rows, int64_t cols, int device_bits, double gamma) {
  HETCIM_ASSERT(rows >= 0 && cols >= 0 && device_bits >= 1 && device_bits <= 16);
  LevelMapping m;
  m.rows = rows;
  m.cols = cols;
  m.q = (1 << device_bits) - 1;
  const int64_t n = rows * cols;
  double max_abs = 0.0;
  for (int64_t i = 0; i < n; ++i) max_abs = std::max(max_abs, static_cast<double>(std::fabs(w[i])));
  m.gamma = gamma > 0.0 ? gamma : max_abs;
  m.levels.assign(static_cast<size_t>(n), 0);
  if (m.gamma == 0.0) return m;
  for (int64_t i = 0; i < n; ++i) {
    const double a = std::fabs(static_cast<double>(w[i]));
    if (a > m.gamma) ++m.clipped_weights;
    const double k = std::min(std::nearbyint(m.q * a / m.gamma), static_cast<double>(m.q));
    m.levels[static_cast<size_t>(i)] = static_cast<int32_t>(w[i] < 0 ? -k : k);
  }
  return m;
}

std::pair<double, double> pair_conductance(int32_t level, int q, double g_min, double g_max) {
  const double step = (g_max - g_min) / q;
  if (level >= 0) return {g_min + level * step, g_min};
  return {g_min, g_min - level * step};
}

double reconstruct_weight(double g_plus, double g_minus, double gamma, double g_min, double g_max) {
  return gamma * (g_plus - g_minus) / (g_max - g_min);
}

ErrorMetrics error_metrics(const float* ref, const float* approx, int64_t n) {
  ErrorMetrics e;
  if (n == 0) return e;
  double abs_sum = 0.0;
  double sq_sum = 0.0;
  double ref_sq = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(approx[i]) - ref[i];
    abs_sum += std::fabs(d);
    sq_sum += d * d;
    ref_sq += static_cast<double>(ref[i]) * ref[i];
  }
  e.mae = abs_sum / n;
  e.rmse = std::sqrt(sq_sum / n);
  e.rel_l2 = ref_sq > 0.0 ? std::sqrt(sq_sum / ref_sq) : (sq_sum > 0.0 ? INFINITY : 0.0);
  return e;
}

}  // namespace hetcim::xbar
