#include "onnxio/import.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnxio/inference_guard.h"
#include "onnxio/tensor_proto.h"
#include "util/error.h"
#include "util/files.h"
#include "util/limits.h"
#include "util/utf8.h"

namespace hetcim::onnxio {

namespace {

using graph::DType;
using graph::Shape;

constexpr size_t kMaxModelBytes = std::numeric_limits<int32_t>::max();  // protobuf's limit

bool is_default_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx";
}

// libonnx's messages span several lines ("...\n\n==> Context: Bad node spec for node. Name: c");
// a user error is one line.
std::string one_line(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string attr_type_name(int type) {
  if (onnx::AttributeProto_AttributeType_IsValid(type)) {
    return onnx::AttributeProto_AttributeType_Name(
        static_cast<onnx::AttributeProto_AttributeType>(type));
  }
  return "<unknown " + std::to_string(type) + ">";
}

std::string type_case_name(const onnx::TypeProto& t) {
  switch (t.value_case()) {
    case onnx::TypeProto::kTensorType:
      return "tensor";
    case onnx::TypeProto::kSequenceType:
      return "sequence";
    case onnx::TypeProto::kMapType:
      return "map";
    case onnx::TypeProto::kOptionalType:
      return "optional";
    case onnx::TypeProto::kSparseTensorType:
      return "sparse tensor";
    case onnx::TypeProto::kOpaqueType:
      return "opaque";
    default:
      return "type without a kind";
  }
}

// What the importer learns while checking the raw model, used again when converting it.
struct Prepared {
  int64_t opset = 0;
  std::vector<std::string> node_names;                     // final name of each node
  std::map<std::string, graph::Initializer> initializers;  // incl. Constant node outputs
  std::unordered_set<std::string> initializer_names;       // the graph's own initializers
};

// --- step 2: hetcim's own checks on the raw ModelProto -----------------------------------------

int64_t check_opsets(const onnx::ModelProto& m) {
  std::set<std::string> seen;
  int64_t opset = -1;
  for (const auto& imp : m.opset_import()) {
    const std::string domain = is_default_domain(imp.domain()) ? "ai.onnx" : imp.domain();
    if (!seen.insert(domain).second) {
      throw user_error("opset_import lists domain '", domain, "' twice");
    }
    if (domain == "ai.onnx") opset = imp.version();
  }
  if (opset < 0) throw user_error("opset_import has no entry for the default domain (ai.onnx)");
  if (opset < kMinOpset || opset > kMaxOpset) {
    throw user_error("unsupported opset ", opset,
                     " for the default domain (ai.onnx); hetcim reads opsets ", kMinOpset, "-",
                     kMaxOpset,
                     " (convert the model, e.g. with "
                     "onnx.version_converter)");
  }
  return opset;
}

// The most elements a tensor of a model may have for hetcim to describe it (`inspect` allows far
// more than `run`'s kMaxTensorElements: a batch of 2^40 is counted, not allocated). 2^52 keeps the
// sums and byte counts made from shapes (a Concat's axis, a node's bytes read) inside 64 bits:
// ONNX's shape inference (1.12) adds dimensions without an overflow check (2^62 + 2^62 came back
// as a dimension of 0) and hetcim's workload sums bytes over a node's tensors.
constexpr int64_t kMaxDescribedElements = int64_t{1} << 52;

// UserError naming `role` and the tensor when the known dimensions of `dims` multiply beyond
// kMaxDescribedElements.
void check_described_size(std::string_view role, const std::string& name,
                          const std::vector<int64_t>& dims) {
  int64_t n = 1;
  std::string shown;
  bool over = false;
  for (int64_t d : dims) {
    shown += (shown.empty() ? "" : "x") + (d < 0 ? std::string("?") : std::to_string(d));
    if (d >= 0 && !over) over = __builtin_mul_overflow(n, d, &n) || n > kMaxDescribedElements;
  }
  if (over)
    throw user_error(role, " '", name, "' has shape ", shown,
                     ": more than 2^52 elements, beyond what hetcim describes (a dimension is far "
                     "too large; `run` accepts at most ",
                     kMaxTensorElements, " elements per tensor)");
}

void check_value_info(const onnx::ValueInfoProto& vi, std::string_view role) {
  if (vi.name().empty()) throw user_error(role, " without a name");
  if (!vi.has_type()) return;  // the checker requires types where ONNX does
  const onnx::TypeProto& t = vi.type();
  if (t.value_case() == onnx::TypeProto::VALUE_NOT_SET) {
    throw user_error(role, " '", vi.name(), "' has an empty type");
  }
  if (t.value_case() != onnx::TypeProto::kTensorType) {
    throw user_error(role, " '", vi.name(), "' is a ", type_case_name(t),
                     "; hetcim supports dense tensors only");
  }
  const auto& tt = t.tensor_type();
  if (tt.elem_type() != onnx::TensorProto::UNDEFINED && !dtype_from_onnx(tt.elem_type())) {
    throw user_error(role, " '", vi.name(), "' has element type ", onnx_dtype_name(tt.elem_type()),
                     ", which hetcim does not support (expected FLOAT, DOUBLE, INT8, UINT8, "
                     "INT32, INT64 or BOOL)");
  }
  if (tt.has_shape()) {
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() < 0) {
        throw user_error(role, " '", vi.name(), "': dimension ", i, " is ", d.dim_value(),
                         " (dimensions must be >= 0)");
      }
    }
    std::vector<int64_t> dims;
    for (const auto& d : tt.shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    check_described_size(role, vi.name(), dims);
  }
}

std::string node_label(const std::string& name, const onnx::NodeProto& n) {
  return "node '" + name + "' (" + n.op_type() + ")";
}

// A Constant node's value as an initializer.
graph::Initializer constant_value(const onnx::NodeProto& n, const std::string& label) {
  std::optional<graph::Initializer> value;
  for (const auto& a : n.attribute()) {
    const std::string what = label + ": attribute '" + a.name() + "'";
    std::optional<graph::Initializer> v;
    if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR) {
      v = initializer_from_proto(a.t(), what);
    } else if (a.name() == "value_float" && a.type() == onnx::AttributeProto::FLOAT) {
      v = graph::Initializer::from_floats({}, {a.f()});
    } else if (a.name() == "value_floats" && a.type() == onnx::AttributeProto::FLOATS) {
      v = graph::Initializer::from_floats({a.floats_size()},
                                          std::vector<float>(a.floats().begin(), a.floats().end()));
    } else if (a.name() == "value_int" && a.type() == onnx::AttributeProto::INT) {
      v = graph::Initializer::from_ints({}, {a.i()});
    } else if (a.name() == "value_ints" && a.type() == onnx::AttributeProto::INTS) {
      v = graph::Initializer::from_ints({a.ints_size()},
                                        std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    } else {
      throw user_error(what, " of type ", attr_type_name(a.type()),
                       " is not supported (hetcim reads value, value_float(s) and value_int(s))");
    }
    if (value) throw user_error(label, ": more than one value attribute");
    value = std::move(v);
  }
  if (!value) throw user_error(label, ": no value attribute");
  if (n.output_size() != 1 || n.output(0).empty()) {
    throw user_error(label, ": a Constant must have exactly one named output");
  }
  return std::move(*value);
}

// ConstantOfShape's `value` is a one-element TENSOR attribute; the IR has no tensor attributes,
// so it becomes two scalar attributes: `value` (double for float types, int64 for integer and
// bool types) and `value_dtype` (the ONNX TensorProto.DataType code of the output).
bool is_constant_of_shape_value(const onnx::NodeProto& n, const onnx::AttributeProto& a) {
  return is_default_domain(n.domain()) && n.op_type() == "ConstantOfShape" && a.name() == "value";
}

void check_attributes(const onnx::NodeProto& n, const std::string& label, bool is_constant) {
  std::set<std::string> names;
  for (const auto& a : n.attribute()) {
    if (a.name().empty()) throw user_error(label, ": attribute without a name");
    if (!names.insert(a.name()).second) {
      throw user_error(label, ": attribute '", a.name(), "' given twice");
    }
    if (!a.ref_attr_name().empty()) {
      throw user_error(label, ": attribute '", a.name(),
                       "' refers to a function attribute, which is only legal inside functions");
    }
    switch (a.type()) {
      case onnx::AttributeProto::INT:
      case onnx::AttributeProto::FLOAT:
      case onnx::AttributeProto::STRING:
      case onnx::AttributeProto::INTS:
      case onnx::AttributeProto::FLOATS:
      case onnx::AttributeProto::STRINGS:
        break;
      case onnx::AttributeProto::TENSOR:
        if (is_constant) break;  // converted (and checked) by constant_value
        if (is_constant_of_shape_value(n, a)) {
          const graph::Initializer v = initializer_from_proto(a.t(), label + ": attribute 'value'");
          if (graph::element_count(*v.info.shape) != 1) {
            throw user_error(label, ": attribute 'value' has ", graph::element_count(*v.info.shape),
                             " elements (ConstantOfShape needs exactly one)");
          }
          break;
        }
        throw user_error(label, ": attribute '", a.name(),
                         "' is a TENSOR; hetcim accepts tensor attributes on Constant nodes only");
      case onnx::AttributeProto::GRAPH:
      case onnx::AttributeProto::GRAPHS:
        throw user_error("unsupported op '", n.op_type(), "' at ", label, ": attribute '", a.name(),
                         "' is a subgraph (", attr_type_name(a.type()),
                         "), and hetcim does not support subgraphs");
      default:
        throw user_error(label, ": attribute '", a.name(), "' has type ", attr_type_name(a.type()),
                         ", which hetcim does not support");
    }
  }
}

std::unordered_map<std::string, int64_t> domain_versions(const onnx::ModelProto& m) {
  std::unordered_map<std::string, int64_t> v;
  for (const auto& imp : m.opset_import()) {
    v[is_default_domain(imp.domain()) ? std::string() : imp.domain()] = imp.version();
  }
  return v;
}

Prepared prepare(const onnx::ModelProto& m) {
  Prepared p;
  if (!m.has_graph()) throw user_error("the model has no graph");
  p.opset = check_opsets(m);
  if (m.functions_size() > 0) {
    throw user_error("the model defines ", m.functions_size(), " local function(s) (first: '",
                     m.functions(0).name(), "'); hetcim does not support model-local functions");
  }
  const onnx::GraphProto& gp = m.graph();
  // Every name that reaches JSON, figures or messages must be UTF-8 (util/utf8.h).
  require_utf8(gp.name(), "the graph name");
  for (const auto& t : gp.initializer()) require_utf8(t.name(), "initializer name");
  for (const auto* list : {&gp.input(), &gp.output(), &gp.value_info()})
    for (const auto& vi : *list) require_utf8(vi.name(), "tensor name");
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& n = gp.node(i);
    const std::string at = " of node " + std::to_string(i);
    require_utf8(n.name(), "node name");
    require_utf8(n.op_type(), "op_type" + at);
    require_utf8(n.domain(), "domain" + at);
    for (const std::string& t : n.input()) require_utf8(t, "input tensor name" + at);
    for (const std::string& t : n.output()) require_utf8(t, "output tensor name" + at);
    for (const auto& a : n.attribute()) {
      require_utf8(a.name(), "attribute name" + at);
      if (a.type() == onnx::AttributeProto::STRING) require_utf8(a.s(), "string attribute" + at);
      for (const std::string& x : a.strings()) require_utf8(x, "string attribute" + at);
    }
  }
  if (gp.sparse_initializer_size() > 0) {
    throw user_error("sparse initializer '", gp.sparse_initializer(0).values().name(),
                     "' is not supported");
  }
  for (const auto& t : gp.initializer()) {
    if (t.name().empty()) throw user_error("an initializer has no name");
    if (!p.initializer_names.insert(t.name()).second) {
      throw user_error("two initializers are named '", t.name(), "'");
    }
    // Checked here, with hetcim's message; converted in convert(), after libonnx's checks, where
    // each tensor's bytes leave the proto as they enter the graph (one copy of the weights alive).
    (void)initializer_from_proto(t, "initializer '" + t.name() + "'");
  }
  std::set<std::string> inputs;
  for (const auto& vi : gp.input()) {
    check_value_info(vi, "graph input");
    if (!inputs.insert(vi.name()).second)
      throw user_error("graph input '", vi.name(), "' listed twice");
  }
  for (const auto& vi : gp.output()) check_value_info(vi, "graph output");
  for (const auto& vi : gp.value_info()) check_value_info(vi, "value_info");

