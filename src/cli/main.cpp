// hetcim: the command-line front end. Parses, calls the library, prints; errors become one line
// on stderr and a non-zero exit (1 for bad input, 2 for a bug in hetcim).
#include <cstdio>
#include <exception>

#include "cli/commands.h"
#include "util/error.h"
#include "util/provenance.h"

int main(int argc, char** argv) {
  CLI::App app{"hetcim: neural networks on heterogeneous CPU + in-memory-computing systems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", hetcim::version_string());
  hetcim::cli::register_models(app);
  hetcim::cli::register_inspect(app);
  hetcim::cli::register_export(app);
  hetcim::cli::register_run(app);
  hetcim::cli::register_profile(app);
  hetcim::cli::register_partition(app);
  hetcim::cli::register_dse(app);
  hetcim::cli::register_cluster(app);
  hetcim::cli::register_reproduce(app, argc, argv);
#ifdef HETCIM_WITH_TRAIN
  hetcim::cli::register_train(app);
  hetcim::cli::register_analog(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const hetcim::Error& e) {
    std::fprintf(stderr, "hetcim: error: %s\n", e.what());
    return e.kind() == hetcim::ErrorKind::User ? 1 : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetcim: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
