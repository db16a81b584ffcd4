#include "exec/winograd.h"

#include <array>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HETCIM_WINOGRAD_AVX2 1
#define AVX2 __attribute__((target("avx2,fma")))
#endif

namespace hetcim::exec::winograd {
namespace {

constexpr int kBlock = 8;  // channels per aBcd8b block = floats per AVX2 vector

// G of F(m x m, 3 x 3) (Lavin & Gray 2016, section 4.1 and 4.2): U = G g G^T.
constexpr double kG2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
constexpr double kG4[6][3] = {{1.0 / 4, 0, 0},
                              {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                              {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                              {1.0 / 24, 1.0 / 12, 1.0 / 6},
                              {1.0 / 24, -1.0 / 12, 1.0 / 6},
                              {0, 0, 1}};

void check(const Conv& cv) {
  if ((cv.m != 2 && cv.m != 4) || cv.c % kBlock != 0 || cv.oc % kBlock != 0 || cv.c <= 0 ||
      cv.oc <= 0 || cv.oh <= 0 || cv.ow <= 0)
    throw std::logic_error("winograd: unsupported convolution shape");
}

}  // namespace

std::vector<float> transform_weights(const Conv& cv, const float* w) {
  check(cv);
  const int a = cv.a();
  const auto g_at = [&](int i, int k) { return cv.m == 2 ? kG2[i][k] : kG4[i][k]; };
  std::vector<float> u(static_cast<size_t>(cv.positions() * cv.c * cv.oc));
  for (int64_t o = 0; o < cv.oc; ++o)
    for (int64_t c = 0; c < cv.c; ++c) {
      const float* g = w + (o * cv.c + c) * 9;
      double gg[6][3];  // G g
      for (int i = 0; i < a; ++i)
        for (int k = 0; k < 3; ++k)
          gg[i][k] = g_at(i, 0) * g[k] + g_at(i, 1) * g[3 + k] + g_at(i, 2) * g[6 + k];
      for (int i = 0; i < a; ++i)
        for (int j = 0; j < a; ++j) {
          const double v = gg[i][0] * g_at(j, 0) + gg[i][1] * g_at(j, 1) + gg[i][2] * g_at(j, 2);
          u[static_cast<size_t>(((i * a + j) * cv.c + c) * cv.oc + o)] = static_cast<float>(v);
        }
    }
  return u;
}

#ifdef HETCIM_WINOGRAD_AVX2
namespace {

// The 1-D transforms of one line of a tile, 8 channels per vector: B^T d (input) and A^T m
// (output), written out with their constant coefficients.
template <int M>
struct Lines;

template <>
struct Lines<2> {
  static constexpr int A = 4;
  AVX2 static void in(const __m256* d, __m256* r) {
    r[0] = _mm256_sub_ps(d[0], d[2]);
    r[1] = _mm256_add_ps(d[1], d[2]);
    r[2] = _mm256_sub_ps(d[2], d[1]);
    r[3] = _mm256_sub_ps(d[1], d[3]);
  }
  AVX2 static void out(const __m256* m, __m256* o) {
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], m[1]), m[2]);
    o[1] = _mm256_sub_ps(_mm256_sub_ps(m[1], m[2]), m[3]);
  }
};

template <>
struct Lines<4> {
  static constexpr int A = 6;
  AVX2 static void in(const __m256* d, __m256* r) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), five = _mm256_set1_ps(5);
    r[0] = _mm256_fnmadd_ps(five, d[2], _mm256_fmadd_ps(four, d[0], d[4]));
    r[1] = _mm256_fnmadd_ps(four, _mm256_add_ps(d[1], d[2]), _mm256_add_ps(d[3], d[4]));
    r[2] = _mm256_fmadd_ps(four, _mm256_sub_ps(d[1], d[2]), _mm256_sub_ps(d[4], d[3]));
    r[3] = _mm256_fmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
    r[4] = _mm256_fnmadd_ps(two, _mm256_sub_ps(d[3], d[1]), _mm256_sub_ps(d[4], d[2]));
    r[5] = _mm256_fnmadd_ps(five, d[3], _mm256_fmadd_ps(four, d[1], d[5]));
  }
  AVX2 static void out(const __m256* m, __m256* o) {
    const __m256 two = _mm256_set1_ps(2), four = _mm256_set1_ps(4), eight = _mm256_set1_ps(8);
    const __m256 p12 = _mm256_add_ps(m[1], m[2]), d12 = _mm256_sub_ps(m[1], m[2]);
    const __m256 p34 = _mm256_add_ps(m[3], m[4]), d34 = _mm256_sub_ps(m[3], m[4]);
    o[0] = _mm256_add_ps(_mm256_add_ps(m[0], p12), p34);
    o[1] = _mm256_fmadd_ps(two, d34, d12);
    o[2] = _mm256_fmadd_ps(four, p34, p12);
    o[3] = _mm256_add_ps(_mm256_fmadd_ps(eight, d34, d12), m[5]);
  }
};

// A tile's place: image, first input row and column (padding subtracted), first output row and
// column.
struct Tile {
  int64_t image, iy, ix, oy, ox;
};
Tile tile_at(const Conv& cv, int64_t t) {
  const int64_t per_image = cv.tiles_y() * cv.tiles_x();
  const int64_t r = t % per_image, ty = r / cv.tiles_x(), tx = r % cv.tiles_x();
  return {t / per_image, ty * cv.m - cv.pt, tx * cv.m - cv.pl, ty * cv.m, tx * cv.m};
}

