#include "accuracy/paired.h"

#include <cmath>

#include "select/clopper_pearson.h"
#include "util/error.h"

namespace hetcim::accuracy {

std::vector<int64_t> top1(const std::vector<float>& logits, int64_t classes) {
  if (classes <= 0 || logits.size() % static_cast<size_t>(classes) != 0)
    throw user_error("top-1: ", logits.size(), " logits are not rows of ", classes, " classes");
  const size_t k = static_cast<size_t>(classes);
  std::vector<int64_t> out(logits.size() / k);
  for (size_t r = 0; r < out.size(); ++r) {
    size_t best = 0;
    for (size_t j = 1; j < k; ++j)
      if (logits[r * k + j] > logits[r * k + best]) best = j;
    out[r] = static_cast<int64_t>(best);
  }
  return out;
}

PairedDrop paired_drop(const std::vector<int64_t>& digital, const std::vector<int64_t>& chip,
                       const std::vector<int64_t>& labels, double level) {
  if (digital.size() != labels.size() || chip.size() != labels.size())
    throw user_error("paired drop: ", digital.size(), " digital and ", chip.size(),
                     " chip predictions for ", labels.size(), " labels");
  if (!(level > 0.0 && level < 1.0))
    throw user_error("paired drop: confidence level ", level, ", expected in (0, 1)");
  PairedDrop d;
  d.n = static_cast<int64_t>(labels.size());
  d.level = level;
  for (size_t i = 0; i < labels.size(); ++i) {
    const bool dr = digital[i] == labels[i], cr = chip[i] == labels[i];
    d.digital_correct += dr ? 1 : 0;
    d.chip_correct += cr ? 1 : 0;
    d.b += dr && !cr ? 1 : 0;
    d.c += !dr && cr ? 1 : 0;
  }
  const int64_t m = d.b + d.c;
  if (m > 0) {
    const double alpha = 1.0 - level;
    // pi = P(a discordant image is one the chip gets wrong); bounds on the count b of "errors".
    const double pi_lo = select::clopper_pearson_lower(d.b, m, alpha / 2);
    const double pi_hi = select::clopper_pearson_upper(d.b, m, alpha / 2);
    const double share = static_cast<double>(m) / static_cast<double>(d.n);
    d.lo = share * (2 * pi_lo - 1);
    d.hi = share * (2 * pi_hi - 1);
  }
  return d;
}

double relative_error(const std::vector<float>& digital, const std::vector<float>& chip) {
  if (digital.size() != chip.size())
    throw user_error("relative error: ", digital.size(), " digital and ", chip.size(),
                     " chip values");
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < digital.size(); ++i) {
    const double e = static_cast<double>(chip[i]) - digital[i];
    num += e * e;
    den += static_cast<double>(digital[i]) * digital[i];
  }
  if (den == 0.0) return num == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(num / den);
}

}  // namespace hetcim::accuracy
