// The oneDNN execution engine. Compiling a lowered graph creates every oneDNN primitive once
// (convolutions, matrix products, pooling, element-wise, binary, concat, softmax, reorders),
// reorders the weights once into the layout each primitive prefers, and allocates one buffer per
// tensor in the layout its producer prefers (oneDNN's choice for float convolutions - channels-last
// brgconv on AVX-512, blocked for its Winograd kernels (float 3x3 stride-1 convolutions of >= 64
// channels) -, NHWC for the int8 region and for a channel Concat with a channels-last input,
// row-major elsewhere); reshape-like operators on row-major tensors alias their input; executing
// runs the primitives and the hand-written kernels (quantized element-wise ops via exact 256-entry
// tables or float arithmetic, data movement) in graph order, as a fused plan by default
// (EngineOptions::fuse).
//
// The numerics are those of reference.h: float ops to 1e-4 relative (oneDNN sums in another
// order; Winograd transforms round differently, about 1e-5 relative per layer), int8 ops exactly
// (integer accumulation and the requantization of quantize.h; oneDNN applies the s32 bias before
// the output scale, as the reference does, and a round post-op puts the output zero point after the
// rounding, as ONNX does).
//
// Threads: Debian's libdnnl uses the OpenMP runtime, so the engine sets omp_set_num_threads
// before it creates each operator's primitives (oneDNN sizes its work split then) and before it
// runs them, and the hand-written kernels run in the same OpenMP pool. An operator whose work is
// under 2^19 multiply-accumulates (16 per output element for operators without MACs) runs on one
// thread whatever EngineOptions::threads says: starting and joining a parallel region costs about
// what splitting such an operator saves (ViT-tiny at 32x32 ran 2x slower on 2 threads than on 1).
// A parallel region also waits for every thread of its team: libgomp's threads spin-wait
// GOMP_SPINCOUNT times before they sleep, and with its default (300,000 spins, milliseconds) a
// region whose second thread another process has descheduled costs that long (util/omp_wait.h:
// measured trade-offs; set OMP_WAIT_POLICY=PASSIVE on a shared machine). An operator on one
// thread wakes no pool thread (oneDNN calls its kernel directly; a hand-written kernel's region
// under omp_set_num_threads(1) runs on the calling thread alone), whatever the pool's policy.
//
// The graph must be lowered (passes::lower) and executable: every initializer with values, int8
// operators in their QLinear form with quantization parameters (exec::apply_calibration turns
// passes::quantize_int8's annotated graph into that form). A node the engine cannot execute is a
// UserError naming the node and its op.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "exec/backend.h"
#include "exec/reference.h"
#include "exec/tensor.h"
#include "graph/graph.h"

namespace hetcim::exec {

struct EngineOptions {
  // Not an aggregate: `Engine(g, {2})` names the thread count and leaves the backend null.
  EngineOptions(int threads_ = 1, std::shared_ptr<Backend> backend_ = nullptr)  // NOLINT
      : threads(threads_), backend(std::move(backend_)) {}

