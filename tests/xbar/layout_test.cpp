#include "xbar/layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "util/error.h"
#include "xbar/gemm.h"
#include "xbar/rng.h"

namespace hetcim::xbar {
namespace {

std::vector<float> random(int64_t n, uint64_t seed) {
  Rng r(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(r.normal());
  return v;
}

TEST(Layout, LinearWeightIsTransposed) {
  const std::vector<float> w = {1, 2, 3, 4, 5, 6};  // [out 2, in 3]
  EXPECT_EQ(linear_to_crossbar(w.data(), 2, 3), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Layout, SgemmByHand) {
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};  // 2 x 3
  const std::vector<float> b = {1, 0, 0, 1, 1, 1};  // 3 x 2
  std::vector<float> c(4);
  sgemm(2, 2, 3, a.data(), 3, b.data(), 2, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{4, 5, 10, 11}));
}

// im2col x crossbar weights == direct convolution, with stride, asymmetric padding and dilation.
TEST(Layout, Im2colGemmEqualsDirectConvolution) {
  Conv2dGeometry g;
  g.batch = 2;
  g.channels = 3;
  g.height = 7;
  g.width = 6;
  g.kernel_h = 3;
  g.kernel_w = 2;
  g.stride_h = 2;
  g.stride_w = 1;
  g.pad_top = 1;
  g.pad_left = 0;
  g.pad_bottom = 2;
  g.pad_right = 1;
  g.dilation_h = 1;
  g.dilation_w = 2;
  const int64_t c_out = 4;
  const auto x = random(g.batch * g.channels * g.height * g.width, 1);
  const auto w = random(c_out * g.patch_size(), 2);
  const int64_t ho = g.out_height(), wo = g.out_width();
  EXPECT_EQ(ho, (7 + 3 - 2 - 1) / 2 + 1);  // 4
  EXPECT_EQ(wo, (6 + 1 - 2 - 1) / 1 + 1);  // 5
  const auto cols = im2col(x.data(), g);
  const auto wm = conv_to_crossbar(w.data(), c_out, g.channels, g.kernel_h, g.kernel_w);
  std::vector<float> rows(static_cast<size_t>(g.batch * ho * wo * c_out));
  sgemm(g.batch * ho * wo, c_out, g.patch_size(), cols.data(), g.patch_size(), wm.data(), c_out,
        rows.data(), c_out);
  const auto y = rows_to_nchw(rows.data(), g.batch, c_out, ho, wo);
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t o = 0; o < c_out; ++o)
      for (int64_t oh = 0; oh < ho; ++oh)
        for (int64_t ow = 0; ow < wo; ++ow) {
          double ref = 0;
          for (int64_t c = 0; c < g.channels; ++c)
            for (int64_t i = 0; i < g.kernel_h; ++i)
              for (int64_t j = 0; j < g.kernel_w; ++j) {
                const int64_t ih = oh * g.stride_h - g.pad_top + i * g.dilation_h;
                const int64_t iw = ow * g.stride_w - g.pad_left + j * g.dilation_w;
                if (ih < 0 || ih >= g.height || iw < 0 || iw >= g.width) continue;
                ref += double(x[static_cast<size_t>(
                           ((n * g.channels + c) * g.height + ih) * g.width + iw)]) *
                       w[static_cast<size_t>(((o * g.channels + c) * g.kernel_h + i) * g.kernel_w +
                                             j)];
              }
          EXPECT_NEAR(y[static_cast<size_t>(((n * c_out + o) * ho + oh) * wo + ow)], ref, 1e-4);
        }
}

// Any run of rows of the channels-last im2col is that slice of the whole matrix.
TEST(Layout, Im2colRowsAreSlicesOfTheWholeMatrix) {
  Conv2dGeometry g;
  g.batch = 2;
  g.channels = 3;
  g.height = 5;
  g.width = 4;
  g.kernel_h = 3;
  g.kernel_w = 2;
  g.stride_h = 2;
  g.pad_top = 1;
  g.pad_left = 1;
  g.pad_bottom = 1;
  g.pad_right = 0;
  std::vector<float> x(static_cast<size_t>(2 * 5 * 4 * 3));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) + 1.0f;
  const int64_t rows = g.batch * g.out_height() * g.out_width(), patch = g.patch_size();
  std::vector<float> whole(static_cast<size_t>(rows * patch));
  im2col_nhwc(x.data(), g, whole.data());
  for (int64_t first = 0; first < rows; first += 5) {
    const int64_t n = std::min<int64_t>(7, rows - first);
    std::vector<float> part(static_cast<size_t>(n * patch));
    im2col_nhwc_rows(x.data(), g, first, n, part.data());
    EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + first * patch)) << first;
  }
}

// The channels-last im2col (tap pointers per row, the 3x3 case unrolled, the output pixel stepped
// along) equals the NCHW im2col written independently (layout.cpp's im2col) on the same tensor,
// for a 3x3 kernel with stride, padding on every side and two images, and a 3x2 kernel, both
// from a first row inside the tensor's second image.
TEST(Layout, ChannelsLastIm2colEqualsTheNchwIm2col) {
  for (const int64_t kw : {3, 2}) {
    Conv2dGeometry g;
    g.batch = 2;
    g.channels = 4;
    g.height = 6;
    g.width = 5;
    g.kernel_h = 3;
    g.kernel_w = kw;
    g.stride_h = 2;
    g.stride_w = 1;
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = 1;
    const int64_t C = g.channels, H = g.height, W = g.width;
    std::vector<float> nchw(static_cast<size_t>(g.batch * C * H * W));
    for (size_t i = 0; i < nchw.size(); ++i) nchw[i] = static_cast<float>(i) * 0.5f + 1.0f;
    std::vector<float> nhwc(nchw.size());
    for (int64_t n = 0; n < g.batch; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < H; ++h)
          for (int64_t w = 0; w < W; ++w)
            nhwc[static_cast<size_t>(((n * H + h) * W + w) * C + c)] =
                nchw[static_cast<size_t>(((n * C + c) * H + h) * W + w)];
    const std::vector<float> expected = im2col(nchw.data(), g);
    const int64_t rows = g.batch * g.out_height() * g.out_width(), patch = g.patch_size();
    ASSERT_EQ(static_cast<int64_t>(expected.size()), rows * patch);
    std::vector<float> whole(expected.size());
    im2col_nhwc(nhwc.data(), g, whole.data());
    EXPECT_EQ(whole, expected) << "kernel 3x" << kw;
    const int64_t first = rows / 2 + 3;  // inside the second image, mid-row of the output
    std::vector<float> tail(static_cast<size_t>((rows - first) * patch));
    im2col_nhwc_rows(nhwc.data(), g, first, rows - first, tail.data());
    EXPECT_TRUE(std::equal(tail.begin(), tail.end(), expected.begin() + first * patch))
        << "kernel 3x" << kw;
  }
}

TEST(Layout, GeometryErrors) {
  Conv2dGeometry g;
  g.height = 2;
  g.width = 2;
  g.kernel_h = 3;
  g.kernel_w = 3;
  EXPECT_THROW(check_geometry(g), UserError);
  g.kernel_h = 1;
  g.kernel_w = 1;
  g.stride_h = 0;
  EXPECT_THROW(check_geometry(g), UserError);
}

}  // namespace
}  // namespace hetcim::xbar
