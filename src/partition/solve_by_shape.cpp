#include "partition/solve_by_shape.h"

#include <algorithm>
#include <cmath>

#include "partition/exact.h"
#include "util/error.h"

namespace hetcim::partition {

MultiExactResult solve_two_device_form(const MultiProblem& p, const TwoDeviceForm& form,
                                       const MultiExactOptions& opt) {
  ExactOptions eo;
  eo.time_limit_seconds = opt.time_limit_seconds;
  eo.node_limit = opt.node_limit;
  const ExactResult e = solve_exact(form.problem, eo);
  MultiExactResult r;
  r.solver = MultiExactResult::kTwoDeviceSolver;
  r.status = e.status;
  r.nodes = e.nodes;
  r.leaves = e.leaves;
  r.seq_nodes = e.seq_nodes;
  r.seconds = e.seconds;
  r.cut_nodes = e.cut_nodes;
  r.jumping_edges = e.jumping_edges;
  r.redundant_edges = e.redundant_edges;
  r.segments = e.segments.size();
  for (const ExactSegmentStats& s : e.segments) {
    r.largest_segment = std::max(r.largest_segment, s.interior);
    r.front_points += s.front_points;
  }
  r.incumbent = e.incumbent;
  r.bound = e.bound * p.latency_weight;
  const Schedule& s = e.schedule;
  if (s.assignment.mode.size() != p.size()) return r;  // no plan (infeasible, or a cutoff)
  const size_t n = p.size();
  std::vector<int> option(n);
  for (size_t v = 0; v < n; ++v)
    option[v] = form.option_of(static_cast<int>(v), s.assignment.mode[v]);
  // The jobs in the order they start in the two-device schedule (a zero-length job before the
  // others starting with it, ties otherwise in the default order, which is topological): the list
  // schedule of that order is the two-device schedule.
  std::vector<int> order = multi_default_order(p, option);
  std::vector<double> start(n + p.dag.edges.size(), 0.0), finish(start.size(), 0.0);
  for (size_t v = 0; v < n; ++v) {
    start[v] = s.start[v];
    finish[v] = s.finish[v];
  }
  for (const Transfer& t : s.transfers) {
    start[n + static_cast<size_t>(t.key)] = t.start;
    finish[n + static_cast<size_t>(t.key)] = t.finish;
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto i = static_cast<size_t>(a), j = static_cast<size_t>(b);
    return start[i] != start[j] ? start[i] < start[j] : finish[i] < finish[j];
  });
  r.schedule = multi_simulate(p, option, order);
  if (std::abs(r.schedule.makespan - s.makespan) > multi_time_tolerance(p))
    throw internal_error("two-device solver on a K-engine problem: the replayed makespan ",
                         r.schedule.makespan, " s differs from the two-device schedule's ",
                         s.makespan, " s");
  const std::vector<MultiViolation> bad = multi_check(p, r.schedule);
  if (!bad.empty())
    throw internal_error(
        "two-device solver on a K-engine problem: the replayed plan fails the "
        "check: ",
        bad.front().message);
  r.objective = r.schedule.objective;
  r.bound = r.status == SolveStatus::Optimal ? r.objective : std::min(r.bound, r.objective);
  return r;
}

MultiExactResult solve_by_shape(const MultiProblem& p, const MultiExactOptions& opt) {
  if (const std::optional<TwoDeviceForm> form = two_device_form(p))
    return solve_two_device_form(p, *form, opt);
  return solve_multi_exact(p, opt);
}

}  // namespace hetcim::partition
