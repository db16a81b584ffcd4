// Seed 002's hardware correction, eq. (6): an accelerator's persistent per-class logit bias,
// estimated on the hardware split H against the clean digital logits z_0,
//   b = |H|^-1 sum_{x in H} (z_raw(x) - z_0(x)),     z(x) = z_raw(x) - b.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace hetcim::select {

// `raw` and `reference` are row-major tables with `classes` columns over the same rows; `rows`
// (non-empty) picks the rows of H. UserError on mismatched sizes, an empty or out-of-range
// selection.
[[nodiscard]] std::vector<double> logit_bias(std::span<const float> raw,
                                             std::span<const float> reference, int64_t classes,
                                             std::span<const int64_t> rows);

// z_raw - b for every row (in float, the logits' precision).
[[nodiscard]] std::vector<float> apply_bias(std::span<const float> raw, int64_t classes,
                                            std::span<const double> bias);

}  // namespace hetcim::select
