// Clopper-Pearson bounds against closed forms, published tables and the defining binomial tail
// computed here by direct summation (independent of Boost's incomplete beta).
#include "select/clopper_pearson.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "util/error.h"

namespace hetcim::select {
namespace {

// P[Binomial(n, p) <= k] by summing the pmf in log space (long double).
double binomial_cdf(int64_t k, int64_t n, double p) {
  long double sum = 0.0L;
  for (int64_t i = 0; i <= k; ++i) {
    const long double log_pmf =
        std::lgamma(static_cast<long double>(n + 1)) -
        std::lgamma(static_cast<long double>(i + 1)) -
        std::lgamma(static_cast<long double>(n - i + 1)) +
        static_cast<long double>(i) * std::log(static_cast<long double>(p)) +
        static_cast<long double>(n - i) * std::log1p(-static_cast<long double>(p));
    sum += std::exp(log_pmf);
  }
  return static_cast<double>(sum);
}

TEST(ClopperPearson, ZeroErrorsIsOneMinusDeltaToTheOneOverN) {
  for (int64_t n : {1, 2, 10, 28, 100, 2000})
    for (double delta : {0.01, 0.05, 0.10, 0.5})
      EXPECT_NEAR(clopper_pearson_upper(0, n, delta),
                  1.0 - std::pow(delta, 1.0 / static_cast<double>(n)), 1e-12)
          << "n " << n << " delta " << delta;
}

TEST(ClopperPearson, OneSuccessLeftIsOneMinusDeltaRootAndAllErrorsIsOne) {
  // e = n - 1: Beta(n, 1) has cdf x^n, so U = (1 - delta)^(1/n).
  for (int64_t n : {1, 5, 40})
    EXPECT_NEAR(clopper_pearson_upper(n - 1, n, 0.05), std::pow(0.95, 1.0 / static_cast<double>(n)),
                1e-12);
  EXPECT_EQ(clopper_pearson_upper(7, 7, 0.05), 1.0);
  EXPECT_EQ(clopper_pearson_upper(0, 0, 0.05), 1.0);  // paper convention, n = 0
  // Lower bounds mirror: e = n gives delta^(1/n), e = 0 gives 0.
  for (int64_t n : {1, 3, 50})
    EXPECT_NEAR(clopper_pearson_lower(n, n, 0.05), std::pow(0.05, 1.0 / n), 1e-12);
  EXPECT_EQ(clopper_pearson_lower(0, 9, 0.05), 0.0);
}

TEST(ClopperPearson, TabulatedTwoSidedIntervals) {
  // Exact 95 % two-sided intervals = one-sided bounds at delta = 0.025 (standard tables).
  struct Row {
    int64_t e, n;
    double lo, hi;
  };
  for (const Row r : {Row{1, 10, 0.0025, 0.4450}, Row{5, 10, 0.1871, 0.8129},
                      Row{2, 20, 0.0123, 0.3170}, Row{0, 10, 0.0, 0.3085}}) {
    EXPECT_NEAR(clopper_pearson_lower(r.e, r.n, 0.025), r.lo, 1e-4) << r.e << "/" << r.n;
    EXPECT_NEAR(clopper_pearson_upper(r.e, r.n, 0.025), r.hi, 1e-4) << r.e << "/" << r.n;
  }
  // One-sided 95 % upper bound for 1 failure in 10 trials: 0.3942.
  EXPECT_NEAR(clopper_pearson_upper(1, 10, 0.05), 0.3942, 1e-4);
}

TEST(ClopperPearson, UpperBoundSolvesTheBinomialTailEquation) {
  // The defining property: P[Binomial(n, U) <= e] = delta (and P[Binomial(n, L) >= e] = delta).
  for (int64_t n : {7, 60, 500, 2000})
    for (int64_t e : {int64_t{1}, std::max<int64_t>(1, n / 10), n / 2, n - 2})
      for (double delta : {0.05, 0.10}) {
        const double u = clopper_pearson_upper(e, n, delta);
        EXPECT_NEAR(binomial_cdf(e, n, u), delta, 1e-9) << e << "/" << n;
        const double l = clopper_pearson_lower(e, n, delta);
        EXPECT_NEAR(1.0 - binomial_cdf(e - 1, n, l), delta, 1e-9) << e << "/" << n;
        EXPECT_LT(l, static_cast<double>(e) / n);
        EXPECT_GT(u, static_cast<double>(e) / n);
      }
}

TEST(ClopperPearson, CoverageIsAtLeastOneMinusDeltaForEveryP) {
  // Exact coverage P_p[p <= U(E, n; delta)] summed over E, for a grid of true p.
  const int64_t n = 40;
  const double delta = 0.1;
  for (double p = 0.01; p < 1.0; p += 0.0137) {
    double covered = 0.0;
    for (int64_t e = 0; e <= n; ++e)
      if (p <= clopper_pearson_upper(e, n, delta))
        covered += binomial_cdf(e, n, p) - (e > 0 ? binomial_cdf(e - 1, n, p) : 0.0);
    EXPECT_GE(covered, 1.0 - delta - 1e-12) << "p " << p;
  }
}

TEST(ClopperPearson, RejectsMeaninglessInput) {
  EXPECT_THROW((void)clopper_pearson_upper(3, 2, 0.05), UserError);
  EXPECT_THROW((void)clopper_pearson_upper(-1, 2, 0.05), UserError);
  EXPECT_THROW((void)clopper_pearson_upper(0, -2, 0.05), UserError);
  try {
    (void)clopper_pearson_lower(1, 2, 1.0);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("delta must lie in (0, 1)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace hetcim::select
