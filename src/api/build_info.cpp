#include "api/build_info.h"

#include <CbcConfig.h>
#include <onnx/common/version.h>

#include <string>

#include "exec/engine.h"
#include "util/build_version.h"

namespace hetcim::api {

BuildInfo build_info() {
  BuildInfo b;
  b.version = build_version();
  b.commit = build_commit();
  std::string onednn = exec::onednn_description();  // "oneDNN 2.6.3 (OpenMP runtime, ISA ...)"
  if (onednn.starts_with("oneDNN ")) onednn.erase(0, 7);
  b.dependencies.emplace_back("oneDNN", onednn);
  b.dependencies.emplace_back("CBC", CBC_VERSION);
  b.dependencies.emplace_back("ONNX", ONNX_NAMESPACE::LAST_RELEASE_VERSION);
#ifdef HETCIM_TORCH_VERSION
  b.dependencies.emplace_back("libtorch", HETCIM_TORCH_VERSION " (train and analog commands)");
#endif
  return b;
}

}  // namespace hetcim::api
