// export: a model (usually from the zoo) as a standard ONNX file, fp32 or statically quantized int8
// in QDQ form (BatchNorm folded, scales calibrated on seeded random inputs, per-channel int8
// weights: what `run` with precision int8 executes). Weights the model does not carry are drawn
// from the seed.
#pragma once

#include <cstdint>
#include <string>

#include "api/model.h"
#include "api/options.h"
#include "api/status.h"
#include "util/provenance.h"

namespace hetcim::api {

struct ExportRequest {
  uint64_t weight_seed = 1;       // weights the model does not carry (CLI --seed)
  bool int8 = false;              // the int8 QDQ model instead of fp32
  uint64_t calibration_seed = 1;  // int8 calibration inputs
  int calibration_samples = 2;    // 1..1000 seeded random calibration inputs

  void validate() const;  // UserError naming the field
};
[[nodiscard]] const FieldTable<ExportRequest>& export_fields();

struct ExportResult {
  Status status;  // origin: computed
  Provenance provenance;
  std::string onnx;  // the serialised ModelProto, to write as a .onnx file
  size_t nodes = 0;  // nodes of the exported graph
};

[[nodiscard]] ExportResult export_onnx(const Model& model, const ExportRequest& request = {});

}  // namespace hetcim::api
