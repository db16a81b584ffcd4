#include "api/common.h"

#include "util/error.h"

namespace hetcim::api {

passes::Precision parse_precision(const std::string& precision) {
  if (precision == "int8") return passes::Precision::Int8;
  if (precision == "fp32") return passes::Precision::Fp32;
  throw user_error("precision: expected int8 or fp32, got '", precision, "'");
}

void check_range(const char* field, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    throw user_error(field, ": expected a whole number in [", lo, ", ", hi, "], got ", v);
}

void check_range(const char* field, double v, double lo, double hi) {
  if (!(v >= lo && v <= hi))
    throw user_error(field, ": expected a number in [", lo, ", ", hi, "], got ", v);
}

Provenance library_provenance() {
  return make_provenance(0, nullptr);
}

Provenance with_caller(const Provenance& result, const Provenance& caller) {
  Provenance p = caller;
  for (const auto& [key, value] : result.facts) p.set(key, value);
  return p;
}

}  // namespace hetcim::api
