#include "cli/versions.h"

#include "api/build_info.h"

namespace hetcim::cli {

std::string versions_text() {
  const api::BuildInfo b = api::build_info();
  std::string s = "hetcim " + b.version + " (commit " + b.commit + ")";
  for (const auto& [name, version] : b.dependencies) s += "\n  " + name + " " + version;
  return s;
}

}  // namespace hetcim::cli
