#include "xbar/rng.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "util/error.h"
#include "xbar/exp_bound.h"
#include "xbar/rng_detail.h"

namespace hetcim::xbar {
namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

constexpr double kTwoPowMinus53 = 1.0 / 9007199254740992.0;

// Ziggurat of Marsaglia and Tsang for f(x) = exp(-x^2/2) with 256 layers of equal area v.
// x[1] = r is where the base strip meets the tail, x[0] = v / f(r) is the width of a rectangle
// with the area of the base strip plus the tail, x[i+1] = f^-1(v / x[i] + f(x[i])), x[256] = 0.
struct Ziggurat {
  static constexpr int kLayers = 256;
  static constexpr double kR = 3.6541528853610088;
  std::array<double, kLayers + 1> x{};
  std::array<double, kLayers + 1> f{};

  Ziggurat() {
    auto pdf = [](double t) { return std::exp(-0.5 * t * t); };
    const double tail = std::sqrt(M_PI / 2.0) * std::erfc(kR / std::sqrt(2.0));
    const double v = kR * pdf(kR) + tail;
    x[0] = v / pdf(kR);
    x[1] = kR;
    for (int i = 1; i < kLayers - 1; ++i)
      x[i + 1] = std::sqrt(-2.0 * std::log(v / x[i] + pdf(x[i])));
    x[kLayers] = 0.0;
    for (int i = 0; i <= kLayers; ++i) f[i] = pdf(x[i]);
    // The top layer [0, x[255]] x [f(x[255]), 1] must close with area v; r was chosen for that.
    const double top = x[kLayers - 1] * (1.0 - f[kLayers - 1]);
    HETCIM_ASSERT(std::fabs(top - v) < 1e-6 * v, "ziggurat tables do not close");
  }
};

const Ziggurat& ziggurat() {
  static const Ziggurat z;
  return z;
}

// The same construction with 128 layers in float, for fill_normal.
struct FloatZiggurat {
  static constexpr int kLayers = 128;
  static constexpr double kR = 3.442619855899;
  std::array<float, kLayers + 1> x{};
  std::array<double, kLayers + 1> xd{};
  std::array<double, kLayers + 1> f{};

  FloatZiggurat() {
    auto pdf = [](double t) { return std::exp(-0.5 * t * t); };
    const double tail = std::sqrt(M_PI / 2.0) * std::erfc(kR / std::sqrt(2.0));
    const double v = kR * pdf(kR) + tail;
    xd[0] = v / pdf(kR);
    xd[1] = kR;
    for (int i = 1; i < kLayers - 1; ++i)
      xd[i + 1] = std::sqrt(-2.0 * std::log(v / xd[i] + pdf(xd[i])));
    xd[kLayers] = 0.0;
    for (int i = 0; i <= kLayers; ++i) {
      x[i] = static_cast<float>(xd[i]);
      f[i] = pdf(xd[i]);
    }
    const double top = xd[kLayers - 1] * (1.0 - f[kLayers - 1]);
    HETCIM_ASSERT(std::fabs(top - v) < 1e-6 * v, "float ziggurat tables do not close");
  }
};

const FloatZiggurat& float_ziggurat() {
  static const FloatZiggurat z;
  return z;
}

}  // namespace

Rng::Rng(uint64_t seed) {
  uint64_t st = seed;
  for (auto& s : s_) s = splitmix64(st);
}

uint64_t Rng::derive(uint64_t seed, std::string_view stream) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (char c : stream) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  uint64_t st = seed ^ rotl(h, 17);
  (void)splitmix64(st);
  return splitmix64(st);
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() {
  return static_cast<double>(next_u64() >> 11) * kTwoPowMinus53;
}

double Rng::uniform_open() {
  return (static_cast<double>(next_u64() >> 11) + 0.5) * kTwoPowMinus53;
}

