// The ziggurats' wedge test y < exp(a) (xbar/rng.cpp), decided by a short polynomial with a proven
// error bound, and by std::exp only where that bound cannot decide: the decisions, and so the
// random streams, of std::exp, at a fraction of its cost (a call, a table and a long dependency
// chain per wedge candidate; ~3 % of fill_normal's draws are such candidates).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace hetcim::xbar {

// exp(a) for a in [-8, 0] within a relative error of 2e-8: a = k ln 2 + r with |r| <= ln(2) / 2
// (fdlibm's two-part ln 2: k * hi is exact and r carries no error worth counting), e^r by its
// Taylor polynomial of degree 7 (remainder at most e^|r| |r|^8 / 8! < 7.5e-9, relative to
// e^r >= 0.70 below 1.1e-8; the rounding of its ~15 operations adds a few 1e-16), times 2^k
// exactly.
inline double exp_approx(double a) {
  constexpr double kLog2e = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
  const double k = (a * kLog2e + kRound) - kRound;
  const double r = (a - k * kLn2Hi) - k * kLn2Lo;
  const double r2 = r * r;
  const double p =
      ((1.0 + r) + r2 * (0.5 + r * (1.0 / 6.0))) +
      (r2 * r2) * ((1.0 / 24.0 + r * (1.0 / 120.0)) + r2 * (1.0 / 720.0 + r * (1.0 / 5040.0)));
  const auto two_k =
      std::bit_cast<double>(static_cast<uint64_t>(1023 + static_cast<int64_t>(k)) << 52);
  return p * two_k;
}

// y < std::exp(a), with std::exp's decision for every y and a: e = exp_approx(a) is within 2e-8
// of exp(a) and std::exp within an ulp of it, so y below e (1 - 1e-7) is below std::exp(a) and y
// above e (1 + 1e-7) is not; std::exp is asked only in the band between (about one wedge
// candidate in 1e5) and for a outside [-8, 0].
inline bool below_exp(double y, double a) {
  if (!(a >= -8.0 && a <= 0.0)) return y < std::exp(a);
  const double e = exp_approx(a);
  if (y < e * (1.0 - 1e-7)) return true;
  if (y > e * (1.0 + 1e-7)) return false;
  return y < std::exp(a);
}

}  // namespace hetcim::xbar
