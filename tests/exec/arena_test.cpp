// The engine's activation arena (exec/arena.h) and the memory it plans: live regions never
// overlap (checked against a brute-force list of live intervals on a seeded random sequence),
// first fit reuses a released region, and an engine that shares activation memory computes
// bit for bit what one with a buffer per tensor computes, on fp32 and int8 zoo models whose
// graphs have residual branches (tensors read long after they are produced) and in-place views.
#include "exec/arena.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "exec/engine.h"
#include "exec/inputs.h"
#include "test_util.h"
#include "util/error.h"

namespace hetcim::exec {
namespace {

TEST(Arena, LiveRegionsNeverOverlapAndComeZeroed) {
  Arena a(size_t{1} << 20);  // small chunks: the sequence below needs several
  std::mt19937_64 rng(7);
  struct Live {
    uint8_t* p;
    size_t n;
  };
  std::vector<Live> live;
  size_t sum = 0;
  for (int step = 0; step < 4000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      const size_t n = 1 + rng() % (size_t{3} << 18);  // up to 768 kB, some larger than 1 MB / 2
      auto* p = static_cast<uint8_t*>(a.allocate(n));
      ASSERT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0U);
      for (size_t k = 0; k < n; k += 4093) ASSERT_EQ(p[k], 0) << "not zero-filled";
      for (const Live& l : live) ASSERT_TRUE(p + n <= l.p || l.p + l.n <= p) << "overlap";
      std::memset(p, 0xAB, n);  // the next owner of these bytes must get them zeroed again
      live.push_back({p, n});
      sum += (n + 63) / 64 * 64;
    } else {
      const size_t k = rng() % live.size();
      a.release(live[k].p);
      sum -= (live[k].n + 63) / 64 * 64;
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
    ASSERT_EQ(a.in_use_bytes(), sum);
  }
}

TEST(Arena, FirstFitReusesAReleasedRegionAndCoalesces) {
  Arena a(size_t{1} << 20);
  void* x = a.allocate(1000);  // 1024 bytes
  void* y = a.allocate(1000);
  void* z = a.allocate(64);
  EXPECT_EQ(a.high_water_bytes(), 2112U);
  a.release(x);
  EXPECT_EQ(a.allocate(1024), x);  // the hole x left, not new bytes
  a.release(x);
  a.release(y);                    // x and y coalesce into one 2048-byte hole
  EXPECT_EQ(a.allocate(2048), x);  // which a tensor of both sizes together fits
  EXPECT_EQ(a.high_water_bytes(), 2112U);
  EXPECT_NE(z, nullptr);
}

// The same graph and inputs through an engine with a buffer per tensor and one that shares
// activation memory by lifetime: every output byte equal. A buffer per tensor
// (keep_intermediates) runs the unfused plan; `fuse` runs the shared engine's fused plan, equal
// bit for bit in int8 only (in float32 a residual Add as a sum post-op rounds in another order on
// some CPUs: oneDNN's AVX2 kernels start their sums from the other operand).
void expect_shared_equals_separate(const std::string& model, passes::Precision precision,
                                   bool fuse) {
  SCOPED_TRACE(model + (fuse ? " fused" : " unfused"));
  const graph::Graph g = testing::prepared(model, precision);
  const TensorMap inputs = random_inputs(g, 3);
  EngineOptions shared, separate;
  shared.fuse = fuse;
  separate.keep_intermediates = true;
  Engine shared_engine(g, shared), separate_engine(g, separate);
  for (int run = 0; run < 2; ++run) {  // a second run starts from the first run's leftovers
    const TensorMap a = shared_engine.run(inputs), b = separate_engine.run(inputs);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, t] : b) EXPECT_EQ(a.at(name).bytes, t.bytes) << name;
  }
}

TEST(EngineMemory, SharedActivationMemoryGivesTheSameBytes) {
  expect_shared_equals_separate("resnet18", passes::Precision::Fp32, false);
  expect_shared_equals_separate("resnet18", passes::Precision::Int8, true);
  expect_shared_equals_separate("bottleneck", passes::Precision::Int8, true);
  expect_shared_equals_separate("race_cnn", passes::Precision::Fp32, false);
}

TEST(EngineMemory, AnIntermediateIsReadableOnlyWhenKept) {
  const graph::Graph g = testing::prepared("race_cnn", passes::Precision::Fp32);
  const std::string mid = g.nodes.front().outputs.at(0);
  Engine shared_engine(g);
  (void)shared_engine.run(random_inputs(g, 1));
  EXPECT_THROW((void)shared_engine.read(mid), InternalError);
  EXPECT_NO_THROW((void)shared_engine.read(g.outputs.at(0)));
  EngineOptions keep;
  keep.keep_intermediates = true;
  Engine kept(g, keep);
  (void)kept.run(random_inputs(g, 1));
  EXPECT_NO_THROW((void)kept.read(mid));
}

}  // namespace
}  // namespace hetcim::exec