bool Rng::normal_slow_path(int i, double t, bool negative, double& out) {
  const Ziggurat& z = ziggurat();
  if (i == 0) {
    // Tail beyond r (Marsaglia 1964).
    double a = 0.0;
    double b = 0.0;
    do {
      a = -std::log(uniform_open()) / Ziggurat::kR;
      b = -std::log(uniform_open());
    } while (2.0 * b < a * a);
    out = negative ? -(Ziggurat::kR + a) : (Ziggurat::kR + a);
    return true;
  }
  const double y = z.f[i] + uniform() * (z.f[i + 1] - z.f[i]);
  if (!below_exp(y, -0.5 * t * t)) return false;  // y >= exp(-t^2 / 2)
  out = negative ? -t : t;
  return true;
}

double Rng::normal() {
  const Ziggurat& z = ziggurat();
  for (;;) {
    const uint64_t bits = next_u64();
    const int i = static_cast<int>(bits & 0xff);
    const bool negative = (bits >> 8) & 1;
    const double t = static_cast<double>(bits >> 11) * kTwoPowMinus53 * z.x[i];
    if (t < z.x[i + 1]) [[likely]]
      return std::bit_cast<double>(std::bit_cast<uint64_t>(t) ^
                                   (static_cast<uint64_t>(negative) << 63));
    double out = 0.0;
    if (normal_slow_path(i, t, negative, out)) return out;
  }
}

namespace {

// Rejected fast-path candidate of fill_normal (layer i, magnitude t): the tail for layer 0, else
// the wedge test; when the wedge rejects, a fresh normal() stands in for the ziggurat's restart
// (the first-attempt acceptances of an exact ziggurat are themselves N(0, 1) distributed, so any
// exact sampler may supply the restarts). The wedge test's exp is decided by below_exp (the
// decisions of std::exp, without its cost).
float float_reject(Rng& rng, const FloatZiggurat& z, int i, float t, bool negative) {
  if (i == 0) {
    double a = 0.0;
    double b = 0.0;
    do {
      a = -std::log(rng.uniform_open()) / FloatZiggurat::kR;
      b = -std::log(rng.uniform_open());
    } while (2.0 * b < a * a);
    return static_cast<float>(negative ? -(FloatZiggurat::kR + a) : (FloatZiggurat::kR + a));
  }
  const double y = z.f[i] + rng.uniform() * (z.f[i + 1] - z.f[i]);
  if (below_exp(y, -0.5 * double(t) * t)) return negative ? -t : t;
  return static_cast<float>(rng.normal());
}

}  // namespace

float Rng::float_slow_path(int i, float t, bool negative) {
  return float_reject(*this, float_ziggurat(), i, t, negative);
}

namespace {

constexpr int kLanes = 8;     // independent xoshiro256++ streams of fill_normal
constexpr int kChunk = 1024;  // candidates per block (a multiple of 2 * kLanes)

// `steps` xoshiro256++ steps of kLanes lanes (state as s[word][lane]), two 32-bit draws each,
// written lane-major per step. Vectorizes across lanes; cloned per instruction set.
__attribute__((target_clones("avx512f", "avx2", "default"))) void xoshiro_lanes(
    uint64_t (&s)[4][kLanes], uint32_t* bits, int steps) {
  for (int step = 0; step < steps; ++step) {
    uint64_t r[kLanes];
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t a = s[0][l] + s[3][l];
      r[l] = ((a << 23) | (a >> 41)) + s[0][l];
      const uint64_t sh = s[1][l] << 17;
      s[2][l] ^= s[0][l];
      s[3][l] ^= s[1][l];
      s[1][l] ^= s[2][l];
      s[0][l] ^= s[3][l];
      s[2][l] ^= sh;
      s[3][l] = (s[3][l] << 45) | (s[3][l] >> 19);
    }
    // Lane l's output as two 32-bit draws, low half first (the little-endian layout of r).
    static_assert(std::endian::native == std::endian::little);
    std::memcpy(bits + step * 2 * kLanes, r, sizeof r);
  }
}

