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

}  // namespace hetcim
