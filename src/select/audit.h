// Monitoring a deployed policy with a small labelled audit stream (beyond the paper; issue 14
// item 5, the statistical part): each audited query that the policy accepted is labelled, and
// after every one the monitor gives bounds on the accepted error rate R that hold at every time
// simultaneously (anytime-valid), so the stream may be watched continuously and stopped whenever.
//
// Construction: at audit count n (n = 1, 2, ...) the exact Clopper-Pearson bounds of
// clopper_pearson.h at level delta_n = delta * 6 / (pi^2 n^2); since sum_n delta_n = delta, the
// union bound gives P[exists n: R > upper_n] <= delta and likewise for the lower bounds. It is
// conservative (a log n price against a fixed-n bound) but exact in the sense that nothing is
// approximated.
//
// Re-certification rule: the certificate is *broken* as soon as lower_n > r (the accepted error
// rate exceeds the target, with confidence 1 - delta over the whole stream); then the policy must
// be re-calibrated (new H/P/C on the drifted chip). `upper_n <= r` says the stream itself supports
// the target. Under exchangeability of the audited queries with the deployment distribution at
// each time; if R changes over time the bounds cover the error rate of the queries seen so far.
#pragma once

#include <cstdint>

namespace hetcim::select {

struct AuditOptions {
  double risk = 0.10;   // r, (0, 1)
  double delta = 0.05;  // over the whole stream, (0, 1)
};

class AuditMonitor {
 public:
  explicit AuditMonitor(AuditOptions options);  // UserError when an option is out of range

  // One audited accepted query: its answer was wrong (true) or right.
  void observe(bool wrong);

  [[nodiscard]] int64_t audited() const { return n_; }
  [[nodiscard]] int64_t errors() const { return errors_; }
  [[nodiscard]] double level() const;        // delta_n of the current n (delta before any)
  [[nodiscard]] double upper_bound() const;  // 1 before any audit
  [[nodiscard]] double lower_bound() const;  // 0 before any audit
  [[nodiscard]] bool broken() const { return lower_bound() > options_.risk; }

 private:
  AuditOptions options_;
  int64_t n_ = 0, errors_ = 0;
};

// A label-free signal: does the deployed policy still accept the share of queries it accepted on
// the certificate split? Reference: the two-sided Clopper-Pearson interval of the certified
// coverage (accepted_C of size_C, each side at reference_delta / 2). Online: after each query the
// anytime-valid interval of the running coverage (each side at anytime_level(delta, n) / 2).
// Shifted when the two intervals are disjoint. Without a shift (queries exchangeable with C) a
// false alarm over the whole stream has probability <= reference_delta + delta. A shift of
// coverage means the chip or the inputs changed (drift, a new chip, new data): re-calibrate. It
// needs no labels, and it cannot see a change of the error rate at constant coverage (that is
// the audit monitor's job).
struct CoverageMonitorOptions {
  int64_t certified_accepted = 0;  // accepted rows of C
  int64_t certified_size = 0;      // rows of C, >= 1
  double reference_delta = 0.05;   // (0, 1)
  double delta = 0.05;             // (0, 1)
};

class CoverageMonitor {
 public:
  explicit CoverageMonitor(CoverageMonitorOptions options);  // UserError when out of range

  void observe(bool accepted);

  [[nodiscard]] int64_t queries() const { return n_; }
  [[nodiscard]] double coverage() const;  // running; 0 before any query
  [[nodiscard]] double reference_lower() const { return ref_lo_; }
  [[nodiscard]] double reference_upper() const { return ref_hi_; }
  [[nodiscard]] double lower_bound() const;  // running coverage, anytime-valid; 0 before any
  [[nodiscard]] double upper_bound() const;  // 1 before any
  [[nodiscard]] bool shifted() const;

 private:
  CoverageMonitorOptions options_;
  double ref_lo_ = 0.0, ref_hi_ = 1.0;
  int64_t n_ = 0, accepted_ = 0;
};

// delta * 6 / (pi^2 n^2), the level spent at audit n (n >= 1).
[[nodiscard]] double anytime_level(double delta, int64_t n);

}  // namespace hetcim::select
