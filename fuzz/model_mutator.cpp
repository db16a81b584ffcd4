// A structure-aware libFuzzer mutator for ONNX models. libonnx is not instrumented, so coverage
// cannot steer raw byte mutations into its checker and shape-inference code; this mutator instead
// edits a parsed ModelProto the way a hostile or broken exporter would - another operator type,
// odd attribute values, other dims, rewired inputs, new nodes, other int64 constants - and
// serializes it again. One input in four, and every input that does not parse, gets libFuzzer's
// own byte mutations instead. Mutations depend only on libFuzzer's seed.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnxio/inference_guard.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

using Rng = std::mt19937;

const std::vector<onnx::OpSchema>& default_domain_schemas() {
  static const std::vector<onnx::OpSchema> schemas = [] {
    std::vector<onnx::OpSchema> out;
    for (const auto& s : onnx::OpSchemaRegistry::get_all_schemas()) {
      if (s.domain().empty() && !s.Deprecated()) out.push_back(s);
    }
    return out;
  }();
  return schemas;
}

size_t pick(Rng& rng, size_t n) {
  return std::uniform_int_distribution<size_t>(0, n - 1)(rng);
}

// Three times in four an operator whose libonnx inference hetcim runs, else any operator.
const onnx::OpSchema& random_schema(Rng& rng) {
  static const std::vector<const onnx::OpSchema*> inferred = [] {
    std::vector<const onnx::OpSchema*> out;
    for (const std::string& op : hetcim::onnxio::inference_allowlist()) {
      if (const auto* s = onnx::OpSchemaRegistry::Schema(op, "")) out.push_back(s);
    }
    return out;
  }();
  const auto& all = default_domain_schemas();
  if (pick(rng, 4) != 0 && !inferred.empty()) return *inferred[pick(rng, inferred.size())];
  return all[pick(rng, all.size())];
}
int64_t small_int(Rng& rng) {
  return std::uniform_int_distribution<int64_t>(-3, 9)(rng);
}

const char* const kStrings[] = {"NOTSET",     "SAME_UPPER", "SAME_LOWER", "VALID",  "constant",
                                "reflect",    "edge",       "nearest",    "linear", "cubic",
                                "half_pixel", "ij,jk->ik",  "i,i",        "->",     "",
                                "DCR",        "CRD",        "abc"};

// Every tensor name the graph knows so far (inputs, initializers, node outputs).
std::vector<std::string> tensor_names(const onnx::GraphProto& g) {
  std::vector<std::string> names;
  for (const auto& v : g.input()) names.push_back(v.name());
  for (const auto& t : g.initializer()) names.push_back(t.name());
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) names.push_back(o);
  }
  return names;
}

void random_attribute(Rng& rng, const onnx::OpSchema::Attribute& spec, onnx::AttributeProto* a) {
  a->Clear();
  a->set_name(spec.name);
  a->set_type(spec.type);
  switch (spec.type) {
    case onnx::AttributeProto::INT:
      a->set_i(small_int(rng));
      break;
    case onnx::AttributeProto::FLOAT:
      a->set_f(static_cast<float>(small_int(rng)) * 0.5f);
      break;
    case onnx::AttributeProto::STRING:
      a->set_s(kStrings[pick(rng, std::size(kStrings))]);
      break;
    case onnx::AttributeProto::INTS:
      for (size_t i = 0, n = pick(rng, 7); i < n; ++i) a->add_ints(small_int(rng));
      break;
    case onnx::AttributeProto::FLOATS:
      for (size_t i = 0, n = pick(rng, 5); i < n; ++i)
        a->add_floats(static_cast<float>(small_int(rng)));
      break;
    case onnx::AttributeProto::STRINGS:
      for (size_t i = 0, n = pick(rng, 3); i < n; ++i)
        a->add_strings(kStrings[pick(rng, std::size(kStrings))]);
      break;
    default:
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(small_int(rng));
      break;
  }
}

const onnx::OpSchema* schema_of(const onnx::NodeProto& n) {
  return n.domain().empty() ? onnx::OpSchemaRegistry::Schema(n.op_type(), "") : nullptr;
}

