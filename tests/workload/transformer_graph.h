// A 2-block pre-norm transformer encoder in the form torch.onnx exports nn.TransformerEncoder
// with batch_first=True (opset 17), built by hand so that its offloadable set and crossbar counts
// can be worked out on paper: batch 2, 10 tokens, width d = 96, 2 heads of 48, MLP width 384,
// then a classifier Gemm on token 0 with 10 classes. Per block:
//   ln   LayerNormalization(x)
//   q/k/v = MatMul(ln, W[96x96])                          weight-stationary: offloadable
//   heads: Reshape [2,10,2,48] + Transpose (K to [2,2,48,10])
//   scores = MatMul(q_h, k_h^T), Softmax, ctx = MatMul(p, v_h)   activation x activation: host
//   Transpose + Reshape back to [2,10,96], o = MatMul(ctx, Wo[96x96]) + bo, residual Add
//   mlp: MatMul(W1[96x384]), Relu, MatMul(W2[384x96]), residual Add
// Weights are shape-only (seeded values when exported or run).
#pragma once

#include <string>

#include "graph/graph.h"

namespace hetcim::testing {

// `blocks` encoder blocks (2: the model the comments above work out; 1: the same with one block,
// small enough for the paper's MILP on CBC to prove its optimum in a test).
inline graph::Graph transformer_blocks(int blocks) {
  using graph::DType;
  using graph::Initializer;
  using graph::Shape;
  graph::Graph g;
  g.name =
      blocks == 2 ? "two_block_transformer" : "transformer_" + std::to_string(blocks) + "_blocks";
  g.opset = 17;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{2, 10, 96}};
  auto node = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                  const Shape& out, std::map<std::string, graph::Attribute> attrs = {}) {
    g.nodes.push_back({name, op, "", std::move(inputs), {name + ".out"}, std::move(attrs)});
    g.values[name + ".out"] = {DType::Float32, out};
    return name + ".out";
  };
  auto weight = [&](const std::string& name, const Shape& s) {
    g.initializers[name] = Initializer::shape_only(DType::Float32, s);
    return name;
  };
  g.initializers["heads_shape"] = Initializer::from_ints({4}, {2, 10, 2, 48});
  g.initializers["model_shape"] = Initializer::from_ints({3}, {2, 10, 96});
  const Shape tokens{2, 10, 96}, heads{2, 10, 2, 48}, per_head{2, 2, 10, 48};
  std::string x = "x";
  for (int i = 0; i < blocks; ++i) {
    const std::string b = "b" + std::to_string(i) + ".";
    const std::string ln = node(b + "ln", "LayerNormalization",
                                {x, weight(b + "ln.g", {96}), weight(b + "ln.b", {96})}, tokens,
                                {{"axis", int64_t{-1}}});
    const std::string q = node(b + "q", "MatMul", {ln, weight(b + "wq", {96, 96})}, tokens);
    const std::string k = node(b + "k", "MatMul", {ln, weight(b + "wk", {96, 96})}, tokens);
    const std::string v = node(b + "v", "MatMul", {ln, weight(b + "wv", {96, 96})}, tokens);
    const std::string qh =
        node(b + "q.t", "Transpose", {node(b + "q.r", "Reshape", {q, "heads_shape"}, heads)},
             per_head, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
    const std::string kh =
        node(b + "k.t", "Transpose", {node(b + "k.r", "Reshape", {k, "heads_shape"}, heads)},
             Shape{2, 2, 48, 10}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}});
    const std::string vh =
        node(b + "v.t", "Transpose", {node(b + "v.r", "Reshape", {v, "heads_shape"}, heads)},
             per_head, {{"perm", std::vector<int64_t>{0, 2, 1, 3}}});
    const std::string s = node(b + "scores", "MatMul", {qh, kh}, Shape{2, 2, 10, 10});
    const std::string p =
        node(b + "softmax", "Softmax", {s}, Shape{2, 2, 10, 10}, {{"axis", int64_t{-1}}});
    const std::string c = node(b + "context", "MatMul", {p, vh}, per_head);
    const std::string cr = node(b + "context.r", "Reshape",
                                {node(b + "context.t", "Transpose", {c}, heads,
                                      {{"perm", std::vector<int64_t>{0, 2, 1, 3}}}),
                                 "model_shape"},
                                tokens);
    const std::string o = node(b + "o", "MatMul", {cr, weight(b + "wo", {96, 96})}, tokens);
    const std::string h =
        node(b + "res1", "Add", {x, node(b + "o.bias", "Add", {o, weight(b + "bo", {96})}, tokens)},
             tokens);
    const std::string f1 =
        node(b + "mlp1", "MatMul", {h, weight(b + "w1", {96, 384})}, Shape{2, 10, 384});
    const std::string a = node(b + "relu", "Relu", {f1}, Shape{2, 10, 384});
    const std::string f2 = node(b + "mlp2", "MatMul", {a, weight(b + "w2", {384, 96})}, tokens);
    x = node(b + "res2", "Add", {h, f2}, tokens);
  }
  g.initializers["token0"] = Initializer::from_ints({}, {0});
  const std::string t =
      node("token", "Gather", {x, "token0"}, Shape{2, 96}, {{"axis", int64_t{1}}});
  const std::string y = node("classifier", "Gemm", {t, weight("wc", {10, 96}), weight("bc", {10})},
                             Shape{2, 10}, {{"transB", int64_t{1}}});
  g.outputs = {y};
  graph::validate(g);
  return g;
}

inline graph::Graph two_block_transformer() {
  return transformer_blocks(2);
}

}  // namespace hetcim::testing
