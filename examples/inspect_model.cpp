// What a network asks of a crossbar system: operators, offloadable operators, crossbars (eq. 1)
// and MACs of a zoo model or an ONNX file, through the library's front door.
//   inspect_model resnet18 [128x128]
#include <hetcim/hetcim.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [ROWSxCOLS]\n", argv[0]);
    return 2;
  }
  try {
    hetcim::api::InspectRequest request;
    if (argc > 2 && std::sscanf(argv[2], "%ldx%ld", &request.xbar_rows, &request.xbar_cols) != 2) {
      std::fprintf(stderr, "crossbar: expected ROWSxCOLS, got '%s'\n", argv[2]);
      return 2;
    }
    const hetcim::api::InspectResult r =
        hetcim::api::inspect(hetcim::api::load_model(argv[1]), request);
    long offloadable = 0;
    for (const auto& op : r.workload.ops) offloadable += op.offloadable;
    std::printf(
        "%s: %zu operators, %ld offloadable, %lld crossbars of %lldx%lld, %lld MACs, %lld "
        "parameters\n",
        r.model.c_str(), r.workload.ops.size(), offloadable,
        static_cast<long long>(r.workload.totals.crossbars),
        static_cast<long long>(r.options.xbar_rows), static_cast<long long>(r.options.xbar_cols),
        static_cast<long long>(r.workload.totals.macs),
        static_cast<long long>(r.params_before_lowering));
    std::printf("hetcim %s (commit %s)\n", r.provenance.version.c_str(),
                r.provenance.commit.c_str());
  } catch (const hetcim::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