// Ziggurat fast path on 32-bit draws: layer i = bits & 127, sign = bit 7, a 24-bit uniform in
// bits 8..31. Candidates that fall outside the layer's inner rectangle are flagged for the
// scalar slow path. Branch-free; cloned per instruction set.
__attribute__((target_clones("avx512f", "avx2", "default"))) void ziggurat_fast(
    const uint32_t* bits, const float* x, float* out, uint8_t* reject, int n) {
  constexpr float kTwoPowMinus24 = 1.0f / 16777216.0f;
#pragma omp simd
  for (int k = 0; k < n; ++k) {
    const uint32_t b = bits[k];
    const auto i = static_cast<int>(b & 0x7fu);
    const float t = static_cast<float>(static_cast<int32_t>(b >> 8)) * kTwoPowMinus24 * x[i];
    reject[k] = !(t < x[i + 1]);
    uint32_t u;
    std::memcpy(&u, &t, sizeof u);
    u ^= (b & 0x80u) << 24;
    std::memcpy(&out[k], &u, sizeof u);
  }
}

}  // namespace

void Rng::fill_normal(float* out, int64_t n) {
#if defined(__x86_64__)
  if (avx512_normals()) {
    fill_normal_avx512(out, n);
    return;
  }
  if (detail::fill_normal_avx2(*this, out, n)) return;
#endif
  fill_normal_portable(out, n);
}

void Rng::fill_normal_portable(float* out, int64_t n) {
  const FloatZiggurat& z = float_ziggurat();
  uint64_t s[4][kLanes];
  seed_lanes(s);
  uint32_t bits[kChunk];
  uint8_t reject[kChunk];
  for (int64_t k0 = 0; k0 < n; k0 += kChunk) {
    const int count = static_cast<int>(std::min<int64_t>(kChunk, n - k0));
    const int steps = (count + 2 * kLanes - 1) / (2 * kLanes);
    xoshiro_lanes(s, bits, steps);
    float* o = out + k0;
    ziggurat_fast(bits, z.x.data(), o, reject, count);
    for (int k = 0; k < count; ++k)
      if (reject[k]) o[k] = reject_candidate(bits[k]);
  }
}

namespace {

// fill_normal's eight lanes, seeded from `rng` (word w of lane l in s[w][l]).
void seed_lanes_from(Rng& rng, uint64_t (&s)[4][kLanes]) {
  for (int l = 0; l < kLanes; ++l) {
    uint64_t st = rng.next_u64();
    for (auto& word : s) word[l] = splitmix64(st);
  }
}

}  // namespace

void Rng::seed_lanes(uint64_t (&s)[4][8]) {
  seed_lanes_from(*this, s);
}

float Rng::reject_candidate(uint32_t b) {
  const FloatZiggurat& z = float_ziggurat();
  const auto i = static_cast<int>(b & 0x7fu);
  const float t = static_cast<float>(b >> 8) * (1.0f / 16777216.0f) * z.x[static_cast<size_t>(i)];
  return float_slow_path(i, t, (b >> 7) & 1);
}

#if defined(__x86_64__)
bool Rng::avx512_normals() {
  static const bool ok = __builtin_cpu_supports("avx512f") != 0;
  return ok;
}

// fill_normal_portable's arithmetic in AVX-512 registers, one xoshiro step (sixteen 32-bit draws)
// at a time: the eight lanes stay in registers, the ziggurat's 129 layer widths sit in registers
// too (looked up with two-source permutes instead of gathers), and the candidates outside the
// inner rectangles are collected (compressed) per block of 1024 and then sent to the same scalar
// slow path in increasing order (the lanes and this generator are separate streams, so this
// consumes this generator exactly as the portable path does). Integer operations and exactly
// rounded float products only: the bytes of fill_normal_portable.
namespace {

// table[i] for 7-bit i from a table of 128 floats held in eight registers.
__attribute__((target("avx512f"))) inline __m512 lookup128(const __m512 (&t)[8], __m512i i,
                                                           __mmask16 bit5, __mmask16 bit6) {
  const __m512 p0 = _mm512_permutex2var_ps(t[0], i, t[1]);
  const __m512 p1 = _mm512_permutex2var_ps(t[2], i, t[3]);
  const __m512 p2 = _mm512_permutex2var_ps(t[4], i, t[5]);
  const __m512 p3 = _mm512_permutex2var_ps(t[6], i, t[7]);
  return _mm512_mask_blend_ps(bit6, _mm512_mask_blend_ps(bit5, p0, p1),
                              _mm512_mask_blend_ps(bit5, p2, p3));
}

}  // namespace

