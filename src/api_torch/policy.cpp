#include "api_torch/policy.h"

#include <cmath>

#include "api_torch/pool.h"
#include "util/error.h"
#include "util/files.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {

const nlohmann::json& policy_field(const nlohmann::json& j, const std::string& path,
                                   const std::string& file) {
  std::string ptr = "/" + path;
  for (char& c : ptr)
    if (c == '.') c = '/';
  const nlohmann::json::json_pointer p(ptr);
  if (!j.contains(p)) throw user_error(file, ": field '", path, "' is missing");
  return j.at(p);
}

LoadedPolicy load_policy(const std::string& pf, const std::string& model,
                         const std::string& chips_override) {
  LoadedPolicy lp;
  lp.file = pf;
  nlohmann::json& pol = lp.json;
  pol = nlohmann::json::parse(read_input_file(pf, "policy"), nullptr, false);
  if (pol.is_discarded() || !pol.is_object())
    throw user_error(pf, ": not a JSON policy file (write one with `analog select --policy-out`)");
  if (policy_get<std::string>(pol, "kind", pf) != "hetcim frozen policy (seed 002)")
    throw user_error(pf, ": field 'kind' is not 'hetcim frozen policy (seed 002)'");
  select::FrozenPolicy& fp = lp.frozen;
  fp.classes = policy_get<int64_t>(pol, "classes", pf);
  fp.bias = policy_get<std::vector<double>>(pol, "bias", pf);
  fp.score = select::parse_confidence_score(policy_get<std::string>(pol, "score", pf));
  const nlohmann::json& th = policy_field(pol, "threshold", pf);
  fp.threshold = th.is_null() ? INFINITY : policy_get<double>(pol, "threshold", pf);
  fp.activation_energy = policy_get<double>(pol, "energy_uJ.activation", pf) * 1e-6;
  fp.fallback_energy = policy_get<double>(pol, "energy_uJ.fallback", pf) * 1e-6;
  const nlohmann::json& unit = policy_field(pol, "chips.unit", pf);

  // The model and the chip must be the ones the policy was certified for.
  lp.model = model.empty() ? policy_get<std::string>(pol, "model.file", pf) : model;
  const std::string want_hash = policy_get<std::string>(pol, "model.hash", pf);
  const std::string hash = file_hash(lp.model);
  if (hash != want_hash)
    throw user_error(pf, ": field 'model.hash' = ", want_hash, ", but ", lp.model, " hashes to ",
                     hash, ": the policy was certified for another model");
  if (!unit.is_null()) {
    fp.unit = policy_get<std::string>(pol, "chips.unit.name", pf);
    const std::string chips =
        chips_override.empty() ? policy_get<std::string>(pol, "chips.file", pf) : chips_override;
    const std::string pname = policy_get<std::string>(pol, "chips.unit.profile", pf);
    for (const xbar::ChipProfile& c : xbar::load_chip_profiles(chips))
      if (c.name == pname) lp.profile = c;
    if (!lp.profile)
      throw user_error(chips, " has no profile '", pname, "' (", pf,
                       ": field 'chips.unit.profile')");
    if (profile_fingerprint(*lp.profile) !=
        policy_get<std::string>(pol, "chips.unit.fingerprint", pf))
      throw user_error(pf, ": field 'chips.unit.fingerprint' differs from profile '", pname,
                       "' of ", chips, ": the policy was certified for another chip set");
    lp.chip_seed = policy_get<uint64_t>(pol, "chips.unit.chip_seed", pf);
    lp.test_read_seed = policy_get<uint64_t>(pol, "chips.unit.test_read_seed", pf);
  }
  return lp;
}

}  // namespace hetcim::api
