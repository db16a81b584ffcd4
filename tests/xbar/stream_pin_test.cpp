// The simulator's random streams and arithmetic pinned to the bytes of an earlier implementation:
// FNV-1a hashes of fill_normal's output and of ProgrammedLayer::forward on several profiles,
// computed with the code at commit 3546944 (before issue 15's speed work: fill_normal's AVX-512
// kernel, the fused ADC pass, the side-by-side uniform streams of the reference mode; the
// fill_normal hashes were also reproduced by compiling that commit's rng.cpp on its own). A
// change here is a change of random stream or of arithmetic: say so in src/xbar/README.md (results
// measured on the old bytes, e.g. accuracy tables, are then re-measured) and update the hashes.
// The forward hashes are those of the AVX-512 clones of the element-wise kernels (the development
// and CI machines): GCC contracts a * b + c into FMA in the AVX2/AVX-512 clones of C++ code (its
// default -ffp-contract=fast), so a CPU without them may compute other last bits. A second set,
// the AVX2 clones' bytes, was taken in session 9 on a CPU with AVX2 and no AVX-512 (AMD EPYC,
// family 25) from the code of commit 0fa9501 (the same code as the AVX-512 pins' commits, whose
// AVX2 bytes were never pinned); a CPU with neither skips the forward pins.
// The AVX-512 clones' bytes changed once since: commit 34e2521 (session 11, measured on an AVX2
// CPU) computes the DAC's codes in 8-lane halves, and GCC's avx512f clone no longer contracts
// their sum of squares acc += v * v into an FMA (its disassembly: vmulps + vaddps on ymm, where
// the 16-lane form was one vfmadd231ps on zmm); both clones now add it unfused. Found and re-pinned
// in session 14 on a Zen 5: the four forward cases and the 300x70 case that draw read noise scaled
// by that norm.
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
// Which clones' bytes a pin holds: AVX-512's (0) or AVX2's (1); -1 when neither runs here.
int pinned_clones() {
  if (__builtin_cpu_supports("avx512f")) return 0;
  if (__builtin_cpu_supports("avx2")) return 1;
  return -1;
}

TEST(StreamPin, ForwardBytesAreThoseOfCommit3546944) {
  const int clones = pinned_clones();
  if (clones < 0)
    GTEST_SKIP() << "the pinned hashes are those of the AVX-512 and AVX2 kernels (see the header)";
#ifndef __OPTIMIZE__
  // An unoptimised build (the asan preset is Debug) contracts no a * b + c into FMA, so its last
  // bits differ from the optimised builds' whose hashes these are.
  GTEST_SKIP() << "the pinned hashes are those of an optimised build (FMA contraction)";
#endif
  const ChipProfile a3 = load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
  struct Case {
    const char* what;
    uint64_t hash[2];  // AVX-512, AVX2 clones
    int64_t clipped;
  };
  const Case cases[] = {
      {"A3, one array", {0xed80f961ef92baffULL, 0xcabcad1f0235434fULL}, 0},
      {"A3 on 64x32 arrays (5 x 5 tiles)", {0x40b9ecf2e0008793ULL, 0x579255f74777f5f7ULL}, 0},
      {"A3, reference mode", {0x1421de9646c15939ULL, 0xbba23cdd974800d3ULL}, 0},
      {"fixed ADC full scale 3 on 64x32 arrays",
       {0xc6c145f884641f15ULL, 0x41c9308463ee52e6ULL},
       439},
      {"ideal converters on 64-row arrays", {0xcba6956e352d42e0ULL, 0xa91dd1017fec27c2ULL}, 0},
      {"2048x256 on 256x256 arrays, batch 600", {0x6236df6f0c283eeeULL, 0xe3ce31d6085be402ULL}, 0},
      {"no read noise, 100x40 arrays", {0xa9edbf4f9d24399fULL, 0x4a46e40b75491a73ULL}, 0},
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
    EXPECT_EQ(fnv1a(y), cases[c].hash[clones]) << cases[c].what;
    EXPECT_EQ(st.adc_clipped, cases[c].clipped) << cases[c].what;
  }
}

