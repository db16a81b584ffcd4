// The one way a hetcim executable turns exceptions into exit codes: a parse error prints CLI11's
// message, a hetcim::Error one line on stderr (exit 1 for bad input, 2 for a bug in hetcim).
#pragma once

#include <CLI/CLI.hpp>

namespace hetcim::cli {

[[nodiscard]] int run_app(CLI::App& app, int argc, char** argv);

}  // namespace hetcim::cli
