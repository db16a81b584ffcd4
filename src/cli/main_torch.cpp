// hetcim-torch: the commands that train or evaluate with libtorch (train, analog). `hetcim train`
// and `hetcim analog` exec this program (cmd_torch_forward.cpp), so only they pay for loading
// libtorch; it also runs on its own with the same command line. Like hetcim it installs the
// interrupt cleanup (run_app.h) before any thread exists.
#include "cli/commands.h"
#include "cli/run_app.h"
#include "cli/versions.h"
#include "util/provenance.h"

int main(int argc, char** argv) {
  CLI::App app{"hetcim: neural networks on heterogeneous CPU + in-memory-computing systems",
               "hetcim"};
  app.require_subcommand(1);
  app.set_version_flag("--version", [] { return hetcim::cli::versions_text(); });
  const hetcim::Provenance provenance = hetcim::make_provenance(argc, argv);
  hetcim::cli::register_train(app, provenance);
  hetcim::cli::register_analog(app, provenance);
  return hetcim::cli::run_app(app, argc, argv);
}
