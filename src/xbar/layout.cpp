#include "xbar/layout.h"

#include "util/error.h"

namespace hetcim::xbar {

std::vector<float> linear_to_crossbar(const float* w, int64_t out_features, int64_t in_features) {
  std::vector<float> m(static_cast<size_t>(out_features * in_features));
  for (int64_t o = 0; o < out_features; ++o)
    for (int64_t i = 0; i < in_features; ++i)
      m[static_cast<size_t>(i * out_features + o)] = w[o * in_features + i];
  return m;
}

std::vector<float> conv_to_crossbar(const float* w, int64_t c_out, int64_t c_in, int64_t k_h,
                                    int64_t k_w) {
  const int64_t patch = c_in * k_h * k_w;
  std::vector<float> m(static_cast<size_t>(patch * c_out));
  for (int64_t o = 0; o < c_out; ++o)
    for (int64_t r = 0; r < patch; ++r) m[static_cast<size_t>(r * c_out + o)] = w[o * patch + r];
  return m;
}

int64_t Conv2dGeometry::out_height() const {
  return (height + pad_top + pad_bottom - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
}

int64_t Conv2dGeometry::out_width() const {
  return (width + pad_left + pad_right - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
}

void check_geometry(const Conv2dGeometry& g) {
  if (g.batch < 0 || g.channels < 1 || g.height < 1 || g.width < 1 || g.kernel_h < 1 ||
      g.kernel_w < 1 || g.stride_h < 1 || g.stride_w < 1 || g.dilation_h < 1 || g.dilation_w < 1 ||
      g.pad_top < 0 || g.pad_left < 0 || g.pad_bottom < 0 || g.pad_right < 0)
    throw user_error(
        "convolution geometry: sizes, kernel, stride and dilation must be >= 1 and pads >= 0");
  if (g.height + g.pad_top + g.pad_bottom < g.dilation_h * (g.kernel_h - 1) + 1 ||
      g.width + g.pad_left + g.pad_right < g.dilation_w * (g.kernel_w - 1) + 1)
    throw user_error("convolution geometry: a ", g.kernel_h, "x", g.kernel_w,
                     " kernel does not fit a ", g.height, "x", g.width,
                     " input with the given padding");
}

std::vector<float> im2col(const float* x, const Conv2dGeometry& g) {
  check_geometry(g);
  const int64_t ho = g.out_height();
  const int64_t wo = g.out_width();
  const int64_t patch = g.patch_size();
  std::vector<float> cols(static_cast<size_t>(g.batch * ho * wo * patch), 0.0f);
  for (int64_t n = 0; n < g.batch; ++n) {
    for (int64_t oh = 0; oh < ho; ++oh) {
      for (int64_t ow = 0; ow < wo; ++ow) {
        float* row = cols.data() + ((n * ho + oh) * wo + ow) * patch;
        for (int64_t c = 0; c < g.channels; ++c) {
          const float* plane = x + (n * g.channels + c) * g.height * g.width;
          for (int64_t i = 0; i < g.kernel_h; ++i) {
            const int64_t ih = oh * g.stride_h - g.pad_top + i * g.dilation_h;
            for (int64_t j = 0; j < g.kernel_w; ++j) {
              const int64_t iw = ow * g.stride_w - g.pad_left + j * g.dilation_w;
              if (ih >= 0 && ih < g.height && iw >= 0 && iw < g.width)
                row[(c * g.kernel_h + i) * g.kernel_w + j] = plane[ih * g.width + iw];
            }
          }
        }
      }
    }
  }
  return cols;
}

void im2col_nhwc(const float* x, const Conv2dGeometry& g, float* cols) {
  check_geometry(g);
  im2col_nhwc_rows(x, g, 0, g.batch * g.out_height() * g.out_width(), cols);
}

namespace {

// row[c * KK + t] = tap[t][c] for every channel c and tap t < KK.
template <int KK>
void copy_taps(const float* const* tap, int64_t channels, float* __restrict row) {
  const float* p[KK];
  for (int t = 0; t < KK; ++t) p[t] = tap[t];
  for (int64_t c = 0; c < channels; ++c) {
#pragma GCC unroll 16
    for (int t = 0; t < KK; ++t) row[c * KK + t] = p[t][c];
  }
}

}  // namespace

void im2col_nhwc_rows(const float* x, const Conv2dGeometry& g, int64_t first, int64_t n,
                      float* cols) {
  const int64_t ho = g.out_height();
  const int64_t wo = g.out_width();
  const int64_t patch = g.patch_size();
  const int64_t C = g.channels;
  const int64_t kk = g.kernel_h * g.kernel_w;
  HETCIM_ASSERT(first >= 0 && n >= 0 && first + n <= g.batch * ho * wo, "im2col rows ", first,
                " + ", n, " outside the conv's ", g.batch * ho * wo);
  // Per row, the source pixel of each kernel tap (a zero pixel for padding), then the row written
  // in its (c, i, j) order: contiguous stores, reads from the few pixels of the window (in L1).
  const std::vector<float> zeros(static_cast<size_t>(C), 0.0f);
  std::vector<const float*> taps(static_cast<size_t>(kk));
  // Tap offsets from the window's first pixel, and the window's extent beyond it.
  std::vector<int64_t> offset_of(static_cast<size_t>(kk));
  for (int64_t i = 0; i < g.kernel_h; ++i)
    for (int64_t j = 0; j < g.kernel_w; ++j)
      offset_of[static_cast<size_t>(i * g.kernel_w + j)] =
          (i * g.dilation_h * g.width + j * g.dilation_w) * C;
  const int64_t* offset = offset_of.data();
  const int64_t span_h = (g.kernel_h - 1) * g.dilation_h;
  const int64_t span_w = (g.kernel_w - 1) * g.dilation_w;
  // Output pixel (img, oh, ow) of row r, stepped along instead of divided out per row (three
  // 64-bit divisions cost more than a 9-input row).
  int64_t img = first / (ho * wo);
  int64_t oh = (first / wo) % ho;
  int64_t ow = first % wo;
  for (int64_t r = first; r < first + n; ++r, ++ow) {
    if (ow == wo) {
      ow = 0;
      if (++oh == ho) oh = 0, ++img;
    }
    const int64_t ih0 = oh * g.stride_h - g.pad_top;
    const int64_t iw0 = ow * g.stride_w - g.pad_left;
    if (ih0 >= 0 && ih0 + span_h < g.height && iw0 >= 0 && iw0 + span_w < g.width) {
      // The whole window inside the image: every tap at a fixed offset from its first pixel.
      const float* origin = x + ((img * g.height + ih0) * g.width + iw0) * C;
      for (int64_t t = 0; t < kk; ++t) taps[static_cast<size_t>(t)] = origin + offset[t];
    } else {
      for (int64_t i = 0; i < g.kernel_h; ++i) {
        const int64_t ih = ih0 + i * g.dilation_h;
        for (int64_t j = 0; j < g.kernel_w; ++j) {
          const int64_t iw = iw0 + j * g.dilation_w;
          const bool inside = ih >= 0 && ih < g.height && iw >= 0 && iw < g.width;
          taps[static_cast<size_t>(i * g.kernel_w + j)] =
              inside ? x + ((img * g.height + ih) * g.width + iw) * C : zeros.data();
        }
      }
    }
    float* row = cols + (r - first) * patch;
    if (kk == 9) {
      copy_taps<9>(taps.data(), C, row);  // 3x3 kernels: the tap loop unrolled
    } else {
      const float* const* tap = taps.data();
      for (int64_t c = 0; c < C; ++c)
        for (int64_t t = 0; t < kk; ++t) row[c * kk + t] = tap[t][c];
    }
  }
}

std::vector<float> rows_to_nchw(const float* rows, int64_t batch, int64_t c_out, int64_t h_out,
                                int64_t w_out) {
  std::vector<float> out(static_cast<size_t>(batch * c_out * h_out * w_out));
  const int64_t pixels = h_out * w_out;
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t c = 0; c < c_out; ++c)
        out[static_cast<size_t>((n * c_out + c) * pixels + p)] = rows[(n * pixels + p) * c_out + c];
  return out;
}

Conv2dGeometry conv_geometry(const exec::Window2d& w) {
  Conv2dGeometry geo;
  geo.batch = w.n;
  geo.channels = w.c;
  geo.height = w.h;
  geo.width = w.w;
  geo.kernel_h = w.kh;
  geo.kernel_w = w.kw;
  geo.stride_h = w.sh;
  geo.stride_w = w.sw;
  geo.pad_top = w.pt;
  geo.pad_left = w.pl;
  geo.pad_bottom = w.pb;
  geo.pad_right = w.pr;
  geo.dilation_h = w.dh;
  geo.dilation_w = w.dw;
  return geo;
}

}  // namespace hetcim::xbar
