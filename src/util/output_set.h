// The outputs of one command, committed together or not at all. Every target is checked when it
// is added (files.h: regular files only, symlinks written through) and its content is staged in a
// temporary file beside it (registered with interrupt_cleanup.h, so an interrupt removes it);
// commit() renames every staged file onto its target in one step that an interrupt cannot split.
// A set destroyed without commit() (an exception, an early return) removes its staged files and
// any directory it created that is still empty. So `--json ok.json --gantt /proc/g.svg` leaves
// no ok.json, and a DSE that fails leaves no empty output directory.
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
  };
  std::string new_temp(const std::string& target);
  void discard() noexcept;

  std::vector<Staged> staged_;
  std::vector<std::string> created_dirs_;
  bool committed_ = false;
};

}  // namespace hetcim
