#include "api/export.h"

#include "api/common.h"
#include "exec/calibration.h"
#include "onnxio/export.h"
#include "passes/qdq_export.h"

namespace hetcim::api {

const FieldTable<ExportRequest>& export_fields() {
  using R = ExportRequest;
  static const FieldTable<R> table = {
      field("weight_seed", &R::weight_seed, "Seed for weights the model does not carry")
          .deprecated_alias("--seed"),
      field("int8", &R::int8,
            "Write the statically quantized int8 model in QDQ form (BatchNorm folded, scales "
            "calibrated on seeded random inputs, per-channel int8 weights): what `hetcim run "
            "--precision int8` executes"),
      field("calibration_seed", &R::calibration_seed, "Seed for int8 calibration inputs"),
      field("calibration_samples", &R::calibration_samples, "Random inputs for int8 calibration")
          .range(1, 1000),
  };
  return table;
}

void ExportRequest::validate() const {
  check_fields(*this, export_fields());
}

ExportResult export_onnx(const Model& model, const ExportRequest& q) {
  q.validate();
  graph::Graph g = model.graph;
  ExportResult r;
  r.provenance = library_provenance();
  r.provenance.set("model", model.spec);
  r.provenance.set(
      "seeds", "weights " + std::to_string(q.weight_seed) +
                   (q.int8 ? ", calibration " + std::to_string(q.calibration_seed) + " (" +
                                 std::to_string(q.calibration_samples) + " uniform random inputs)"
                           : std::string()));
  if (q.int8) {
    exec::PrepareOptions po;
    po.precision = passes::Precision::Int8;
    po.weight_seed = q.weight_seed;
    po.calibration.seed = q.calibration_seed;
    po.calibration.samples = q.calibration_samples;
    g = passes::to_qdq(exec::prepare(std::move(g), po));
  }
  onnxio::ExportOptions o;
  o.seed = q.weight_seed;
  r.onnx = onnxio::export_onnx_bytes(g, o);
  r.nodes = g.nodes.size();
  return r;
}

}  // namespace hetcim::api
