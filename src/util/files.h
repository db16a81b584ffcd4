// Input and output files. Every file hetcim reads goes through read_input_file (or, for its own
// cache entries, read_cache_file); every file it writes goes through an OutputSet
// (output_set.h). This header holds the checks made on both sides.
//
// What may be an output: a regular file that exists (replaced as a whole) or a new name in an
// existing, writable directory. A symbolic link the user named is written through: its final
// target is replaced and the link stays; a link whose target does not exist is refused. A name
// hetcim makes itself (a cache entry) is never followed: whatever is there is replaced by the
// rename, the link's target untouched. Directories, FIFOs, devices and sockets are refused
// (hetcim never replaces /dev/null, a FIFO or a device node). No output may be a file the same
// command read (compared by device and inode, so a link or another spelling of the path is
// caught): a run never destroys its own input. There is no `-` for stdout: every output flag
// names a file. Every problem is a UserError that names the path (shortened to its first 120
// characters when longer) and the reason.
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

// `dir` and `name` joined by exactly one '/' ("out/" + "a.json" is "out/a.json", not
// "out//a.json"); `dir` empty gives `name`. Every path hetcim composes is joined here.
[[nodiscard]] std::string join_path(std::string_view dir, std::string_view name);

// `path` with every run of '/' made one, as OutputSet keys its targets (so "study//f.svg" and
// "study/f.svg" are one file). A trailing '/' stays.
[[nodiscard]] std::string collapse_slashes(std::string_view path);

// How read_input_file checks a file besides its kind.
struct InputCheck {
  int64_t max_bytes = int64_t{64} << 20;  // refused above this size, before anything is read
  // The bytes the file must start with ("" = any), compared before the rest is read, so a 3 GB
  // file that is not of the kind costs a 6-byte read; `magic_name` says what they are in the
  // message ("the \x93NUMPY magic string").
  std::string_view magic = {};
  std::string_view magic_name = {};
  // false for a file the command made itself and reads back (a staged figure): not noted as an
  // input (once removed, its inode may be an output's).
  bool is_input = true;
};

// The whole content of an input file of `what` ("hardware description", "host profile"...):
// UserError naming the path and `what` when it is missing, unreadable, a directory, not a regular
// file (a FIFO or device would block or never end: the file is opened without blocking and its
// kind checked on the open descriptor, so nothing can be swapped in between), larger than
// `max_bytes`, or not starting with the magic bytes. The file is noted as an input of the command
// (note_input).
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          int64_t max_bytes = int64_t{64} << 20);
[[nodiscard]] std::string read_input_file(const std::string& path, std::string_view what,
                                          const InputCheck& check);

// A file hetcim keeps for itself (a cache entry) as read by read_cache_file.
struct CacheFile {
  bool found = false;  // something is at the path
  std::string text;    // its content when `usable`
  bool usable = false;
  std::string problem;  // why it is not usable: "a symbolic link", "a FIFO (named pipe)", ...
};

// Reads a cache entry without following a symbolic link and without blocking: nothing at `path`
// is {found = false}; a regular file of at most `max_bytes` is its content; a symbolic link, FIFO,
// device, socket or larger file is {found, !usable, problem} (the caller warns, computes the entry
// again and write_cache_file replaces the name). A directory, which hetcim cannot replace without
// deleting it, is a UserError naming the entry and telling what to do.
[[nodiscard]] CacheFile read_cache_file(const std::string& path, std::string_view what,
                                        int64_t max_bytes = int64_t{64} << 20);

// Writes a cache entry all or nothing (OutputSet::add_own): a link, FIFO or device at `path` is
// replaced by the renamed file, never opened or written through.
void write_cache_file(const std::string& path, std::string_view content);

// All or nothing: the content goes to a temporary file beside the target, which is renamed over
// it once complete; an error or an interrupt never leaves a partial file or the temporary.
void write_file_atomically(const std::string& path, std::string_view content);

// From now on this process runs one command (the CLI's run_app calls it once): every file read
// through read_input_file or named to note_input is remembered, and OutputSet refuses to write
// over any of them. A library process (Python) does not call it, so files read by one call may be
// written by a later one.
void track_command_inputs();

// Notes `path` as an input of the command when tracking is on (for a reader that opens the file
// itself, such as a gzip or protobuf stream). A path that does not exist is ignored.
void note_input(const std::string& path, std::string_view what);

// The input of this command that `path` (an existing file, links followed) is, as "the plan
// 'p.json'", or "" when it is none (or tracking is off).
[[nodiscard]] std::string input_named_by(const std::string& path);

}  // namespace hetcim
