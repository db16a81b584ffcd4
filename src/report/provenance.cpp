#include "report/provenance.h"

namespace hetcim::report {

namespace {

// Values may hold newlines (a message); a text line or a caption must not.
std::string one_line(const std::string& s) {
  std::string o = s;
  for (char& c : o)
    if (c == '\n' || c == '\r') c = ' ';
  return o;
}

}  // namespace

std::string provenance_text(const Provenance& p, const std::string& prefix) {
  std::string s;
  auto line = [&](const std::string& k, const std::string& v) {
    s += prefix + k + ": " + one_line(v) + "\n";
  };
  line("tool", "hetcim " + p.version + " (commit " + p.commit + ")");
  line("date", p.date_utc);
  line("machine", p.machine);
  line("command", p.command_line);
  for (const auto& [k, v] : p.facts) line(k, v);
  return s;
}

std::string provenance_html(const Provenance& p) {
  std::string s = "<section class=\"provenance\"><h2>Provenance</h2>\n<dl>\n";
  auto item = [&](const std::string& k, const std::string& v) {
    s += "<dt>" + html_escape(k) + "</dt><dd>" + html_escape(v) + "</dd>\n";
  };
  item("tool", "hetcim " + p.version + " (commit " + p.commit + ")");
  item("date", p.date_utc);
  item("machine", p.machine);
  item("command", p.command_line);
  for (const auto& [k, v] : p.facts) item(k, v);
  return s + "</dl></section>\n";
}

std::string provenance_caption(const Provenance& p) {
  std::string s = "hetcim " + p.version + " (commit " + p.commit + "), " + p.date_utc;
  for (const auto& [k, v] : p.facts) s += "; " + k + ": " + one_line(v);
  return s;
}

}  // namespace hetcim::report
