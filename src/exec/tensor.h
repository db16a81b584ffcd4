// A dense tensor in row-major (C) order: what the engines take as inputs and give back as outputs,
// and what .npy files hold. Inside the oneDNN engine tensors live in whatever layout the kernels
// prefer; at this boundary they are always row-major in the logical (NCHW) dimension order.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace hetcim::exec {

struct Tensor {
  graph::DType dtype = graph::DType::Float32;
  graph::Shape shape;          // all dims known (>= 0)
  std::vector<uint8_t> bytes;  // element_count(shape) * dtype_size(dtype) little-endian bytes

  [[nodiscard]] static Tensor zeros(graph::DType dtype, const graph::Shape& shape);
  [[nodiscard]] static Tensor from_floats(const graph::Shape& shape, const std::vector<float>& v);
  [[nodiscard]] static Tensor from_initializer(const graph::Initializer& init,
                                               const std::string& name);

  [[nodiscard]] int64_t numel() const { return graph::element_count(shape); }
  template <typename T>
  [[nodiscard]] T* data() {
    return reinterpret_cast<T*>(bytes.data());
  }
  template <typename T>
  [[nodiscard]] const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  // Element i converted to double (any dtype).
  [[nodiscard]] double at(int64_t i) const;
  [[nodiscard]] std::vector<float> floats() const;  // every element as float
};

}  // namespace hetcim::exec
