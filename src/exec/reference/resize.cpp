// Reference kernel of the resize family: Resize / Upsample, nearest as a gather (op_params.h),
// linear and cubic as the ONNX reference implementation computes them (exec/resize.h parses the
// attributes).
#include "exec/resize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "exec/reference/context.h"

namespace hetcim::exec::reference {
namespace {

using graph::DType;
using graph::Shape;

// Linear / cubic the way the ONNX reference implementation (onnx/reference/ops/op_resize.py)
// computes them: per axis the 2 or 4 input positions nearest to the original coordinate, the
// coefficient ratio in (0, 1] (1 when the coordinate is a whole number), edge values beyond the
// input; every output element the sum over the product of the axes' coefficients, in double.
void resize_interpolate(Context& c, const resize::Spec& spec) {
  const Tensor& x = c.in(0);
  const Shape out = c.out_shape();
  const size_t r = out.size();
  const int64_t n = spec.mode == resize::Mode::Cubic ? 4 : 2;
  std::vector<std::vector<int64_t>> at(r);  // per axis, out[a] * n input indices
  std::vector<std::vector<double>> co(r);   // and their coefficients
  for (size_t a = 0; a < r; ++a) {
    for (int64_t o = 0; o < out[a]; ++o) {
      const double x0 =
          resize::original_coordinate(spec.transform, o, spec.scales[a], x.shape[a], out[a]);
      const bool whole = x0 == std::floor(x0);
      const double ratio = whole ? 1.0 : x0 - std::floor(x0);
      // The n nearest positions, ties to the smaller index: from floor(x0) - (n/2 - 1), or one
      // further left when x0 is whole (ratio 1 then weights the position x0 itself).
      const int64_t first = static_cast<int64_t>(std::floor(x0)) - (whole ? 1 : 0) - (n / 2 - 1);
      std::vector<double> k;
      if (n == 2) {
        k = {1 - ratio, ratio};
      } else {
        const double A = spec.cubic_a, q = 1 - ratio;
        k = {((A * (ratio + 1) - 5 * A) * (ratio + 1) + 8 * A) * (ratio + 1) - 4 * A,
             ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1, ((A + 2) * q - (A + 3)) * q * q + 1,
             ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
      }
      if (spec.exclude_outside) {
        double sum = 0;
        for (int64_t t = 0; t < n; ++t) {
          const int64_t i = first + t;
          if (i < 0 || i >= x.shape[a]) k[static_cast<size_t>(t)] = 0;
          sum += k[static_cast<size_t>(t)];
        }
        for (double& v : k) v /= sum;
      }
      for (int64_t t = 0; t < n; ++t) {
        at[a].push_back(std::clamp<int64_t>(first + t, 0, x.shape[a] - 1));
        co[a].push_back(k[static_cast<size_t>(t)]);
      }
    }
  }
  Tensor y = Tensor::zeros(x.dtype, out);
  const auto xs = strides_of(x.shape);
  std::vector<int64_t> idx(r, 0), tap(r, 0);
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t rem = i;
    for (size_t k = r; k-- > 0;) {
      idx[k] = rem % out[k];
      rem /= out[k];
    }
    double acc = 0;
    std::fill(tap.begin(), tap.end(), 0);
    for (;;) {  // every combination of one tap per axis
      double w = 1;
      int64_t src = 0;
      for (size_t k = 0; k < r; ++k) {
        const size_t e = static_cast<size_t>(idx[k] * n + tap[k]);
        w *= co[k][e];
        src += at[k][e] * xs[k];
      }
      if (w != 0) acc += w * x.at(src);
      size_t k = r;
      while (k-- > 0 && ++tap[k] == n) tap[k] = 0;
      if (k == static_cast<size_t>(-1)) break;
    }
    if (x.dtype == DType::Float32) {
      y.data<float>()[i] = static_cast<float>(acc);
    } else if (x.dtype == DType::UInt8) {
      y.data<uint8_t>()[i] = static_cast<uint8_t>(std::clamp(std::nearbyint(acc), 0.0, 255.0));
    } else {
      y.data<int8_t>()[i] = static_cast<int8_t>(std::clamp(std::nearbyint(acc), -128.0, 127.0));
    }
  }
  c.set(0, std::move(y));
}

void resize(Context& c) {
  const Tensor& x = c.in(0);
  const Shape out = c.out_shape();
  const resize::Spec spec = resize::parse(c.graph(), c.node(), x.shape, out, x.dtype);
  if (spec.mode != resize::Mode::Nearest) return resize_interpolate(c, spec);
  const auto map = resize_nearest_map(c.graph(), c.node(), x.shape, out);
  Tensor y = Tensor::zeros(x.dtype, out);
  const size_t es = graph::dtype_size(x.dtype);
  const auto xs = strides_of(x.shape);
  for (int64_t i = 0; i < y.numel(); ++i) {
    int64_t src = 0, rem = i;
    for (size_t k = out.size(); k-- > 0;) {
      const int64_t v = rem % out[k];
      rem /= out[k];
      src += map[k][static_cast<size_t>(v)] * xs[k];
    }
    std::memcpy(y.bytes.data() + static_cast<size_t>(i) * es,
                x.bytes.data() + static_cast<size_t>(src) * es, es);
  }
  c.set(0, std::move(y));
}

}  // namespace

std::vector<KernelRow> resize_kernels() {
  return {{"Resize", resize}, {"Upsample", resize}};
}

}  // namespace hetcim::exec::reference