void mutate_model(Rng& rng, onnx::ModelProto& m) {
  onnx::GraphProto& g = *m.mutable_graph();
  switch (pick(rng, 8)) {
    case 0: {  // another operator type
      if (g.node_size() == 0) break;
      g.mutable_node(static_cast<int>(pick(rng, static_cast<size_t>(g.node_size()))))
          ->set_op_type(random_schema(rng).Name());
      break;
    }
    case 1: {  // an attribute the operator knows, with an odd value
      if (g.node_size() == 0) break;
      onnx::NodeProto* n =
          g.mutable_node(static_cast<int>(pick(rng, static_cast<size_t>(g.node_size()))));
      const onnx::OpSchema* s = schema_of(*n);
      if (!s || s->attributes().empty()) break;
      auto it = s->attributes().begin();
      std::advance(it, static_cast<long>(pick(rng, s->attributes().size())));
      onnx::AttributeProto* a = nullptr;
      for (auto& existing : *n->mutable_attribute()) {
        if (existing.name() == it->first) a = &existing;
      }
      random_attribute(rng, it->second, a ? a : n->add_attribute());
      break;
    }
    case 2: {  // a dim of a graph input, output or value_info
      std::vector<onnx::ValueInfoProto*> vis;
      for (auto& v : *g.mutable_input()) vis.push_back(&v);
      for (auto& v : *g.mutable_output()) vis.push_back(&v);
      for (auto& v : *g.mutable_value_info()) vis.push_back(&v);
      if (vis.empty()) break;
      auto* shape =
          vis[pick(rng, vis.size())]->mutable_type()->mutable_tensor_type()->mutable_shape();
      const size_t what = pick(rng, 3);
      if (what == 0 || shape->dim_size() == 0) {
        shape->add_dim()->set_dim_value(small_int(rng));
      } else if (what == 1) {
        shape->mutable_dim()->RemoveLast();
      } else {
        shape->mutable_dim(static_cast<int>(pick(rng, static_cast<size_t>(shape->dim_size()))))
            ->set_dim_value(small_int(rng));
      }
      break;
    }
    case 3: {  // rewire an input to another known tensor (or leave it out)
      if (g.node_size() == 0) break;
      onnx::NodeProto* n =
          g.mutable_node(static_cast<int>(pick(rng, static_cast<size_t>(g.node_size()))));
      const auto names = tensor_names(g);
      if (n->input_size() == 0 || names.empty()) break;
      n->set_input(static_cast<int>(pick(rng, static_cast<size_t>(n->input_size()))),
                   pick(rng, 5) == 0 ? std::string() : names[pick(rng, names.size())]);
      break;
    }
    case 4: {  // one input more or fewer
      if (g.node_size() == 0) break;
      onnx::NodeProto* n =
          g.mutable_node(static_cast<int>(pick(rng, static_cast<size_t>(g.node_size()))));
      const auto names = tensor_names(g);
      if (pick(rng, 2) == 0 && n->input_size() > 0) {
        n->mutable_input()->RemoveLast();
      } else if (!names.empty()) {
        n->add_input(names[pick(rng, names.size())]);
      }
      break;
    }
    case 5: {  // a new node reading known tensors
      const auto names = tensor_names(g);
      if (names.empty()) break;
      const onnx::OpSchema& s = random_schema(rng);
      onnx::NodeProto* n = g.add_node();
      n->set_op_type(s.Name());
      n->set_name("fuzz_" + std::to_string(g.node_size()));
      const int inputs = std::max(1, s.min_input());
      for (int i = 0; i < inputs; ++i) n->add_input(names[pick(rng, names.size())]);
      n->add_output("fuzz_out_" + std::to_string(g.node_size()));
      for (const auto& [name, spec] : s.attributes()) {
        if (spec.required || pick(rng, 3) == 0) random_attribute(rng, spec, n->add_attribute());
      }
      break;
    }
    case 6: {  // other values in an int64 initializer (shape operands, axes, pads...)
      std::vector<onnx::TensorProto*> ints;
      for (auto& t : *g.mutable_initializer()) {
        if (t.data_type() == onnx::TensorProto::INT64 && t.has_raw_data()) ints.push_back(&t);
      }
      if (ints.empty()) break;
      onnx::TensorProto* t = ints[pick(rng, ints.size())];
      std::string raw = t->raw_data();
      for (size_t off = 0; off + 8 <= raw.size(); off += 8) {
        if (pick(rng, 2) == 0) continue;
        const int64_t v = pick(rng, 8) == 0 ? INT64_MAX - small_int(rng) : small_int(rng);
        std::memcpy(raw.data() + off, &v, 8);
      }
      t->set_raw_data(raw);
      break;
    }
    default: {  // another opset
      if (m.opset_import_size() > 0)
        m.mutable_opset_import(0)->set_version(9 + static_cast<int64_t>(pick(rng, 11)));
      break;
    }
  }
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  Rng rng(seed);
  onnx::ModelProto m;
  if (pick(rng, 4) == 0 || !m.ParseFromArray(data, static_cast<int>(size)) || !m.has_graph()) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  for (size_t i = 0, n = 1 + pick(rng, 3); i < n; ++i) mutate_model(rng, m);
  std::string out;
  if (!m.SerializeToString(&out) || out.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