  // Node names: explicit ones must be unique; unnamed node i becomes "<op>_<i>" (with a suffix in
  // the unlikely case that name is taken).
  std::unordered_set<std::string> taken;
  for (const auto& n : gp.node()) {
    if (!n.name().empty() && !taken.insert(n.name()).second) {
      throw user_error("two nodes are named '", n.name(), "'");
    }
  }
  const auto versions = domain_versions(m);
  p.node_names.reserve(static_cast<size_t>(gp.node_size()));
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& n = gp.node(i);
    std::string name = n.name();
    if (name.empty()) {
      const std::string base = n.op_type() + "_" + std::to_string(i);
      name = base;
      for (int k = 1; taken.count(name); ++k) name = base + "_" + std::to_string(k);
      taken.insert(name);
    }
    p.node_names.push_back(name);
    const std::string label = node_label(name, n);
    if (n.op_type().empty()) throw user_error("node '", name, "' has no op_type");
    const bool onnx_domain = is_default_domain(n.domain());
    if (onnx_domain && (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan")) {
      throw user_error("unsupported op '", n.op_type(), "' at node '", name,
                       "': control flow with subgraphs is not supported");
    }
    const bool is_constant = onnx_domain && n.op_type() == "Constant";
    check_attributes(n, label, is_constant);
    // Ops of ONNX's own domains must exist at the imported opset (the checker says so too, but
    // in less direct words); custom domains pass through to the consumers.
    const std::string schema_domain = onnx_domain ? std::string() : n.domain();
    if (onnx_domain || n.domain() == onnx::AI_ONNX_ML_DOMAIN) {
      auto v = versions.find(schema_domain);
      if (v != versions.end()) {
        const int version =
            static_cast<int>(std::min<int64_t>(v->second, std::numeric_limits<int>::max()));
        if (!onnx::OpSchemaRegistry::Schema(n.op_type(), version, schema_domain)) {
          throw user_error("unsupported op '", n.op_type(), "' at node '", name,
                           "': no such operator in domain ", onnx_domain ? "ai.onnx" : n.domain(),
                           " at opset ", v->second);
        }
      }
    }
    if (is_constant) {
      graph::Initializer c = constant_value(n, label);
      if (p.initializer_names.count(n.output(0)) ||
          !p.initializers.emplace(n.output(0), std::move(c)).second) {
        throw user_error(label, ": output '", n.output(0),
                         "' is also an initializer or produced by another Constant");
      }
    }
  }
  return p;
}

