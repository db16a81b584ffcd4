#include "train/noise_injection.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "train/race_cnn_net.h"
#include "util/error.h"
#include "xbar/mapping.h"

namespace hetcim::train {

NoiseInjector::NoiseInjector(const xbar::ChipProfile& profile, uint64_t seed, double read_time)
    : profile_(profile),
      read_time_(read_time),
      write_(xbar::Rng::derive(seed, "hwa/write")),
      stuck_(xbar::Rng::derive(seed, "hwa/stuck")),
      drift_(xbar::Rng::derive(seed, "hwa/drift")),
      read_(xbar::Rng::derive(seed, "hwa/read")) {
  xbar::validate_profile(profile_);
  if (profile_.mode != xbar::SimMode::Physical)
    throw user_error("hardware-aware training: profile '", profile_.name,
                     "' is in reference mode; noise injection follows the physical mode only");
  if (!(read_time >= 0.0) || !std::isfinite(read_time))
    throw user_error("hardware-aware training: read time must be >= 0 s, got ", read_time);
}

bool NoiseInjector::drifting() const {
  return profile_.drifts() && read_time_ > profile_.drift_t0;
}

double NoiseInjector::program(const float* w, int64_t n, float* w_hat) {
  const xbar::ChipProfile& p = profile_;
  const xbar::LevelMapping m = xbar::map_levels(w, 1, n, p.device_bits, 0.0);
  if (m.gamma == 0.0) {
    std::fill(w_hat, w_hat + n, 0.0f);
    return 0.0;
  }
  // Two devices per weight (G+ then G-), each with its own draws.
  std::vector<float> z(static_cast<size_t>(2 * n)), u, nu;
  if (p.write_noise > 0.0) write_.fill_normal(z.data(), 2 * n);
  if (p.stuck_fraction > 0.0) {
    u.resize(static_cast<size_t>(2 * n));
    stuck_.fill_uniform(u.data(), 2 * n, 0.0f, 1.0f);
  }
  const bool drift = drifting();
  const double log_age = drift ? std::log(read_time_ / p.drift_t0) : 0.0;
  if (drift) {
    nu.resize(static_cast<size_t>(2 * n));
    drift_.fill_normal(nu.data(), 2 * n);
  }
  const double stuck_high = p.stuck_fraction * p.stuck_high_share;
  auto device = [&](double target, size_t j) {
    double g = target + p.write_noise * z[j];
    g = std::clamp(g, p.g_min, p.g_max);
    bool stuck = false;
    if (!u.empty()) {
      if (u[j] < stuck_high) {
        g = p.g_max;
        stuck = true;
      } else if (u[j] < p.stuck_fraction) {
        g = p.g_min;
        stuck = true;
      }
    }
    if (drift && !stuck) {
      const double e = std::max(0.0, p.drift_nu + p.drift_nu_sd * nu[j]);
      g *= std::exp(-e * log_age);
    }
    return g;
  };
  const double scale = m.gamma / (p.g_max - p.g_min);
  for (int64_t i = 0; i < n; ++i) {
    const auto [gp, gm] =
        xbar::pair_conductance(m.levels[static_cast<size_t>(i)], m.q, p.g_min, p.g_max);
    const double a = device(gp, static_cast<size_t>(2 * i));
    const double b = device(gm, static_cast<size_t>(2 * i + 1));
    w_hat[i] = static_cast<float>(scale * (a - b));
  }
  return m.gamma;
}

void NoiseInjector::read_normals(float* z, int64_t n) {
  read_.fill_normal(z, n);
}

namespace {

// A signed uniform converter's codes / M (xbar/converters.h), on values already divided by the
// full scale: clamp(round(v M), -M - 1, M) / M; bits 0: unchanged.
torch::Tensor quantize_unit(const torch::Tensor& v, int bits) {
  if (bits == 0) return v;
  const double m = static_cast<double>((1 << (bits - 1)) - 1);
  return torch::clamp(torch::round(v * m), -m - 1, m) / m;
}

}  // namespace

torch::Tensor hardware_aware_linear(const torch::Tensor& x, const torch::Tensor& w,
                                    NoiseInjector& injector) {
  const xbar::ChipProfile& p = injector.profile();
  const int64_t B = x.size(0), K = x.size(1), N = w.size(0);
  const torch::Tensor wc = w.detach().contiguous();
  torch::Tensor w_hat = torch::empty_like(wc);
  const double gamma = injector.program(wc.data_ptr<float>(), wc.numel(), w_hat.data_ptr<float>());
  if (gamma == 0.0) return x.matmul(w.t()) * 0.0;  // keeps the graph; the layer reads 0
  // Straight-through: the programmed weights forward, the gradient applied to w.
  const torch::Tensor dg = (w + (w_hat - w).detach()) / gamma;
  const double sigma_n = std::sqrt(2.0) * p.read_noise / (p.g_max - p.g_min);
  const int64_t L = p.array_rows;
  const int64_t tile_cols = std::max<int64_t>(1, p.array_cols / 2);
  torch::Tensor y;
  for (int64_t r0 = 0; r0 < K; r0 += L) {
    const int64_t len = std::min(L, K - r0);
    const torch::Tensor xt = x.narrow(1, r0, len);
    // DAC: per vector and row tile, s = max |x|; v = x / s (0 where the vector is all zero).
    const torch::Tensor s = xt.detach().abs().amax(1, true);
    const torch::Tensor v = xt / torch::where(s > 0, s, torch::ones_like(s));
    const torch::Tensor v_q = quantize_unit(v.detach(), p.dac_bits);
    const torch::Tensor v_eff = v + (v_q - v.detach());
    const torch::Tensor part = v_eff.matmul(dg.narrow(1, r0, len).t());  // B x N currents
    torch::Tensor read;
    {
      torch::NoGradGuard no_grad;
      torch::Tensor noisy = part.detach().clone();
      if (sigma_n > 0.0) {
        torch::Tensor z = torch::empty({B, N}, torch::kFloat32);
        injector.read_normals(z.data_ptr<float>(), B * N);
        noisy += (sigma_n * v_q.pow(2).sum(1, true).sqrt()) * z;
      }
      if (p.adc_bits == 0) {
        read = noisy;
      } else {
        std::vector<torch::Tensor> tiles;
        for (int64_t c0 = 0; c0 < N; c0 += tile_cols) {
          const torch::Tensor r = noisy.narrow(1, c0, std::min(tile_cols, N - c0));
          const torch::Tensor fs =
              p.adc_ranging == xbar::AdcRanging::Fixed
                  ? torch::full({B, 1}, static_cast<float>(p.adc_full_scale), torch::kFloat32)
                  : r.abs().amax(1, true);
          const torch::Tensor safe = torch::where(fs > 0, fs, torch::ones_like(fs));
          tiles.push_back(torch::where(fs > 0, quantize_unit(r / safe, p.adc_bits) * safe,
                                       torch::zeros_like(r)));
        }
        read = torch::cat(tiles, 1);
      }
    }
    const torch::Tensor out = (gamma * s) * (part + (read - part.detach()));
    y = y.defined() ? y + out : out;
  }
  return y;
}

torch::Tensor hardware_aware_forward(RaceCnnNet& net, const torch::Tensor& x,
                                     NoiseInjector& injector) {
  auto* l0 = net->classifier->ptr<torch::nn::LinearImpl>(0).get();
  auto* l2 = net->classifier->ptr<torch::nn::LinearImpl>(2).get();
  const torch::Tensor h =
      torch::relu(hardware_aware_linear(net->features_of(x), l0->weight, injector) + l0->bias);
  return hardware_aware_linear(h, l2->weight, injector) + l2->bias;
}

std::vector<float> hardware_aware_linear(const float* x, int64_t batch, int64_t in, int64_t out,
                                         const float* w, NoiseInjector& injector) {
  torch::NoGradGuard no_grad;
  const torch::Tensor xt =
      torch::from_blob(const_cast<float*>(x), {batch, in}, torch::kFloat32).clone();
  const torch::Tensor wt =
      torch::from_blob(const_cast<float*>(w), {out, in}, torch::kFloat32).clone();
  const torch::Tensor y = hardware_aware_linear(xt, wt, injector).contiguous();
  return {y.data_ptr<float>(), y.data_ptr<float>() + y.numel()};
}

}  // namespace hetcim::train
