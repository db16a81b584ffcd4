// Moved: the quantization arithmetic is the quantize family's, ops/quantize.h (below exec, so that
// calibration's rewrite in passes uses the same functions). This alias keeps exec code compiling.
#pragma once

#include "ops/quantize.h"

namespace hetcim::exec {

using ops::activation_params;
using ops::dequantize_value;
using ops::qrange;
using ops::QRange;
using ops::quantize_value;
using ops::QuantParams;
using ops::requantize;
using ops::round_half_even;
using ops::saturate;
using ops::weight_params;

}  // namespace hetcim::exec
