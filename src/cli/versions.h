// The text of `hetcim --version`: "hetcim VERSION (commit C)" and one line per library.
#pragma once

#include <string>

namespace hetcim::cli {

[[nodiscard]] std::string versions_text();

}  // namespace hetcim::cli