__attribute__((target("avx512f"))) void Rng::fill_normal_avx512(float* out, int64_t n) {
  const FloatZiggurat& z = float_ziggurat();
  uint64_t lanes[4][kLanes];
  seed_lanes(lanes);
  __m512i s0 = _mm512_loadu_si512(lanes[0]);
  __m512i s1 = _mm512_loadu_si512(lanes[1]);
  __m512i s2 = _mm512_loadu_si512(lanes[2]);
  __m512i s3 = _mm512_loadu_si512(lanes[3]);
  __m512 width_table[8];
  __m512 next_table[8];
  for (int j = 0; j < 8; ++j) {
    width_table[j] = _mm512_loadu_ps(z.x.data() + 16 * j);
    next_table[j] = _mm512_loadu_ps(z.x.data() + 1 + 16 * j);
  }
  const __m512i layer_mask = _mm512_set1_epi32(0x7f);
  const __m512i bit5_mask = _mm512_set1_epi32(0x20);
  const __m512i bit6_mask = _mm512_set1_epi32(0x40);
  const __m512i sign_mask = _mm512_set1_epi32(0x80);
  const __m512 two_pow_minus24 = _mm512_set1_ps(1.0f / 16777216.0f);
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  constexpr int kBlock = 1024;
  uint32_t rejected_bits[kBlock + 16];
  int32_t rejected_at[kBlock + 16];
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int count = static_cast<int>(std::min<int64_t>(kBlock, n - b0));
    float* o = out + b0;
    int rejected = 0;
    for (int k0 = 0; k0 < count; k0 += 16) {
      // One xoshiro256++ step of the eight lanes; lane l's output is draws 2l (low) and 2l + 1.
      const __m512i r = _mm512_add_epi64(_mm512_rol_epi64(_mm512_add_epi64(s0, s3), 23), s0);
      const __m512i t1 = _mm512_slli_epi64(s1, 17);
      s2 = _mm512_xor_si512(s2, s0);
      s3 = _mm512_xor_si512(s3, s1);
      s1 = _mm512_xor_si512(s1, s2);
      s0 = _mm512_xor_si512(s0, s3);
      s2 = _mm512_xor_si512(s2, t1);
      s3 = _mm512_rol_epi64(s3, 45);
      // Ziggurat fast path (ziggurat_fast).
      const __m512i layer = _mm512_and_si512(r, layer_mask);
      const __mmask16 bit5 = _mm512_test_epi32_mask(r, bit5_mask);
      const __mmask16 bit6 = _mm512_test_epi32_mask(r, bit6_mask);
      const __m512 width = lookup128(width_table, layer, bit5, bit6);
      const __m512 next = lookup128(next_table, layer, bit5, bit6);
      const __m512 u = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32(r, 8)), two_pow_minus24);
      const __m512 t = _mm512_mul_ps(u, width);
      const int left = count - k0;
      const __mmask16 valid = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1u);
      const __mmask16 reject = _mm512_mask_cmp_ps_mask(valid, t, next, _CMP_NLT_UQ);
      const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(r, sign_mask), 24);
      _mm512_mask_storeu_ps(o + k0, valid,
                            _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(t), sign)));
      // The rejected candidates' bits and positions, appended in order.
      _mm512_storeu_si512(rejected_bits + rejected, _mm512_maskz_compress_epi32(reject, r));
      _mm512_storeu_si512(
          rejected_at + rejected,
          _mm512_maskz_compress_epi32(reject, _mm512_add_epi32(iota, _mm512_set1_epi32(k0))));
      rejected += __builtin_popcount(reject);
    }
    for (int j = 0; j < rejected; ++j) o[rejected_at[j]] = reject_candidate(rejected_bits[j]);
  }
}

