#include "select/race.h"

#include <cmath>
#include <limits>

#include "select/bias_correction.h"
#include "select/selection.h"
#include "util/error.h"

namespace hetcim::select {

void validate(const RaceOptions& o, int64_t rows, bool separate_test) {
  auto unit = [](double v, const char* name) {
    if (!(v > 0.0 && v < 1.0))
      throw user_error("RACE options: '", name, "' must lie in (0, 1), got ", v);
  };
  unit(o.risk, "risk");
  unit(o.certificate_delta, "certificate_delta");
  unit(o.design_risk, "design_risk");
  unit(o.design_delta, "design_delta");
  if (o.bias_correction && o.splits.hardware < 1)
    throw user_error("RACE options: bias correction needs a hardware split of at least 1 row");
  validate(o.energy);
  if (separate_test && o.splits.test != 0)
    throw user_error(
        "RACE options: with a separate test set the test split is that set; the "
        "test split size must be 0, got ",
        o.splits.test);
  (void)make_splits(rows, o.splits, o.split_seed);  // sizes against the rows
}

namespace {

int64_t check_pool(const PoolLogits& p) {
  if (p.classes < 2) throw user_error("RACE pool: need at least 2 classes, got ", p.classes);
  const int64_t rows = static_cast<int64_t>(p.labels.size());
  for (size_t i = 0; i < p.labels.size(); ++i)
    if (p.labels[i] >= p.classes)
      throw user_error("RACE pool: label ", int(p.labels[i]), " of row ", i, " is not below ",
                       p.classes, " classes");
  const size_t cells = static_cast<size_t>(rows * p.classes);
  if (p.reference_logits.size() != cells)
    throw user_error("RACE pool: the reference logits have ", p.reference_logits.size(),
                     " values, expected ", rows, " rows x ", p.classes, " classes");
  if (p.accelerators.empty()) throw user_error("RACE pool: no accelerator");
  for (const AcceleratorLogits& a : p.accelerators) {
    if (a.logits.size() != cells)
      throw user_error("RACE pool: accelerator '", a.name, "' has ", a.logits.size(),
                       " logits, expected ", rows, " rows x ", p.classes, " classes");
    if (!std::isfinite(a.energy) || a.energy < 0.0)
      throw user_error("RACE pool: accelerator '", a.name,
                       "' needs an activation energy >= 0 J, got ", a.energy);
    for (size_t i = 0; i < a.logits.size(); ++i)
      if (!std::isfinite(a.logits[i]))
        throw user_error("RACE pool: accelerator '", a.name, "': logit ", i % p.classes, " of row ",
                         i / p.classes, " is not finite");
  }
  if (p.test_labels.empty()) {
    if (!p.test_reference_logits.empty())
      throw user_error("RACE pool: test reference logits without test labels");
    for (const AcceleratorLogits& a : p.accelerators)
      if (!a.test_logits.empty())
        throw user_error("RACE pool: accelerator '", a.name,
                         "' has test logits but the pool has "
                         "no separate test labels");
    return rows;
  }
  PoolLogits test;
  test.classes = p.classes;
  test.labels = p.test_labels;
  test.reference_logits = p.test_reference_logits;
  for (const AcceleratorLogits& a : p.accelerators)
    test.accelerators.push_back({a.name + " (test set)", a.energy, a.test_logits, {}});
  (void)check_pool(test);
  return rows;
}

// The calibration rows followed by the separate test rows, as one table.
PoolLogits concatenated(const PoolLogits& p) {
  PoolLogits c;
  c.classes = p.classes;
  c.labels = p.labels;
  c.labels.insert(c.labels.end(), p.test_labels.begin(), p.test_labels.end());
  c.reference_logits = p.reference_logits;
  c.reference_logits.insert(c.reference_logits.end(), p.test_reference_logits.begin(),
                            p.test_reference_logits.end());
  for (const AcceleratorLogits& a : p.accelerators) {
    AcceleratorLogits b{a.name, a.energy, a.logits, {}};
    b.logits.insert(b.logits.end(), a.test_logits.begin(), a.test_logits.end());
    c.accelerators.push_back(std::move(b));
  }
  return c;
}

template <typename T>
std::vector<T> gather(const std::vector<T>& v, const std::vector<int64_t>& rows) {
  std::vector<T> out;
  out.reserve(rows.size());
  for (int64_t r : rows) out.push_back(v[static_cast<size_t>(r)]);
  return out;
}

std::vector<uint8_t> correctness(const std::vector<int>& pred, const std::vector<uint8_t>& labels) {
  std::vector<uint8_t> c(pred.size());
  for (size_t i = 0; i < pred.size(); ++i) c[i] = pred[i] == labels[i];
  return c;
}

double accuracy_on(const std::vector<int>& pred, const std::vector<uint8_t>& labels,
                   const std::vector<int64_t>& rows) {
  if (rows.empty()) return 0.0;
  int64_t right = 0;
  for (int64_t r : rows) right += pred[static_cast<size_t>(r)] == labels[static_cast<size_t>(r)];
  return static_cast<double>(right) / static_cast<double>(rows.size());
}

// Per accelerator: corrected logits' answers and scores over all rows.
struct Scored {
  std::vector<float> logits;
  std::vector<int> pred;
  std::vector<uint8_t> correct;
  std::vector<double> scores;
};

}  // namespace

RaceResult run_race(const PoolLogits& given, const RaceOptions& o) {
  const int64_t calibration_rows = check_pool(given);
  const bool separate_test = !given.test_labels.empty();
  validate(o, calibration_rows, separate_test);
  const PoolLogits joined = separate_test ? concatenated(given) : PoolLogits{};
  const PoolLogits& pool = separate_test ? joined : given;
  const int64_t rows = static_cast<int64_t>(pool.labels.size());
  const int64_t K = pool.classes;
  RaceResult r;
  r.rows = rows;
  r.splits = make_splits(calibration_rows, o.splits, o.split_seed);
  for (int64_t t = calibration_rows; t < rows; ++t) r.splits.test.push_back(t);
  const Splits& s = r.splits;

  std::vector<Scored> scored;
  std::vector<Candidate> candidates;
  for (const AcceleratorLogits& a : pool.accelerators) {
    AcceleratorResult ar;
    ar.name = a.name;
    ar.energy = a.energy;
    ar.bias = o.bias_correction ? logit_bias(a.logits, pool.reference_logits, K, s.hardware)
                                : std::vector<double>(static_cast<size_t>(K), 0.0);
    Scored sc;
    sc.logits = apply_bias(a.logits, K, ar.bias);
    sc.pred = predictions(sc.logits, K);
    sc.correct = correctness(sc.pred, pool.labels);
    sc.scores = confidence_scores(sc.logits, K, o.score);
    ar.fit = fit_threshold(gather(sc.scores, s.policy), gather(sc.correct, s.policy),
                           FitOptions{o.design_risk, o.design_delta});
    const Candidate c{ar.fit.stats.coverage(), a.energy, o.energy.communication};
    ar.utility = utility(c);
    candidates.push_back(c);
    ar.test =
        selective_stats(gather(sc.scores, s.test), gather(sc.correct, s.test), ar.fit.threshold);
    r.accelerators.push_back(std::move(ar));
    scored.push_back(std::move(sc));
  }
  r.selected = select_accelerator(candidates);

  // Certificate on C: the frozen policy of the selected accelerator, evaluated once. Without a
  // selection nothing is accepted (coverage 0), which certifies nothing.
  const double inf = std::numeric_limits<double>::infinity();
  const size_t sel = r.selected.value_or(0);
  const double threshold = r.selected ? r.accelerators[sel].fit.threshold : inf;
  r.certificate =
      certify(gather(scored[sel].scores, s.certificate), gather(scored[sel].correct, s.certificate),
              threshold, o.risk, o.certificate_delta);

  // Descriptive figures on T.
  const std::vector<int> digital = predictions(pool.reference_logits, K);
  r.digital_accuracy = accuracy_on(digital, pool.labels, s.test);
  std::vector<int> hybrid = digital;
  if (r.selected)
    for (int64_t t : s.test)
      if (scored[sel].scores[static_cast<size_t>(t)] >= threshold)
        hybrid[static_cast<size_t>(t)] = scored[sel].pred[static_cast<size_t>(t)];
  r.hybrid_accuracy = accuracy_on(hybrid, pool.labels, s.test);
  std::vector<float> mean(static_cast<size_t>(rows * K), 0.0f);
  for (int64_t t : s.test)
    for (int64_t k = 0; k < K; ++k) {
      double sum = 0.0;
      for (const Scored& sc : scored) sum += sc.logits[static_cast<size_t>(t * K + k)];
      mean[static_cast<size_t>(t * K + k)] =
          static_cast<float>(sum / static_cast<double>(scored.size()));
    }
  r.ensemble_accuracy = accuracy_on(predictions(mean, K), pool.labels, s.test);

  // Energies per query.
  std::vector<double> energies;
  for (const AcceleratorLogits& a : pool.accelerators) energies.push_back(a.energy);
  EnergyFigures& e = r.energy;
  e.ensemble = ensemble_energy(energies, K, o.energy);
  e.selected_activation =
      r.selected ? activation_energy(pool.accelerators[sel].energy, K, o.energy) : 0.0;
  if (e.ensemble > 0.0) e.activation_reduction = 1.0 - e.selected_activation / e.ensemble;
  const double cert_coverage = r.selected ? r.certificate.stats.coverage() : 0.0;
  e.at_certificate = selective_figures(e.selected_activation, e.ensemble, cert_coverage, o.energy);
  if (!s.test.empty()) {
    const double test_coverage = r.selected ? r.accelerators[sel].test.coverage() : 0.0;
    e.at_test = selective_figures(e.selected_activation, e.ensemble, test_coverage, o.energy);
  }
  return r;
}

}  // namespace hetcim::select
