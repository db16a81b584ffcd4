#include "exec/families/families.h"

namespace hetcim::exec::native {

bool reads_strided_always(const graph::Node&) {
  return true;
}

const NativeFamily* native_family(std::string_view family) {
  // family, compile, reads strided inputs, MACs per output element.
  static const NativeFamily kNative[] = {
      {"conv", compile_conv, nullptr, conv_macs_per_output},
      {"qconv", compile_qconv, nullptr, conv_macs_per_output},
      {"gemm", compile_gemm, nullptr, gemm_macs_per_output},
      {"qgemm", compile_qgemm, nullptr, gemm_macs_per_output},
      {"matmul", compile_matmul, nullptr, matmul_macs_per_output},
      {"qmatmul", compile_qmatmul, nullptr, matmul_macs_per_output},
      {"binary", compile_binary},
      {"qbinary", compile_qbinary},
      {"eltwise", compile_eltwise},
      {"qunary", compile_qunary},
      {"pool", compile_pool},
      {"qgap", compile_qgap},
      {"qavgpool", compile_qavgpool},
      {"concat", compile_concat},
      {"qconcat", compile_qconcat, reads_strided_always},
      {"slice_split", compile_slice_split, reads_strided_always},
      {"resize", compile_resize},
      {"reshape", compile_reshape, reshape_reads_strided},
      {"transpose", compile_transpose, transpose_reads_strided},
      {"batchnorm", compile_batchnorm},
      {"quantize", compile_quantize},
      {"dequantize", compile_dequantize},
  };
  for (const NativeFamily& r : kNative)
    if (r.family == family) return &r;
  return nullptr;
}

const NativeFamily* native_family(const graph::Node& n) {
  const ops::Family* f = ops::find(n.op_type);
  return f ? native_family(f->family) : nullptr;
}

bool runs(const graph::Node& n) {
  const ops::Family* f = ops::find(n.op_type);
  return f && (native_family(f->family) || (f->compile && n.domain.empty()));
}

}  // namespace hetcim::exec::native
