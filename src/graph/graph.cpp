#include "graph/graph.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <set>
#include <string_view>

#include "graph/name_index.h"
#include "util/error.h"

namespace hetcim::graph {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::Float32:
      return 4;
    case DType::Float64:
      return 8;
    case DType::Int8:
      return 1;
    case DType::UInt8:
      return 1;
    case DType::Int32:
      return 4;
    case DType::Int64:
      return 8;
    case DType::Bool:
      return 1;
  }
  return 0;
}

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Int8:
      return "int8";
    case DType::UInt8:
      return "uint8";
    case DType::Int32:
      return "int32";
    case DType::Int64:
      return "int64";
    case DType::Bool:
      return "bool";
  }
  return "?";
}

int64_t element_count(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) return -1;
    if (__builtin_mul_overflow(n, d, &n))
      throw user_error("shape ", shape_str(s), " has more elements than fit in 64 bits");
  }
  return n;
}

std::string shape_str(const Shape& s) {
  if (s.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += 'x';
    out += s[i] < 0 ? std::string("?") : std::to_string(s[i]);
  }
  return out;
}

namespace {
template <typename T>
void append_values(const std::vector<uint8_t>& raw, std::vector<T>& out, size_t width,
                   auto convert) {
  const size_t n = raw.size() / width;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(convert(raw.data() + i * width));
}
}  // namespace

std::vector<float> Initializer::floats() const {
  std::vector<float> out;
  switch (info.dtype) {
    case DType::Float32:
      append_values(raw, out, 4, [](const uint8_t* p) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
      });
      return out;
    case DType::Float64:
      append_values(raw, out, 8, [](const uint8_t* p) {
        double d;
        std::memcpy(&d, p, 8);
        return static_cast<float>(d);
      });
      return out;
    default:
      for (int64_t v : ints()) out.push_back(static_cast<float>(v));
      return out;
  }
}

std::vector<int64_t> Initializer::ints() const {
  std::vector<int64_t> out;
  switch (info.dtype) {
    case DType::Int64:
      append_values(raw, out, 8, [](const uint8_t* p) {
        int64_t v;
        std::memcpy(&v, p, 8);
        return v;
      });
      return out;
    case DType::Int32:
      append_values(raw, out, 4, [](const uint8_t* p) {
        int32_t v;
        std::memcpy(&v, p, 4);
        return static_cast<int64_t>(v);
      });
      return out;
    case DType::Int8:
      append_values(raw, out, 1,
                    [](const uint8_t* p) { return static_cast<int64_t>(static_cast<int8_t>(*p)); });
      return out;
    case DType::UInt8:
    case DType::Bool:
      append_values(raw, out, 1, [](const uint8_t* p) { return static_cast<int64_t>(*p); });
      return out;
    default:
      for (float f : floats()) out.push_back(static_cast<int64_t>(f));
      return out;
  }
}

Initializer Initializer::from_floats(const Shape& shape, const std::vector<float>& v) {
  Initializer init;
  init.info = {DType::Float32, shape};
  init.raw.resize(v.size() * 4);
  if (!v.empty()) std::memcpy(init.raw.data(), v.data(), init.raw.size());
  return init;
}

Initializer Initializer::from_ints(const Shape& shape, const std::vector<int64_t>& v) {
  Initializer init;
  init.info = {DType::Int64, shape};
  init.raw.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(init.raw.data(), v.data(), init.raw.size());
  return init;
}

Initializer Initializer::shape_only(DType dtype, const Shape& shape) {
  Initializer init;
  init.info = {dtype, shape};
  return init;
}

int64_t Node::attr_int(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  throw user_error("node '", name, "' (", op_type, "): attribute '", key, "' must be an integer");
}

double Node::attr_float(const std::string& key, double fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<double>(&it->second)) return *v;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  throw user_error("node '", name, "' (", op_type, "): attribute '", key, "' must be a float");
}

std::string Node::attr_string(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::string>(&it->second)) return *v;
  throw user_error("node '", name, "' (", op_type, "): attribute '", key, "' must be a string");
}

std::vector<int64_t> Node::attr_ints(const std::string& key,
                                     const std::vector<int64_t>& fallback) const {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  throw user_error("node '", name, "' (", op_type, "): attribute '", key,
                   "' must be a list of integers");
}

