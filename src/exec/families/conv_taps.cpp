#include "exec/families/conv_taps.h"

#include <algorithm>
#include <cstring>

namespace hetcim::exec::native {
namespace {

struct Taps {
  int64_t lo = 0, hi = -1;  // live taps [lo, hi]
  int64_t pad_begin = 0, pad_end = 0;
};

// Along one axis (input n, output o, kernel k, stride s, dilation d, pads pb/pe): tap t reads
// input index i = j s - pb + t d for outputs j in [0, o); it reads the input for some j iff
// (o - 1) s - pb + t d >= 0 and t d - pb <= n - 1. The cropped kernel starts at lo: its begin pad
// is pb - lo d, and its end pad keeps the output size, (o - 1) s + (k' - 1) d + 1 - n - pb'.
Taps live_taps(int64_t n, int64_t o, int64_t k, int64_t s, int64_t d, int64_t pb) {
  Taps t;
  const int64_t need = pb - (o - 1) * s;  // t d >= need
  t.lo = need <= 0 ? 0 : (need + d - 1) / d;
  t.hi = std::min(k - 1, (n - 1 + pb) / d);
  if (t.lo > t.hi) return t;
  t.pad_begin = pb - t.lo * d;
  t.pad_end = (o - 1) * s + (t.hi - t.lo) * d + 1 - n - t.pad_begin;
  return t;
}

}  // namespace

std::string crop_dead_taps(Window2d& w, Tensor& wt) {
  if (wt.dtype != graph::DType::Float32 || wt.shape.size() != 4 || w.oh < 1 || w.ow < 1) return "";
  const Taps th = live_taps(w.h, w.oh, w.kh, w.sh, w.dh, w.pt);
  const Taps tw = live_taps(w.w, w.ow, w.kw, w.sw, w.dw, w.pl);
  const int64_t kh = th.hi - th.lo + 1, kw = tw.hi - tw.lo + 1;
  if (th.lo > th.hi || tw.lo > tw.hi || (kh == w.kh && kw == w.kw)) return "";
  if (th.pad_begin < 0 || th.pad_end < 0 || tw.pad_begin < 0 || tw.pad_end < 0) return "";
  const int64_t planes = wt.shape[0] * wt.shape[1];
  Tensor cropped = Tensor::zeros(graph::DType::Float32, {wt.shape[0], wt.shape[1], kh, kw});
  const float* src = wt.data<float>();
  float* dst = cropped.data<float>();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t r = 0; r < kh; ++r)
      std::memcpy(dst + (p * kh + r) * kw, src + (p * w.kh + th.lo + r) * w.kw + tw.lo,
                  static_cast<size_t>(kw) * sizeof(float));
  const std::string note = "taps " + std::to_string(kh) + "x" + std::to_string(kw) + " of " +
                           std::to_string(w.kh) + "x" + std::to_string(w.kw);
  wt = std::move(cropped);
  w.kh = kh;
  w.kw = kw;
  w.pt = th.pad_begin;
  w.pb = th.pad_end;
  w.pl = tw.pad_begin;
  w.pr = tw.pad_end;
  return note;
}

}  // namespace hetcim::exec::native
