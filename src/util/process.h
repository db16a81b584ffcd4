// Running an external program (gnuplot) without a shell: the program and its arguments are an
// argument vector handed to posix_spawnp, so no character of a path or argument is ever
// interpreted; input is written to the program's stdin, and its stdout and stderr are collected.
// The child is registered with interrupt_cleanup.h while it runs, and starts with the default
// signal dispositions and an empty signal mask.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hetcim {

struct ProcessResult {
  bool started = false;  // false: the program was not found or could not be executed
  int exit_code = -1;    // the exit status, or 128 + signal when the program was killed
  std::string output;    // stdout and stderr, interleaved as written
};

// argv[0] is looked up in PATH. Throws UserError only when the pipes or the spawn itself fail for
// a reason other than a missing program.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        std::string_view stdin_data);

}  // namespace hetcim
