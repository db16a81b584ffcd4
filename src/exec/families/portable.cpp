// A family's portable kernel from src/ops (ops/kernel.h) run by the engine: its run-time inputs
// converted to row-major float32 buffers, its other inputs captured as constants at compile time.
#include <memory>
#include <string>
#include <vector>

#include "exec/families/families.h"

namespace hetcim::exec::native {

void compile_portable(EngineContext& e, const graph::Node& n, const ops::Family& f) {
  ops::KernelInput k{n, e.g->opset, {}, {}, {}};
  std::vector<bool> activation(n.inputs.size(), false);
  for (size_t i : f.activations.empty() ? std::vector<size_t>{0} : f.activations)
    if (i < activation.size()) activation[i] = true;
  std::vector<memory> in_mem(n.inputs.size());
  std::vector<bool> has_in(n.inputs.size(), false);
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    const std::string& t = n.inputs[i];
    if (t.empty()) {
      k.shapes.emplace_back();
      k.constants.push_back(nullptr);
      continue;
    }
    k.shapes.push_back(e.shape(t));
    if (e.init(t)) {
      const Tensor v = e.constant(t);
      auto c = std::make_unique<ops::Constant>();
      c->shape = v.shape;
      c->values.resize(static_cast<size_t>(v.numel()));
      for (int64_t k = 0; k < v.numel(); ++k) c->values[static_cast<size_t>(k)] = v.at(k);
      e.host_constants.push_back(std::move(c));
      k.constants.push_back(e.host_constants.back().get());
    } else {
      k.constants.push_back(nullptr);
      if (!activation[i]) fail(n, "input " + std::to_string(i) + " '" + t + "' must be a constant");
    }
    if (!activation[i]) continue;
    if (e.dtype(t) != DType::Float32)
      fail(n, "input '" + t + "' is " + std::string(graph::dtype_name(e.dtype(t))) +
                  "; hetcim executes " + n.op_type + " on float32");
    in_mem[i] = e.get_plain(t);
    has_in[i] = true;
  }
  for (const std::string& t : n.outputs) k.out_shapes.push_back(t.empty() ? Shape{} : e.shape(t));
  ops::Run run = f.compile(k);
  std::vector<memory> out_mem(n.outputs.size());
  std::vector<bool> has_out(n.outputs.size(), false);
  for (size_t o = 0; o < n.outputs.size(); ++o) {
    if (n.outputs[o].empty()) continue;
    out_mem[o] = e.output(n.outputs[o], plain_md(e.shape(n.outputs[o]), dt::f32), DType::Float32);
    has_out[o] = true;
  }
  e.cur->steps.push_back([run, in_mem, has_in, out_mem, has_out] {
    std::vector<const float*> in(in_mem.size(), nullptr);
    for (size_t i = 0; i < in_mem.size(); ++i)
      if (has_in[i]) in[i] = static_cast<const float*>(in_mem[i].get_data_handle());
    std::vector<float*> out(out_mem.size(), nullptr);
    for (size_t o = 0; o < out_mem.size(); ++o)
      if (has_out[o]) out[o] = static_cast<float*>(out_mem[o].get_data_handle());
    run(in, out);
  });
  e.cur->info.impl = "hetcim:" + std::string(f.op);
}

}  // namespace hetcim::exec::native
