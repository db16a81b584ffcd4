#include "partition/cbc.h"

#include <unistd.h>

#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <CoinMpsIO.hpp>
#include <CoinPackedMatrix.hpp>
#include <CoinPackedVector.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "util/error.h"
#include "util/interrupt_cleanup.h"

namespace hetcim::partition {
namespace {

int no_callback(CbcModel*, int) {
  return 0;
}

// CBC's command-line driver (CbcMain0/CbcMain1) keeps static state: two solves at once in one
// process corrupt each other's results (seen in a threaded differential run) and break its
// printing switch. Solves are therefore serialised; the exact solvers have no such limit.
std::mutex& cbc_mutex() {
  static std::mutex m;
  return m;
}

std::string number(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace

int LinearModel::add_col(std::string name, double lb, double ub, double cost, bool integer) {
  col_lb.push_back(lb);
  col_ub.push_back(ub);
  obj.push_back(cost);
  is_int.push_back(integer ? 1 : 0);
  col_names.push_back(std::move(name));
  return static_cast<int>(col_lb.size()) - 1;
}

void LinearModel::add_row(std::string name, std::vector<std::pair<int, double>> coefs, double lb,
                          double ub) {
  std::erase_if(coefs, [](const std::pair<int, double>& c) { return c.second == 0.0; });
  rows.push_back(std::move(coefs));
  row_lb.push_back(lb);
  row_ub.push_back(ub);
  row_names.push_back(std::move(name));
}

void load_linear_model(const LinearModel& m, OsiClpSolverInterface& solver) {
  CoinPackedMatrix matrix(false, 0, 0);
  matrix.setDimensions(0, static_cast<int>(m.col_lb.size()));
  for (const auto& row : m.rows) {
    CoinPackedVector v;
    for (auto [c, a] : row) v.insert(c, a);
    matrix.appendRow(v);
  }
  solver.loadProblem(matrix, m.col_lb.data(), m.col_ub.data(), m.obj.data(), m.row_lb.data(),
                     m.row_ub.data());
  for (size_t c = 0; c < m.is_int.size(); ++c)
    if (m.is_int[c]) solver.setInteger(static_cast<int>(c));
  solver.setObjSense(1.0);
}

std::string linear_model_text(const LinearModel& m, double unit, MilpFileFormat format,
                              const std::string& objective_name, const ModelFileHeader& header) {
  for (const std::vector<std::string>* names : {&m.col_names, &m.row_names})
    for (const std::string& s : *names)
      if (s.empty() || s.find_first_of(" \t\r\n") != std::string::npos)
        throw user_error("cannot write the MILP: the name '", s,
                         "' (from an engine or link name) is empty or holds white space");
  OsiClpSolverInterface solver;
  load_linear_model(m, solver);
  std::vector<const char*> rows, cols;
  for (const std::string& s : m.row_names) rows.push_back(s.c_str());
  for (const std::string& s : m.col_names) cols.push_back(s.c_str());
  // COIN writes to a name of its own choosing (Osi's native MPS writer gzips and appends .gz), so
  // it writes an uncompressed scratch file (registered for removal on an interrupt); hetcim reads
  // it back and puts the header's comments at the top.
  char scratch[] = "/tmp/hetcim-milp-XXXXXX";
  const int fd = ::mkstemp(scratch);
  if (fd < 0) throw user_error("cannot write the MILP: no scratch file in /tmp");
  ::close(fd);
  with_cleanup_lock([&] { register_temp_file_locked(scratch); });
  struct Remove {
    const char* f;
    ~Remove() {
      std::remove(f);
      unregister_temp_file(f);
    }
  } remove_scratch{scratch};
  int rc = 0;
  if (format == MilpFileFormat::Mps) {
    CoinMpsIO writer;
    std::vector<char> integrality(m.is_int.begin(), m.is_int.end());
    writer.setMpsData(*solver.getMatrixByCol(), solver.getInfinity(), solver.getColLower(),
                      solver.getColUpper(), solver.getObjCoefficients(), integrality.data(),
                      solver.getRowLower(), solver.getRowUpper(), cols.data(), rows.data());
    writer.setProblemName("hetcim");
    rc = writer.writeMps(scratch, /*compression=*/0, /*formatType=*/1, /*numberAcross=*/2);
  } else {
    rows.push_back(objective_name.c_str());  // writeLpNative wants the objective name last
    rc = solver.writeLpNative(scratch, rows.data(), cols.data(), 1e-12, 6, 15, 1.0, true);
  }
  if (rc != 0) throw user_error("cannot write the MILP: COIN's writer failed (", rc, ")");
  std::ifstream in(scratch, std::ios::binary);
  std::stringstream body;
  body << in.rdbuf();
  const std::string c = format == MilpFileFormat::Mps ? "* " : "\\ ";
  const std::string u = number(unit);
  std::string text =
      c + header.title + "\n" + c + "time unit: every time column and coefficient (" +
      header.time_columns + ") is in units of " + u + " s\n" + c +
      "(chosen per instance; the objective value times " + u + " is " + header.objective + ")\n";
  for (const std::string& line : header.notes) text += c + line + "\n";
  return text + body.str();
}

CbcOutcome run_cbc(const LinearModel& m, const CbcOptions& opt) {
  const std::lock_guard<std::mutex> lock(cbc_mutex());
  OsiClpSolverInterface solver;
  load_linear_model(m, solver);
  solver.messageHandler()->setLogLevel(0);
  CbcModel model(solver);
  model.messageHandler()->setLogLevel(0);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  data.useSignalHandler_ = false;
  CbcMain0(model, data);
  std::vector<std::string> args = {"hetcim",
                                   "-log",
                                   "0",
                                   "-slog",
                                   "0",
                                   "-timeMode",
                                   "elapsed",
                                   "-ratioGap",
                                   number(opt.relative_gap),
                                   "-randomCbcSeed",
                                   std::to_string(opt.seed),
                                   "-integerTolerance",
                                   "1e-8"};
  if (std::isfinite(opt.time_limit_seconds)) {
    args.push_back("-seconds");
    args.push_back(number(opt.time_limit_seconds));
  }
  if (opt.threads > 1) {
    args.push_back("-threads");
    args.push_back(std::to_string(opt.threads));
  }
  args.push_back("-solve");
  args.push_back("-quit");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CbcOutcome r;
  const auto t0 = std::chrono::steady_clock::now();
  CbcMain1(static_cast<int>(argv.size()), argv.data(), model, no_callback, data);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.nodes = model.getNodeCount();
  if (model.isAbandoned()) {
    r.abandoned = true;
    return r;
  }
  r.bound = model.getBestPossibleObjValue();
  const double* sol = model.bestSolution();
  // CBC can report infeasibility when its time limit stops it in preprocessing, before any
  // search (seen under load with a 1 s limit on YOLOv5n): no proof then, only no solution.
  r.proven_infeasible =
      model.isProvenInfeasible() && sol == nullptr && !model.maximumSecondsReached();
  if (sol == nullptr) return r;
  r.solution.assign(sol, sol + m.cols());
  r.objective = model.getObjValue();
  r.proven_optimal = model.isProvenOptimal();
  return r;
}

}  // namespace hetcim::partition
