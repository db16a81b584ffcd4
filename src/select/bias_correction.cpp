#include "select/bias_correction.h"

#include "util/error.h"

namespace hetcim::select {

std::vector<double> logit_bias(std::span<const float> raw, std::span<const float> reference,
                               int64_t classes, std::span<const int64_t> rows) {
  if (classes < 1) throw user_error("logit bias: classes must be >= 1, got ", classes);
  if (raw.size() != reference.size() || raw.size() % static_cast<size_t>(classes) != 0)
    throw user_error("logit bias: ", raw.size(), " accelerator logits and ", reference.size(),
                     " reference logits do not form two tables of ", classes,
                     " classes over the same rows");
  if (rows.empty()) throw user_error("logit bias: the hardware split is empty");
  const int64_t count = static_cast<int64_t>(raw.size()) / classes;
  std::vector<double> b(static_cast<size_t>(classes), 0.0);
  for (int64_t r : rows) {
    if (r < 0 || r >= count) throw user_error("logit bias: row ", r, " outside [0, ", count, ")");
    for (int64_t k = 0; k < classes; ++k) {
      const size_t i = static_cast<size_t>(r * classes + k);
      b[static_cast<size_t>(k)] += static_cast<double>(raw[i]) - static_cast<double>(reference[i]);
    }
  }
  for (double& v : b) v /= static_cast<double>(rows.size());
  return b;
}

std::vector<float> apply_bias(std::span<const float> raw, int64_t classes,
                              std::span<const double> bias) {
  if (classes < 1 || bias.size() != static_cast<size_t>(classes) ||
      raw.size() % static_cast<size_t>(classes) != 0)
    throw user_error("apply bias: ", raw.size(), " logits, ", bias.size(), " bias terms and ",
                     classes, " classes do not fit together");
  std::vector<float> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i)
    out[i] =
        static_cast<float>(static_cast<double>(raw[i]) - bias[i % static_cast<size_t>(classes)]);
  return out;
}

}  // namespace hetcim::select