// --- step 3: batch dimension, libonnx's checker and shape inference ----------------------------

void set_batch(onnx::ModelProto& m, const Prepared& p, int64_t batch) {
  onnx::GraphProto* gp = m.mutable_graph();
  std::unordered_set<std::string> symbols;
  for (auto& vi : *gp->mutable_input()) {
    if (p.initializer_names.count(vi.name()) || !vi.type().has_tensor_type()) continue;
    auto* tt = vi.mutable_type()->mutable_tensor_type();
    if (!tt->has_shape() || tt->shape().dim_size() == 0) continue;
    auto* d0 = tt->mutable_shape()->mutable_dim(0);
    if (d0->has_dim_value()) continue;
    if (d0->has_dim_param() && !d0->dim_param().empty()) symbols.insert(d0->dim_param());
    d0->set_dim_value(batch);
  }
  if (symbols.empty()) return;
  auto replace = [&](onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return;
    for (auto& d : *vi.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
      if (d.has_dim_param() && symbols.count(d.dim_param())) d.set_dim_value(batch);
    }
  };
  for (auto& vi : *gp->mutable_input()) replace(vi);
  for (auto& vi : *gp->mutable_output()) replace(vi);
  for (auto& vi : *gp->mutable_value_info()) replace(vi);
}

void set_input_shapes(onnx::ModelProto& m, const Prepared& p,
                      const std::map<std::string, Shape>& shapes) {
  onnx::GraphProto* gp = m.mutable_graph();
  for (const auto& [name, shape] : shapes) {
    onnx::ValueInfoProto* found = nullptr;
    std::string names;
    for (auto& vi : *gp->mutable_input()) {
      if (p.initializer_names.count(vi.name())) continue;
      names += (names.empty() ? "" : ", ") + vi.name();
      if (vi.name() == name) found = &vi;
    }
    if (!found)
      throw user_error("input shape for '", name,
                       "': the model has no input of that name (inputs: ", names, ")");
    for (int64_t d : shape)
      if (d < 1)
        throw user_error("input shape for '", name, "': dimensions must be >= 1, got ",
                         graph::shape_str(shape));
    auto* tt = found->mutable_type()->mutable_tensor_type();
    if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(shape.size())) {
      throw user_error("input shape for '", name, "': ", graph::shape_str(shape), " has rank ",
                       shape.size(), " but the model declares rank ", tt->shape().dim_size());
    }
    if (tt->has_shape()) {
      for (int i = 0; i < tt->shape().dim_size(); ++i) {
        const auto& d = tt->shape().dim(i);
        if (d.has_dim_value() && d.dim_value() != shape[static_cast<size_t>(i)]) {
          throw user_error("input shape for '", name, "': dimension ", i, " is ",
                           shape[static_cast<size_t>(i)], " but the model declares ",
                           d.dim_value());
        }
      }
    }
    auto* sp = tt->mutable_shape();
    sp->clear_dim();
    for (int64_t d : shape) sp->add_dim()->set_dim_value(d);
  }
}

