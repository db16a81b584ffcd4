#include "api/inspect.h"

#include <algorithm>

#include "api/common.h"
#include "api/options.h"
#include "exec/engine.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "util/numbers.h"

namespace hetcim::api {

const FieldTable<InspectRequest>& inspect_fields() {
  using R = InspectRequest;
  static const FieldTable<R> table = {
      field("precision", &R::precision, "Deployment precision").one_of({"int8", "fp32"}),
      field("differential", &R::differential,
            "Two columns per signed weight (differential G+/G- mapping) in the crossbar count"),
      field("dump_after", &R::dump_after, "Print the graph after this pipeline step"),
  };
  return table;
}

void InspectRequest::set_crossbar(const std::string& text) {
  const std::optional<Dims> d = parse_dims(text);
  if (!d) throw user_error("crossbar: expected ROWSxCOLS such as 256x256, got '", text, "'");
  xbar_rows = d->rows;
  xbar_cols = d->cols;
}

void InspectRequest::validate() const {
  check_fields(*this, inspect_fields());
  if (xbar_rows <= 0 || xbar_cols <= 0)
    throw user_error("crossbar: rows and columns must be positive, got ", xbar_rows, "x",
                     xbar_cols);
  const auto& steps = passes::pipeline_steps();
  if (!dump_after.empty() && std::find(steps.begin(), steps.end(), dump_after) == steps.end()) {
    std::string known;
    for (const auto& s : steps) known += (known.empty() ? "" : ", ") + s;
    throw user_error("dump_after: unknown step '", dump_after, "' (steps: ", known, ")");
  }
}

InspectResult inspect(const Model& model, const InspectRequest& request) {
  request.validate();
  InspectResult r;
  r.provenance = library_provenance();
  r.model = model.spec;
  r.precision = request.precision;
  r.options.xbar_rows = request.xbar_rows;
  r.options.xbar_cols = request.xbar_cols;
  r.options.columns_per_weight = request.differential ? 2 : 1;
  passes::PipelineOptions po;
  po.precision = parse_precision(request.precision);
  r.options.elem_bytes = po.precision == passes::Precision::Int8 ? 1 : 4;
  const graph::Graph lowered =
      passes::lower(model.graph, po, [&](const std::string& step, const graph::Graph& x) {
        if (step == request.dump_after) r.dumped = x;
      });
  r.workload = workload::analyze(lowered, r.options);
  // What `run` would refuse (it checks the same table before executing anything).
  r.run_cannot_execute = exec::unsupported_operators(lowered);
  r.params_before_lowering = workload::count_params(model.graph);
  return r;
}

}  // namespace hetcim::api
