// The version and the git commit this build was made from, as every output's provenance prints
// them. Defined in build_version.cpp, the one source file of the project that includes the
// generated hetcim/version.h (cmake/write_version.cmake): a new commit recompiles that file
// alone, not every file that prints or hashes the commit.
#pragma once

namespace hetcim {

// HETCIM_VERSION, the project version of CMakeLists.txt's project(), e.g. "0.1.0".
[[nodiscard]] const char* build_version();

// HETCIM_GIT_COMMIT: 12 hex digits of the commit the build was made from, with "-dirty" when
// tracked files differed from it, or "unknown" outside a git checkout.
[[nodiscard]] const char* build_commit();

}  // namespace hetcim