// Narrow layers (a first convolution's 9 inputs, fewer than 16 of either), each with and without
// the output epilogue, and a wide one with it: the bytes of commit ea09f93, before the DAC and ADC
// of several vectors at once (branch abatch). Same inputs as above; three forward calls.
TEST(StreamPin, NarrowLayerAndEpilogueBytesAreThoseOfCommitEa09f93) {
  const int clones = pinned_clones();
  if (clones < 0)
    GTEST_SKIP() << "the pinned hashes are those of the AVX-512 and AVX2 kernels (see the header)";
#ifndef __OPTIMIZE__
  GTEST_SKIP() << "the pinned hashes are those of an optimised build (FMA contraction)";
#endif
  const ChipProfile a3 = load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A3");
  struct Case {
    const char* what;
    int64_t K, N;
    OutputEpilogue::Act act;
    bool shift;
    uint64_t hash[2];  // AVX-512, AVX2 clones
    int64_t clipped;
  };
  using Act = OutputEpilogue::Act;
  const Case cases[] = {
      {"9x32, bias and Relu",
       9,
       32,
       Act::Relu,
       true,
       {0x581026f7fc7aaf5fULL, 0x00385850e40096ceULL},
       0},
      {"9x32, no epilogue",
       9,
       32,
       Act::None,
       false,
       {0x75460ebe50fd8bdbULL, 0x5cf5b691b0ebdcd5ULL},
       0},
      {"9x32 on 4x32 arrays, Clip",
       9,
       32,
       Act::Clip,
       false,
       {0x933a098cf61cb75cULL, 0x7863ac46825392a2ULL},
       0},
      {"5x20, bias and Clip",
       5,
       20,
       Act::Clip,
       true,
       {0xb5c592c89cccb93eULL, 0x607f96d2f915e442ULL},
       0},
      {"1x48, bias", 1, 48, Act::None, true, {0x827d05694a27ec7bULL, 0xa7d0317fbd7b830cULL}, 0},
      {"15x16, ideal converters, Relu",
       15,
       16,
       Act::Relu,
       false,
       {0xfadb1fd1b73fa024ULL, 0x045bbde8c0aea4b2ULL},
       0},
      {"12x40, fixed ADC full scale 0.5, bias and Relu",
       12,
       40,
       Act::Relu,
       true,
       {0x313be272ffbc5b9fULL, 0x313be272ffbc5b9fULL},
       35372},
      {"300x70, bias and Relu",
       300,
       70,
       Act::Relu,
       true,
       {0x6a5cab1e952187e7ULL, 0xa20c0f3392a636e3ULL},
       0},
      {"16x64, bias", 16, 64, Act::None, true, {0xb6372b326e2808b0ULL, 0x80bd876bf71e4e47ULL}, 0},
  };
  for (const Case& k : cases) {
    ChipProfile p = a3;
    const std::string what = k.what;
    if (what.find("4x32") != std::string::npos) p.array_rows = 4, p.array_cols = 32;
    if (what.find("ideal") != std::string::npos) p.dac_bits = 0, p.adc_bits = 0;
    if (what.find("fixed") != std::string::npos) {
      p.adc_ranging = AdcRanging::Fixed;
      p.adc_full_scale = 0.5;
    }
    const int64_t K = k.K, N = k.N, B = 1100;
    Rng wr(5);
    std::vector<float> w(static_cast<size_t>(K * N)), x(static_cast<size_t>(B * K)),
        y(static_cast<size_t>(B * N)), shift(static_cast<size_t>(N));
    for (auto& v : w) v = static_cast<float>(wr.normal()) * 0.05f;
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = i % 7 == 0 ? 0.0f : static_cast<float>(wr.normal());
    for (int64_t j = 0; j < K; ++j) x[static_cast<size_t>(3 * K + j)] = 0.0f;
    for (auto& v : shift) v = static_cast<float>(wr.normal()) * 0.1f;
    OutputEpilogue e;
    e.act = k.act;
    e.lo = -0.05f, e.hi = 0.07f;
    if (k.shift) e.shift = shift;
    const ProgrammedLayer layer = Chip(p, 9).program("conv", w.data(), K, N);
    Rng rr(13);
    ForwardStats st;
    std::vector<float> all;
    for (int call = 0; call < 3; ++call) {
      layer.forward(x.data(), B - call * 300, y.data(), rr, &st, &e);
      all.insert(all.end(), y.begin(), y.begin() + (B - call * 300) * N);
    }
    EXPECT_EQ(fnv1a(all), k.hash[clones]) << k.what << ": 0x" << std::hex << fnv1a(all);
    EXPECT_EQ(st.adc_clipped, k.clipped) << k.what;
  }
}

}  // namespace
}  // namespace hetcim::xbar
