#include "formats/provenance_json.h"

namespace hetcim::formats {

nlohmann::json provenance_json(const Provenance& p) {
  nlohmann::json facts = nlohmann::json::object();
  nlohmann::json order = nlohmann::json::array();
  for (const auto& [k, v] : p.facts) {
    facts[k] = v;
    order.push_back(k);
  }
  return {{"tool", "hetcim"},       {"version", p.version}, {"commit", p.commit},
          {"date_utc", p.date_utc}, {"machine", p.machine}, {"command_line", p.command_line},
          {"facts", facts},         {"fact_order", order}};
}

}  // namespace hetcim::formats
