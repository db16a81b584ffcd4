// Output files. Every file hetcim writes goes through an OutputSet (output_set.h); this header
// holds the checks it makes on a target path and the one-file shortcut.
//
// What may be an output: a regular file that exists (replaced as a whole) or a new name in an
// existing, writable directory. A symbolic link is written through: its final target is replaced
// and the link stays; a link whose target does not exist is refused. Directories, FIFOs, devices
// and sockets are refused (hetcim never replaces /dev/null, a FIFO or a device node). There is
// no `-` for stdout: every output flag names a file. Every problem is a UserError that names the
// path (shortened to its first 120 characters when longer) and the reason.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hetcim {

// The regular file that writing `path` replaces: `path` itself or, for a symbolic link, its
// canonical target. Checks everything above; throws UserError otherwise.
[[nodiscard]] std::string resolve_output_path(const std::string& path);

// `path` for a message: as given, or its first 120 characters, "..." and its length.
[[nodiscard]] std::string shown_path(std::string_view path);

// The whole content of an input file of `what` ("hardware description", "host profile"...):
// UserError naming the path and `what` when it is missing, unreadable, a directory, not a regular
// file (a FIFO or device would block or never end) or larger than `max_bytes`.
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          int64_t max_bytes = int64_t{64} << 20);

// All or nothing: the content goes to a temporary file beside the target, which is renamed over
// it once complete; an error or an interrupt never leaves a partial file or the temporary.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace hetcim
