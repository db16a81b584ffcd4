// A weight matrix programmed onto a chip: the persistent noisy conductances of every device (drawn
// once when the layer was programmed) and the analog matrix-vector product that reads them.
//
// forward() computes y[b] = x[b] * W_hat for a batch of input vectors (row-major batch x rows ->
// batch x cols), the way the chip would (rules in chip_profile.h and src/xbar/README.md):
//
//  physical  per array (row tile t, column tile u) and input vector b: the DAC full scale is
//            s = max |x[b, rows of t]| and inputs become codes v; the array current is
//            v * dG (dG = (G+ - G-) / (G_max - G_min) of the programmed devices) plus read noise.
//            Every device read is an independent N(0, sigma^2), so a column's noise is exactly
//            N(0, 2 sigma_n^2 ||v||_2^2) with sigma_n = sigma / (G_max - G_min) (two devices per
//            weight, each read once per input vector); it is drawn per column and vector instead of
//            per device. The ADC quantizes the noisy currents of array (t, u) with its ranging
//            rule, and the digital periphery accumulates gamma * s * adc(...) over the row tiles.
//  reference every device gets u ~ U[-a, a] once per call (shared by the batch), its read is
//            clamp(G + u, G_min, G_max); one array holds the layer; per-vector max-abs DAC and ADC.
//
// Read noise comes from `read_rng`: each call takes exactly one 64-bit draw from it and derives
// independent streams per row tile and fixed chunk of 512 input vectors (one fill_normal of
// 512 x cols draws each; until issue 13's speed work one stream per row tile and vector, whose
// per-stream seeding cost more than the draws for narrow layers), so results are identical for
// any thread count, and the same rng state gives the same bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "xbar/chip_profile.h"
#include "xbar/mapping.h"
#include "xbar/rng.h"

namespace hetcim::xbar {

struct ForwardStats {
  int64_t dac_conversions = 0;
  int64_t adc_conversions = 0;
  int64_t adc_clipped = 0;  // conversions beyond the ADC range (AdcRanging::Fixed only)
};

// The digital periphery after a layer's accumulation, run by forward() per output element while
// the output is in cache: y = act(y + shift[c]) (shift empty: no addition; the caller passes a
// bias already multiplied by its scale, so the element arithmetic is the unfused "y + s * b").
struct OutputEpilogue {
  enum class Act { None, Relu, Clip };
  std::span<const float> shift;  // one value per output column, or empty
  Act act = Act::None;
  float lo = 0.0f, hi = 0.0f;  // Clip: v < lo ? lo : (v > hi ? hi : v); Relu: v > 0 ? v : 0
};

class ProgrammedLayer {
 public:
  [[nodiscard]] const std::string& layer_id() const { return layer_id_; }
  [[nodiscard]] const ChipProfile& profile() const { return profile_; }
  [[nodiscard]] int64_t rows() const { return rows_; }  // inputs
  [[nodiscard]] int64_t cols() const { return cols_; }  // outputs
  // The digital output scale: eq. (4)'s gamma (audit().gamma) times the drift compensation.
  [[nodiscard]] double gamma() const { return gamma_; }
  // The global drift compensation factor applied (1 without; chip.h, ProgramOptions).
  [[nodiscard]] double drift_compensation() const { return drift_compensation_; }
  [[nodiscard]] int64_t row_tiles() const { return row_tiles_; }
  [[nodiscard]] int64_t col_tiles() const { return col_tiles_; }
  [[nodiscard]] const MappingAudit& audit() const { return audit_; }

  // Programmed conductances in siemens, rows x cols, row-major.
  [[nodiscard]] std::span<const float> g_plus() const { return g_plus_; }
  [[nodiscard]] std::span<const float> g_minus() const { return g_minus_; }
  // Eq. (5) on the programmed conductances: the weights the chip holds without read noise.
  [[nodiscard]] std::vector<float> effective_weights() const;

  // x: batch x rows, y: batch x cols (overwritten), both row-major. UserError if batch < 0.
  // `epilogue` (optional) is applied to every output (same bytes as applying it afterwards).
  void forward(const float* x, int64_t batch, float* y, Rng& read_rng,
               ForwardStats* stats = nullptr, const OutputEpilogue* epilogue = nullptr) const;

  // The same product with the input rows produced on demand: rows(first, n, out) writes input
  // vectors [first, first + n) (n x rows(), row-major) to `out`. The physical mode asks for a
  // block of at most 64Ki inputs at a time into an L2-sized buffer, which the DAC reads at once
  // (a convolution's im2col rows never exist whole);
  // the result is byte for byte that of forward() on the whole matrix.
  using RowSource = std::function<void(int64_t first, int64_t n, float* out)>;
  void forward_rows(const RowSource& rows, int64_t batch, float* y, Rng& read_rng,
                    ForwardStats* stats = nullptr, const OutputEpilogue* epilogue = nullptr) const;

 private:
  friend class Chip;
  ProgrammedLayer() = default;

  // x (the whole batch) or, when x is null, `source` a block of rows at a time.
  void forward_physical(const float* x, const RowSource* source, int64_t batch, float* y,
                        uint64_t call_seed, ForwardStats& stats,
                        const OutputEpilogue* epilogue) const;
  void forward_reference(const float* x, int64_t batch, float* y, uint64_t call_seed,
                         ForwardStats& stats) const;

  std::string layer_id_;
  ChipProfile profile_;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  double gamma_ = 0.0;
  double drift_compensation_ = 1.0;
  int64_t tile_rows_ = 0;  // rows per array (physical); rows_ in reference mode
  int64_t tile_cols_ = 0;  // weight columns per array
  int64_t row_tiles_ = 0;
  int64_t col_tiles_ = 0;
  std::vector<float> g_plus_;
  std::vector<float> g_minus_;
  std::vector<float> dg_;      // (G+ - G-) / (G_max - G_min), rows x cols
  std::vector<float> dg_pad_;  // dg_ with zero rows up to row_tiles_ * tile_rows_ (physical mode,
                               // only when the last row tile is partial)
  MappingAudit audit_;
};

}  // namespace hetcim::xbar
