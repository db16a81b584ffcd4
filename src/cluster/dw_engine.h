// The depth-wise digital accelerator of seed 001 (Sec. IV-C, Fig. 4-5), from its dataflow:
// for each block of `channels` (16) channels, preload the K*K*16 weights (at bytes_per_cycle);
// for each output column, fill the K x K window (K*K pixels of 16 channels, one per cycle at
// 16 B/cycle), then slide it down one output pixel per inner loop of 4 cycles (LD of the K new
// pixels in cycles 1-3, MAC on 4 channels per cycle with 36 multipliers, ST in cycle 4):
//   cycles = config + ceil(C / 16) * (ceil(K*K*16 / bw) + W_out * (ceil(K*K*16 / bw) + H_out *
//   loop)) loop   = max(inner_loop_cycles, stride * K + 1)  (stride 2 loads two new rows: an
//   extrapolation)
// Output size with padding p: H_out = (H + 2p - K) / stride + 1.
#pragma once

#include <cstdint>

#include "cluster/cluster_config.h"

namespace hetcim::cluster {

struct DwLayer {
  int64_t height = 0, width = 0;  // input feature map
  int64_t channels = 0;
  int64_t kernel = 3;
  int64_t stride = 1;
  int64_t pad = 1;
};

struct DwCost {
  int64_t blocks = 0;  // ceil(channels / dw.channels)
  int64_t out_height = 0, out_width = 0;
  int64_t weight_cycles = 0;  // all blocks
  int64_t fill_cycles = 0;    // all blocks and columns
  int64_t loop_cycles = 0;    // all inner loops
  int64_t cycles = 0;         // incl. dw.config_cycles
  int64_t macs = 0;           // K*K*C*H_out*W_out
  [[nodiscard]] double macs_per_cycle() const {
    return static_cast<double>(macs) / static_cast<double>(cycles);
  }
};

// UserError if the layer's kernel is not the engine's, or the shape is empty.
[[nodiscard]] DwCost dw_engine_cost(const DwConfig& dw, const DwLayer& layer);

}  // namespace hetcim::cluster