template <int M>
AVX2 void input_tiles(const Conv& cv, const float* x, int64_t t0, int64_t nt, int64_t nb,
                      float* v) {
  constexpr int A = Lines<M>::A;
  const int64_t cb_n = cv.c / kBlock;
  const int64_t plane = cv.h * cv.w * kBlock;
#pragma omp parallel for schedule(static) if (nt * cb_n >= 256)
  for (int64_t job = 0; job < nt * cb_n; ++job) {
    const int64_t t = job / cb_n, cb = job % cb_n;
    const Tile tl = tile_at(cv, t0 + t);
    const float* base = x + (tl.image * cb_n + cb) * plane;
    __m256 d[A][A];
    for (int i = 0; i < A; ++i) {
      const int64_t iy = tl.iy + i;
      for (int j = 0; j < A; ++j) {
        const int64_t ix = tl.ix + j;
        d[i][j] = iy >= 0 && iy < cv.h && ix >= 0 && ix < cv.w
                      ? _mm256_loadu_ps(base + (iy * cv.w + ix) * kBlock)
                      : _mm256_setzero_ps();
      }
    }
    __m256 col[A], r[A], bd[A][A];  // bd = B^T d
    for (int j = 0; j < A; ++j) {
      for (int i = 0; i < A; ++i) col[i] = d[i][j];
      Lines<M>::in(col, r);
      for (int i = 0; i < A; ++i) bd[i][j] = r[i];
    }
    float* out = v + t * cv.c + cb * kBlock;
    const int64_t step = nb * cv.c;  // from one position to the next
    for (int i = 0; i < A; ++i) {
      Lines<M>::in(bd[i], r);  // (B^T d) B, row i
      for (int j = 0; j < A; ++j) _mm256_storeu_ps(out + (i * A + j) * step, r[j]);
    }
  }
}

template <int M>
AVX2 void output_tiles(const Conv& cv, const float* mo, int64_t t0, int64_t nt, int64_t nb,
                       const Epilogue& e, float* y) {
  constexpr int A = Lines<M>::A;
  const int64_t ob_n = cv.oc / kBlock;
  const int64_t plane = cv.oh * cv.ow * kBlock;
  const bool relu = e.act.kind == Activation::Relu, clip = e.act.kind == Activation::Clip;
  const __m256 lo = _mm256_set1_ps(relu ? 0.0f : e.act.lo), hi = _mm256_set1_ps(e.act.hi);
#pragma omp parallel for schedule(static) if (nt * ob_n >= 256)
  for (int64_t job = 0; job < nt * ob_n; ++job) {
    const int64_t t = job / ob_n, ob = job % ob_n;
    const Tile tl = tile_at(cv, t0 + t);
    const float* in = mo + t * cv.oc + ob * kBlock;
    const int64_t step = nb * cv.oc;
    __m256 col[A], r[M], am[M][A];  // am = A^T m
    for (int j = 0; j < A; ++j) {
      for (int i = 0; i < A; ++i) col[i] = _mm256_loadu_ps(in + (i * A + j) * step);
      Lines<M>::out(col, r);
      for (int i = 0; i < M; ++i) am[i][j] = r[i];
    }
    const __m256 bias = e.bias ? _mm256_loadu_ps(e.bias + ob * kBlock) : _mm256_setzero_ps();
    float* base = y + (tl.image * ob_n + ob) * plane;
    for (int i = 0; i < M && tl.oy + i < cv.oh; ++i) {
      Lines<M>::out(am[i], r);  // (A^T m) A, row i
      for (int j = 0; j < M && tl.ox + j < cv.ow; ++j) {
        float* p = base + ((tl.oy + i) * cv.ow + tl.ox + j) * kBlock;
        __m256 s = _mm256_add_ps(r[j], bias);
        if (e.sum) s = _mm256_add_ps(s, _mm256_loadu_ps(p));
        if (relu || clip) s = _mm256_max_ps(s, lo);
        if (clip) s = _mm256_min_ps(s, hi);
        _mm256_storeu_ps(p, s);
      }
    }
  }
}

}  // namespace

bool available() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

void transform_input(const Conv& cv, const float* x, int64_t t0, int64_t nt, int64_t nb, float* v) {
  check(cv);
  if (cv.m == 2) return input_tiles<2>(cv, x, t0, nt, nb, v);
  input_tiles<4>(cv, x, t0, nt, nb, v);
}

void transform_output(const Conv& cv, const float* mo, int64_t t0, int64_t nt, int64_t nb,
                      const Epilogue& e, float* y) {
  check(cv);
  if (cv.m == 2) return output_tiles<2>(cv, mo, t0, nt, nb, e, y);
  output_tiles<4>(cv, mo, t0, nt, nb, e, y);
}

#else  // not x86-64 with GCC: the engine keeps its direct kernels

bool available() {
  return false;
}
void transform_input(const Conv&, const float*, int64_t, int64_t, int64_t, float*) {
  throw std::logic_error("winograd: no AVX2 kernels in this build");
}
void transform_output(const Conv&, const float*, int64_t, int64_t, int64_t, const Epilogue&,
                      float*) {
  throw std::logic_error("winograd: no AVX2 kernels in this build");
}

#endif

}  // namespace hetcim::exec::winograd
