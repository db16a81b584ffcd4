#include "api_torch/policy.h"

#include <cmath>
#include <limits>
#include <utility>

#include "api/file_fields.h"
#include "api_torch/analog.h"
#include "api_torch/pool.h"
#include "util/error.h"
#include "util/files.h"
#include "xbar/chips_yaml.h"

namespace hetcim::api {
namespace {

// The values `score` takes over `classes` classes (select/confidence.h): a threshold below the
// least accepts every query and one above the greatest none, whatever the certificate says.
std::pair<double, double> score_range(select::ConfidenceScore score, int64_t classes) {
  const double inf = std::numeric_limits<double>::infinity();
  const double k = static_cast<double>(classes);
  switch (score) {
    case select::ConfidenceScore::LogitMargin:
      return {0.0, inf};
    case select::ConfidenceScore::MaxSoftmax:
      return {1.0 / k, 1.0};
    case select::ConfidenceScore::ProbabilityMargin:
      return {0.0, 1.0};
    case select::ConfidenceScore::LogOdds:  // log(p1 / (1 - p1)) with 1 - p1 <= (K-1) p1
      return {-std::log(k - 1.0), inf};
    case select::ConfidenceScore::NegativeEntropy:
      return {-std::log(k), 0.0};
  }
  throw internal_error("score_range: unhandled confidence score");
}

// A number of the policy with the bounds of the `analog select` flag called `name`.
template <typename T>
T number_field(const nlohmann::json& pol, const std::string& path, const std::string& pf,
               std::string_view name, double scale = 1.0) {
  return file_field<T>(analog_select_fields(), name, policy_field(pol, path, pf), pf, path, scale);
}

}  // namespace

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
  try {
    pol = nlohmann::json::parse(read_input_file(pf, "policy"));
  } catch (const nlohmann::json::exception&
               e) {  // where and why (1e400: out_of_range), as the plan reader says it
    throw user_error(pf, ": not valid JSON: ", e.what(),
                     " (write a policy with `analog select --policy-out`)");
  }
  if (!pol.is_object())
    throw user_error(pf, ": not a JSON policy file (write one with `analog select --policy-out`)");
  // "(seed 002)": the kind policies were written with before the papers were named (issue 36).
  const std::string kind = policy_get<std::string>(pol, "kind", pf);
  if (kind != "hetcim frozen policy (RACE-AIMC)" && kind != "hetcim frozen policy (seed 002)")
    throw user_error(pf, ": field 'kind' is not 'hetcim frozen policy (RACE-AIMC)'");
  select::FrozenPolicy& fp = lp.frozen;
  const nlohmann::json& classes = policy_field(pol, "classes", pf);
  constexpr int64_t kMaxClasses = int64_t{1} << 20;
  if (!classes.is_number_integer() || classes.get<int64_t>() < 2 ||
      (classes.is_number_unsigned() && classes.get<uint64_t>() > uint64_t{kMaxClasses}) ||
      classes.get<int64_t>() > kMaxClasses)
    throw user_error(pf, ": field 'classes' must be a whole number from 2 to ", kMaxClasses,
                     ", got ", classes.dump());
  fp.classes = classes.get<int64_t>();
  fp.bias = policy_get<std::vector<double>>(pol, "bias", pf);
  if (static_cast<int64_t>(fp.bias.size()) != fp.classes)
    throw user_error(pf, ": field 'bias' has ", fp.bias.size(), " values, expected ", fp.classes,
                     " (one per class, field 'classes')");
  for (double b : fp.bias)
    if (!std::isfinite(b)) throw user_error(pf, ": field 'bias' holds a value that is not finite");
  try {
    fp.score = select::parse_confidence_score(policy_get<std::string>(pol, "score", pf));
  } catch (const UserError& e) {
    throw user_error(pf, ": field 'score': ", e.what());
  }
  const nlohmann::json& th = policy_field(pol, "threshold", pf);
  if (th.is_null()) {
    fp.threshold = INFINITY;  // the policy selected no chip: every query falls back
  } else {
    if (!th.is_number() || !std::isfinite(th.get<double>()))
      throw user_error(pf, ": field 'threshold' must be a finite number or null, got ", th.dump());
    fp.threshold = th.get<double>();
    const auto [lo, hi] = score_range(fp.score, fp.classes);
    const double slack = 1e-9 * (1.0 + std::fabs(lo));  // the scores' own rounding
    if (!(fp.threshold >= lo - slack && fp.threshold <= hi + slack))
      throw user_error(pf, ": field 'threshold' = ", th.dump(), " is outside the values the score ",
                       select::confidence_score_name(fp.score), " takes over ", fp.classes,
                       " classes ([", lo, ", ", hi, "]): it would accept every query or none");
  }
  // Energies in uJ, bounded as the energy flags are (>= 0, at most max_magnitude(Energy)).
  FieldSpec activation = find_field(analog_select_fields(), "fallback_energy");
  activation.name = "activation_energy";
  fp.activation_energy = file_value<double>(
      activation, policy_field(pol, "energy_uJ.activation", pf), pf, "energy_uJ.activation", 1e-6);
  fp.fallback_energy = number_field<double>(pol, "energy_uJ.fallback", pf, "fallback_energy", 1e-6);
  lp.batch_size = number_field<int64_t>(pol, "eval.batch_size", pf, "batch_size");
  lp.threads = number_field<int>(pol, "eval.threads", pf, "threads");
  const nlohmann::json& certified = policy_field(pol, "certificate.certified", pf);
  if (!certified.is_boolean())
    throw user_error(pf, ": field 'certificate.certified' must be true or false, got ",
                     certified.dump());
  lp.certified = certified.get<bool>();
  lp.risk_target = number_field<double>(pol, "certificate.risk_target", pf, "risk");
  const nlohmann::json& bound = policy_field(pol, "certificate.upper_bound", pf);
  if (!bound.is_number() || !(bound.get<double>() >= 0.0 && bound.get<double>() <= 1.0))
    throw user_error(pf,
                     ": field 'certificate.upper_bound' must be a probability from 0 to 1, got ",
                     bound.dump());
  lp.upper_bound = bound.get<double>();
  if (lp.certified != (lp.upper_bound <= lp.risk_target))
    throw user_error(pf, ": field 'certificate.certified' is ", certified.dump(), " but the bound ",
                     lp.upper_bound, (lp.certified ? " exceeds" : " is within"),
                     " the risk target ", lp.risk_target);
  lp.certified_rows = number_field<int64_t>(pol, "certificate.split.rows", pf, "certificate_rows");
  const nlohmann::json& accepted = policy_field(pol, "certificate.split.accepted", pf);
  if (!accepted.is_number_integer() || accepted.get<int64_t>() < 0 ||
      accepted.get<int64_t>() > lp.certified_rows)
    throw user_error(pf, ": field 'certificate.split.accepted' must be a whole number from 0 to ",
                     "the split's rows (", lp.certified_rows, "), got ", accepted.dump());
  lp.certified_accepted = accepted.get<int64_t>();
  const nlohmann::json& unit = policy_field(pol, "chips.unit", pf);

  // The model and the chip must be the ones the policy was certified for.
  lp.model = model.empty() ? policy_get<std::string>(pol, "model.file", pf) : model;
  const std::string want_hash = policy_get<std::string>(pol, "model.hash", pf);
  if (!unit.is_null()) {
    lp.chip_seed = number_field<uint64_t>(pol, "chips.unit.chip_seed", pf, "chip_seed");
    lp.test_read_seed = number_field<uint64_t>(pol, "chips.unit.test_read_seed", pf, "read_seed");
  }
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
  }
  return lp;
}

}  // namespace hetcim::api
