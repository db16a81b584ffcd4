#include "util/limits.h"

#include <string>

#include "util/error.h"

namespace hetcim {

std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

int64_t checked_elements(std::span<const int64_t> dims, int64_t limit, std::string_view what) {
  int64_t n = 1;
  bool over = false;
  for (int64_t d : dims) {
    if (d < 0) throw user_error(what, ": negative dimension ", d);
    const std::optional<int64_t> m = checked_mul(n, d);
    if (!m || *m > limit) over = true;
    if (m) n = *m;
    if (d == 0) return 0;
  }
  if (over) {
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    throw user_error(what, ": ", shape, " has more than ", limit,
                     " elements (hetcim's limit for one tensor or array)");
  }
  return n;
}

}  // namespace hetcim
