#include "cli/run_app.h"

#include <cstdio>
#include <exception>

#include "util/error.h"

namespace hetcim::cli {

int run_app(CLI::App& app, int argc, char** argv) {
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

}  // namespace hetcim::cli
