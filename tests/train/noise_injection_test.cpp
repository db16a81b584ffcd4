// Hardware-aware training's noise injection (train/noise_injection.h): the injected perturbation's
// mean and variance against the chip profile's formulas (fixed seeds; tolerances of five standard
// errors from the sample size), drift by hand, the converters against xbar's own forward pass,
// determinism, and a hardware-aware training run.
#include "train/noise_injection.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <stdexcept>

#include "train/train.h"
#include "user_error_message.h"
#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/layout.h"

namespace hetcim::train {
namespace {

using hetcim::testing::message_of;

xbar::ChipProfile a3() {
  return xbar::load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
}

// Moments of Y = clamp(X, a, b), X ~ N(mu, sd^2) (the programmed device before stuck-at faults).
struct Moments {
  double m1 = 0, m2 = 0;
};
Moments clamped_normal(double mu, double sd, double a, double b) {
  const auto phi = [](double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); };
  const auto Phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
  const double al = (a - mu) / sd, be = (b - mu) / sd;
  const double mid = Phi(be) - Phi(al);
  Moments m;
  m.m1 = a * Phi(al) + b * (1 - Phi(be)) + mu * mid + sd * (phi(al) - phi(be));
  m.m2 = a * a * Phi(al) + b * b * (1 - Phi(be)) + (mu * mu + sd * sd) * mid +
         2 * mu * sd * (phi(al) - phi(be)) + sd * sd * (al * phi(al) - be * phi(be));
  return m;
}
// Then stuck with probability p (a share h at G_max, the rest at G_min).
Moments with_stuck(Moments m, const xbar::ChipProfile& c) {
  const double p = c.stuck_fraction, h = c.stuck_high_share;
  return {(1 - p) * m.m1 + p * (h * c.g_max + (1 - h) * c.g_min),
          (1 - p) * m.m2 + p * (h * c.g_max * c.g_max + (1 - h) * c.g_min * c.g_min)};
}

struct Sample {
  double mean = 0, var = 0, m4 = 0;  // central moments
  size_t n = 0;
};
Sample sample(const std::vector<double>& v) {
  Sample s;
  s.n = v.size();
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(s.n);
  for (double x : v) {
    const double d = x - s.mean;
    s.var += d * d;
    s.m4 += d * d * d * d;
  }
  s.var /= static_cast<double>(s.n - 1);
  s.m4 /= static_cast<double>(s.n);
  return s;
}
// |sample - expected| within five standard errors: the mean's sqrt(var / n), the variance's
// sqrt((m4 - var^2) / n).
void expect_moments(const Sample& s, double mean, double var) {
  const double n = static_cast<double>(s.n);
  EXPECT_NEAR(s.mean, mean, 5 * std::sqrt(var / n)) << "mean over " << s.n;
  EXPECT_NEAR(s.var, var, 5 * std::sqrt((s.m4 - s.var * s.var) / n)) << "variance over " << s.n;
}

TEST(NoiseInjection, ProgrammingNoiseFollowsTheProfile) {
  // A3 as shipped: write noise 18.8 uS, 0.308 % stuck devices, 133..233 uS, 8-bit levels.
  const xbar::ChipProfile p = a3();
  ASSERT_NEAR(p.write_noise, 18.8e-6, 1e-12);
  NoiseInjector inj(p, 7);
  // gamma = 1 from the first weight; the others at 0.5: level round(255 x 0.5) = 128 (half to
  // even), G+ = G_min + 128 / 255 (G_max - G_min), G- idle at G_min (clamped from below: half of
  // its errors vanish, the one-sided bias of src/xbar/README.md).
  const int64_t n = 200001;
  std::vector<float> w(static_cast<size_t>(n), 0.5f), w_hat(static_cast<size_t>(n));
  w[0] = 1.0f;
  std::vector<double> delta;
  for (int pass = 0; pass < 2; ++pass) {  // two forward passes: fresh draws each
    EXPECT_EQ(inj.program(w.data(), n, w_hat.data()), 1.0);
    for (int64_t i = 1; i < n; ++i)
      delta.push_back(static_cast<double>(w_hat[static_cast<size_t>(i)]) - 0.5);
  }
  const double range = p.g_max - p.g_min;
  const Moments plus = with_stuck(
      clamped_normal(p.g_min + 128.0 / 255.0 * range, p.write_noise, p.g_min, p.g_max), p);
  const Moments minus = with_stuck(clamped_normal(p.g_min, p.write_noise, p.g_min, p.g_max), p);
  // w_hat = gamma (Y+ - Y-) / range, Y+ and Y- independent.
  const double mean = (plus.m1 - minus.m1) / range - 0.5;
  const double var =
      (plus.m2 - plus.m1 * plus.m1 + minus.m2 - minus.m1 * minus.m1) / (range * range);
  // The one-sided bias is visible: about -sd / sqrt(2 pi) / range = -0.075 in weight units.
  EXPECT_LT(mean, -0.07);
  expect_moments(sample(delta), mean, var);
}

TEST(NoiseInjection, ReadNoiseOnOutputsFollowsTheProfile) {
  // Ideal converters and no programming noise: the outputs' perturbation is the read noise alone,
  // N(0, 2 sigma^2 gamma^2 ||x||^2 / (G_max - G_min)^2) per output (two devices per weight).
  xbar::ChipProfile p = a3();
  p.write_noise = 0;
  p.stuck_fraction = 0;
  p.dac_bits = p.adc_bits = 0;
  xbar::ChipProfile quiet = p;
  quiet.read_noise = 0;
  const int64_t batch = 2000, in = 64, out = 50;
  std::vector<float> x(static_cast<size_t>(batch * in)), w(static_cast<size_t>(out * in));
  xbar::Rng r(3);
  r.fill_uniform(w.data(), out * in, -0.8f, 0.8f);
  std::vector<float> row(static_cast<size_t>(in));
  r.fill_uniform(row.data(), in, 0.0f, 2.0f);  // every vector the same input
  for (int64_t b = 0; b < batch; ++b) std::copy(row.begin(), row.end(), x.begin() + b * in);
  NoiseInjector noisy(p, 11), clean(quiet, 11);
  const std::vector<float> y = hardware_aware_linear(x.data(), batch, in, out, w.data(), noisy);
  const std::vector<float> y0 = hardware_aware_linear(x.data(), batch, in, out, w.data(), clean);
  std::vector<double> delta(y.size());
  for (size_t i = 0; i < y.size(); ++i) delta[i] = static_cast<double>(y[i]) - y0[i];
  double gamma = 0, norm2 = 0;
  for (float v : w) gamma = std::max(gamma, static_cast<double>(std::fabs(v)));
  for (float v : row) norm2 += static_cast<double>(v) * v;
  const double sd = p.read_noise / (p.g_max - p.g_min);
  expect_moments(sample(delta), 0.0, 2 * sd * sd * gamma * gamma * norm2);
}

TEST(NoiseInjection, DriftAtTheReadTimeScalesEveryDeviceByHand) {
  // No noise, one exponent for all (sd 0): every device G (t / t0)^-nu, so w_hat = w_q (t/t0)^-nu.
  xbar::ChipProfile p = a3();
  p.write_noise = 0;
  p.stuck_fraction = 0;
  p.drift_nu = 0.05;
  p.drift_nu_sd = 0;
  const double t = 86400, f = std::pow(t / p.drift_t0, -0.05);
  NoiseInjector inj(p, 1, t);
  EXPECT_TRUE(inj.drifting());
  const std::vector<float> w = {1.0f, -0.5f, 0.25f, 0.0f};
  std::vector<float> w_hat(4);
  (void)inj.program(w.data(), 4, w_hat.data());
  const double q[] = {1.0, -128.0 / 255, 64.0 / 255, 0.0};  // levels 255, -128, 64 (half-even)
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(w_hat[static_cast<size_t>(i)], q[i] * f, 1e-6) << i;
  NoiseInjector at_t0(p, 1, p.drift_t0);
  EXPECT_FALSE(at_t0.drifting());
}

TEST(NoiseInjection, ConvertersMatchXbarsForwardPass) {
  // A noise-free A3 (8-bit DAC and ADC, max-abs ranging) with 3 x 2 arrays of 40 x 16 devices:
  // the same outputs as xbar's ProgrammedLayer (which sums in another order: allow a float
  // rounding, and an ADC code flipped by it, one step gamma s fs / M, on a few outputs).
  xbar::ChipProfile p = a3();
  p.write_noise = p.read_noise = p.stuck_fraction = 0;
  p.array_rows = 40;
  p.array_cols = 16;
  const int64_t batch = 64, in = 100, out = 13;
  std::vector<float> x(static_cast<size_t>(batch * in)), w(static_cast<size_t>(out * in));
  xbar::Rng r(5);
  r.fill_uniform(x.data(), batch * in, -1.0f, 1.0f);
  r.fill_uniform(w.data(), out * in, -0.3f, 0.3f);
  NoiseInjector inj(p, 1);
  const std::vector<float> y = hardware_aware_linear(x.data(), batch, in, out, w.data(), inj);
  const std::vector<float> xw = xbar::linear_to_crossbar(w.data(), out, in);
  const xbar::ProgrammedLayer layer = xbar::Chip(p, 1).program("l", xw.data(), in, out);
  std::vector<float> ref(static_cast<size_t>(batch * out));
  xbar::Rng read(1);
  layer.forward(x.data(), batch, ref.data(), read);
  // One ADC step of vector b: per row tile, the largest |partial output| of a column tile / 127;
  // summed over the row tiles (1 % margin: the steps of the quantized weights).
  std::vector<double> step(static_cast<size_t>(batch), 0.0);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r0 = 0; r0 < in; r0 += 40) {
      double big = 0;
      for (int64_t c = 0; c < out; ++c) {
        double part = 0;
        for (int64_t k = r0; k < std::min<int64_t>(in, r0 + 40); ++k)
          part += static_cast<double>(x[static_cast<size_t>(b * in + k)]) *
                  w[static_cast<size_t>(c * in + k)];
        big = std::max(big, std::fabs(part));
      }
      step[static_cast<size_t>(b)] += 1.01 * big / 127;
    }
  int off = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t c = 0; c < out; ++c) {
      const auto i = static_cast<size_t>(b * out + c);
      const double d = std::fabs(static_cast<double>(y[i]) - ref[i]);
      off += d > 1e-4 * step[static_cast<size_t>(b)];
      EXPECT_LE(d, step[static_cast<size_t>(b)]) << "vector " << b << " output " << c;
    }
  EXPECT_LE(off, static_cast<int>(y.size() / 50));  // codes flipped by a float rounding: rare
}

