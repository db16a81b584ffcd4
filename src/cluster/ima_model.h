// Timing of the PCM in-memory accelerator (IMA) of seed 001, Sec. IV-B and Fig. 3.
//
// A job is one analog MVM: stream-in the input vector from the TCDM through the HWPE data
// interface (bytes / bus bytes per cycle), compute on the crossbar (a fixed analog latency,
// converted to whole cycles of the cluster clock), stream-out the results. With
//   a = ceil(rows * in_bytes / bus_bytes), c = ceil(t_mvm * f) + job_overhead,
//   b = ceil(cols * out_bytes / bus_bytes)
// N identical jobs take
//   sequential: N * (a + c + b)
//   pipelined:  a + c + b                                                   (N = 1)
//               a + max(c, a) + (N - 2) * max(c, a + b) + max(c, b) + b     (N >= 2)
// The pipelined model follows the engine FSM of seed 001: during the compute phase of job i the
// streamer fetches the inputs of job i+1 and then writes back the results of job i-1; stream-in
// and stream-out share the one data interface; one pipeline register before the DACs and one
// after the ADCs. Job i+1 starts computing once job i, the stream-in of i+1 and the stream-out
// of i-1 are all done, so each compute phase defines a period of max(c, a_{i+1} + b_{i-1}).
// `pipelined_cycles` evaluates that period sum for jobs of different shapes; job_simulation.h is
// the cycle-by-cycle model both are tested against.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cluster/cluster_config.h"

namespace hetcim::cluster {

struct JobShape {
  int64_t rows = 0;  // crossbar inputs used by the job (<= ima.rows)
  int64_t cols = 0;  // crossbar outputs used by the job (<= ima.cols)
};

struct JobPhases {
  int64_t stream_in = 0;   // a, cycles
  int64_t compute = 0;     // c, cycles
  int64_t stream_out = 0;  // b, cycles
};

[[nodiscard]] int64_t bus_bytes_per_cycle(const ImaConfig& ima);
// ceil(t_mvm * f) (a relative 1e-9 slack keeps 130 ns x 500 MHz at 65, not 66).
[[nodiscard]] int64_t compute_cycles(const ImaConfig& ima, double frequency);
[[nodiscard]] JobPhases job_phases(const ImaConfig& ima, double frequency, const JobShape& job);

// Closed forms for `jobs` identical jobs (without the per-layer configuration).
[[nodiscard]] int64_t sequential_cycles(const JobPhases& p, int64_t jobs);
[[nodiscard]] int64_t pipelined_cycles(const JobPhases& p, int64_t jobs);
[[nodiscard]] int64_t job_sequence_cycles(const JobPhases& p, int64_t jobs, ImaExecution e);
// The same for a sequence of jobs of different shapes, in execution order.
[[nodiscard]] int64_t job_sequence_cycles(std::span<const JobPhases> jobs, ImaExecution e);

// Peak throughput of the crossbar: 2 * rows * cols ops per t_mvm (seed 001: 1.008 TOPS).
[[nodiscard]] double ima_peak_ops(const ImaConfig& ima);

// A layer on the IMA: `vectors` input vectors (im2col rows: output pixels), and for each of them
// the same list of jobs (the tiles of a layer larger than the crossbar, or the channel groups of
// a depth-wise layer mapped in c_job slices). Jobs run pixel by pixel, tile by tile.
struct ImaLayer {
  std::vector<JobShape> jobs_per_vector;
  int64_t vectors = 0;
  int64_t macs = 0;              // useful MACs of the layer (zeros of a padded mapping excluded)
  int64_t devices = 0;           // crossbar cells programmed (weights and padding zeros)
  int64_t partial_sum_adds = 0;  // row-tile partial sums the cores add up afterwards
};

// A dense GeMM of `rows` inputs x `cols` outputs applied `vectors` times, tiled over crossbars:
// ceil(rows / R) x ceil(cols / C) tiles, each one job per vector; row tiles leave
// (row_tiles - 1) * cols * vectors partial sums for the cores to add.
[[nodiscard]] ImaLayer dense_ima_layer(const ImaConfig& ima, int64_t rows, int64_t cols,
                                       int64_t vectors);

// A K x K depth-wise layer of `channels` channels mapped in slices of c_job channels (seed 001,
// Sec. V-C): each slice is a block-diagonal (K*K*c_job) x c_job matrix, one job per slice per
// output pixel; devices = K*K*c_job*channels for c_job dividing channels.
[[nodiscard]] ImaLayer depthwise_ima_layer(const ImaConfig& ima, int64_t channels, int64_t kernel,
                                           int64_t c_job, int64_t vectors);

struct ImaLayerCost {
  int64_t jobs = 0;
  int64_t cycles = 0;          // config_cycles + the job sequence
  int64_t compute_cycles = 0;  // sum of the compute phases (analog busy time in cycles)
  int64_t stream_cycles = 0;   // sum of stream-in and stream-out phases (bus busy)
};

[[nodiscard]] ImaLayerCost ima_layer_cost(const ImaConfig& ima, double frequency,
                                          const ImaLayer& layer);

}  // namespace hetcim::cluster
