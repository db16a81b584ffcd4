// The outputs of one command, committed together or not at all. Every target is checked when it
// is added (files.h: regular files only, symlinks the user named written through, never a file the
// command read) and its content is staged in a temporary file beside it (registered with
// interrupt_cleanup.h, so an interrupt removes it); commit() renames every staged file onto its
// target in one step that an interrupt cannot split. A set destroyed without commit() (an
// exception, an early return) removes its staged files and any directory it created that is still
// empty. So `--json ok.json --gantt /proc/g.svg` leaves no ok.json, and a DSE that fails leaves no
// empty output directory. Paths are keyed with runs of '/' collapsed ("out//a.svg" is "out/a.svg").
//
// Temporaries killed with their process (SIGKILL, power loss) cannot remove themselves. Each
// staged file is named .hetcim-PID-N.tmp and holds an open file description lock (F_OFD_SETLK,
// which the kernel, and over NFS the lock manager, releases when the process dies) for as long
// as its set lives. The first time a process stages a file in a directory it removes every
// .hetcim-*.tmp there whose lock it can take: such a file's writer is gone. A live writer's
// temporary is never taken (its lock is held), and a writer checks after locking that its name
// is still its file, so a cleaner cannot remove a file between its creation and its lock.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace hetcim {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();

  // Creates `dir` and its missing parents now (files are staged inside it); a discarded set
  // removes the ones it created if they are empty. UserError naming the directory otherwise.
  void make_directory(const std::string& dir);

  // Stages `content` for `path`.
  void add(const std::string& path, std::string_view content);

  // Stages `content` for a name hetcim makes itself (a cache entry): a symbolic link, FIFO or
  // device at `path` is replaced by the rename, never followed or opened; a directory is refused.
  void add_own(const std::string& path, std::string_view content);

  // For an external writer (gnuplot): a fresh temporary path beside `path` that the writer must
  // create; commit() renames it onto `path`.
  [[nodiscard]] std::string stage(const std::string& path);

  // Renames every staged file onto its target.
  void commit();

  // Where the content staged for `path` (as given to add() or stage()) is until commit().
  [[nodiscard]] std::string staged_file(const std::string& path) const;

  // The targets as given, in the order added.
  [[nodiscard]] std::vector<std::string> targets() const;

 private:
  struct Staged {
    std::string given, target, temp;
    int lock_fd = -1;  // the temporary's descriptor, holding its lock until commit or discard
  };
  void stage_content(const std::string& given, const std::string& target, std::string_view content);
  Staged& new_temp(const std::string& given, const std::string& target);
  void close_locks() noexcept;
  void discard() noexcept;

  std::vector<Staged> staged_;
  std::vector<std::string> created_dirs_;
  bool committed_ = false;
};

}  // namespace hetcim
