// Rng's fill_normal kernels below the per-CPU choice that Rng::fill_normal makes, for tests that
// must reach a kernel the test machine would not pick (xbar/rng.h).
#pragma once

#include <cstdint>

#include "xbar/rng.h"

namespace hetcim::xbar::detail {

// rng.fill_normal(out, n) through the AVX2 kernel, which fill_normal uses on CPUs with AVX2 but
// without AVX-512; false (nothing drawn, nothing written) when this CPU lacks AVX2.
bool fill_normal_avx2(Rng& rng, float* out, int64_t n);

}  // namespace hetcim::xbar::detail