void run_onnx_checks(onnx::ModelProto& m) {
  try {
    onnx::checker::check_model(m);
  } catch (const onnx::checker::ValidationError& e) {
    throw user_error("ONNX checker: ", one_line(e.what()));
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw user_error("ONNX checker: ", one_line(e.what()));
  }
  infer_shapes_guarded(m);
}

// --- step 4: conversion -------------------------------------------------------------------------

// nullopt when the value carries no element type (nothing is known about it).
std::optional<graph::TensorInfo> tensor_info(const onnx::ValueInfoProto& vi) {
  if (!vi.has_type()) return std::nullopt;
  const onnx::TypeProto& t = vi.type();
  if (t.value_case() == onnx::TypeProto::VALUE_NOT_SET) return std::nullopt;
  if (t.value_case() != onnx::TypeProto::kTensorType) {
    throw user_error("tensor '", vi.name(), "' is a ", type_case_name(t),
                     "; hetcim supports dense tensors only");
  }
  const auto& tt = t.tensor_type();
  if (tt.elem_type() == onnx::TensorProto::UNDEFINED) return std::nullopt;
  const auto dtype = dtype_from_onnx(tt.elem_type());
  if (!dtype) {
    throw user_error("tensor '", vi.name(), "' has element type ", onnx_dtype_name(tt.elem_type()),
                     ", which hetcim does not support");
  }
  graph::TensorInfo info;
  info.dtype = *dtype;
  if (tt.has_shape()) {
    Shape s;
    s.reserve(static_cast<size_t>(tt.shape().dim_size()));
    for (int i = 0; i < tt.shape().dim_size(); ++i) {
      const auto& d = tt.shape().dim(i);
      if (d.has_dim_value() && d.dim_value() < 0) {
        // The model's own dimensions were checked >= 0 before inference (check_value_info): a
        // negative one now is ONNX's shape inference wrapping past 2^63, not the number to show.
        throw user_error("tensor '", vi.name(), "': dimension ", i,
                         " overflows: ONNX shape inference multiplied or added dimensions beyond "
                         "the 64-bit range (a dimension of the model is far too large; hetcim "
                         "accepts at most ",
                         kMaxTensorElements, " elements per tensor)");
      }
      s.push_back(d.has_dim_value() ? d.dim_value() : -1);
    }
    check_described_size("tensor", vi.name(), s);
    info.shape = std::move(s);
  }
  return info;
}

