// An execution backend: another device that takes some nodes of a graph the Engine runs, in the
// spirit of ONNX Runtime's execution providers (GetCapability, then Compile). The engine asks the
// backend which nodes it takes (`capability`), compiles every other node itself, and for each
// taken node asks the backend for a kernel (`compile`) that it runs in place, in graph order, on
// the engine's own tensor buffers: the node's activation input in the layout the kernel asks for
// (the engine reorders it from its producer's layout when they differ, like any oneDNN primitive)
// and its output written in the layout the kernel declares (consumers reorder it if they need
// another). exec knows nothing of what a backend is; xbar's crossbar simulator implements one
// (xbar/crossbar_backend.h).
//
// A taken node reads one float32 activation (input 0; its other inputs are constants the backend
// reads from the graph) and writes one float32 output (output 0).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::exec {

enum class BackendLayout {
  RowMajor,      // dense, the ONNX order (NCHW for a 4-D tensor)
  ChannelsLast,  // 4-D tensors only: NHWC in memory, shape still N, C, H, W
};

struct BackendKernel {
  BackendLayout input_layout = BackendLayout::RowMajor;
  BackendLayout output_layout = BackendLayout::RowMajor;
  std::string impl;  // what OpInfo::impl shows, e.g. "xbar:A3"
  // x: input 0 in input_layout, y: output 0 in output_layout (sizes from the graph's shapes).
  std::function<void(const float* x, float* y)> run;
};

class Backend {
 public:
  virtual ~Backend() = default;

  // The nodes of g (the graph the engine compiles, lowered) this backend executes, by name.
  // UserError when the backend was asked for nodes it cannot take.
  [[nodiscard]] virtual std::vector<std::string> capability(const graph::Graph& g) = 0;

  // A kernel for node n of g, one of capability(g)'s; called once per node, in graph order, while
  // the engine is built.
  [[nodiscard]] virtual BackendKernel compile(const graph::Graph& g, const graph::Node& n) = 0;
};

}  // namespace hetcim::exec
