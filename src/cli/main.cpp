// hetcim: the command-line front end. Parses, calls the library, prints; errors become one line
// on stderr and a non-zero exit (1 for bad input, 2 for a bug in hetcim). The commands that need
// libtorch (train, analog) live in the hetcim-torch executable (main_torch.cpp): this one hands
// them over with exec, so every other command starts without loading libtorch.
#include "cli/commands.h"
#include "cli/run_app.h"
#include "cli/versions.h"

int main(int argc, char** argv) {
  CLI::App app{"hetcim: neural networks on heterogeneous CPU + in-memory-computing systems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return hetcim::cli::versions_text(); });
  hetcim::cli::register_models(app);
  hetcim::cli::register_inspect(app);
  hetcim::cli::register_export(app);
  hetcim::cli::register_run(app);
  hetcim::cli::register_profile(app);
  hetcim::cli::register_partition(app);
  hetcim::cli::register_dse(app);
  hetcim::cli::register_cluster(app);
#ifdef HETCIM_WITH_TRAIN
  hetcim::cli::register_torch_forwarders(app);
#endif
  return hetcim::cli::run_app(app, argc, argv);
}