TEST(NoiseInjection, SeededAndChecked) {
  const xbar::ChipProfile p = a3();
  std::vector<float> w(1000);
  xbar::Rng(2).fill_uniform(w.data(), 1000, -1.0f, 1.0f);
  std::vector<float> a(1000), b(1000), c(1000);
  NoiseInjector i1(p, 9), i2(p, 9), i3(p, 10);
  (void)i1.program(w.data(), 1000, a.data());
  (void)i2.program(w.data(), 1000, b.data());
  (void)i3.program(w.data(), 1000, c.data());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  xbar::ChipProfile ref = p;
  ref.mode = xbar::SimMode::Reference;
  EXPECT_EQ(message_of([&] { NoiseInjector bad(ref, 1); }),
            "hardware-aware training: profile 'A3' is in reference mode; noise injection follows "
            "the physical mode only");
  EXPECT_EQ(message_of([&] { NoiseInjector bad(p, 1, -1.0); }),
            "hardware-aware training: read time must be >= 0 s, got -1");
}

// Two classes of 16x16 grey images (as train_test.cpp's): a bright square top-left or
// bottom-right.
data::ImageDataset squares(int64_t n, uint64_t seed) {
  data::ImageDataset d;
  d.name = "squares";
  d.count = n;
  d.channels = 1;
  d.height = d.width = 16;
  d.classes = 2;
  xbar::Rng r(seed);
  d.images.resize(static_cast<size_t>(n * 256));
  d.labels.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int label = static_cast<int>(r.next_u64() & 1);
    d.labels[static_cast<size_t>(i)] = static_cast<uint8_t>(label);
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x) {
        const bool on = label == 0 ? (y >= 1 && y < 7 && x >= 1 && x < 7)
                                   : (y >= 9 && y < 15 && x >= 9 && x < 15);
        d.images[static_cast<size_t>(i * 256 + y * 16 + x)] =
            static_cast<uint8_t>(on ? 200 + r.next_u64() % 56 : r.next_u64() % 100);
      }
  }
  return d;
}