// fill_normal_portable's arithmetic in AVX2 registers for CPUs without AVX-512 (the portable
// path's compiled AVX2 clone made three passes through memory per block: the lanes' draws, the
// fast path with its reject flags, a scalar scan of the flags). One xoshiro step (sixteen 32-bit
// draws, lanes 0-3 and 4-7 in two registers) at a time, the eight lanes in registers, each
// draw's layer width and the next one's gathered as one 64-bit element, a byte of reject flags
// per eight draws, and the candidates outside the inner rectangles sent to the same scalar slow
// path in increasing order after each block of 1024, as fill_normal_avx512 does (the lanes and
// the generator are separate streams). Integer operations and exactly rounded float products
// only: the bytes of fill_normal_portable.
namespace {

__attribute__((target("avx2"))) inline __m256i rotl64x4(__m256i x, int k) {
  return _mm256_or_si256(_mm256_slli_epi64(x, k), _mm256_srli_epi64(x, 64 - k));
}

// fill_normal_avx2's ziggurat fast path (ziggurat_fast) on eight draws r, written to o; returns
// their reject bits. `pairs[i]` holds layer i's (x[i], x[i + 1]); left < 8 (the block's last
// draws) stores and flags only the first `left`.
__attribute__((target("avx2"), always_inline)) inline uint8_t ziggurat8(__m256i r,
                                                                        const long long* pairs,
                                                                        float* o, int left) {
  const __m256i layer_mask = _mm256_set1_epi32(0x7f);
  const __m256i sign_mask = _mm256_set1_epi32(0x80);
  const __m256 two_pow_minus24 = _mm256_set1_ps(1.0f / 16777216.0f);
  // Draws 0, 1, 4, 5 in g0 and 2, 3, 6, 7 in g1, so that the even and odd floats of the two
  // gathers come out in draw order.
  const __m256i layer = _mm256_permute4x64_epi64(_mm256_and_si256(r, layer_mask), 0xd8);
  const __m256 g0 =
      _mm256_castsi256_ps(_mm256_i32gather_epi64(pairs, _mm256_castsi256_si128(layer), 8));
  const __m256 g1 =
      _mm256_castsi256_ps(_mm256_i32gather_epi64(pairs, _mm256_extracti128_si256(layer, 1), 8));
  const __m256 width = _mm256_shuffle_ps(g0, g1, 0x88);
  const __m256 next = _mm256_shuffle_ps(g0, g1, 0xdd);
  const __m256 u = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32(r, 8)), two_pow_minus24);
  const __m256 t = _mm256_mul_ps(u, width);
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(r, sign_mask), 24);
  const __m256 value = _mm256_castsi256_ps(_mm256_xor_si256(_mm256_castps_si256(t), sign));
  int reject = _mm256_movemask_ps(_mm256_cmp_ps(t, next, _CMP_NLT_UQ));
  if (left >= 8) [[likely]] {
    _mm256_storeu_ps(o, value);
  } else {
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    _mm256_maskstore_ps(o, _mm256_cmpgt_epi32(_mm256_set1_epi32(left), iota), value);
    reject &= (1 << left) - 1;
  }
  return static_cast<uint8_t>(reject);
}

bool avx2_normals() {
  static const bool ok = __builtin_cpu_supports("avx2") != 0;
  return ok;
}

// The slow path of the block's candidates flagged in masks[g] bit j (draw 8 g + j, result to
// out[8 g + j]), in increasing order. Not inlined into the AVX2 kernel: its double arithmetic
// stays that of the baseline instruction set (no FMA contraction of y's product and sum).
__attribute__((noinline)) void reject_block(Rng& rng, const FloatZiggurat& z, float* out,
                                            const uint32_t* draws, const uint8_t* masks,
                                            int groups) {
  for (int g = 0; g < groups; ++g)
    for (unsigned bits = masks[g]; bits != 0; bits &= bits - 1) {
      const int k = 8 * g + __builtin_ctz(bits);
      const uint32_t b = draws[k];
      const auto i = static_cast<int>(b & 0x7fu);
      const float t =
          static_cast<float>(b >> 8) * (1.0f / 16777216.0f) * z.x[static_cast<size_t>(i)];
      out[k] = float_reject(rng, z, i, t, (b >> 7) & 1);
    }
}