graph::Attribute convert_attribute(const onnx::AttributeProto& a) {
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      return a.i();
    case onnx::AttributeProto::FLOAT:
      return static_cast<double>(a.f());
    case onnx::AttributeProto::STRING:
      return a.s();
    case onnx::AttributeProto::INTS:
      return std::vector<int64_t>(a.ints().begin(), a.ints().end());
    case onnx::AttributeProto::FLOATS: {
      std::vector<double> v;
      v.reserve(static_cast<size_t>(a.floats_size()));
      for (float f : a.floats()) v.push_back(static_cast<double>(f));
      return v;
    }
    case onnx::AttributeProto::STRINGS:
      return std::vector<std::string>(a.strings().begin(), a.strings().end());
    default:
      throw internal_error("attribute type ", attr_type_name(a.type()), " passed the checks");
  }
}

int64_t dim_or_unknown(const graph::Graph& g, const std::string& t, size_t i) {
  const graph::TensorInfo* info = g.info(t);
  if (!info || !info->shape || info->shape->size() <= i) return -1;
  return (*info->shape)[i];
}

// Resize / Upsample scales ONNX's shape inference accepts although they make no sense: 0 or
// below (an empty or negative output), or not finite.
void check_resize_scales(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty() || (n.op_type != "Resize" && n.op_type != "Upsample")) continue;
    std::vector<double> scales;
    if (n.op_type == "Upsample" && n.has_attr("scales")) {
      if (auto* v = std::get_if<std::vector<double>>(&n.attrs.at("scales"))) scales = *v;
    }
    const size_t at = n.op_type == "Upsample" || g.opset <= 10 ? 1 : 2;
    if (n.inputs.size() > at && !n.inputs[at].empty()) {
      auto it = g.initializers.find(n.inputs[at]);
      if (it != g.initializers.end() && it->second.has_values())
        for (float f : it->second.floats()) scales.push_back(f);
    }
    for (size_t i = 0; i < scales.size(); ++i) {
      if (!(scales[i] > 0) || !std::isfinite(scales[i]))
        throw user_error("node '", n.name, "' (", n.op_type, "): scale ", scales[i], " on axis ", i,
                         " must be a positive finite number");
    }
  }
}

