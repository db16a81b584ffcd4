#include "platform/problem_json.h"

#include <cmath>
#include <cstddef>

namespace hetcim::platform {

nlohmann::json problem_json(const PlatformProblem& pp, const std::string& model,
                            const std::string& platform) {
  const partition::MultiProblem& p = pp.problem;
  const auto engine = [&](int e) { return p.engines[static_cast<size_t>(e)].name; };
  nlohmann::json j;
  j["format"] = "hetcim K-engine partitioning problem (partition/multi_problem.h), SI units";
  j["model"] = model;
  j["platform"] = platform;
  j["costs"] = pp.costs;
  j["objective"] = {{"latency_weight", p.latency_weight},
                    {"energy_weight", p.energy_weight},
                    {"minimise",
                     "latency_weight * makespan_s + energy_weight * energy_j; energy = options' "
                     "energies + link e_byte * bytes moved + static_power_w * makespan + "
                     "idle_power_w * (makespan - busy time), per engine"}};
  j["engines"] = nlohmann::json::array();
  for (const partition::MultiEngine& e : p.engines)
    j["engines"].push_back(
        {{"name", e.name},
         {"one_at_a_time", e.one_at_a_time},
         {"capacity", e.capacity < 0 ? nlohmann::json() : nlohmann::json(e.capacity)},
         {"static_power_w", e.static_power},
         {"idle_power_w", e.idle_power},
         {"endurance_writes", e.endurance > 0 ? nlohmann::json(e.endurance) : nlohmann::json()}});
  j["exclusive"] = nlohmann::json::array();
  for (const std::vector<int>& g : p.exclusive) {
    nlohmann::json names = nlohmann::json::array();
    for (int e : g) names.push_back(engine(e));
    j["exclusive"].push_back(names);
  }
  j["links"] = nlohmann::json::array();
  for (const partition::MultiLink& l : p.links) {
    nlohmann::json names = nlohmann::json::array();
    for (int e : l.engines) names.push_back(engine(e));
    j["links"].push_back(
        {{"name", l.name},
         {"engines", names},
         {"latency_s", l.latency},
         {"bandwidth_bytes_per_s",
          std::isfinite(l.bandwidth) ? nlohmann::json(l.bandwidth) : nlohmann::json()},
         {"serial", l.serial},
         {"e_byte_j", l.e_byte}});
  }
  j["operators"] = nlohmann::json::array();
  for (size_t v = 0; v < p.size(); ++v) {
    nlohmann::json options = nlohmann::json::array();
    for (size_t k = 0; k < p.options[v].size(); ++k) {
      const partition::MultiOption& o = p.options[v][k];
      nlohmann::json x = {{"engine", engine(o.engine)},
                          {"label", o.label},
                          {"duration_s", o.duration},
                          {"energy_j", o.energy},
                          {"capacity", o.capacity}};
      if (v < pp.cycles.size() && k < pp.cycles[v].size() && pp.cycles[v][k] >= 0)
        x["cycles"] = pp.cycles[v][k];
      if (o.reprogram)
        x["reprogram"] = {{"cells_written", o.cells_written},
                          {"write_s", o.write_seconds},
                          {"write_energy_j", o.write_energy}};
      options.push_back(x);
    }
    j["operators"].push_back({{"name", p.names[v]}, {"options", options}});
  }
  j["edges"] = nlohmann::json::array();
  for (size_t e = 0; e < p.dag.edges.size(); ++e)
    j["edges"].push_back({{"from", p.dag.edges[e].first},
                          {"to", p.dag.edges[e].second},
                          {"bytes", p.edge_bytes[e]}});
  if (pp.frequency > 0) j["cycle_model_hz"] = pp.frequency;
  return j;
}

}  // namespace hetcim::platform
