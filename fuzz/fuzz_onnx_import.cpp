// libFuzzer target for the ONNX importer: any byte string must either import or raise a
// hetcim::UserError. Everything else (a crash, a sanitizer report, an InternalError or any other
// exception escaping) is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnxio/import.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    (void)hetcim::onnxio::import_onnx_bytes(bytes, "fuzz-input");
  } catch (const hetcim::UserError&) {
    // Rejected with a message: the expected outcome for most inputs.
  }
  return 0;
}