// A Reshape keeps the number of elements. ONNX's shape inference (1.12) takes the target shape
// from the shape operand or a declared value_info without comparing counts, so a Reshape of 10
// elements to 7x7 would otherwise be believed; checked wherever both shapes are fully known.
void check_reshape_counts(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty() || n.op_type != "Reshape" || n.inputs.empty() || n.outputs.empty())
      continue;
    const graph::TensorInfo* in = g.info(n.inputs[0]);
    const graph::TensorInfo* out = g.info(n.outputs[0]);
    if (!in || !in->shape || !out || !out->shape) continue;
    const std::string label = "node '" + n.name + "' (Reshape)";
    const auto count = [&](const std::string& t, const Shape& s) {
      try {
        return graph::element_count(s);
      } catch (const UserError&) {
        throw user_error(label, ": tensor '", t, "' of shape ", graph::shape_str(s),
                         " has more elements than fit in 64 bits");
      }
    };
    const int64_t a = count(n.inputs[0], *in->shape);
    const int64_t b = count(n.outputs[0], *out->shape);
    if (a >= 0 && b >= 0 && a != b) {
      throw user_error(label, ": input '", n.inputs[0], "' has shape ",
                       graph::shape_str(*in->shape), " (", a, " elements) but output '",
                       n.outputs[0], "' has shape ", graph::shape_str(*out->shape), " (", b,
                       " elements); a Reshape keeps the number of elements");
    }
  }
}

