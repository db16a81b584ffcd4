#include "formats/partition_file.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "partition/exact.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::formats {
namespace {

// A whole number of the file read at full width (nlohmann's get<int>() would truncate 2^32 to 0
// and get<int64_t>() wrap an unsigned value above 2^63 - 1), nullopt when it is not one in
// [lo, hi].
std::optional<int64_t> whole_in(const nlohmann::json& v, int64_t lo, int64_t hi) {
  if (!v.is_number_integer()) return std::nullopt;
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) return std::nullopt;
  const int64_t x = v.get<int64_t>();
  if (x < lo || x > hi) return std::nullopt;
  return x;
}

}  // namespace

partition::Schedule read_partition_file(const std::string& path, const partition::Problem& p) {
  const std::string text = read_input_file(path, "assignment file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw user_error(path, ": not valid JSON: ", e.what());
  }
  std::map<std::string, int> index;
  for (size_t v = 0; v < p.size(); ++v) index[p.names[v]] = static_cast<int>(v);
  const auto op_index = [&](const nlohmann::json& name, const char* field) {
    if (!name.is_string()) throw user_error(path, ": '", field, "' must list operator names");
    const auto it = index.find(name.get<std::string>());
    if (it == index.end())
      throw user_error(path, ": '", field, "' names operator '", name.get<std::string>(),
                       "', which the model does not have");
    return it->second;
  };
  if (!j.is_object() || !j.contains("operators") || !j["operators"].is_array())
    throw user_error(path, ": expected an object with an 'operators' array");
  partition::Assignment a{std::vector<int>(p.size(), partition::kHost)};
  std::vector<char> seen(p.size(), 0);
  for (const nlohmann::json& op : j["operators"]) {
    if (!op.is_object() || !op.contains("name"))
      throw user_error(path, ": every entry of 'operators' needs a 'name'");
    const int v = op_index(op["name"], "operators");
    if (seen[static_cast<size_t>(v)])
      throw user_error(path, ": operator '", p.names[static_cast<size_t>(v)], "' is listed twice");
    seen[static_cast<size_t>(v)] = 1;
    int mode = partition::kHost;
    const int64_t modes = static_cast<int64_t>(p.acc[static_cast<size_t>(v)].size());
    if (op.contains("mode")) {
      const std::optional<int64_t> m = whole_in(op["mode"], partition::kHost, modes - 1);
      if (!m)
        throw user_error(path, ": operator '", p.names[static_cast<size_t>(v)],
                         "': field 'mode' is ", op["mode"].dump(),
                         "; expected -1 (host) or an accelerator mode from 0 to ", modes - 1,
                         " (it offers ", modes, ")");
      mode = static_cast<int>(*m);
    } else if (op.contains("device") && op["device"] != "host") {
      mode = 0;
      if (modes == 0)
        throw user_error(path, ": operator '", p.names[static_cast<size_t>(v)],
                         "': field 'device' is not 'host', but it offers no accelerator mode");
    }
    a.mode[static_cast<size_t>(v)] = mode;
  }
  for (size_t v = 0; v < p.size(); ++v)
    if (!seen[v])
      throw user_error(path, ": operator '", p.names[v], "' is missing from 'operators'");
  partition::Schedule s;
  if (j.contains("host_order")) {
    if (!j["host_order"].is_array())
      throw user_error(path, ": 'host_order' must be an array of names");
    std::vector<int> host_order, bus_order;
    for (const nlohmann::json& name : j["host_order"])
      host_order.push_back(op_index(name, "host_order"));
    if (p.bus_model == partition::BusModel::Serial) {
      if (!j.contains("bus_order") || !j["bus_order"].is_array())
        throw user_error(path,
                         ": a serial bus needs 'bus_order' (transfer keys) next to 'host_order'");
      for (const nlohmann::json& k : j["bus_order"]) {
        const std::optional<int64_t> key = whole_in(k, 0, std::numeric_limits<int>::max());
        if (!key)
          throw user_error(path, ": field 'bus_order' lists ", k.dump(),
                           "; expected transfer keys, whole numbers from 0");
        bus_order.push_back(static_cast<int>(*key));
      }
    }
    try {
      s = partition::simulate(p, a, host_order, bus_order);
    } catch (const UserError& e) {
      throw user_error(path, ": ", e.what());
    }
  } else {
    s = partition::simulate_best(p, a);
  }
  for (const partition::Violation& v : partition::check(p, s))
    throw user_error(path, ": the replayed partition is infeasible: ", v.message);
  return s;
}

}  // namespace hetcim::formats
