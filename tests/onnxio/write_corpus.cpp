// Writes the fuzzer's seed corpus (fuzz/corpus/onnx_import) from the fixtures:
//   onnxio_write_corpus <dir>
// valid-*.onnx must import; invalid-*.onnx must be rejected with a UserError; mutated-* may do
// either (corpus_test.cpp checks all three). The output is deterministic, so rerunning it changes
// no committed file.
#include <fstream>
#include <iostream>
#include <string>

#include "fixtures.h"

namespace fx = hetcim::onnxio::fixtures;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: onnxio_write_corpus <dir>\n";
    return 2;
  }
  const std::string dir = argv[1];
  bool ok = true;
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out << bytes;
    ok = ok && static_cast<bool>(out);
  };
  auto model = [&](const std::string& name, const onnx::ModelProto& m) {
    write(name, fx::serialize(m));
  };

  model("valid-tiny-conv.onnx", fx::tiny_conv());
  model("valid-torch-cnn-flatten-op13.onnx", fx::torch_cnn({13, false, false}));
  model("valid-torch-cnn-reshape-op17.onnx", fx::torch_cnn({17, true, false}));
  model("valid-torch-cnn-params-as-inputs.onnx", fx::torch_cnn({13, false, true}));
  model("valid-qdq-per-tensor-uint8.onnx", fx::qdq_cnn({13, false, false}));
  model("valid-qdq-per-channel-int8.onnx", fx::qdq_cnn({13, true, true}));
  model("valid-custom-domain.onnx", fx::custom_domain_model());

  const std::string tiny = fx::serialize(fx::tiny_conv());
  write("invalid-truncated-half.onnx", tiny.substr(0, tiny.size() / 2));
  std::string flipped = tiny;
  flipped[flipped.size() / 3] = static_cast<char>(flipped[flipped.size() / 3] ^ 0x5a);
  write("mutated-bitflip.onnx", flipped);

  onnx::ModelProto m = fx::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(10, '\0'));
  model("invalid-raw-data-size.onnx", m);
  m = fx::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_dims(0, -4);
  model("invalid-negative-dim.onnx", m);
  m = fx::tiny_conv();
  m.mutable_opset_import(0)->set_version(9);
  model("invalid-opset-9.onnx", m);
  m = fx::tiny_conv();
  m.mutable_graph()->mutable_node(0)->set_op_type("Foo");
  model("invalid-unknown-op.onnx", m);
  m = fx::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_data_location(onnx::TensorProto::EXTERNAL);
  model("invalid-external-data.onnx", m);
  m = fx::tiny_conv();
  m.mutable_graph()->mutable_initializer(0)->set_dims(1, 2);  // 4x2x3x3 against 3 channels
  m.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(288, '\0'));
  model("invalid-conv-channels.onnx", m);
  return ok ? 0 : 1;
}