// Weight shapes ONNX's shape inference (1.12) leaves unchecked.
void check_weight_shapes(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty() || n.inputs.size() < 2) continue;
    const std::string label = "node '" + n.name + "' (" + n.op_type + ")";
    const std::string& x = n.inputs[0];
    const std::string& w = n.inputs[1];
    if (n.op_type == "Conv" || n.op_type == "ConvTranspose") {
      const graph::TensorInfo* xi = g.info(x);
      const graph::TensorInfo* wi = g.info(w);
      if (xi && xi->shape && wi && wi->shape && xi->shape->size() != wi->shape->size()) {
        throw user_error(label, ": input '", x, "' has rank ", xi->shape->size(), " but weight '",
                         w, "' has rank ", wi->shape->size());
      }
      const int64_t group = n.attr_int("group", 1);
      if (group < 1) throw user_error(label, ": group is ", group, " (must be >= 1)");
      const int64_t c_in = dim_or_unknown(g, x, 1);
      const bool transposed = n.op_type == "ConvTranspose";
      const int64_t w_in = dim_or_unknown(g, w, transposed ? 0 : 1);
      const int64_t w_out = dim_or_unknown(g, w, transposed ? 1 : 0);
      if (c_in >= 0 && w_in >= 0) {
        const int64_t expect = transposed ? w_in : w_in * group;
        if (expect != c_in) {
          const std::string detail = transposed
                                         ? std::string()
                                         : " (" + std::to_string(w_in) + " per group x group " +
                                               std::to_string(group) + ")";
          throw user_error(label, ": input '", x, "' has ", c_in, " channels but weight '", w,
                           "' expects ", expect, detail);
        }
      }
      if (!transposed && w_out >= 0 && w_out % group != 0) {
        throw user_error(label, ": weight '", w, "' has ", w_out,
                         " output channels, not a multiple of group ", group);
      }
      if (n.inputs.size() >= 3 && !n.inputs[2].empty()) {
        const graph::TensorInfo* b = g.info(n.inputs[2]);
        const int64_t c_out = transposed && w_out >= 0 ? w_out * group : w_out;
        if (b && b->shape && c_out >= 0 &&
            (b->shape->size() != 1 || ((*b->shape)[0] >= 0 && (*b->shape)[0] != c_out))) {
          throw user_error(label, ": bias '", n.inputs[2], "' has shape ",
                           graph::shape_str(*b->shape), ", expected ", c_out);
        }
      }
    } else if (n.op_type == "Gemm") {
      const int64_t k_a = dim_or_unknown(g, x, n.attr_int("transA", 0) != 0 ? 0 : 1);
      const int64_t k_b = dim_or_unknown(g, w, n.attr_int("transB", 0) != 0 ? 1 : 0);
      if (k_a >= 0 && k_b >= 0 && k_a != k_b) {
        throw user_error(label, ": input '", x, "' has inner dimension ", k_a, " but '", w,
                         "' has ", k_b);
      }
    }
  }
}

