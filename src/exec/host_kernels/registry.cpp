#include "exec/host_kernels/registry.h"

#include "exec/host_kernels/families.h"

namespace hetcim::exec::host {
namespace {

const std::vector<Family>& table() {
  static const std::vector<Family> kTable = {
      {"ReduceMean", compile_reduce_mean, {0}},
      {"BatchNormalization", compile_batch_normalization, {0}},
      {"LayerNormalization", compile_layer_normalization, {0}},
      {"Pad", compile_pad, {0}},
      {"Erf", compile_erf, {0}},
      {"Sqrt", compile_sqrt, {0}},
      {"Gather", compile_gather, {0}},
  };
  return kTable;
}

}  // namespace

const Family* find(std::string_view op_type) {
  for (const Family& f : table())
    if (f.op == op_type) return &f;
  return nullptr;
}

std::vector<std::string_view> operators() {
  std::vector<std::string_view> out;
  for (const Family& f : table()) out.push_back(f.op);
  return out;
}

}  // namespace hetcim::exec::host
