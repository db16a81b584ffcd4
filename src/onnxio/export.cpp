#include "onnxio/export.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>
#include <set>
#include <unordered_set>

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnxio/import.h"
#include "onnxio/inference_guard.h"
#include "onnxio/tensor_proto.h"
#include "onnxio/weight_fill.h"
#include "util/error.h"
#include "util/files.h"

namespace hetcim::onnxio {

namespace {

std::string one_line(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

void set_type(const graph::TensorInfo& info, onnx::TypeProto* type) {
  auto* tt = type->mutable_tensor_type();
  tt->set_elem_type(dtype_to_onnx(info.dtype));
  if (!info.shape) return;
  auto* shape = tt->mutable_shape();
  for (int64_t d : *info.shape) {
    auto* dim = shape->add_dim();
    if (d >= 0) dim->set_dim_value(d);
  }
}

void add_value_info(const graph::Graph& g, const std::string& name, std::string_view role,
                    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list) {
  const graph::TensorInfo* info = g.info(name);
  if (!info) throw user_error(role, " '", name, "' has no known dtype");
  if (!info->shape) {
    throw user_error(role, " '", name, "' has an unknown rank; ONNX requires a shape for graph ",
                     role == "graph input" ? "inputs" : "outputs");
  }
  onnx::ValueInfoProto* vi = list->Add();
  vi->set_name(name);
  set_type(*info, vi->mutable_type());
}

void set_attribute(const std::string& key, const graph::Attribute& value, onnx::AttributeProto* a) {
  a->set_name(key);
  std::visit(
      [a](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          a->set_type(onnx::AttributeProto::INT);
          a->set_i(v);
        } else if constexpr (std::is_same_v<T, double>) {
          a->set_type(onnx::AttributeProto::FLOAT);
          a->set_f(static_cast<float>(v));
        } else if constexpr (std::is_same_v<T, std::string>) {
          a->set_type(onnx::AttributeProto::STRING);
          a->set_s(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          a->set_type(onnx::AttributeProto::INTS);
          for (int64_t x : v) a->add_ints(x);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          a->set_type(onnx::AttributeProto::FLOATS);
          for (double x : v) a->add_floats(static_cast<float>(x));
        } else {
          static_assert(std::is_same_v<T, std::vector<std::string>>);
          a->set_type(onnx::AttributeProto::STRINGS);
          for (const std::string& x : v) a->add_strings(x);
        }
      },
      value);
}

onnx::ModelProto build_model(const graph::Graph& g, const ExportOptions& options) {
  onnx::ModelProto m;
  m.set_ir_version(ir_version_for_opset(g.opset));
  m.set_producer_name("hetcim");
  auto* def = m.add_opset_import();
  def->set_domain("");
  def->set_version(g.opset);
  std::set<std::string> domains;
  for (const graph::Node& n : g.nodes) {
    if (!n.domain.empty() && n.domain != "ai.onnx") domains.insert(n.domain);
  }
  for (const std::string& d : domains) {
    auto* imp = m.add_opset_import();
    imp->set_domain(d);
    auto it = options.domain_versions.find(d);
    imp->set_version(it == options.domain_versions.end() ? 1 : it->second);
  }

  onnx::GraphProto* gp = m.mutable_graph();
  gp->set_name(g.name.empty() ? "graph" : g.name);
  std::unordered_set<std::string> listed;
  for (const std::string& in : g.inputs) {
    add_value_info(g, in, "graph input", gp->mutable_input());
    listed.insert(in);
  }
  for (const std::string& out : g.outputs) {
    add_value_info(g, out, "graph output", gp->mutable_output());
    listed.insert(out);
  }
  for (const auto& [name, info] : g.values) {
    if (listed.count(name) || g.is_initializer(name)) continue;
    onnx::ValueInfoProto* vi = gp->add_value_info();
    vi->set_name(name);
    set_type(info, vi->mutable_type());
  }
  for (const auto& [name, init] : g.initializers) {
    onnx::TensorProto* t = gp->add_initializer();
    if (init.has_values() || (init.info.shape && graph::element_count(*init.info.shape) == 0)) {
      initializer_to_proto(name, init, t);
    } else {
      graph::Initializer filled =
          graph::Initializer::shape_only(init.info.dtype, init.info.shape.value_or(graph::Shape{}));
      filled.raw = generate_initializer_values(g, name, options.seed);
      initializer_to_proto(name, filled, t);
    }
  }
  for (const graph::Node& n : g.nodes) {
    onnx::NodeProto* np = gp->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    if (!n.domain.empty() && n.domain != "ai.onnx") np->set_domain(n.domain);
    for (const std::string& in : n.inputs) np->add_input(in);
    for (const std::string& out : n.outputs) np->add_output(out);
    for (const auto& [key, value] : n.attrs) set_attribute(key, value, np->add_attribute());
  }
  return m;
}

// The equivalent of onnx.checker.check_model(m, full_check=True).
void full_check(const onnx::ModelProto& m) {
  try {
    onnx::checker::check_model(m);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    throw user_error("the model fails the ONNX checker: ", one_line(e.what()));
  }
  onnx::ModelProto probe = m;  // inference adds value_info; the exported model stays as built
  try {
    infer_shapes_guarded(probe);
  } catch (const UserError& e) {
    throw user_error("the model fails ", e.what());
  }
}

std::string serialize(const onnx::ModelProto& m) {
  const size_t size = m.ByteSizeLong();
  if (size > static_cast<size_t>(std::numeric_limits<int32_t>::max())) {
    throw user_error("the model needs ", size, " bytes, over protobuf's 2 GB limit");
  }
  std::string out;
  out.reserve(size);
  {
    google::protobuf::io::StringOutputStream sos(&out);
    google::protobuf::io::CodedOutputStream cos(&sos);
    cos.SetSerializationDeterministic(true);
    if (!m.SerializeToCodedStream(&cos)) throw internal_error("protobuf serialization failed");
  }
  return out;
}

}  // namespace

int64_t ir_version_for_opset(int64_t opset) {
  if (opset < kMinOpset || opset > kMaxOpset) {
    throw user_error("cannot export opset ", opset, "; hetcim writes opsets ", kMinOpset, "-",
                     kMaxOpset);
  }
  if (opset == 11) return 6;
  if (opset <= 14) return 7;
  return 8;
}

std::string export_onnx_bytes(const graph::Graph& g, const ExportOptions& options) {
  try {
    onnx::ModelProto m = build_model(g, options);
    full_check(m);
    return serialize(m);
  } catch (const UserError& e) {
    throw UserError("ONNX export of graph '" + g.name + "': " + e.what());
  }
}

void export_onnx(const graph::Graph& g, const std::string& path, const ExportOptions& options) {
  std::string bytes;
  try {
    bytes = export_onnx_bytes(g, options);
  } catch (const UserError& e) {
    throw UserError(path + ": " + e.what());
  }
  write_file_atomically(path, bytes);
}

}  // namespace hetcim::onnxio
