#include <cstdio>

#include "cli/commands.h"
#include "workload/workload.h"
#include "zoo/zoo.h"

namespace hetcim::cli {

void register_models(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("models", "List the built-in model zoo");
  cmd->callback([] {
    std::printf("%-14s %-14s %12s  %s\n", "name", "input", "parameters", "description");
    for (const zoo::ModelInfo& m : zoo::list_models()) {
      const graph::Graph g = zoo::build_model(m.name, {});
      const graph::Shape& in = g.shape_of(g.inputs.at(0), m.name);
      std::printf("%-14s %-14s %12lld  %s\n", m.name.c_str(), graph::shape_str(in).c_str(),
                  static_cast<long long>(workload::count_params(g)), m.description.c_str());
    }
  });
}

}  // namespace hetcim::cli
