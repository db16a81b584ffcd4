// Conductance drift (chip_profile.h, chip.h): G(t) = G(t0) (t / t0)^(-nu) per device with a
// normally distributed exponent, and global drift compensation. Checked against the closed forms:
// exact per device without spread, the mean of log G(t) / G(t0) and the lognormal mean
// E[(t / t0)^(-nu)] = exp(-mu L + sd^2 L^2 / 2) (L = ln(t / t0)) over many devices with spread,
// bit-identity without drift, and the compensation undoing a uniform drift. Read-noise growth:
// the factor evaluated by hand, a read at a year with growth equal to a read with the grown noise
// typed into the profile, and nothing changed at or before t0 or with growth off.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "util/error.h"
#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/rng.h"

namespace hetcim::xbar {
namespace {

std::vector<float> random_matrix(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> w(static_cast<size_t>(n));
  for (auto& x : w) x = static_cast<float>(r.normal());
  return w;
}

std::vector<float> vec(std::span<const float> s) {
  return {s.begin(), s.end()};
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

ChipProfile noisy(const char* name) {
  ChipProfile p;
  p.name = name;
  p.write_noise = 2e-6;
  p.read_noise = 1e-6;
  p.stuck_fraction = 0.01;
  p.array_rows = 64;
  p.array_cols = 64;
  return p;
}

std::vector<float> forward(const ProgrammedLayer& L, const std::vector<float>& x, int64_t batch) {
  std::vector<float> y(static_cast<size_t>(batch * L.cols()));
  Rng rng(9);
  L.forward(x.data(), batch, y.data(), rng);
  return y;
}

constexpr double kYear = 365.25 * 86400;

// A profile without drift (nu = 0, sd = 0): reading a year later, with or without compensation,
// gives the same bytes as reading at t0 (conductances and outputs).
TEST(Drift, ZeroExponentLeavesEveryByteUnchanged) {
  const ChipProfile p = noisy("nodrift");
  ASSERT_FALSE(p.drifts());
  const Chip chip(p, 5);
  const std::vector<float> w = random_matrix(100 * 40, 1), x = random_matrix(7 * 100, 2);
  const ProgrammedLayer at0 = chip.program("fc", w.data(), 100, 40);
  for (bool comp : {false, true}) {
    ProgramOptions o;
    o.read_time = kYear;
    o.drift_compensation = comp;
    const ProgrammedLayer later = chip.program("fc", w.data(), 100, 40, o);
    EXPECT_TRUE(same_bytes(vec(at0.g_plus()), vec(later.g_plus())));
    EXPECT_TRUE(same_bytes(vec(at0.g_minus()), vec(later.g_minus())));
    EXPECT_TRUE(same_bytes(forward(at0, x, 7), forward(later, x, 7)));
    EXPECT_EQ(later.drift_compensation(), 1.0);
  }
}

// Without spread every device follows the closed form exactly (float rounding); stuck devices
// keep their value; reading at or before t0 changes nothing.
TEST(Drift, WithoutSpreadEveryDeviceFollowsThePowerLaw) {
  ChipProfile p = noisy("pcm");
  p.drift_nu = 0.05;
  p.drift_t0 = 20;
  const Chip chip(p, 3);
  const std::vector<float> w = random_matrix(50 * 30, 4);
  const ProgrammedLayer at0 = chip.program("fc", w.data(), 50, 30);
  ProgramOptions early;
  early.read_time = 20;  // t = t0: no drift yet
  EXPECT_TRUE(
      same_bytes(vec(at0.g_plus()), vec(chip.program("fc", w.data(), 50, 30, early).g_plus())));
  ProgramOptions o;
  o.read_time = 86400;
  const ProgrammedLayer day = chip.program("fc", w.data(), 50, 30, o);
  const double factor = std::pow(86400.0 / 20.0, -0.05);  // 0.6578...
  int64_t unchanged = 0;
  for (size_t i = 0; i < at0.g_plus().size(); ++i) {
    for (const auto& [g0, gt] : {std::pair{at0.g_plus()[i], day.g_plus()[i]},
                                 std::pair{at0.g_minus()[i], day.g_minus()[i]}}) {
      if (gt == g0 && (g0 == static_cast<float>(p.g_min) || g0 == static_cast<float>(p.g_max))) {
        ++unchanged;  // a stuck device
        continue;
      }
      EXPECT_NEAR(gt / g0, factor, 1e-6) << i;
    }
  }
  const MappingAudit& a = day.audit();
  EXPECT_EQ(unchanged, a.stuck_low + a.stuck_high);
}

// With spread, over 2 x 300 x 300 devices (no write noise, no stuck devices): the mean of
// ln(G(t) / G(t0)) is -mu L (its standard error sd L / sqrt(n): within 5 standard errors), and
// the mean ratio is the lognormal mean exp(-mu L + (sd L)^2 / 2) (relative standard error
// sqrt(exp((sd L)^2) - 1) / sqrt(n)), distinguishable from (t / t0)^(-mu) at this size. The floor
// at nu = 0 is 5 sd away (probability 3e-7, negligible).
TEST(Drift, MeanConductanceMatchesTheClosedFormOverManyDevices) {
  ChipProfile p;
  p.name = "pcm";
  p.drift_nu = 0.05;
  p.drift_nu_sd = 0.01;
  p.drift_t0 = 20;
  const Chip chip(p, 11);
  const int64_t rows = 300, cols = 300;
  const std::vector<float> w = random_matrix(rows * cols, 6);
  const ProgrammedLayer at0 = chip.program("fc", w.data(), rows, cols);
  ProgramOptions o;
  o.read_time = 86400;
  const ProgrammedLayer day = chip.program("fc", w.data(), rows, cols, o);
  const double L = std::log(86400.0 / 20.0), s = p.drift_nu_sd * L;
  double sum_log = 0, sum_ratio = 0;
  int64_t n = 0;
  for (size_t i = 0; i < at0.g_plus().size(); ++i) {
    for (const auto& [g0, gt] : {std::pair{at0.g_plus()[i], day.g_plus()[i]},
                                 std::pair{at0.g_minus()[i], day.g_minus()[i]}}) {
      sum_log += std::log(static_cast<double>(gt) / g0);
      sum_ratio += static_cast<double>(gt) / g0;
      ++n;
    }
  }
  const double mean_log = sum_log / n, mean_ratio = sum_ratio / n;
  EXPECT_NEAR(mean_log, -p.drift_nu * L, 5 * s / std::sqrt(n));
  const double lognormal = std::exp(-p.drift_nu * L + s * s / 2);
  const double se = lognormal * std::sqrt(std::exp(s * s) - 1) / std::sqrt(n);
  EXPECT_NEAR(mean_ratio, lognormal, 5 * se);
  EXPECT_GT(std::fabs(mean_ratio - std::pow(86400.0 / 20.0, -p.drift_nu)), 10 * se);
}

// Same chip seed, same bytes; another seed, other exponents.
TEST(Drift, SeedsGiveIdenticalBytes) {
  ChipProfile p = noisy("pcm");
  p.drift_nu = 0.05;
  p.drift_nu_sd = 0.015;
  const std::vector<float> w = random_matrix(80 * 20, 8), x = random_matrix(5 * 80, 9);
  ProgramOptions o;
  o.read_time = 3600;
  o.drift_compensation = true;
  const ProgrammedLayer a = Chip(p, 21).program("fc", w.data(), 80, 20, o);
  const ProgrammedLayer b = Chip(p, 21).program("fc", w.data(), 80, 20, o);
  const ProgrammedLayer c = Chip(p, 22).program("fc", w.data(), 80, 20, o);
  EXPECT_TRUE(same_bytes(vec(a.g_plus()), vec(b.g_plus())));
  EXPECT_TRUE(same_bytes(forward(a, x, 5), forward(b, x, 5)));
  EXPECT_EQ(a.drift_compensation(), b.drift_compensation());
  EXPECT_FALSE(same_bytes(vec(a.g_plus()), vec(c.g_plus())));
}

// A uniform drift (no spread, no stuck devices) scales every G+ - G- by f = (t/t0)^-nu; the
// compensation measures 1 / f and the chip's effective weights return to those at t0, while
// without it they are f times smaller.
TEST(Drift, GlobalCompensationUndoesAUniformDrift) {
  ChipProfile p;
  p.name = "pcm";
  p.write_noise = 1e-6;
  p.drift_nu = 0.06;
  const Chip chip(p, 2);
  const std::vector<float> w = random_matrix(40 * 12, 3);
  const ProgrammedLayer at0 = chip.program("fc", w.data(), 40, 12);
  ProgramOptions o;
  o.read_time = kYear;
  const ProgrammedLayer raw = chip.program("fc", w.data(), 40, 12, o);
  o.drift_compensation = true;
  const ProgrammedLayer comp = chip.program("fc", w.data(), 40, 12, o);
  const double f = std::pow(kYear / 20.0, -0.06);
  EXPECT_NEAR(comp.drift_compensation(), 1 / f, 1e-5 / f);
  EXPECT_NEAR(comp.gamma(), at0.gamma() / f, 1e-5 * at0.gamma() / f);
  const std::vector<float> e0 = at0.effective_weights(), er = raw.effective_weights(),
                           ec = comp.effective_weights();
  for (size_t i = 0; i < e0.size(); ++i) {
    EXPECT_NEAR(ec[i], e0[i], 1e-5 * at0.gamma()) << i;
    EXPECT_NEAR(er[i], f * e0[i], 1e-5 * at0.gamma()) << i;
  }
}

TEST(Drift, BadFieldsAndTimesAreNamed) {
  auto err = [](const std::string& yaml) {
    try {
      (void)parse_chip_profiles(yaml, "c.yaml");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(err("profiles: {P: {drift_nu: 1.5}}").find("field 'drift_nu'"), std::string::npos);
  EXPECT_NE(err("profiles: {P: {drift_nu: -0.1}}").find("field 'drift_nu'"), std::string::npos);
  EXPECT_NE(err("profiles: {P: {drift_nu_sd: abc}}").find("field 'drift_nu_sd'"),
            std::string::npos);
  EXPECT_NE(err("profiles: {P: {drift_t0: 20}}").find("field 'drift_t0'"), std::string::npos);
  EXPECT_NE(err("profiles: {P: {drift_t0: 0s}}").find("field 'drift_t0'"), std::string::npos);
  const std::vector<ChipProfile> ok = parse_chip_profiles(
      "profiles: {P: {drift_nu: 0.05, drift_nu_sd: 0.015, drift_t0: 60s}}", "c.yaml");
  EXPECT_EQ(ok[0].drift_nu, 0.05);
  EXPECT_EQ(ok[0].drift_nu_sd, 0.015);
  EXPECT_EQ(ok[0].drift_t0, 60.0);
  const Chip chip(ok[0], 1);
  const std::vector<float> w = {1.0f, -1.0f};
  for (double t : {-1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    ProgramOptions o;
    o.read_time = t;
    EXPECT_THROW((void)chip.program("fc", w.data(), 2, 1, o), UserError) << t;
  }
}

// Read-noise growth: sqrt(log((t + tr) / 2tr) / log((t0 + tr) / 2tr)). At t0 = 20 s, tr = 250 ns
// and t = one year: ln(3.15576e7 / 5e-7) = 31.77599, ln(20 / 5e-7) = 17.50439 (by hand, the
// t_read in the numerators is below double rounding), ratio 1.815315, factor 1.347336.
TEST(ReadNoiseGrowth, FactorIsTheSquareRootOfTheLogRatio) {
  ChipProfile p = noisy("pcm");
  EXPECT_EQ(p.read_noise_factor(kYear), 1.0);  // off by default
  p.read_noise_growth = true;
  EXPECT_NEAR(p.read_noise_factor(kYear), 1.347336, 2e-6);
  EXPECT_EQ(p.read_noise_factor(20.0), 1.0);  // at t0
  EXPECT_EQ(p.read_noise_factor(1.0), 1.0);   // before t0: the programmed state, as for drift
  p.read_noise_t_read = 1e-6;  // a later integration start: a smaller log at t0, faster growth
  EXPECT_NEAR(p.read_noise_factor(kYear),
              std::sqrt(std::log((kYear + 1e-6) / 2e-6) / std::log((20 + 1e-6) / 2e-6)), 1e-12);
  EXPECT_GT(p.read_noise_factor(kYear), 1.347336);
}

// The simulator reads with the grown noise: a layer read a year after programming with growth on
// gives the bytes of the same chip whose profile holds the grown read noise, growth off; with
// growth on, a read at t0 gives the bytes of growth off.
TEST(ReadNoiseGrowth, ReadsAYearLaterDrawTheGrownNoise) {
  ChipProfile grows = noisy("pcm");
  grows.read_noise_growth = true;
  ChipProfile typed = noisy("pcm");
  typed.read_noise = grows.read_noise * grows.read_noise_factor(kYear);
  const std::vector<float> w = random_matrix(100 * 40, 1), x = random_matrix(7 * 100, 2);
  ProgramOptions year;
  year.read_time = kYear;
  const ProgrammedLayer a = Chip(grows, 5).program("fc", w.data(), 100, 40, year);
  const ProgrammedLayer b = Chip(typed, 5).program("fc", w.data(), 100, 40, year);
  EXPECT_TRUE(same_bytes(forward(a, x, 7), forward(b, x, 7)));
  const ProgrammedLayer at0 = Chip(grows, 5).program("fc", w.data(), 100, 40);
  const ProgrammedLayer off = Chip(noisy("pcm"), 5).program("fc", w.data(), 100, 40, year);
  EXPECT_TRUE(same_bytes(forward(at0, x, 7), forward(off, x, 7)));
  EXPECT_FALSE(same_bytes(forward(a, x, 7), forward(off, x, 7)));
}

TEST(ReadNoiseGrowth, FieldsParseAndBadValuesAreNamed) {
  const std::vector<ChipProfile> ok = parse_chip_profiles(
      "profiles: {P: {read_noise_growth: true, read_noise_t_read: 1us, drift_t0: 60s}}", "c.yaml");
  EXPECT_TRUE(ok[0].read_noise_growth);
  EXPECT_DOUBLE_EQ(ok[0].read_noise_t_read, 1e-6);
  EXPECT_FALSE(parse_chip_profiles("profiles: {P: {}}", "c.yaml")[0].read_noise_growth);
  auto err = [](const std::string& yaml) {
    try {
      (void)parse_chip_profiles(yaml, "c.yaml");
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(err("profiles: {P: {read_noise_growth: yes}}").find("expected true or false"),
            std::string::npos);
  EXPECT_NE(err("profiles: {P: {read_noise_growth: true, read_noise_t_read: 30s}}")
                .find("field 'read_noise_t_read'"),
            std::string::npos);
}

}  // namespace
}  // namespace hetcim::xbar
