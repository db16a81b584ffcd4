// The random source of the simulator: xoshiro256++ seeded through splitmix64, with its own uniform
// and normal (ziggurat) transforms so that the same seed gives the same bytes on every platform and
// standard library (std::normal_distribution is implementation-defined).
//
// Streams: a chip derives one independent generator per purpose and layer with
// Rng::derive(chip_seed, "program/<layer>"), so the stuck-device pattern of a layer does not move
// when its write noise changes, and programming one layer never shifts another layer's noise.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace hetcim::xbar {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // A seed for an independent stream named `stream` under `seed` (splitmix64 of seed ^ FNV-1a).
  [[nodiscard]] static uint64_t derive(uint64_t seed, std::string_view stream);

  [[nodiscard]] uint64_t next_u64();

  // The generator's whole state: a stream saved and restored continues with the same bytes
  // (training checkpoints, train/train.h).
  [[nodiscard]] std::array<uint64_t, 4> state() const { return {s_[0], s_[1], s_[2], s_[3]}; }
  void set_state(const std::array<uint64_t, 4>& s) {
    for (int i = 0; i < 4; ++i) s_[i] = s[static_cast<size_t>(i)];
  }
  [[nodiscard]] double uniform();       // [0, 1), 53 random bits
  [[nodiscard]] double uniform_open();  // (0, 1)
  [[nodiscard]] double normal();        // N(0, 1), 256-layer ziggurat

  // n independent N(0, 1) floats from a faster generator than normal(): eight xoshiro256++
  // lanes seeded from this generator, two 32-bit draws per 64-bit output, a 128-layer float
  // ziggurat (24-bit uniforms: the values sit on float resolution), vectorized; the rare tail and
  // wedge cases draw from this generator. Deterministic: the same state gives the same bytes on
  // every instruction set (only integer operations and exactly rounded float products).
  void fill_normal(float* out, int64_t n);
  // The same bytes without SIMD intrinsics (fill_normal uses an AVX-512 kernel where the CPU has
  // one; this is the definition it must match, and the path of other CPUs).
  void fill_normal_portable(float* out, int64_t n);
  void fill_uniform(float* out, int64_t n, float lo, float hi);  // [lo, hi)

  // Up to eight streams at once: out[l * n + j] = what Rng(seeds[l]).fill_uniform(out + l * n, n,
  // lo, hi) writes, byte for byte, with the streams' generators run side by side in vector lanes.
  static constexpr int kUniformStreams = 8;
  static void fill_uniform_streams(const uint64_t* seeds, int count, float* out, int64_t n,
                                   float lo, float hi);

 private:
  // The ziggurat's rare branch for layer i and candidate t: the tail (i = 0) or the wedge test.
  // Returns false when the candidate is rejected (draw again).
  bool normal_slow_path(int i, double t, bool negative, double& out);
  float float_slow_path(int i, float t, bool negative);
  // fill_normal's pieces: seed its eight lanes from this generator; the slow path of a 32-bit
  // candidate the fast path rejected; the AVX-512 kernel and whether this CPU can run it.
  void seed_lanes(uint64_t (&s)[4][8]);
  float reject_candidate(uint32_t bits);
#if defined(__x86_64__)
  static bool avx512_normals();
  void fill_normal_avx512(float* out, int64_t n);
#endif

  uint64_t s_[4];
};

}  // namespace hetcim::xbar
