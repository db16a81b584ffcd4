#include <cstdio>

#include "api/model.h"
#include "cli/commands.h"

namespace hetcim::cli {

void register_models(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("models", "List the built-in model zoo");
  cmd->callback([] {
    std::printf("%-14s %-14s %12s  %s\n", "name", "input", "parameters", "description");
    for (const api::ZooModel& m : api::list_models())
      std::printf("%-14s %-14s %12lld  %s\n", m.name.c_str(), graph::shape_str(m.input).c_str(),
                  static_cast<long long>(m.parameters), m.description.c_str());
  });
}

}  // namespace hetcim::cli
