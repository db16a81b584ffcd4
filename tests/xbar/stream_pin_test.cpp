// The simulator's random streams and arithmetic pinned to the bytes of an earlier implementation:
// FNV-1a hashes of fill_normal's output and of ProgrammedLayer::forward on several profiles,
// computed with the code at commit 3546944 (before issue 15's speed work: fill_normal's AVX-512
// kernel, the fused ADC pass, the side-by-side uniform streams of the reference mode; the
// fill_normal hashes were also reproduced by compiling that commit's rng.cpp on its own). A
// change here is a change of random stream or of arithmetic: say so in src/xbar/README.md (results
// measured on the old bytes, e.g. accuracy tables, are then re-measured) and update the hashes.
// The forward hashes are those of the AVX-512 clones of the element-wise kernels (the development
// and CI machines): GCC contracts a * b + c into FMA in the AVX2/AVX-512 clones of C++ code (its
// default -ffp-contract=fast), so a CPU without them may compute other last bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xbar/chip.h"
#include "xbar/chips_yaml.h"
#include "xbar/rng.h"

namespace hetcim::xbar {
namespace {

uint64_t fnv1a(const std::vector<float>& v) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(float); ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

TEST(StreamPin, FillNormalBytesAreThoseOfCommit3546944) {
  struct Pin {
    uint64_t seed, hash, next;
  };
  for (const Pin& pin : {Pin{2024, 0xbea0c0cc351154f8ULL, 0xf8b7ff14e4e97b38ULL},
                         Pin{7, 0x8aa235136f8b4e20ULL, 0xd5952f2bdb9ea7ccULL}}) {
    Rng r(pin.seed);
    std::vector<float> z(4000000);
    r.fill_normal(z.data(), static_cast<int64_t>(z.size()));
    EXPECT_EQ(fnv1a(z), pin.hash) << "seed " << pin.seed;
    EXPECT_EQ(r.next_u64(), pin.next) << "seed " << pin.seed;  // the generator's state after
  }
}

// Two forward calls (the second on the advanced read stream) of a layer programmed on chip seed
// 9; inputs with exact zeros and one all-zero vector (no read noise drawn for it).
TEST(StreamPin, ForwardBytesAreThoseOfCommit3546944) {
  if (!__builtin_cpu_supports("avx512f"))
    GTEST_SKIP() << "the pinned hashes are those of the AVX-512 kernels (see the file's header)";
#ifndef __OPTIMIZE__
  // An unoptimised build (the asan preset is Debug) contracts no a * b + c into FMA, so its last
  // bits differ from the optimised builds' whose hashes these are.
  GTEST_SKIP() << "the pinned hashes are those of an optimised build (FMA contraction)";
#endif
  const ChipProfile a3 = load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
  struct Case {
    const char* what;
    uint64_t hash;
    int64_t clipped;
  };
  const Case cases[] = {
      {"A3, one array", 0x7525b45a11f761e5ULL, 0},
      {"A3 on 64x32 arrays (5 x 5 tiles)", 0xf70bffaeadaffad8ULL, 0},
      {"A3, reference mode", 0x1421de9646c15939ULL, 0},
      {"fixed ADC full scale 3 on 64x32 arrays", 0xc6c145f884641f15ULL, 439},
      {"ideal converters on 64-row arrays", 0x01ae905f4f504043ULL, 0},
      {"2048x256 on 256x256 arrays, batch 600", 0xecbf2d70d623be23ULL, 0},
      {"no read noise, 100x40 arrays", 0xa9edbf4f9d24399fULL, 0},
  };
  for (int c = 0; c < 7; ++c) {
    ChipProfile p = a3;
    int64_t K = 300, N = 70, B = 1100;
    if (c == 1) p.array_rows = 64, p.array_cols = 32;
    if (c == 2) p.mode = SimMode::Reference;
    if (c == 3) {
      p.adc_ranging = AdcRanging::Fixed;
      p.adc_full_scale = 3.0;
      p.array_rows = 64;
      p.array_cols = 32;
    }
    if (c == 4) p.dac_bits = 0, p.adc_bits = 0, p.array_rows = 64;
    if (c == 5) K = 2048, N = 256, B = 600, p.array_rows = 256, p.array_cols = 256;
    if (c == 6) p.read_noise = 0, p.array_rows = 100, p.array_cols = 40;
    Rng wr(5);
    std::vector<float> w(static_cast<size_t>(K * N)), x(static_cast<size_t>(B * K)),
        y(static_cast<size_t>(B * N));
    for (auto& v : w) v = static_cast<float>(wr.normal()) * 0.05f;
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 7 == 0 ? 0.0f : static_cast<float>(wr.normal());
    for (int64_t k = 0; k < K; ++k) x[static_cast<size_t>(3 * K + k)] = 0.0f;
    const ProgrammedLayer layer = Chip(p, 9).program("fc", w.data(), K, N);
    Rng rr(13);
    ForwardStats st;
    layer.forward(x.data(), B, y.data(), rr, &st);
    layer.forward(x.data(), B, y.data(), rr, &st);
    EXPECT_EQ(fnv1a(y), cases[c].hash) << cases[c].what;
    EXPECT_EQ(st.adc_clipped, cases[c].clipped) << cases[c].what;
  }
}

}  // namespace
}  // namespace hetcim::xbar
