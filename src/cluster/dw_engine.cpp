#include "cluster/dw_engine.h"

#include <algorithm>

#include "util/error.h"

namespace hetcim::cluster {

DwCost dw_engine_cost(const DwConfig& dw, const DwLayer& l) {
  if (l.kernel != dw.kernel)
    throw user_error("depth-wise accelerator: it runs ", dw.kernel, "x", dw.kernel,
                     " kernels only, got ", l.kernel, "x", l.kernel);
  if (l.height < 1 || l.width < 1 || l.channels < 1 || l.stride < 1 || l.pad < 0)
    throw user_error(
        "depth-wise accelerator: height, width, channels, stride must be >= 1 and pad >= 0");
  DwCost c;
  c.out_height = (l.height + 2 * l.pad - l.kernel) / l.stride + 1;
  c.out_width = (l.width + 2 * l.pad - l.kernel) / l.stride + 1;
  if (c.out_height < 1 || c.out_width < 1)
    throw user_error("depth-wise accelerator: a ", l.height, "x", l.width,
                     " input is smaller than the kernel");
  c.blocks = (l.channels + dw.channels - 1) / dw.channels;
  const int64_t block_bytes = l.kernel * l.kernel * dw.channels;  // one K x K x 16 buffer
  const int64_t load = (block_bytes + dw.bytes_per_cycle - 1) / dw.bytes_per_cycle;
  const int64_t loop = std::max(dw.inner_loop_cycles, l.stride * l.kernel + 1);
  c.weight_cycles = c.blocks * load;
  c.fill_cycles = c.blocks * c.out_width * load;
  c.loop_cycles = c.blocks * c.out_width * c.out_height * loop;
  c.cycles = dw.config_cycles + c.weight_cycles + c.fill_cycles + c.loop_cycles;
  c.macs = l.kernel * l.kernel * l.channels * c.out_height * c.out_width;
  return c;
}

}  // namespace hetcim::cluster
