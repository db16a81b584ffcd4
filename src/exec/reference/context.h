// What a reference kernel (src/exec/reference/<family>.cpp) runs on: the interpreter's tensors, the
// node being run and the small helpers every family shares. Internal to the reference interpreter
// (exec/reference.h is its interface); the table of kernels by operator is reference.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exec/op_params.h"
#include "exec/quantize.h"
#include "exec/reference.h"
#include "graph/node_errors.h"

namespace hetcim::exec::reference {

class Context {
 public:
  explicit Context(const graph::Graph& g) : g_(g) {}

  [[nodiscard]] const graph::Graph& graph() const { return g_; }
  [[nodiscard]] const graph::Node& node() const { return *node_; }
  void start(const graph::Node& n) { node_ = &n; }
  TensorMap& env() { return env_; }

  [[noreturn]] void fail(const std::string& what) const { throw graph::node_error(*node_, what); }

  // Tensor `t` (computed, or an initializer converted on first use).
  const Tensor& get(const std::string& t);
  // Input i of the node; UserError when it is absent.
  const Tensor& in(size_t i);
  // Input i, which must be float32.
  const Tensor& float_in(size_t i);
  graph::Shape out_shape(size_t i = 0) const;
  graph::DType out_dtype(size_t i, graph::DType fallback) const;
  Tensor& set(size_t i, Tensor t);
  float scalar_f(size_t i);
  int32_t scalar_zp(size_t i);  // 0 when absent
  // Per-channel or per-tensor values of input i, expanded to `count`.
  std::vector<float> per_channel_f(size_t i, int64_t count);
  std::vector<int32_t> per_channel_zp(size_t i, int64_t count);
  std::vector<int64_t> const_ints(size_t i);

 private:
  const graph::Graph& g_;
  const graph::Node* node_ = nullptr;
  TensorMap env_;
};

// A reference kernel: reads the node's inputs from the context and sets its outputs.
using Kernel = void (*)(Context&);
struct KernelRow {
  std::string_view op;
  Kernel run;
  bool any_domain = true;  // false: only the default ONNX domain's operator of that name
};

// Each family file's rows (the table of reference.cpp is their union).
std::vector<KernelRow> matmul_conv_kernels();    // matmul_conv.cpp
std::vector<KernelRow> elementwise_kernels();    // elementwise.cpp
std::vector<KernelRow> pool_reduce_kernels();    // pool_reduce.cpp
std::vector<KernelRow> normalization_kernels();  // normalization.cpp
std::vector<KernelRow> layout_kernels();         // layout.cpp
std::vector<KernelRow> resize_kernels();         // resize.cpp
std::vector<KernelRow> quantize_kernels();       // quantize.cpp

// ---- shared helpers (context.cpp) ------------------------------------------------------------
float sigmoidf(float v);
// Row-major strides of a shape.
std::vector<int64_t> strides_of(const graph::Shape& s);
// Calls f(out_index, in_index_0, in_index_1) for every element of `out` with numpy broadcasting.
void broadcast2(const graph::Shape& out, const graph::Shape& a, const graph::Shape& b,
                const std::function<void(int64_t, int64_t, int64_t)>& f);
// Row-major multi-index of flat index i, and back.
std::vector<int64_t> unravel(int64_t i, const graph::Shape& s);
int64_t ravel(const std::vector<int64_t>& idx, const graph::Shape& s);
void store_q(Tensor& y, int64_t i, int32_t v);
void store_any(Tensor& y, int64_t i, double v);
// The fused activation of a quantized op, applied in the quantized domain.
void apply_qact(Tensor& y, const Activation& act, float sy, int32_t zy, QRange r);

}  // namespace hetcim::exec::reference
