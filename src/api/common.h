// Small pieces every api call shares: the precision field and the provenance of a library call.
#pragma once

#include <cstdint>
#include <string>

#include "passes/pipeline.h"
#include "util/error.h"
#include "util/provenance.h"

namespace hetcim::api {

// "int8" | "fp32"; UserError "precision: expected int8 or fp32, got '...'" otherwise.
[[nodiscard]] passes::Precision parse_precision(const std::string& precision);

// UserError "<field>: expected a whole number in [lo, hi], got v" when v is outside.
void check_range(const char* field, int64_t v, int64_t lo, int64_t hi);
// UserError "<field>: expected a finite number in [lo, hi], got v" when v is outside or NaN.
void check_range(const char* field, double v, double lo, double hi);
inline void check_range(const char* field, int v, int lo, int hi) {
  check_range(field, static_cast<int64_t>(v), static_cast<int64_t>(lo), static_cast<int64_t>(hi));
}

// The provenance of a call made through the library: version, commit, date and machine; the
// command line is empty (the CLI fills it from argv).
[[nodiscard]] Provenance library_provenance();

// A result's provenance as its caller states it: the caller's command line, version, commit,
// date and machine (the CLI's, from argv) with the result's facts (host source, solver, status,
// cache, seeds) added in the result's order.
[[nodiscard]] Provenance with_caller(const Provenance& result, const Provenance& caller);

// Runs f(); a UserError that does not name the model yet is rethrown prefixed with
// "<model>: ", so an error from deep inside an execution names the file (or zoo name) and the node.
template <typename F>
auto with_model_named(const std::string& model, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const UserError& e) {
    if (std::string(e.what()).find(model) != std::string::npos) throw;
    throw UserError(model + ": " + e.what());
  }
}

}  // namespace hetcim::api