// The AVX2 kernel (above) for `rng`, whose eight lanes fill_normal seeded into `lanes`.
__attribute__((target("avx2"))) void normal_kernel_avx2(Rng& rng,
                                                        const uint64_t (&lanes)[4][kLanes],
                                                        float* out, int64_t n) {
  const FloatZiggurat& z = float_ziggurat();
  // Layer i's (x[i], x[i + 1]) as one 64-bit table entry: one gather element per draw.
  alignas(64) static const auto pair_table = [&z] {
    std::array<uint64_t, FloatZiggurat::kLayers> t{};
    for (int i = 0; i < FloatZiggurat::kLayers; ++i)
      t[i] = std::bit_cast<uint32_t>(z.x[i]) |
             static_cast<uint64_t>(std::bit_cast<uint32_t>(z.x[i + 1])) << 32;
    return t;
  }();
  const auto* pairs = reinterpret_cast<const long long*>(pair_table.data());
  // Lanes 0-3 in the a registers, 4-7 in the b registers.
  const auto* lane_words = reinterpret_cast<const __m256i*>(&lanes[0][0]);
  __m256i s0a = _mm256_loadu_si256(lane_words + 0), s0b = _mm256_loadu_si256(lane_words + 1);
  __m256i s1a = _mm256_loadu_si256(lane_words + 2), s1b = _mm256_loadu_si256(lane_words + 3);
  __m256i s2a = _mm256_loadu_si256(lane_words + 4), s2b = _mm256_loadu_si256(lane_words + 5);
  __m256i s3a = _mm256_loadu_si256(lane_words + 6), s3b = _mm256_loadu_si256(lane_words + 7);
  constexpr int kBlock = 1024;
  alignas(32) uint32_t draws[kBlock];  // the block's draws, read again for its rejects only
  uint8_t reject_mask[kBlock / 8];     // per 8 draws: bit j set when draw j was rejected
  for (int64_t b0 = 0; b0 < n; b0 += kBlock) {
    const int count = static_cast<int>(std::min<int64_t>(kBlock, n - b0));
    float* o = out + b0;
    const int groups = (count + 7) / 8;
    for (int k0 = 0; k0 < count; k0 += 16) {
      // One xoshiro256++ step of the eight lanes; lane l's output is draws 2l (low) and 2l + 1.
      const __m256i ra = _mm256_add_epi64(rotl64x4(_mm256_add_epi64(s0a, s3a), 23), s0a);
      const __m256i rb = _mm256_add_epi64(rotl64x4(_mm256_add_epi64(s0b, s3b), 23), s0b);
      const __m256i ta = _mm256_slli_epi64(s1a, 17);
      const __m256i tb = _mm256_slli_epi64(s1b, 17);
      s2a = _mm256_xor_si256(s2a, s0a);
      s2b = _mm256_xor_si256(s2b, s0b);
      s3a = _mm256_xor_si256(s3a, s1a);
      s3b = _mm256_xor_si256(s3b, s1b);
      s1a = _mm256_xor_si256(s1a, s2a);
      s1b = _mm256_xor_si256(s1b, s2b);
      s0a = _mm256_xor_si256(s0a, s3a);
      s0b = _mm256_xor_si256(s0b, s3b);
      s2a = _mm256_xor_si256(s2a, ta);
      s2b = _mm256_xor_si256(s2b, tb);
      s3a = rotl64x4(s3a, 45);
      s3b = rotl64x4(s3b, 45);
      _mm256_store_si256(reinterpret_cast<__m256i*>(draws + k0), ra);
      _mm256_store_si256(reinterpret_cast<__m256i*>(draws + k0 + 8), rb);
      const int left = count - k0;
      reject_mask[k0 / 8] = ziggurat8(ra, pairs, o + k0, left);
      if (left > 8) reject_mask[k0 / 8 + 1] = ziggurat8(rb, pairs, o + k0 + 8, left - 8);
    }
    // The rejected candidates in increasing order, through the portable path's slow path.
    reject_block(rng, z, o, draws, reject_mask, groups);
  }
}

}  // namespace
#endif

