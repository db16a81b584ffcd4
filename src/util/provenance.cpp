#include "util/provenance.h"

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "util/build_version.h"

namespace hetcim {

void Provenance::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : facts) {
    if (k == key) {
      v = value;
      return;
    }
  }
  facts.emplace_back(key, value);
}

const std::string* Provenance::find(const std::string& key) const {
  for (const auto& [k, v] : facts)
    if (k == key) return &v;
  return nullptr;
}

std::string version_string() {
  return std::string("hetcim ") + build_version() + " (commit " + build_commit() + ")";
}

std::string machine_description() {
  std::string model = "unknown CPU";
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        model = line.substr(colon + 1);
        model.erase(0, model.find_first_not_of(" \t"));
      }
      break;
    }
  }
  return model + " x " + std::to_string(std::thread::hardware_concurrency());
}

namespace {

std::string iso_date_utc() {
  std::time_t now = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"); epoch != nullptr && *epoch != '\0') {
    char* end = nullptr;
    long long v = std::strtoll(epoch, &end, 10);
    if (end != nullptr && *end == '\0' && v >= 0) now = static_cast<std::time_t>(v);
  }
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string quote_arg(const std::string& a) {
  if (!a.empty() && a.find_first_of(" \t\n'\"\\$`") == std::string::npos) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

Provenance make_provenance(int argc, const char* const* argv) {
  Provenance p;
  for (int i = 0; i < argc; ++i) {
    if (i > 0) p.command_line += ' ';
    p.command_line += quote_arg(argv[i]);
  }
  p.version = build_version();
  p.commit = build_commit();
  p.date_utc = iso_date_utc();
  p.machine = machine_description();
  return p;
}

}  // namespace hetcim
