// Weight and activation layouts between the network's tensors and the crossbar's matrices.
// A crossbar holds a layer as rows = inputs x cols = outputs. A Linear/Gemm weight [out, in]
// is transposed; a Conv weight [C_out, C_in, K_h, K_w] becomes (C_in K_h K_w) x C_out with the
// row index (c, i, j) in that order, and the convolution is the product of the im2col matrix
// (one row per output pixel (n, oh, ow), columns in the same (c, i, j) order) with it.
#pragma once

#include <cstdint>
#include <vector>

#include "exec/op_params.h"

namespace hetcim::xbar {

[[nodiscard]] std::vector<float> linear_to_crossbar(const float* w, int64_t out_features,
                                                    int64_t in_features);

[[nodiscard]] std::vector<float> conv_to_crossbar(const float* w, int64_t c_out, int64_t c_in,
                                                  int64_t k_h, int64_t k_w);

struct Conv2dGeometry {
  int64_t batch = 1;
  int64_t channels = 1;  // C_in (groups = 1)
  int64_t height = 1;
  int64_t width = 1;
  int64_t kernel_h = 1;
  int64_t kernel_w = 1;
  int64_t stride_h = 1;
  int64_t stride_w = 1;
  int64_t pad_top = 0;
  int64_t pad_left = 0;
  int64_t pad_bottom = 0;
  int64_t pad_right = 0;
  int64_t dilation_h = 1;
  int64_t dilation_w = 1;

  [[nodiscard]] int64_t out_height() const;
  [[nodiscard]] int64_t out_width() const;
  [[nodiscard]] int64_t patch_size() const { return channels * kernel_h * kernel_w; }
};

// The geometry of a Conv node's window as exec reads it (exec::conv_window).
[[nodiscard]] Conv2dGeometry conv_geometry(const exec::Window2d& w);

// Throws UserError for a geometry with non-positive sizes or an empty output.
void check_geometry(const Conv2dGeometry& g);

// x: NCHW -> (N * H_out * W_out) x (C K_h K_w), zero padding.
[[nodiscard]] std::vector<float> im2col(const float* x, const Conv2dGeometry& g);

// x: NHWC (a channels-last tensor) -> the same matrix as im2col, written to `cols` (N * H_out *
// W_out rows of C K_h K_w, columns in (c, i, j) order; padding positions set to zero).
void im2col_nhwc(const float* x, const Conv2dGeometry& g, float* cols);
// Rows [first, first + n) of that matrix only (cols: n x C K_h K_w).
void im2col_nhwc_rows(const float* x, const Conv2dGeometry& g, int64_t first, int64_t n,
                      float* cols);

// (N * H_out * W_out) x C_out rows (the GEMM result) -> NCHW.
[[nodiscard]] std::vector<float> rows_to_nchw(const float* rows, int64_t batch, int64_t c_out,
                                              int64_t h_out, int64_t w_out);

}  // namespace hetcim::xbar
