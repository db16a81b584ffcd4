// The one way a hetcim executable runs its command line: installs the interrupt cleanup
// (util/interrupt_cleanup.h) before any thread exists, names a misspelled subcommand with the
// closest known one, parses, and turns exceptions into exit codes: a parse error prints CLI11's
// message, a hetcim::Error one line on stderr (exit 1 for bad input, 2 for a bug in hetcim), a
// file-system error names the path (exit 1). An interrupt ends the process with 130 (SIGINT) or
// 143 (SIGTERM).
#pragma once

#include <CLI/CLI.hpp>

namespace hetcim::cli {

[[nodiscard]] int run_app(CLI::App& app, int argc, char** argv);

}  // namespace hetcim::cli