bool detail::fill_normal_avx2(Rng& rng, float* out, int64_t n) {
#if defined(__x86_64__)
  if (!avx2_normals()) return false;
  uint64_t lanes[4][kLanes];
  seed_lanes_from(rng, lanes);
  normal_kernel_avx2(rng, lanes, out, n);
  return true;
#else
  (void)rng, (void)out, (void)n;
  return false;
#endif
}

void Rng::fill_uniform(float* out, int64_t n, float lo, float hi) {
  const double width = static_cast<double>(hi) - lo;
  for (int64_t k = 0; k < n; ++k) out[k] = static_cast<float>(lo + width * uniform());
}

namespace {

// `n` steps of eight xoshiro256++ lanes, each output turned into fill_uniform's value:
// float(lo + width * ((r >> 11) * 2^-53)) in double, as uniform() does. The 53-bit integer goes to
// double exactly through the 2^52 exponent trick on its upper 52 bits (x = 2 h + b), so no
// 64-bit integer conversion instruction is needed and every clone gives the same bytes.
__attribute__((target_clones("avx512f", "avx2", "default"))) void uniform_lanes(
    uint64_t (&s)[4][kLanes], float* out, int64_t n, double lo, double width) {
  constexpr uint64_t kExp52 = 0x4330000000000000ULL;  // the double 2^52
  constexpr double kTwo52 = 4503599627370496.0;
  for (int64_t j = 0; j < n; ++j) {
    float v[kLanes];
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const uint64_t a = s[0][l] + s[3][l];
      const uint64_t r = ((a << 23) | (a >> 41)) + s[0][l];
      const uint64_t sh = s[1][l] << 17;
      s[2][l] ^= s[0][l];
      s[3][l] ^= s[1][l];
      s[1][l] ^= s[2][l];
      s[0][l] ^= s[3][l];
      s[2][l] ^= sh;
      s[3][l] = (s[3][l] << 45) | (s[3][l] >> 19);
      const uint64_t x = r >> 11;
      const double h = std::bit_cast<double>(kExp52 | (x >> 1)) - kTwo52;
      const double b = std::bit_cast<double>(kExp52 | (x & 1)) - kTwo52;
      const double u = (h * 2.0 + b) * kTwoPowMinus53;
      v[l] = static_cast<float>(lo + width * u);
    }
    for (int l = 0; l < kLanes; ++l) out[l * n + j] = v[l];
  }
}

}  // namespace

void Rng::fill_uniform_streams(const uint64_t* seeds, int count, float* out, int64_t n, float lo,
                               float hi) {
  HETCIM_ASSERT(count >= 0 && count <= kUniformStreams);
  if (count == 0 || n <= 0) return;
  uint64_t s[4][kLanes];
  for (int l = 0; l < kLanes; ++l) {
    uint64_t st = seeds[std::min(l, count - 1)];  // unused lanes repeat the last stream
    for (auto& word : s) word[l] = splitmix64(st);
  }
  // Lanes past `count` write past the caller's rows: stage those in a local tail.
  if (count == kLanes) {
    uniform_lanes(s, out, n, lo, static_cast<double>(hi) - lo);
    return;
  }
  std::vector<float> staged(static_cast<size_t>(kLanes * n));
  uniform_lanes(s, staged.data(), n, lo, static_cast<double>(hi) - lo);
  std::copy(staged.begin(), staged.begin() + count * n, out);
}

}  // namespace hetcim::xbar
