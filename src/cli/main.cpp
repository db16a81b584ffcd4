// hetcim: the command-line front end. Parses, calls the library, prints; errors become one line
// on stderr and a non-zero exit (1 for bad input, 2 for a bug in hetcim, 130 when interrupted by
// SIGINT and 143 by SIGTERM: util/interrupt_cleanup.h; run_app.h). The commands that need
// libtorch (train, analog) run in the hetcim-torch executable (main_torch.cpp): this one declares
// their flags and help and hands a run over with exec, so nothing here loads libtorch.
#include "cli/commands.h"
#include "cli/run_app.h"
#include "cli/versions.h"
#include "util/provenance.h"

int main(int argc, char** argv) {
  CLI::App app{"hetcim: neural networks on heterogeneous CPU + in-memory-computing systems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return hetcim::cli::versions_text(); });
  const hetcim::Provenance provenance = hetcim::make_provenance(argc, argv);
  hetcim::cli::register_models(app);
  hetcim::cli::register_inspect(app);
  hetcim::cli::register_export(app);
  hetcim::cli::register_run(app);
  hetcim::cli::register_profile(app, provenance);
  hetcim::cli::register_partition(app, provenance);
  hetcim::cli::register_execute(app, provenance);
  hetcim::cli::register_sensitivity(app, provenance);
  hetcim::cli::register_dse(app, provenance);
  hetcim::cli::register_cluster(app, provenance);
  hetcim::cli::register_reproduce(app, provenance);
#ifdef HETCIM_WITH_TRAIN
  hetcim::cli::register_torch_forwarders(app, argc, argv);
#endif
  return hetcim::cli::run_app(app, argc, argv);
}
