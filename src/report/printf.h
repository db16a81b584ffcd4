// printf-style formatting into a string, for the text tables of report/ that keep the exact
// layout of a printf format.
#pragma once

#include <string>

namespace hetcim::report {

// Appends the formatted text to `out`.
__attribute__((format(printf, 2, 3))) void appendf(std::string& out, const char* format, ...);

}  // namespace hetcim::report