  int threads = 1;  // >= 1; OpenMP threads for oneDNN and the hand-written kernels (small
                    // operators: 1, see "Threads" above and OpInfo::threads)
  // Another device for the nodes it takes (backend.h); null: every node on the host. The engine
  // keeps it alive; its kernels run in the engine's graph order, on the engine's buffers.
  std::shared_ptr<Backend> backend;
  // Activation memory is planned by lifetime (exec/arena.h): a tensor's bytes are reused once its
  // last reader has run, so only inputs, outputs and this flag's tensors can be read() after
  // execute(). true: every tensor keeps its own buffer (calibration reads them all).
  bool keep_intermediates = false;
  // Execute a fused plan (ignored with keep_intermediates): the operators and their names stay
  // (ops(), profiles, partitions see every node), but a node whose work another node's kernel
  // does leaves no steps of its own and says so in its impl ("fused into 'NAME'"):
  // - a float Add whose operand y is the output of a Conv read by nothing else and whose other
  //   operand s is not read after the Conv: the Conv writes into s's buffer with oneDNN's sum
  //   post-op (+ the Add's fused Relu/Clip), and the Add's output aliases that buffer
  //   (y = conv(x) + bias + s: one float rounding per addition as before; oneDNN may add the
  //   bias and the sum in its own order, float reassociation);
  // - Sigmoid(x) read only by Mul(x, Sigmoid(x)): one SiLU kernel (bit-identical to the pair);
  // - a standalone float BatchNormalization read only by a Relu: one pass (bit-identical).
  // - a float MatMul whose B has no batch dimensions, read only by an Add of a constant bias of
  //   N values: oneDNN's bias of the product (+ the Add's fused Relu/Clip), writing the Add's
  //   output (one rounding for the addition, as before; oneDNN may add it in its own order).
  // false: every operator runs its own kernel (what `profile` times per operator).
  bool fuse = true;
};

struct OpInfo {
  std::string name;     // node name (the operator the partitioner and `inspect` see)
  std::string op_type;  // as executed (QLinearConv for an int8 Conv)
  std::string impl;     // the kernels run: oneDNN implementation names, "hetcim:<kernel>", a
                        // backend's name ("xbar:A3"), "+reorder" when an input is converted to
                        // another layout first
  int threads = 1;      // OpenMP threads its kernels are created for and run with: the engine's
                        // threads, or 1 when its work is small (EngineOptions::threads)
  std::string layout;   // how its output 0 is stored: "row-major", "channels-last", "strided"
                        // (another dense order) or "blocked" (a oneDNN layout such as aBcd8b,
                        // picked by the kernel for this CPU); "" when it has no buffer of its own
};

class Engine {
 public:
  explicit Engine(const graph::Graph& g, const EngineOptions& options = {});
  ~Engine();
  Engine(Engine&&) noexcept;
  Engine& operator=(Engine&&) noexcept;

  // check_inputs, copy in, execute, copy the outputs out (row-major).
  [[nodiscard]] TensorMap run(const TensorMap& inputs);

  void set_inputs(const TensorMap& inputs);  // validated like check_inputs
  void execute();
  // Executes once and stores each operator's wall time in seconds (seconds.size() == ops().size()).
  void execute_timed(std::vector<double>& seconds);

  [[nodiscard]] TensorMap outputs() const;
  // Any tensor computed by the last execution (inputs, node outputs), row-major.
  [[nodiscard]] Tensor read(const std::string& tensor) const;
  [[nodiscard]] const std::vector<OpInfo>& ops() const;
  [[nodiscard]] int threads() const;

  // Whether the engine has a kernel for n's operator (its attributes are checked only when the
  // engine is built).
  [[nodiscard]] static bool executes(const graph::Node& n);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The nodes of g the engine has no kernel for, as "node 'NAME' (OP, opset N)", in graph order:
// what `hetcim inspect` lists and why `hetcim run` would refuse the model.
[[nodiscard]] std::vector<std::string> unsupported_operators(const graph::Graph& g);

// "oneDNN 2.6.3 (OpenMP runtime, ISA avx512_core_vnni); OpenMP spin-wait libgomp's default
// (GOMP_SPINCOUNT=300000)", for profile headers (util/omp_wait.h: the setting this process runs
// with); after the ISA when int8_weight_halves(): "; int8 in one exact pass by hetcim's vpmaddwd
// kernels (no VNNI)", or with HETCIM_INT8_HALVES=1 "; int8 as weight halves (no VNNI)".
[[nodiscard]] std::string onednn_description();
// Whether the engine runs int8 products as weight halves here: oneDNN's int8 kernels without VNNI
// (AVX2, or AVX-512 without VNNI) add adjacent u8 x s8 products in a saturating int16
// (vpmaddubsw: 2 * 255 * 127 = 64770 > 32767) and round the weights of s8-source convolutions to
// even values (oneDNN's developer guide, "Nuances of int8 computations"). The engine then keeps its
// results exact: hetcim's one-pass kernels (exec/int8_gemm.h: int16 operands, vpmaddwd into int32)
// for convolutions and products, or with HETCIM_INT8_HALVES=1 weights split into halves within
// [-64, 64] (two kernels, the first's int32 sum added by the second as a post-op) and s8 sources
// shifted to u8 (zero point + 128); depthwise kernels are exact already.
[[nodiscard]] bool int8_weight_halves();

}  // namespace hetcim::exec
