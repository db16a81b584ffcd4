// A frozen policy file (`hetcim analog select --policy-out`) loaded and checked for `hetcim analog
// serve` and `hetcim analog drift`: its fields by dotted path with errors naming the file and the
// field, the model it was certified for (by content hash) and the chip unit (profile fingerprint).
// Every number is read here, once, at full width and against the bounds of the `analog select`
// flag of the same meaning (api/file_fields.h: eval.batch_size as --batch-size, eval.threads as
// --threads, energy_uJ.fallback as --fallback-energy, the seeds as --chip-seed, the certificate's
// rows as --certificate), the threshold within the values its confidence score takes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "select/controller.h"
#include "util/error.h"
#include "xbar/chip_profile.h"

namespace hetcim::api {

// A field by dotted path ("certificate.split.rows"); UserError naming the file and the field.
const nlohmann::json& policy_field(const nlohmann::json& j, const std::string& path,
                                   const std::string& file);

template <typename T>
T policy_get(const nlohmann::json& j, const std::string& path, const std::string& file) {
  const nlohmann::json& v = policy_field(j, path, file);
  try {
    return v.get<T>();
  } catch (const nlohmann::json::exception&) {
    throw user_error(file, ": field '", path, "' has the wrong type (", v.dump(), ")");
  }
}

struct LoadedPolicy {
  std::string file;
  nlohmann::json json;
  select::FrozenPolicy frozen;
  std::string model;                         // the model file, hashing as the policy says
  std::optional<xbar::ChipProfile> profile;  // the selected unit's profile; nullopt: none selected
  uint64_t chip_seed = 0, test_read_seed = 0;
  int64_t batch_size = 1;  // eval.batch_size: the batches the certificate's reads were taken in
  int threads = 0;         // eval.threads
  // certificate.*: whether the bound held, the bound, the risk target, and the certificate split's
  // accepted and total rows.
  bool certified = false;
  double upper_bound = 0, risk_target = 0;
  int64_t certified_accepted = 0, certified_rows = 0;
};

// `model` / `chips`: another path for the policy's model / chips file ("" = the policy's own); the
// model must hash the same and the unit's profile must have the same fingerprint.
[[nodiscard]] LoadedPolicy load_policy(const std::string& file, const std::string& model,
                                       const std::string& chips);

}  // namespace hetcim::api
