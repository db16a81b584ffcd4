// The engine's native kernels, one compile function per operator family of ops/registry.h (the
// family a node's op_type names there), each in its family's file under exec/families/. A
// family's compile function adds the node's steps to the context (engine_context.h) and owns
// everything particular to its operators: attributes, operand positions, which of its operators
// it is compiling. A family of the registry without a row here runs its portable kernel from
// src/ops (compile_portable).
#pragma once

#include <cstdint>
#include <string_view>

#include "exec/engine_context.h"
#include "graph/graph.h"
#include "ops/registry.h"

namespace hetcim::exec::native {

using CompileFn = void (*)(EngineContext& e, const graph::Node& n);

struct NativeFamily {
  std::string_view family;  // ops::Family::family
  CompileFn compile;
  // Whether node n of the family reads an input in any dense strided layout at no extra cost (it
  // reads through strides or makes its own copy anyway): EngineContext::readers_take_strided.
  // nullptr: never.
  bool (*reads_strided)(const graph::Node& n) = nullptr;
  // Multiply-accumulates per output element of node n (convolutions and matrix products), -1 when
  // a shape it needs is not known; nullptr: the engine's default for streaming kernels.
  int64_t (*macs_per_output)(const graph::Graph& g, const graph::Node& n) = nullptr;
};

// The native row of a family, or nullptr (a portable kernel's family, or none).
[[nodiscard]] const NativeFamily* native_family(std::string_view family);
// The native row of node n's family (by its op_type in ops/registry.h), or nullptr.
[[nodiscard]] const NativeFamily* native_family(const graph::Node& n);
// Whether the engine runs n: a native family (any domain, as the QLinear contrib operators), or a
// portable kernel of src/ops for an operator of the default domain.
[[nodiscard]] bool runs(const graph::Node& n);

// The families' compile functions (families/<file>.cpp).
void compile_conv(EngineContext& e, const graph::Node& n);         // conv.cpp
void compile_qconv(EngineContext& e, const graph::Node& n);        // conv.cpp
void compile_gemm(EngineContext& e, const graph::Node& n);         // matmul.cpp
void compile_qgemm(EngineContext& e, const graph::Node& n);        // matmul.cpp
void compile_matmul(EngineContext& e, const graph::Node& n);       // matmul.cpp
void compile_qmatmul(EngineContext& e, const graph::Node& n);      // matmul.cpp
void compile_binary(EngineContext& e, const graph::Node& n);       // binary.cpp
void compile_eltwise(EngineContext& e, const graph::Node& n);      // eltwise.cpp
void compile_qbinary(EngineContext& e, const graph::Node& n);      // qlinear_eltwise.cpp
void compile_qunary(EngineContext& e, const graph::Node& n);       // qlinear_eltwise.cpp
void compile_pool(EngineContext& e, const graph::Node& n);         // pool.cpp
void compile_qgap(EngineContext& e, const graph::Node& n);         // pool.cpp
void compile_qavgpool(EngineContext& e, const graph::Node& n);     // pool.cpp
void compile_concat(EngineContext& e, const graph::Node& n);       // concat.cpp
void compile_qconcat(EngineContext& e, const graph::Node& n);      // concat.cpp
void compile_slice_split(EngineContext& e, const graph::Node& n);  // slice_split.cpp
void compile_resize(EngineContext& e, const graph::Node& n);       // resize.cpp
void compile_reshape(EngineContext& e, const graph::Node& n);      // layout.cpp
void compile_transpose(EngineContext& e, const graph::Node& n);    // layout.cpp
void compile_batchnorm(EngineContext& e, const graph::Node& n);    // batchnorm.cpp
void compile_quantize(EngineContext& e, const graph::Node& n);     // quantize.cpp
void compile_dequantize(EngineContext& e, const graph::Node& n);   // quantize.cpp

// Family f's portable kernel (ops/kernel.h) on the node: its run-time inputs row-major float32,
// its constants captured (portable.cpp). Also what a native family falls back to.
void compile_portable(EngineContext& e, const graph::Node& n, const ops::Family& f);

// The table's per-family facts (families.cpp reads them; each defined in its family's file).
bool reads_strided_always(const graph::Node& n);                              // families.cpp
bool reshape_reads_strided(const graph::Node& n);                             // layout.cpp
bool transpose_reads_strided(const graph::Node& n);                           // layout.cpp
int64_t conv_macs_per_output(const graph::Graph& g, const graph::Node& n);    // conv.cpp
int64_t gemm_macs_per_output(const graph::Graph& g, const graph::Node& n);    // matmul.cpp
int64_t matmul_macs_per_output(const graph::Graph& g, const graph::Node& n);  // matmul.cpp

// A float eltwise primitive y = alg(x; alpha, beta) then `act` (eltwise.cpp; binary's Pow too).
void eltwise_with(EngineContext& e, const std::string& x, const std::string& y, dnnl::algorithm alg,
                  float alpha, float beta, const Activation& act);

}  // namespace hetcim::exec::native
