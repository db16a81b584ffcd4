// The batchnorm family's native kernel: a standalone float BatchNormalization as one channel
// affine pass (with the Relu it alone feeds, fused); anything else runs the portable kernel.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "exec/families/families.h"
#include "exec/kernels.h"

namespace hetcim::exec::native {

// Standalone BatchNormalization of a 4-D float tensor (DenseNet's pre-activation BN after each
// Concat): y = x * a[c] + b[c] with a = scale / sqrt(var + eps), b = B - mean * a (as the host
// kernel computes them), in the producer's layout when that is channels-last, so the
// convolutions around it need no layout reorders (oneDNN 2.6's batch-normalization primitive
// took twice the host kernel's time here). Anything else (other ranks, non-constant statistics,
// a training-mode node) goes to the host kernel, which also names what it refuses.
void compile_batchnorm(EngineContext& e, const graph::Node& n) {
  const std::string& x = n.inputs.at(0);
  const Shape xs = e.shape(x);
  bool ok = xs.size() == 4 && e.dtype(x) == DType::Float32 && n.inputs.size() == 5 &&
            n.attr_int("training_mode", 0) == 0;
  for (size_t o = 1; ok && o < n.outputs.size(); ++o) ok = n.outputs[o].empty();
  for (size_t i = 1; ok && i < 5; ++i) {
    const graph::Initializer* c = e.init(n.inputs[i]);
    ok = c && c->has_values() && c->info.dtype == DType::Float32 && c->info.shape &&
         graph::element_count(*c->info.shape) == xs[1];
  }
  if (!ok) return compile_portable(e, n, *ops::find("BatchNormalization"));
  const std::string& y = n.outputs.at(0);
  const std::vector<float> scale = e.constant(n.inputs[1]).floats(),
                           bias = e.constant(n.inputs[2]).floats(),
                           mean = e.constant(n.inputs[3]).floats(),
                           var = e.constant(n.inputs[4]).floats();
  const double eps = n.attr_float("epsilon", 1e-5);
  const int64_t N = xs[0], C = xs[1], HW = xs[2] * xs[3];
  auto ab = std::make_shared<std::vector<float>>(static_cast<size_t>(2 * C));
  for (int64_t c = 0; c < C; ++c) {
    const auto k = static_cast<size_t>(c);
    const float a = static_cast<float>(scale[k] / std::sqrt(static_cast<double>(var[k]) + eps));
    (*ab)[k] = a;
    (*ab)[static_cast<size_t>(C) + k] = bias[k] - mean[k] * a;
  }
  const bool cl = e.buf(x).md == nhwc_md(xs, dt::f32);
  const memory::desc md = cl ? nhwc_md(xs, dt::f32) : plain_md(xs, dt::f32);
  memory xm = e.get(x, md);
  // A Relu reading nothing but this output (DenseNet's BN -> Relu): applied in the same pass
  // (EngineOptions::fuse), writing the Relu's output.
  const int j = e.sole_relu(y);
  const bool with_relu = j >= 0;
  const graph::Node* relu = with_relu ? &e.g->nodes[static_cast<size_t>(j)] : nullptr;
  memory ym = e.output(with_relu ? relu->outputs[0] : y, md, DType::Float32);
  e.cur->info.impl = cl ? "hetcim:batchnorm_nhwc" : "hetcim:batchnorm_nchw";
  if (with_relu) {
    e.cur->info.impl += "+relu(" + relu->name + ")";
    e.fused_away[j] = {n.name, ""};
  }
  e.cur->steps.push_back([xm, ym, cl, N, C, HW, ab, with_relu]() {
    kernels::channel_affine_f32(static_cast<const float*>(xm.get_data_handle()),
                                static_cast<float*>(ym.get_data_handle()), cl, N, C, HW, ab->data(),
                                ab->data() + C, with_relu);
  });
}

}  // namespace hetcim::exec::native
