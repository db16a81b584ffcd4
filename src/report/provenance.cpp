#include "report/provenance.h"

namespace hetcim::report {

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

nlohmann::json provenance_json(const Provenance& p) {
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();
  for (const auto& [k, v] : p.facts) facts[k] = v;
  nlohmann::json j = {{"tool", "hetcim"},     {"version", p.version},
                      {"commit", p.commit},   {"date_utc", p.date_utc},
                      {"machine", p.machine}, {"command_line", p.command_line}};
  j["facts"] = nlohmann::json::parse(facts.dump());
  return j;
}

std::string provenance_text(const Provenance& p, const std::string& prefix) {
  std::string o;
  auto line = [&](const std::string& k, const std::string& v) {
    o += prefix + k + ": " + v + "\n";
  };
  line("command", p.command_line);
  line("version", "hetcim " + p.version + " (commit " + p.commit + ")");
  line("date", p.date_utc);
  line("machine", p.machine);
  for (const auto& [k, v] : p.facts) line(k, v);
  return o;
}

std::string provenance_html(const Provenance& p) {
  std::string o = "<section class=\"provenance\"><h2>Provenance</h2><dl>\n";
  auto item = [&](const std::string& k, const std::string& v) {
    o += "<dt>" + html_escape(k) + "</dt><dd>" + html_escape(v) + "</dd>\n";
  };
  item("command", p.command_line);
  item("version", "hetcim " + p.version + " (commit " + p.commit + ")");
  item("date (UTC)", p.date_utc);
  item("machine", p.machine);
  for (const auto& [k, v] : p.facts) item(k, v);
  return o + "</dl></section>\n";
}

}  // namespace hetcim::report