// Two epochs of hardware-aware training on A3, seed 4.
TrainOptions hardware_aware_options() {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 32;
  o.flip = false;
  o.seed = 4;
  o.hardware_aware = a3();
  return o;
}

TEST(NoiseInjection, HardwareAwareTrainingIsSeededAndLearns) {
  const data::ImageDataset train = squares(512, 1), eval = squares(200, 2);
  TrainOptions o = hardware_aware_options();
  const TrainResult a = train_race_cnn(train, eval, o);
  const TrainResult b = train_race_cnn(train, eval, o);
  EXPECT_EQ(a.model.initializers.at("classifier.0.weight").floats(),
            b.model.initializers.at("classifier.0.weight").floats());
  EXPECT_GT(a.eval_accuracy, 0.9);  // an easy task, learnt through the noise
  o.hardware_aware.reset();
  const TrainResult plain = train_race_cnn(train, eval, o);
  EXPECT_NE(plain.model.initializers.at("classifier.0.weight").floats(),
            a.model.initializers.at("classifier.0.weight").floats());
}

// Hardware-aware training resumed from a checkpoint after epoch 1 of 2 continues every noise
// stream where it stopped: the same weights as the uninterrupted run.
TEST(NoiseInjection, HardwareAwareTrainingResumesFromItsCheckpoint) {
  const data::ImageDataset train = squares(128, 1), eval = squares(64, 2);
  TrainOptions o = hardware_aware_options();
  const TrainResult straight = train_race_cnn(train, eval, o);
  o.checkpoint =
      (std::filesystem::temp_directory_path() / ("hetcim_hwa_ckpt_" + std::to_string(::getpid())))
          .string();
  TrainOptions stopping = o;
  stopping.epoch_done = [](int, const EpochStats&) { throw std::runtime_error("stopped"); };
  EXPECT_THROW((void)train_race_cnn(train, eval, stopping), std::runtime_error);
  const TrainResult resumed = train_race_cnn(train, eval, o);
  std::filesystem::remove(o.checkpoint);
  for (const char* p : {"features.0.weight", "classifier.0.weight"})
    EXPECT_EQ(resumed.model.initializers.at(p).floats(), straight.model.initializers.at(p).floats())
        << p;
}

}  // namespace
}  // namespace hetcim::train
