// What this build of hetcim is: its version and commit, and the versions of the libraries it was
// built with (oneDNN as loaded at run time; CBC, ONNX and libtorch as their headers declare them).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hetcim::api {

struct BuildInfo {
  std::string version;  // HETCIM_VERSION
  std::string commit;   // HETCIM_GIT_COMMIT
  // (library, version) in a fixed order: oneDNN, CBC, ONNX, then libtorch when this build has the
  // libtorch commands (hetcim-torch).
  std::vector<std::pair<std::string, std::string>> dependencies;
};

[[nodiscard]] BuildInfo build_info();

}  // namespace hetcim::api
