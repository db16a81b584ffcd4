// Seed 002's multilevel differential weight mapping, eq. (4)-(5), and the audit of a mapped layer.
//
// Per layer gamma = max |W| (or a caller-chosen gamma, which clips larger weights), Q = 2^bits - 1,
// level(w) = sign(w) * round(Q |w| / gamma) in [-Q, Q] (round half to even, as torch.round).
// A positive level k puts G+ = G_min + k/Q (G_max - G_min) and the idle device G- at G_min; a
// negative level swaps the roles. Eq. (5) reconstructs w_hat = gamma (G+ - G-) / (G_max - G_min).
// Weight matrices are in crossbar layout: rows = inputs (word lines), cols = outputs, row-major.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hetcim::xbar {

struct LevelMapping {
  int64_t rows = 0;
  int64_t cols = 0;
  double gamma = 0.0;           // per-layer scale (eq. 4); 0 for an all-zero matrix
  int q = 0;                    // Q = 2^bits - 1
  std::vector<int32_t> levels;  // rows * cols signed levels in [-Q, Q]
  int64_t clipped_weights = 0;  // |w| > gamma (only with a caller-chosen gamma)
};

// gamma <= 0 selects eq. (4)'s gamma = max |W|.
[[nodiscard]] LevelMapping map_levels(const float* w, int64_t rows, int64_t cols, int device_bits,
                                      double gamma = 0.0);

// Target conductances (G+, G-) in siemens of a signed level.
[[nodiscard]] std::pair<double, double> pair_conductance(int32_t level, int q, double g_min,
                                                         double g_max);

// Eq. (5).
[[nodiscard]] double reconstruct_weight(double g_plus, double g_minus, double gamma, double g_min,
                                        double g_max);

struct ErrorMetrics {
  double mae = 0.0;
  double rmse = 0.0;
  double rel_l2 = 0.0;  // ||approx - ref||_2 / ||ref||_2 (0 when both are zero)
};
[[nodiscard]] ErrorMetrics error_metrics(const float* ref, const float* approx, int64_t n);

// What the audit of seed 002 reports per layer, for the ideal quantized mapping and for the
// conductances actually programmed on a chip (programming noise and stuck devices included).
struct MappingAudit {
  std::string layer;
  int64_t rows = 0;
  int64_t cols = 0;
  double gamma = 0.0;
  int64_t distinct_levels = 0;  // distinct reconstructed values w_hat used by the layer
  int64_t clipped_weights = 0;  // |w| > gamma
  ErrorMetrics quantized;       // eq. (4)-(5) without device errors
  ErrorMetrics programmed;      // eq. (5) on the programmed conductances
  int64_t clamped_devices = 0;  // programming noise pushed the device out of [G_min, G_max]
  int64_t stuck_low = 0;
  int64_t stuck_high = 0;
  int64_t tiles = 0;  // physical arrays the layer occupies
};

}  // namespace hetcim::xbar
