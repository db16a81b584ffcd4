// A mixed-integer linear model as plain arrays and its solve on COIN-OR CBC: the one place that
// drives CBC, shared by seed 000's MILP (milp.h) and the K-engine MILP (multi_milp.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "partition/status.h"

class OsiClpSolverInterface;

namespace hetcim::partition {

// Columns, sparse rows, bounds and names; minimised.
struct LinearModel {
  std::vector<double> col_lb, col_ub, obj;
  std::vector<char> is_int;
  std::vector<std::string> col_names;
  std::vector<std::vector<std::pair<int, double>>> rows;
  std::vector<double> row_lb, row_ub;
  std::vector<std::string> row_names;

  [[nodiscard]] size_t cols() const { return col_lb.size(); }
  // Returns the new column's index.
  int add_col(std::string name, double lb, double ub, double cost, bool integer);
  // Zero coefficients are dropped.
  void add_row(std::string name, std::vector<std::pair<int, double>> coefs, double lb, double ub);
};

struct CbcOptions {
  double time_limit_seconds = 60.0;  // wall clock (CBC timeMode elapsed); > 0, may be infinity
  double relative_gap = 0.0;         // >= 0
  int threads = 1;                   // >= 1; more than 1 is not deterministic
  int seed = 1;                      // CBC's random seed
};

struct CbcOutcome {
  bool abandoned = false;          // numerical difficulties
  bool proven_optimal = false;     // the incumbent is optimal (within relative_gap)
  bool proven_infeasible = false;  // no solution exists
  std::vector<double> solution;    // the incumbent; empty when there is none
  double objective = 0.0;          // the incumbent's objective (model units)
  double bound = 0.0;              // CBC's best possible objective (model units)
  double seconds = 0.0;            // wall clock of the CBC call
  int64_t nodes = 0;
};

// Loads the model into a Clp interface (for the file writers).
void load_linear_model(const LinearModel& m, OsiClpSolverInterface& solver);

enum class MilpFileFormat { Mps, Lp };

// What a model file's comment lines at the top say: a title, then "time unit: every time column
// and coefficient (<time_columns>) is in units of <unit> s" and "(chosen per instance; the
// objective value times <unit> is <objective>)", then the notes.
struct ModelFileHeader {
  std::string title;
  std::string time_columns;
  std::string objective;
  std::vector<std::string> notes;
};

// The model (time columns in units of `unit` seconds) as an MPS or LP file for another solver
// (COIN's writers); the LP file names its objective `objective_name`. UserError when it cannot be
// written (a column or row name with white space, from an engine or link name).
[[nodiscard]] std::string linear_model_text(const LinearModel& m, double unit,
                                            MilpFileFormat format,
                                            const std::string& objective_name,
                                            const ModelFileHeader& header);

// Solves with CBC's standard driver (cuts, heuristics, branch-and-bound), silently. Thread-safe,
// but calls from several threads run one after another: CBC's driver keeps static state.
[[nodiscard]] CbcOutcome run_cbc(const LinearModel& m, const CbcOptions& opt);

// The CBC options of either MILP's options (time_limit_seconds, relative_gap, threads, seed).
template <class Options>
[[nodiscard]] CbcOptions cbc_options(const Options& o) {
  return {o.time_limit_seconds, o.relative_gap, o.threads, o.seed};
}

// What an outcome says in the fields both MILPs' results share (call, message, status, bound,
// seconds, nodes; `unit`: model units -> seconds). True when there is an incumbent to replay:
// status Optimal or TimeLimit, set here.
template <class Result>
[[nodiscard]] bool take_outcome(const CbcOutcome& cbc, double unit, Result& r) {
  r.seconds = cbc.seconds;
  r.nodes = cbc.nodes;
  if (cbc.abandoned) {
    r.call = CallStatus::SolverFailed;
    r.message = "CBC abandoned the solve (numerical difficulties)";
    return false;
  }
  r.bound = cbc.bound * unit;
  if (cbc.proven_infeasible) {
    r.status = SolveStatus::Infeasible;
    return false;
  }
  if (cbc.solution.empty()) {
    r.status = SolveStatus::NoSolution;
    r.bound = r.bound < 0.0 ? 0.0 : r.bound;  // as std::max(bound, 0.0)
    return false;
  }
  r.status = cbc.proven_optimal ? SolveStatus::Optimal : SolveStatus::TimeLimit;
  return true;
}

}  // namespace hetcim::partition