const TensorInfo* Graph::info(const std::string& t) const {
  if (auto it = initializers.find(t); it != initializers.end()) return &it->second.info;
  if (auto it = values.find(t); it != values.end()) return &it->second;
  return nullptr;
}

const Shape& Graph::shape_of(const std::string& t, std::string_view who) const {
  const TensorInfo* ti = info(t);
  if (!ti || !ti->shape) throw user_error(who, ": shape of tensor '", t, "' is not known");
  return *ti->shape;
}

int Graph::node_index(std::string_view node_name) const {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].name == node_name) return static_cast<int>(i);
  }
  return -1;
}

void validate(Graph& g) {
  // Keys view the graph's own strings (none is changed or moved before the last lookup): no copy
  // of every tensor and node name per validation, which a pass pipeline runs after every pass.
  size_t tensors = g.inputs.size() + g.initializers.size();
  for (const Node& n : g.nodes) tensors += n.outputs.size();
  NameIndex producer(tensors);  // tensor -> node index (-1: graph input or initializer)
  NameIndex names(g.nodes.size());
  for (const std::string& in : g.inputs) {
    if (g.is_initializer(in)) throw user_error("graph input '", in, "' is also an initializer");
    if (!producer.insert(in, -1)) throw user_error("graph input '", in, "' listed twice");
  }
  for (const auto& [name, init] : g.initializers) {
    if (!init.info.shape) throw user_error("initializer '", name, "' has no shape");
    const int64_t n = element_count(*init.info.shape);
    if (init.has_values() &&
        init.raw.size() != static_cast<size_t>(n) * dtype_size(init.info.dtype)) {
      throw user_error("initializer '", name, "': ", init.raw.size(), " bytes of data for shape ",
                       shape_str(*init.info.shape), " of ", dtype_name(init.info.dtype));
    }
    (void)producer.insert(name, -1);
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (n.name.empty()) n.name = n.op_type + "_" + std::to_string(i);
    if (!names.insert(n.name, 0)) throw user_error("two nodes are named '", n.name, "'");
    if (n.outputs.empty()) throw user_error("node '", n.name, "' (", n.op_type, ") has no output");
    for (const std::string& out : n.outputs) {
      if (out.empty()) continue;
      if (!producer.insert(out, static_cast<int>(i))) {
        throw user_error("node '", n.name, "': tensor '", out,
                         "' is already produced by another node, an input or an initializer");
      }
    }
  }
  const size_t n = g.nodes.size();
  // Every input provided; and whether the nodes are in order already (every pass keeps them so,
  // the common case: Kahn's algorithm below would give the same order back), in O(n + m).
  bool sorted_already = true;
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (in.empty()) continue;
      const int* p = producer.find(in);
      if (p == nullptr) {
        throw user_error("node '", g.nodes[i].name, "' (", g.nodes[i].op_type, ") reads tensor '",
                         in, "', which no node, graph input or initializer provides");
      }
      if (*p >= static_cast<int>(i)) sorted_already = false;
    }
  }
  for (const std::string& out : g.outputs) {
    if (!producer.find(out)) throw user_error("graph output '", out, "' is not produced");
  }
  if (sorted_already) return;
  // Kahn's algorithm, taking the lowest original index first so the order is deterministic and
  // stable for graphs that were already sorted.
  std::vector<int> indeg(n, 0);
  std::vector<std::vector<size_t>> succ(n);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& in : g.nodes[i].inputs) {
      if (in.empty()) continue;
      const int p = *producer.find(in);
      if (p >= 0) {
        succ[static_cast<size_t>(p)].push_back(i);
        ++indeg[i];
      }
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push(i);
  std::vector<size_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t u = ready.top();
    ready.pop();
    order.push_back(u);
    for (size_t v : succ[u])
      if (--indeg[v] == 0) ready.push(v);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (indeg[i] > 0)
        throw user_error("the graph has a cycle through node '", g.nodes[i].name, "'");
    }
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (size_t i : order) sorted.push_back(std::move(g.nodes[i]));
  g.nodes = std::move(sorted);
}

}  // namespace hetcim::graph
