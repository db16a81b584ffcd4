// Float 3x3 stride-1 convolution by Winograd's minimal filtering F(m x m, 3 x 3) (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks", CVPR 2016), for CPUs with AVX2 + FMA.
// Without AVX-512 oneDNN 2.6 has no Winograd kernel, and its AVX2 direct kernel already runs at
// the core's FMA limit (bench/README.md, exec, session 13), so only fewer multiplies make these
// layers faster. With AVX-512 it replaces oneDNN's own Winograd kernels on maps of at least 32
// F(2x2) tiles, where it measured faster (the engine's winograd_tile; session 16). F(2x2,3x3)
// multiplies 2.25x less than a direct sum, F(4x4,3x3) 4x less.
//
// The engine owns the pieces that are not Winograd's: tensors in aBcd8b (8 channels per block,
// the layout oneDNN's AVX2 kernels use), the multiplication as one batched oneDNN matmul per block
// of tiles (positions x tiles x C times positions x C x OC, weights reordered once), scratch from
// its arena. This module holds the three transforms:
//   U = G g G^T   (weights, once, in double)
//   V = B^T d B   (each input tile d, 8 channels per AVX2 vector)
//   Y = A^T M A   (each product tile M), then + bias, + the residual (a fused Add), activation.
// The transforms round differently from a direct sum: on tests/exec/ops_test.cpp's
// 16-channel case, against a direct sum in double, 2.0e-7 (F(2x2)) and 1.6-2.4e-6 (F(4x4)) of the
// largest output, as oneDNN's own Winograd kernels differ from its direct ones.
#pragma once

#include <cstdint>
#include <vector>

#include "exec/op_params.h"

namespace hetcim::exec::winograd {

struct Conv {
  int64_t images = 1, c = 0, h = 0, w = 0;  // input (c a multiple of 8)
  int64_t oc = 0, oh = 0, ow = 0;           // output (oc a multiple of 8)
  int64_t pt = 0, pl = 0;                   // top and left padding (zeros)
  int m = 2;                                // output tile: 2 or 4

  [[nodiscard]] int a() const { return m + 2; }  // input tile side
  [[nodiscard]] int positions() const { return a() * a(); }
  [[nodiscard]] int64_t tiles_y() const { return (oh + m - 1) / m; }
  [[nodiscard]] int64_t tiles_x() const { return (ow + m - 1) / m; }
  [[nodiscard]] int64_t tiles() const { return images * tiles_y() * tiles_x(); }
};

// This CPU runs the transforms (AVX2 and FMA).
[[nodiscard]] bool available();

// Weights w [oc][c][3][3] (row-major) -> U [position][c][oc].
[[nodiscard]] std::vector<float> transform_weights(const Conv& cv, const float* w);

// Tiles [t0, t0 + nt) of x (aBcd8b) -> v [position][nb][c], tile t in row t - t0 (nt <= nb).
void transform_input(const Conv& cv, const float* x, int64_t t0, int64_t nt, int64_t nb, float* v);

struct Epilogue {
  const float* bias = nullptr;  // oc values, or none
  bool sum = false;             // add what y holds (the fused residual Add's other operand)
  Activation act;               // after the bias and the sum
};

// mo [position][nb][oc] (rows of tiles [t0, t0 + nt)) -> y (aBcd8b).
void transform_output(const Conv& cv, const float* mo, int64_t t0, int64_t nt, int64_t nb,
                      const Epilogue& e, float* y);

}  // namespace hetcim::exec::winograd
