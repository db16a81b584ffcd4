#include "xbar/converters.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

namespace hetcim::xbar {
namespace {

TEST(Converters, EightBitCodesAreMinus128To127) {
  // A sweep over [-2F, 2F] must land on exactly 256 distinct values: codes -128..127 times F/127.
  const float fs = 3.0f;
  std::vector<float> v(100001);
  for (size_t i = 0; i < v.size(); ++i) v[i] = -2 * fs + 4 * fs * static_cast<float>(i) / 100000.0f;
  std::vector<float> q = v;
  const int64_t clipped = quantize_signed(q.data(), static_cast<int64_t>(q.size()), fs, 8);
  std::set<int> codes;
  for (float x : q) {
    const float c = x / fs * 127.0f;
    EXPECT_NEAR(c, std::round(c), 1e-3);
    codes.insert(static_cast<int>(std::lround(c)));
  }
  EXPECT_EQ(codes.size(), 256u);
  EXPECT_EQ(*codes.begin(), -128);
  EXPECT_EQ(*codes.rbegin(), 127);
  // Clipped: values above 127.5 F/127 or below -128.5 F/127 (ties round to even: 127.5 -> 128
  // clips, -128.5 -> -128 does not).
  int64_t expected = 0;
  for (float x : v) expected += (x * (127.0f / fs) >= 127.5f) || (x * (127.0f / fs) < -128.5f);
  EXPECT_EQ(clipped, expected);
}

TEST(Converters, ValuesByHand) {
  std::vector<float> v = {0.5f, 1.0f, -1.0f, 2.0f, -2.0f, 0.001f, -0.0039f};
  const int64_t clipped = quantize_signed(v.data(), 7, 1.0f, 8);
  EXPECT_EQ(clipped, 2);
  EXPECT_FLOAT_EQ(v[0], 64.0f / 127);  // 63.5 -> 64 (even)
  EXPECT_FLOAT_EQ(v[1], 1.0f);
  EXPECT_FLOAT_EQ(v[2], -1.0f);
  EXPECT_FLOAT_EQ(v[3], 1.0f);           // clipped to code 127
  EXPECT_FLOAT_EQ(v[4], -128.0f / 127);  // clipped to code -128
  EXPECT_FLOAT_EQ(v[5], 0.0f);           // 0.127 -> 0
  EXPECT_FLOAT_EQ(v[6], 0.0f);           // -0.4953 -> 0
}

TEST(Converters, FourBitAndIdeal) {
  std::vector<float> v = {0.3f, -0.99f, 0.65f};
  (void)quantize_signed(v.data(), 3, 1.0f, 4);  // M = 7
  EXPECT_FLOAT_EQ(v[0], 2.0f / 7);              // 2.1 -> 2
  EXPECT_FLOAT_EQ(v[1], -1.0f);                 // -6.93 -> -7
  EXPECT_FLOAT_EQ(v[2], 5.0f / 7);              // 4.55 -> 5
  std::vector<float> w = {0.123f, -7.5f};
  EXPECT_EQ(quantize_signed(w.data(), 2, 1.0f, 0), 0);
  EXPECT_FLOAT_EQ(w[0], 0.123f);
  EXPECT_FLOAT_EQ(w[1], -7.5f);
}

TEST(Converters, ZeroFullScaleGivesZero) {
  std::vector<float> v = {0.0f, 0.0f};
  EXPECT_EQ(quantize_signed(v.data(), 2, 0.0f, 8), 0);
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_FLOAT_EQ(max_abs(std::vector<float>{1.0f, -3.0f, 2.0f}.data(), 3), 3.0f);
}

}  // namespace
}  // namespace hetcim::xbar
