// The depth-wise engine of seed 001 (Sec. IV-C, Fig. 4-5) as a functional int8 datapath: it
// computes the layer's outputs by walking the engine's dataflow, cycle by cycle, and counts the
// cycles it takes; tests check the outputs bit-exact against the host engine's QLinearConv with
// group == channels and the cycles against dw_engine_cost (dw_engine.h), the closed form.
//
// What the paper describes, and this walk does: 8-bit signed inputs and weights in HWC layout;
// per block of 16 channels the K x K x 16 weights are preloaded (sign-extended into a weight
// buffer); per output column the window buffer is filled with the first K x K window (one pixel of
// 16 channels per cycle at 16 B/cycle); then an inner loop of 4 cycles per output pixel: LD (cycles
// 1-3) loads the K pixels of the next row into the extra row of the (K+1) x K x 16 window buffer,
// MAC (every cycle) multiplies a K x K x 4 block (36 multipliers and a reduction tree into a
// 32-bit accumulator per channel), ST (cycle 4) passes the 16 accumulators through ReLU and the
// shift & clip block into 8 bits and streams them out; the window slides one row down.
//
// What the paper does not say, and is chosen here (stated in src/cluster/README.md):
//   * the shift rounds to nearest, ties to even (`ShiftRounding::HalfEven`, a convergent
//     rounding shift: add 2^(s-1) - 1 + bit s of the accumulator, then shift arithmetically),
//     which is what ONNX's QLinearConv requantisation does when sx * sw / sy = 2^-s; a plain
//     arithmetic shift (`Truncate`, floor) and round-half-up (`HalfUp`, XpulpV2's p.addRN) are
//     options and differ from the host engine on ties / remainders;
//   * no bias (the paper's datapath has none); zero padding of `pad` pixels, the padding pixels
//     take their load cycle like any other;
//   * stride 2 (the paper describes stride 1) loads `stride` new rows per output pixel into a
//     window buffer of K + stride rows, `max(4, stride * K + 1)` cycles per pixel: an
//     extrapolation, the same as dw_engine.h's.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cluster/cluster_config.h"
#include "cluster/dw_engine.h"

namespace hetcim::cluster {

enum class ShiftRounding { HalfEven, HalfUp, Truncate };

struct DwRequant {
  int shift = 0;           // right shift of the 32-bit accumulator, 0..31
  bool relu = true;        // ReLU before the shift
  int32_t clip_lo = -128;  // clip after the shift, within int8: -128 <= lo <= hi <= 127
  int32_t clip_hi = 127;   //   (ReLU6 in int8: clip_hi = round(6 / output scale))
  ShiftRounding rounding = ShiftRounding::HalfEven;
};

// ReLU, shift and clip of one 32-bit accumulator: the ST stage.
[[nodiscard]] int8_t dw_requantize(int32_t acc, const DwRequant& r);

struct DwDatapathRun {
  std::vector<int8_t> output;  // HWC: [out_height][out_width][channels]
  int64_t out_height = 0, out_width = 0;
  int64_t cycles = 0;  // counted by the walk, incl. dw.config_cycles
  int64_t macs = 0;    // multiplications of valid channels (padding taps included, as in MACs)
};

// Runs one depth-wise layer through the datapath. `input` is HWC [height][width][channels],
// `weights` is [kernel][kernel][channels] (channels last, as the engine loads them). UserError
// (naming the argument) for a kernel the engine does not have, sizes that do not match the
// layer, a shift outside 0..31 or clip bounds outside int8.
[[nodiscard]] DwDatapathRun dw_datapath_run(const DwConfig& dw, const DwLayer& layer,
                                            std::span<const int8_t> input,
                                            std::span<const int8_t> weights,
                                            const DwRequant& requant);

}  // namespace hetcim::cluster
