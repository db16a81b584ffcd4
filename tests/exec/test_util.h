// Helpers shared by the exec tests: small graphs built op by op, seeded random tensors, and the
// engine-versus-reference comparison.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "exec/calibration.h"
#include "exec/engine.h"
#include "exec/reference.h"
#include "exec/tensor.h"
#include "graph/graph.h"
#include "ops/shape_inference.h"
#include "util/hash.h"
#include "zoo/zoo.h"

namespace hetcim::exec::testing {

inline uint64_t splitmix(uint64_t& s) {
  SplitMix64 g{s};
  const uint64_t z = g.next();
  s = g.state;
  return z;
}

// A zoo model with seeded weights, lowered (and calibrated for int8) for execution.
inline graph::Graph prepared(const std::string& model, passes::Precision p,
                             uint64_t calib_seed = 1) {
  PrepareOptions o;
  o.precision = p;
  o.weight_seed = 1;
  o.calibration.seed = calib_seed;
  return prepare(zoo::build_model(model), o);
}

// Floats uniform in [lo, hi); integers uniform in [lo, hi].
inline Tensor random_tensor(graph::DType t, const graph::Shape& shape, uint64_t seed,
                            double lo = -1, double hi = 1) {
  Tensor x = Tensor::zeros(t, shape);
  uint64_t s = seed * 7919 + 17;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double u = static_cast<double>(splitmix(s) >> 11) * 0x1.0p-53;
    switch (t) {
      case graph::DType::Float32:
        x.data<float>()[i] = static_cast<float>(lo + (hi - lo) * u);
        break;
      case graph::DType::UInt8:
        x.data<uint8_t>()[i] = static_cast<uint8_t>(lo + std::floor((hi - lo + 1) * u));
        break;
      case graph::DType::Int8:
        x.data<int8_t>()[i] = static_cast<int8_t>(lo + std::floor((hi - lo + 1) * u));
        break;
      case graph::DType::Int32:
        x.data<int32_t>()[i] = static_cast<int32_t>(lo + std::floor((hi - lo + 1) * u));
        break;
      default:
        ADD_FAILURE() << "random_tensor: dtype";
    }
  }
  return x;
}

inline graph::Initializer as_init(const Tensor& t) {
  graph::Initializer i;
  i.info = {t.dtype, t.shape};
  i.raw = t.bytes;
  return i;
}

inline Tensor scalar_f(float v) {
  return Tensor::from_floats({}, {v});
}
inline Tensor scalar_u8(uint8_t v) {
  Tensor t = Tensor::zeros(graph::DType::UInt8, {});
  t.data<uint8_t>()[0] = v;
  return t;
}
inline Tensor scalar_i8(int8_t v) {
  Tensor t = Tensor::zeros(graph::DType::Int8, {});
  t.data<int8_t>()[0] = v;
  return t;
}

class Builder {
 public:
  explicit Builder(int64_t opset = 17) {
    g_.name = "test";
    g_.opset = opset;
  }
  Builder& input(const std::string& name, graph::DType t, const graph::Shape& s) {
    g_.inputs.push_back(name);
    g_.values[name] = {t, s};
    return *this;
  }
  Builder& constant(const std::string& name, const Tensor& t) {
    g_.initializers[name] = as_init(t);
    return *this;
  }
  // Output infos: given, or inferred by ops::infer_outputs (standard ops).
  Builder& node(const std::string& op, const std::vector<std::string>& in,
                const std::vector<std::string>& out,
                const std::map<std::string, graph::Attribute>& attrs = {},
                const std::string& domain = "", const std::vector<graph::TensorInfo>& infos = {}) {
    graph::Node n{"n" + std::to_string(g_.nodes.size()) + "_" + op, op, domain, in, out, attrs};
    g_.nodes.push_back(n);
    std::vector<graph::TensorInfo> ti = infos;
    if (ti.empty()) {
      graph::Node plain = n;
      plain.attrs.erase("activation");
      plain.attrs.erase("activation_min");
      plain.attrs.erase("activation_max");
      ti = ops::infer_outputs(g_, plain);
    }
    for (size_t i = 0; i < out.size(); ++i) g_.values[out[i]] = ti.at(i);
    return *this;
  }
  graph::Graph done(const std::vector<std::string>& outputs) {
    g_.outputs = outputs;
    graph::validate(g_);
    return g_;
  }

 private:
  graph::Graph g_;
};

// max |a - b| / max |b| over all elements (float tensors).
inline double rel_error(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape, b.shape);
  double num = 0, den = 0;
  for (int64_t i = 0; i < b.numel() && i < a.numel(); ++i) {
    num = std::max(num, std::fabs(a.at(i) - b.at(i)));
    den = std::max(den, std::fabs(b.at(i)));
  }
  return den > 0 ? num / den : num;
}

// Runs g in the reference and the engine (threads) on the same inputs; float outputs must agree
// to `tol` relative, integer outputs exactly.
inline void expect_engine_matches_reference(const graph::Graph& g, const TensorMap& inputs,
                                            double tol = 1e-4, int threads = 1) {
  const TensorMap ref = run_reference(g, inputs);
  EngineOptions options;
  options.threads = threads;
  Engine e(g, options);
  const TensorMap got = e.run(inputs);
  for (const auto& [name, r] : ref) {
    SCOPED_TRACE("output " + name);
    ASSERT_TRUE(got.count(name));
    const Tensor& x = got.at(name);
    ASSERT_EQ(x.dtype, r.dtype);
    ASSERT_EQ(x.shape, r.shape);
    if (r.dtype == graph::DType::Float32) {
      EXPECT_LE(rel_error(x, r), tol);
    } else {
      int64_t diffs = 0;
      for (int64_t i = 0; i < r.numel(); ++i) diffs += x.at(i) != r.at(i);
      EXPECT_EQ(diffs, 0) << "of " << r.numel() << " elements";
    }
  }
}

}  // namespace hetcim::exec::testing
