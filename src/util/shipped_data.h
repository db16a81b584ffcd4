// The data files shipped with hetcim (the repository's data/: chips.yaml, paper/seedNNN.yaml),
// found where this build put them: installed, <prefix>/share/hetcim/<relative>, located from the
// program or library holding this code (the nearest of its directory's ancestors that has it:
// <prefix>/bin/hetcim, <prefix>/lib/libhetcim.so,
// <prefix>/lib/python3/dist-packages/hetcim/_hetcim.so, ...); else the source tree's
// data/<relative> this was built from (a build tree). One rule for every shipped file, so an
// installed `hetcim` never reads the source tree it was built from while its own copy exists.
#pragma once

#include <string>
#include <string_view>

namespace hetcim {

// `relative`: a path under data/ ("chips.yaml", "paper", "paper/seed002.yaml").
[[nodiscard]] std::string shipped_data_path(std::string_view relative);

// How a caption or page names a data file: one of the shipped files (under shipped_data_path) as
// "hetcim's data/<relative>", the repository's path a reader can cite and find (the installed
// share/hetcim holds the same tree), not this machine's absolute path; any other path as given.
[[nodiscard]] std::string cited_data_path(const std::string& path);

}  // namespace hetcim