graph::Graph convert(onnx::ModelProto& m, Prepared&& p) {
  graph::Graph g;
  g.initializers = std::move(p.initializers);
  for (onnx::TensorProto& t : *m.mutable_graph()->mutable_initializer()) {
    g.initializers.emplace(t.name(), initializer_from_proto(t, "initializer '" + t.name() + "'"));
    onnx::TensorProto().Swap(&t);  // frees the proto's copy of the bytes now
  }
  const onnx::GraphProto& gp = m.graph();
  g.name = gp.name();
  g.opset = p.opset;
  for (const auto& vi : gp.input()) {
    if (p.initializer_names.count(vi.name())) continue;  // an initializer listed as an input
    g.inputs.push_back(vi.name());
    auto info = tensor_info(vi);
    if (!info) throw user_error("graph input '", vi.name(), "' has no element type");
    g.values[vi.name()] = std::move(*info);
  }
  for (const auto& vi : gp.output()) {
    g.outputs.push_back(vi.name());
    if (g.is_initializer(vi.name())) continue;
    if (auto info = tensor_info(vi)) g.values[vi.name()] = std::move(*info);
  }
  for (const auto& vi : gp.value_info()) {
    if (g.is_initializer(vi.name()) || g.values.count(vi.name())) continue;
    if (auto info = tensor_info(vi)) g.values[vi.name()] = std::move(*info);
  }
  g.nodes.reserve(static_cast<size_t>(gp.node_size()));
  for (int i = 0; i < gp.node_size(); ++i) {
    const onnx::NodeProto& n = gp.node(i);
    if (is_default_domain(n.domain()) && n.op_type() == "Constant") continue;  // an initializer now
    graph::Node node;
    node.name = p.node_names[static_cast<size_t>(i)];
    node.op_type = n.op_type();
    node.domain = is_default_domain(n.domain()) ? std::string() : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    for (const auto& a : n.attribute()) {
      if (is_constant_of_shape_value(n, a)) {
        // Checked in check_attributes: one element of a supported type.
        const graph::Initializer v = initializer_from_proto(a.t(), node.name);
        const bool is_float = v.info.dtype == DType::Float32 || v.info.dtype == DType::Float64;
        if (is_float) {
          node.attrs.emplace("value", static_cast<double>(v.floats().at(0)));
        } else {
          node.attrs.emplace("value", v.ints().at(0));
        }
        node.attrs.emplace("value_dtype", static_cast<int64_t>(dtype_to_onnx(v.info.dtype)));
        continue;
      }
      node.attrs.emplace(a.name(), convert_attribute(a));
    }
    g.nodes.push_back(std::move(node));
  }
  check_weight_shapes(g);
  check_resize_scales(g);
  check_reshape_counts(g);
  graph::validate(g);
  return g;
}

}  // namespace

namespace {

// `owned`: the buffer behind `bytes` when the importer owns it; freed once parsed, so the file's
// bytes, the proto and the graph are never all alive at once.
graph::Graph import_model(std::string_view bytes, std::string* owned, std::string_view origin,
                          const ImportOptions& options) {
  try {
    if (options.batch < 1)
      throw user_error("ImportOptions::batch is ", options.batch, " (must be >= 1)");
    if (bytes.empty()) throw user_error("empty input, not an ONNX model");
    if (bytes.size() > kMaxModelBytes) {
      throw user_error("model of ", bytes.size(), " bytes exceeds protobuf's 2 GB limit");
    }
    onnx::ModelProto m;
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      throw user_error(
          "not a valid ONNX model (protobuf parsing failed: truncated or not a "
          "ModelProto)");
    }
    if (owned) std::string().swap(*owned);
    Prepared p = prepare(m);
    set_input_shapes(m, p, options.input_shapes);
    set_batch(m, p, options.batch);
    run_onnx_checks(m);
    return convert(m, std::move(p));
  } catch (const UserError& e) {
    throw UserError(std::string(origin) + ": " + e.what());
  }
}

}  // namespace

graph::Graph import_onnx_bytes(std::string_view bytes, std::string_view origin,
                               const ImportOptions& options) {
  return import_model(bytes, nullptr, origin, options);
}

graph::Graph import_onnx(const std::string& path, const ImportOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) throw user_error(path, ": cannot open ONNX file: no such file");
  if (!fs::is_regular_file(st))
    throw user_error(path, ": cannot open ONNX file: not a regular file");
  // The bounded reader checks the kind again on the open descriptor (a FIFO swapped in after the
  // status above is refused, not waited on) and the size before reading.
  // A file above protobuf's 2 GB limit is refused before it is read.
  std::string bytes = read_input_file(path, "ONNX model", static_cast<int64_t>(kMaxModelBytes));
  return import_model(bytes, &bytes, path, options);
}

}  // namespace hetcim::onnxio
