#include "cluster/dw_datapath.h"

#include <algorithm>

#include "util/error.h"

namespace hetcim::cluster {

int8_t dw_requantize(int32_t acc, const DwRequant& r) {
  int64_t v = acc;
  if (r.relu) v = std::max<int64_t>(v, 0);
  if (r.shift > 0) {
    const int64_t half = int64_t{1} << (r.shift - 1);
    switch (r.rounding) {
      case ShiftRounding::HalfEven:  // convergent: ties go to the even quotient
        v = (v + half - 1 + ((v >> r.shift) & 1)) >> r.shift;
        break;
      case ShiftRounding::HalfUp:
        v = (v + half) >> r.shift;
        break;
      case ShiftRounding::Truncate:
        v >>= r.shift;
        break;
    }
  }
  return static_cast<int8_t>(std::clamp<int64_t>(v, r.clip_lo, r.clip_hi));
}

DwDatapathRun dw_datapath_run(const DwConfig& dw, const DwLayer& l, std::span<const int8_t> input,
                              std::span<const int8_t> weights, const DwRequant& rq) {
  // The shape checks and the closed form's output size are dw_engine_cost's.
  const DwCost shape = dw_engine_cost(dw, l);
  if (rq.shift < 0 || rq.shift > 31)
    throw user_error("depth-wise datapath: shift must be 0..31, got ", rq.shift);
  if (rq.clip_lo < -128 || rq.clip_hi > 127 || rq.clip_lo > rq.clip_hi)
    throw user_error("depth-wise datapath: clip bounds must satisfy -128 <= lo <= hi <= 127, got [",
                     rq.clip_lo, ", ", rq.clip_hi, "]");
  const int64_t h = l.height, w = l.width, c = l.channels, k = l.kernel, s = l.stride;
  if (static_cast<int64_t>(input.size()) != h * w * c)
    throw user_error("depth-wise datapath: input has ", input.size(), " values, expected ", h, "x",
                     w, "x", c, " = ", h * w * c, " (HWC)");
  if (static_cast<int64_t>(weights.size()) != k * k * c)
    throw user_error("depth-wise datapath: weights have ", weights.size(), " values, expected ", k,
                     "x", k, "x", c, " = ", k * k * c, " (K x K x C)");

  DwDatapathRun run;
  run.out_height = shape.out_height;
  run.out_width = shape.out_width;
  run.output.assign(static_cast<size_t>(run.out_height * run.out_width * c), 0);
  const int64_t lanes = dw.channels;  // channels of one block (16)
  // K x K pixels (or weights) of one block through the streamer at bytes_per_cycle.
  const int64_t window_cycles = (k * k * lanes + dw.bytes_per_cycle - 1) / dw.bytes_per_cycle;
  const int64_t loop = std::max(dw.inner_loop_cycles, s * k + 1);
  // MAC stage: K x K x m products per cycle, m = lanes / inner_loop_cycles (4 of 16 channels).
  const int64_t mac_lanes = (lanes + dw.inner_loop_cycles - 1) / dw.inner_loop_cycles;
  // The input pixel (y, x) of one block as the streamer delivers it: zeros outside the map.
  auto pixel = [&](int64_t y, int64_t x, int64_t c0, std::span<int8_t> to) {
    for (int64_t j = 0; j < lanes; ++j)
      to[static_cast<size_t>(j)] = (y < 0 || y >= h || x < 0 || x >= w || c0 + j >= c)
                                       ? int8_t{0}
                                       : input[static_cast<size_t>((y * w + x) * c + c0 + j)];
  };

  run.cycles = dw.config_cycles;
  std::vector<int32_t> wbuf(static_cast<size_t>(k * k * lanes));      // sign-extended
  std::vector<int8_t> win(static_cast<size_t>((k + s) * k * lanes));  // rows x cols x lanes
  std::vector<int32_t> acc(static_cast<size_t>(lanes));
  auto at = [&](int64_t row, int64_t col) {
    return std::span<int8_t>(win).subspan(static_cast<size_t>((row * k + col) * lanes),
                                          static_cast<size_t>(lanes));
  };
  for (int64_t c0 = 0; c0 < c; c0 += lanes) {
    // Weight preload: K x K x 16 bytes at bytes_per_cycle.
    for (int64_t i = 0; i < k * k; ++i)
      for (int64_t j = 0; j < lanes; ++j)
        wbuf[static_cast<size_t>(i * lanes + j)] =
            c0 + j < c ? weights[static_cast<size_t>(i * c + c0 + j)] : 0;
    run.cycles += window_cycles;
    for (int64_t xo = 0; xo < run.out_width; ++xo) {
      const int64_t x0 = xo * s - l.pad;
      // Window fill: the first K x K window (one 16-channel pixel per cycle at 16 B/cycle).
      for (int64_t r = 0; r < k; ++r)
        for (int64_t q = 0; q < k; ++q) pixel(r - l.pad, x0 + q, c0, at(r, q));
      run.cycles += window_cycles;
      for (int64_t yo = 0; yo < run.out_height; ++yo) {
        std::fill(acc.begin(), acc.end(), 0);
        const int64_t next_row = (yo + 1) * s - l.pad + k - s;  // first new input row to load
        for (int64_t cycle = 0; cycle < loop; ++cycle) {
          // LD: one pixel of a new row into the rows below the window.
          if (cycle < s * k) {
            const int64_t r = cycle / k, q = cycle % k;
            pixel(next_row + r, x0 + q, c0, at(k + r, q));
          }
          // MAC: K x K taps on mac_lanes channels of the current window.
          for (int64_t j = cycle * mac_lanes; j < std::min(lanes, (cycle + 1) * mac_lanes); ++j) {
            int32_t sum = 0;
            for (int64_t r = 0; r < k; ++r)
              for (int64_t q = 0; q < k; ++q)
                sum += static_cast<int32_t>(at(r, q)[static_cast<size_t>(j)]) *
                       wbuf[static_cast<size_t>((r * k + q) * lanes + j)];
            acc[static_cast<size_t>(j)] = sum;
            if (c0 + j < c) run.macs += k * k;
          }
        }
        // ST: ReLU, shift and clip, 16 channels out; the window slides `s` rows down.
        for (int64_t j = 0; j < lanes && c0 + j < c; ++j)
          run.output[static_cast<size_t>((yo * run.out_width + xo) * c + c0 + j)] =
              dw_requantize(acc[static_cast<size_t>(j)], rq);
        std::rotate(win.begin(), win.begin() + s * k * lanes, win.end());
        run.cycles += loop;
      }
    }
  }
  return run;
}

}  // namespace hetcim::cluster
