#include "cluster/ima_model.h"

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::cluster {
namespace {

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

int64_t bus_bytes_per_cycle(const ImaConfig& ima) {
  HETCIM_ASSERT(ima.bus_width_bits >= 8 && ima.bus_width_bits % 8 == 0);
  return ima.bus_width_bits / 8;
}

int64_t compute_cycles(const ImaConfig& ima, double frequency) {
  HETCIM_ASSERT(frequency > 0 && ima.t_mvm > 0);
  const double x = ima.t_mvm * frequency;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(x * (1.0 - 1e-9))));
}

JobPhases job_phases(const ImaConfig& ima, double frequency, const JobShape& job) {
  HETCIM_ASSERT(job.rows > 0 && job.cols > 0 && job.rows <= ima.rows && job.cols <= ima.cols,
                "job ", job.rows, "x", job.cols);
  HETCIM_ASSERT(ima.stream_efficiency > 0 && ima.stream_efficiency <= 1);
  const int64_t bus = bus_bytes_per_cycle(ima);
  // Beats of the data interface, each retried until it wins its TCDM banks (area.h).
  const auto stream = [&](int64_t bytes) {
    const int64_t beats = ceil_div(bytes, bus);
    if (ima.stream_efficiency >= 1.0) return beats;
    return static_cast<int64_t>(
        std::ceil(static_cast<double>(beats) / ima.stream_efficiency - 1e-9));
  };
  return {stream(job.rows * ima.in_bytes), compute_cycles(ima, frequency) + ima.job_overhead_cycles,
          stream(job.cols * ima.out_bytes)};
}

int64_t sequential_cycles(const JobPhases& p, int64_t jobs) {
  HETCIM_ASSERT(jobs >= 0);
  return jobs * (p.stream_in + p.compute + p.stream_out);
}

int64_t pipelined_cycles(const JobPhases& p, int64_t jobs) {
  HETCIM_ASSERT(jobs >= 0);
  const int64_t a = p.stream_in, b = p.stream_out, c = p.compute;
  if (jobs == 0) return 0;
  if (jobs == 1) return a + c + b;
  return a + std::max(c, a) + (jobs - 2) * std::max(c, a + b) + std::max(c, b) + b;
}

int64_t job_sequence_cycles(const JobPhases& p, int64_t jobs, ImaExecution e) {
  return e == ImaExecution::Sequential ? sequential_cycles(p, jobs) : pipelined_cycles(p, jobs);
}

int64_t job_sequence_cycles(std::span<const JobPhases> jobs, ImaExecution e) {
  const size_t n = jobs.size();
  if (n == 0) return 0;
  int64_t total = 0;
  if (e == ImaExecution::Sequential) {
    for (const JobPhases& p : jobs) total += p.stream_in + p.compute + p.stream_out;
    return total;
  }
  // Period i (the compute phase of job i) overlaps the stream-in of job i+1 and then the
  // stream-out of job i-1 on the shared interface.
  total = jobs[0].stream_in;
  for (size_t i = 0; i < n; ++i) {
    const int64_t in_next = i + 1 < n ? jobs[i + 1].stream_in : 0;
    const int64_t out_prev = i > 0 ? jobs[i - 1].stream_out : 0;
    total += std::max(jobs[i].compute, in_next + out_prev);
  }
  return total + jobs[n - 1].stream_out;
}

double ima_peak_ops(const ImaConfig& ima) {
  return 2.0 * static_cast<double>(ima.rows) * static_cast<double>(ima.cols) / ima.t_mvm;
}

ImaLayer dense_ima_layer(const ImaConfig& ima, int64_t rows, int64_t cols, int64_t vectors) {
  HETCIM_ASSERT(rows > 0 && cols > 0 && vectors > 0);
  ImaLayer l;
  l.vectors = vectors;
  const int64_t row_tiles = ceil_div(rows, ima.rows), col_tiles = ceil_div(cols, ima.cols);
  for (int64_t r = 0; r < row_tiles; ++r) {
    const int64_t tr = std::min(ima.rows, rows - r * ima.rows);
    for (int64_t q = 0; q < col_tiles; ++q)
      l.jobs_per_vector.push_back({tr, std::min(ima.cols, cols - q * ima.cols)});
  }
  l.macs = rows * cols * vectors;
  l.devices = rows * cols;
  l.partial_sum_adds = (row_tiles - 1) * cols * vectors;
  return l;
}

ImaLayer depthwise_ima_layer(const ImaConfig& ima, int64_t channels, int64_t kernel, int64_t c_job,
                             int64_t vectors) {
  if (c_job < 1) throw user_error("depth-wise mapping on the IMA: c_job must be >= 1, got ", c_job);
  if (kernel * kernel * std::min(c_job, channels) > ima.rows ||
      std::min(c_job, channels) > ima.cols)
    throw user_error("depth-wise mapping on the IMA: a c_job = ", c_job, " slice of a ", kernel,
                     "x", kernel, " kernel needs ", kernel * kernel * std::min(c_job, channels),
                     "x", std::min(c_job, channels), " crossbar cells, more than the ", ima.rows,
                     "x", ima.cols, " crossbar");
  HETCIM_ASSERT(channels > 0 && vectors > 0);
  ImaLayer l;
  l.vectors = vectors;
  for (int64_t c0 = 0; c0 < channels; c0 += c_job) {
    const int64_t g = std::min(c_job, channels - c0);
    l.jobs_per_vector.push_back({kernel * kernel * g, g});
    l.devices += kernel * kernel * g * g;
  }
  l.macs = kernel * kernel * channels * vectors;
  return l;
}

ImaLayerCost ima_layer_cost(const ImaConfig& ima, double frequency, const ImaLayer& layer) {
  HETCIM_ASSERT(!layer.jobs_per_vector.empty() && layer.vectors > 0);
  std::vector<JobPhases> per_vector;
  for (const JobShape& j : layer.jobs_per_vector)
    per_vector.push_back(job_phases(ima, frequency, j));
  ImaLayerCost cost;
  cost.jobs = static_cast<int64_t>(per_vector.size()) * layer.vectors;
  if (per_vector.size() == 1) {
    cost.cycles = job_sequence_cycles(per_vector[0], layer.vectors, ima.execution);
  } else {
    std::vector<JobPhases> all;
    all.reserve(static_cast<size_t>(cost.jobs));
    for (int64_t v = 0; v < layer.vectors; ++v)
      all.insert(all.end(), per_vector.begin(), per_vector.end());
    cost.cycles = job_sequence_cycles(all, ima.execution);
  }
  for (const JobPhases& p : per_vector) {
    cost.compute_cycles += p.compute * layer.vectors;
    cost.stream_cycles += (p.stream_in + p.stream_out) * layer.vectors;
  }
  cost.cycles += ima.config_cycles;
  return cost;
}

}  // namespace hetcim::cluster
