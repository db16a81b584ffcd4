// Writing result files: all or nothing. The content goes to a temporary file beside the target,
// which is renamed over it only once it is complete, so an error never leaves a partial file.
#pragma once

#include <string>
#include <string_view>

namespace hetcim {

void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace hetcim
