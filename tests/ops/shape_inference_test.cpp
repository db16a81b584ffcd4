#include "ops/shape_inference.h"

#include <gtest/gtest.h>

#include <limits>

#include "ops/registry.h"
#include "util/error.h"

// Every expected shape below is computed by hand from the ONNX operator definitions; the
// arithmetic is spelled out next to the cases where it is not obvious.

namespace hetcim::graph {
namespace {

using ops::infer_output_shape;
using ops::infer_outputs;
using ops::infer_shapes;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

class OneNode {
 public:
  OneNode& input(const std::string& name, Shape s, DType t = DType::Float32) {
    g_.inputs.push_back(name);
    g_.values[name] = {t, std::move(s)};
    return *this;
  }
  OneNode& weight(const std::string& name, Shape s, DType t = DType::Float32) {
    g_.initializers[name] = Initializer::shape_only(t, s);
    return *this;
  }
  OneNode& ints(const std::string& name, const std::vector<int64_t>& v) {
    g_.initializers[name] = Initializer::from_ints({static_cast<int64_t>(v.size())}, v);
    return *this;
  }
  OneNode& floats(const std::string& name, const std::vector<float>& v) {
    g_.initializers[name] = Initializer::from_floats({static_cast<int64_t>(v.size())}, v);
    return *this;
  }
  OneNode& scalar(const std::string& name, float v) {
    g_.initializers[name] = Initializer::from_floats({}, {v});
    return *this;
  }
  OneNode& typed(const std::string& name, DType t, Shape s) {
    g_.initializers[name] = Initializer::shape_only(t, std::move(s));
    return *this;
  }
  OneNode& opset(int64_t v) {
    g_.opset = v;
    return *this;
  }

  Node node(const std::string& op, std::vector<std::string> inputs,
            std::map<std::string, Attribute> attrs = {}, size_t outputs = 1) const {
    Node n;
    n.name = "n0";
    n.op_type = op;
    n.inputs = std::move(inputs);
    for (size_t i = 0; i < outputs; ++i) n.outputs.push_back("y" + std::to_string(i));
    n.attrs = std::move(attrs);
    return n;
  }

  Shape shape(const std::string& op, std::vector<std::string> inputs,
              std::map<std::string, Attribute> attrs = {}) const {
    return infer_output_shape(g_, node(op, std::move(inputs), std::move(attrs)));
  }

  std::vector<TensorInfo> all(const std::string& op, std::vector<std::string> inputs,
                              std::map<std::string, Attribute> attrs, size_t outputs) const {
    return infer_outputs(g_, node(op, std::move(inputs), std::move(attrs), outputs));
  }

  std::string error(const std::string& op, std::vector<std::string> inputs,
                    std::map<std::string, Attribute> attrs = {}, size_t outputs = 1) const {
    try {
      (void)infer_outputs(g_, node(op, std::move(inputs), std::move(attrs), outputs));
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }

 private:
  Graph g_;
};

using Ints = std::vector<int64_t>;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << haystack

TEST(ShapeInference, ConvPadsStridesDilationsGroups) {
  OneNode t;
  t.input("x", {1, 3, 224, 224}).weight("w", {64, 3, 7, 7}).weight("b", {64});
  // (224 + 3 + 3 - 7) / 2 + 1 = 112
  EXPECT_EQ(t.shape("Conv", {"x", "w", "b"}, {{"strides", Ints{2, 2}}, {"pads", Ints{3, 3, 3, 3}}}),
            (Shape{1, 64, 112, 112}));
  // No padding, stride 1: 224 - 7 + 1 = 218
  EXPECT_EQ(t.shape("Conv", {"x", "w"}), (Shape{1, 64, 218, 218}));

  OneNode d;
  d.input("x", {2, 8, 32, 30}).weight("w", {16, 8, 3, 3});
  // dilation 2: extent 5; (32 + 4 - 5) / 1 + 1 = 32; asymmetric W pads 1+0: (30 + 1 - 5) + 1 = 27
  EXPECT_EQ(d.shape("Conv", {"x", "w"}, {{"dilations", Ints{2, 2}}, {"pads", Ints{2, 1, 2, 0}}}),
            (Shape{2, 16, 32, 27}));

  OneNode dw;
  dw.input("x", {1, 96, 112, 112}).weight("w", {96, 1, 3, 3});
  // depthwise, stride 2, pad 1: (112 + 2 - 3) / 2 + 1 = 56
  EXPECT_EQ(dw.shape("Conv", {"x", "w"},
                     {{"group", int64_t{96}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}),
            (Shape{1, 96, 56, 56}));
}

TEST(ShapeInference, ConvAutoPad) {
  OneNode t;
  t.input("x", {1, 4, 225, 10}).weight("w", {8, 4, 3, 3});
  // SAME: ceil(225 / 2) = 113, ceil(10 / 2) = 5
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"}) {
    EXPECT_EQ(
        t.shape("Conv", {"x", "w"}, {{"auto_pad", std::string(mode)}, {"strides", Ints{2, 2}}}),
        (Shape{1, 8, 113, 5}));
  }
  // VALID: ceil((225 - 3 + 1) / 2) = 112, ceil((10 - 3 + 1) / 2) = 4
  EXPECT_EQ(
      t.shape("Conv", {"x", "w"}, {{"auto_pad", std::string("VALID")}, {"strides", Ints{2, 2}}}),
      (Shape{1, 8, 112, 4}));
  EXPECT_HAS(t.error("Conv", {"x", "w"}, {{"auto_pad", std::string("SAME")}}), "auto_pad 'SAME'");
}

TEST(ShapeInference, ConvErrorsNameTheNode) {
  OneNode t;
  t.input("x", {1, 32, 56, 56})
      .weight("w", {64, 64, 3, 3})
      .weight("b", {32})
      .weight("w2", {64, 32, 3, 3});
  EXPECT_HAS(t.error("Conv", {"x", "w"}),
             "node 'n0' (Conv): weight expects 64 input channels, input has 32");
  EXPECT_HAS(t.error("Conv", {"x", "w2", "b"}), "bias has shape 32, expected 64");
  EXPECT_HAS(t.error("Conv", {"x", "w2"}, {{"kernel_shape", Ints{5, 5}}}), "kernel_shape [5, 5]");
  EXPECT_HAS(t.error("Conv", {"x", "w2"}, {{"group", int64_t{2}}}),
             "weight expects 64 input channels, input has 32");
  OneNode small;
  small.input("x", {1, 3, 2, 2}).weight("w", {8, 3, 3, 3});
  EXPECT_HAS(small.error("Conv", {"x", "w"}), "smaller than the kernel extent 3");
}

TEST(ShapeInference, ConvTranspose) {
  OneNode t;
  t.input("x", {1, 16, 8, 8}).weight("w", {16, 4, 4, 4});
  // group 2: 4 * 2 = 8 output channels; (8 - 1) * 2 + 4 - 1 - 1 = 16
  EXPECT_EQ(t.shape("ConvTranspose", {"x", "w"},
                    {{"group", int64_t{2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}),
            (Shape{1, 8, 16, 16}));
  // output_padding 1: 7 * 2 + 1 + 4 = 19
  EXPECT_EQ(t.shape("ConvTranspose", {"x", "w"},
                    {{"strides", Ints{2, 2}}, {"output_padding", Ints{1, 1}}}),
            (Shape{1, 4, 19, 19}));
}

TEST(ShapeInference, BatchNormalization) {
  OneNode t;
  t.input("x", {1, 64, 56, 56});
  for (const char* p : {"s", "b", "m", "v"}) t.weight(p, {64});
  t.weight("bad", {32});
  EXPECT_EQ(t.shape("BatchNormalization", {"x", "s", "b", "m", "v"}), (Shape{1, 64, 56, 56}));
  EXPECT_HAS(t.error("BatchNormalization", {"x", "s", "b", "bad", "v"}),
             "mean has shape 32, expected 64 (the input's channels)");
  EXPECT_HAS(t.error("BatchNormalization", {"x", "s", "b"}), "expected 5 inputs, got 3");
}

TEST(ShapeInference, InstanceNormalization) {
  OneNode t;
  t.input("x", {2, 8, 5, 5}).input("x2", {2, 8});
  t.weight("s", {8}).weight("b", {8}).weight("bad", {4});
  EXPECT_EQ(t.shape("InstanceNormalization", {"x", "s", "b"}), (Shape{2, 8, 5, 5}));
  EXPECT_HAS(t.error("InstanceNormalization", {"x", "bad", "b"}),
             "scale has shape 4, expected 8 (the input's channels)");
  EXPECT_HAS(t.error("InstanceNormalization", {"x", "s", "bad"}), "B has shape 4, expected 8");
  EXPECT_HAS(t.error("InstanceNormalization", {"x2", "s", "b"}), "input must have rank >= 3");
  EXPECT_HAS(t.error("InstanceNormalization", {"x", "s"}), "expected 3 inputs, got 2");
}

TEST(ShapeInference, UnaryOpsKeepShapeAndDtype) {
  OneNode t;
  t.input("x", {2, 3, 5}).scalar("lo", 0.0f).scalar("hi", 6.0f).floats("vec", {0, 1});
  for (const char* op : {"Relu", "Sigmoid", "Identity", "Tanh", "LeakyRelu", "HardSwish"}) {
    EXPECT_EQ(t.shape(op, {"x"}), (Shape{2, 3, 5})) << op;
  }
  EXPECT_EQ(t.shape("Clip", {"x", "lo", "hi"}), (Shape{2, 3, 5}));
  EXPECT_EQ(t.shape("Clip", {"x", "", "hi"}), (Shape{2, 3, 5}));
  EXPECT_HAS(t.error("Clip", {"x", "vec", "hi"}), "min must be a scalar, got shape 2");
  EXPECT_EQ(t.shape("Softmax", {"x"}, {{"axis", int64_t{1}}}), (Shape{2, 3, 5}));
  EXPECT_HAS(t.error("Softmax", {"x"}, {{"axis", int64_t{3}}}),
             "axis 3 is out of range for rank 3");

  auto drop = t.all("Dropout", {"x"}, {}, 2);
  ASSERT_EQ(drop.size(), 2u);
  EXPECT_EQ(*drop[0].shape, (Shape{2, 3, 5}));
  EXPECT_EQ(drop[1].dtype, DType::Bool);
  EXPECT_EQ(*drop[1].shape, (Shape{2, 3, 5}));

  auto cast = t.all("Cast", {"x"}, {{"to", int64_t{7}}}, 1);  // 7 = INT64
  EXPECT_EQ(cast[0].dtype, DType::Int64);
  EXPECT_EQ(*cast[0].shape, (Shape{2, 3, 5}));
  EXPECT_HAS(t.error("Cast", {"x"}, {{"to", int64_t{16}}}), "cast to ONNX data type 16");
}

TEST(ShapeInference, NumpyBroadcasting) {
  OneNode t;
  t.input("a", {8, 1, 6, 1}).input("b", {7, 1, 5}).input("p", {1, 3, 80, 80, 2});
  t.weight("grid", {1, 3, 80, 80, 2}).scalar("two", 2.0f).input("bad", {4, 3}).input("c", {2, 3});
  t.input("i", {2, 3}, DType::Int64);
  // numpy's documented example: (8,1,6,1) op (7,1,5) -> (8,7,6,5)
  for (const char* op : {"Add", "Mul", "Sub", "Div", "Pow"}) {
    EXPECT_EQ(t.shape(op, {"a", "b"}), (Shape{8, 7, 6, 5})) << op;
  }
  EXPECT_EQ(t.shape("Add", {"p", "grid"}), (Shape{1, 3, 80, 80, 2}));
  EXPECT_EQ(t.shape("Mul", {"two", "p"}), (Shape{1, 3, 80, 80, 2}));
  EXPECT_HAS(t.error("Add", {"bad", "c"}), "shapes 4x3 and 2x3 cannot be broadcast");
  EXPECT_HAS(t.error("Add", {"c", "i"}), "input dtypes differ: float32 and int64");
}

TEST(ShapeInference, Pooling) {
  OneNode t;
  t.input("x", {1, 64, 112, 112}).input("s", {1, 1, 5, 5}).input("seven", {1, 128, 7, 7});
  // ResNet stem: (112 + 2 - 3) / 2 + 1 = 56
  EXPECT_EQ(
      t.shape("MaxPool", {"x"},
              {{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}),
      (Shape{1, 64, 56, 56}));
  // 5 with k2 s2: floor(3/2)+1 = 2, ceil(3/2)+1 = 3
  EXPECT_EQ(t.shape("MaxPool", {"s"}, {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}}),
            (Shape{1, 1, 2, 2}));
  EXPECT_EQ(
      t.shape("MaxPool", {"s"},
              {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}),
      (Shape{1, 1, 3, 3}));
  // ceil_mode with pad 1: ceil((5 + 2 - 2) / 2) + 1 = 4, but the 4th window would start at
  // 6 >= 5 + 1 (inside the end padding) and is dropped, as in PyTorch: 3
  EXPECT_EQ(t.shape("MaxPool", {"s"},
                    {{"kernel_shape", Ints{2, 2}},
                     {"strides", Ints{2, 2}},
                     {"pads", Ints{1, 1, 1, 1}},
                     {"ceil_mode", int64_t{1}}}),
            (Shape{1, 1, 3, 3}));
  // 7x7 average pool k2 s2 ceil: ceil(5 / 2) + 1 = 4
  EXPECT_EQ(
      t.shape("AveragePool", {"seven"},
              {{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}}),
      (Shape{1, 128, 4, 4}));
  // SPPF: k5 s1 p2 keeps the size
  EXPECT_EQ(
      t.shape("MaxPool", {"seven"}, {{"kernel_shape", Ints{5, 5}}, {"pads", Ints{2, 2, 2, 2}}}),
      (Shape{1, 128, 7, 7}));
  EXPECT_EQ(t.shape("GlobalAveragePool", {"seven"}), (Shape{1, 128, 1, 1}));
  EXPECT_HAS(t.error("MaxPool", {"x"}), "attribute 'kernel_shape' is required");
  auto with_indices = t.all("MaxPool", {"s"}, {{"kernel_shape", Ints{5, 5}}}, 2);
  EXPECT_EQ(with_indices[1].dtype, DType::Int64);
  EXPECT_EQ(*with_indices[1].shape, (Shape{1, 1, 1, 1}));
}

TEST(ShapeInference, FlattenGemmMatMul) {
  OneNode t;
  t.input("x", {2, 3, 4, 5}).input("v", {1, 512}).weight("w", {1000, 512}).weight("b", {1000});
  t.weight("wt", {512, 1000}).weight("bad", {999});
  EXPECT_EQ(t.shape("Flatten", {"x"}), (Shape{2, 60}));
  EXPECT_EQ(t.shape("Flatten", {"x"}, {{"axis", int64_t{0}}}), (Shape{1, 120}));
  EXPECT_EQ(t.shape("Flatten", {"x"}, {{"axis", int64_t{-2}}}), (Shape{6, 20}));
  EXPECT_EQ(t.shape("Flatten", {"x"}, {{"axis", int64_t{4}}}), (Shape{120, 1}));

  EXPECT_EQ(t.shape("Gemm", {"v", "w", "b"}, {{"transB", int64_t{1}}}), (Shape{1, 1000}));
  EXPECT_EQ(t.shape("Gemm", {"v", "wt"}), (Shape{1, 1000}));
  EXPECT_HAS(t.error("Gemm", {"v", "w"}), "A 1x512 has K = 512 but B 1000x512 has K = 1000");
  EXPECT_HAS(t.error("Gemm", {"v", "w", "bad"}, {{"transB", int64_t{1}}}),
             "C 999 cannot be broadcast to the output 1x1000");

  OneNode m;
  m.input("a", {2, 3, 4}).weight("b", {4, 5}).input("vec", {4}).input("c", {3, 1, 2, 4});
  m.weight("d", {5, 4, 6});
  EXPECT_EQ(m.shape("MatMul", {"a", "b"}), (Shape{2, 3, 5}));
  EXPECT_EQ(m.shape("MatMul", {"vec", "b"}), (Shape{5}));
  EXPECT_EQ(m.shape("MatMul", {"a", "vec"}), (Shape{2, 3}));
  EXPECT_EQ(m.shape("MatMul", {"c", "d"}), (Shape{3, 5, 2, 6}));
  EXPECT_HAS(m.error("MatMul", {"b", "a"}), "inner dimensions differ");
}

TEST(ShapeInference, ConcatAndSplit) {
  OneNode t;
  t.input("a", {1, 64, 40, 40}).input("b", {1, 32, 40, 40}).input("c", {1, 64, 20, 20});
  t.input("y", {1, 3, 80, 80, 85}).ints("sizes", {2, 2, 81}).ints("wrong", {2, 2, 80});
  EXPECT_EQ(t.shape("Concat", {"a", "b", "a"}, {{"axis", int64_t{1}}}), (Shape{1, 160, 40, 40}));
  EXPECT_EQ(t.shape("Concat", {"a", "b"}, {{"axis", int64_t{-3}}}), (Shape{1, 96, 40, 40}));
  EXPECT_HAS(t.error("Concat", {"a", "c"}, {{"axis", int64_t{1}}}),
             "input 1 has shape 1x64x20x20, input 0 has 1x64x40x40");
  EXPECT_HAS(t.error("Concat", {"a", "b"}), "attribute 'axis' is required");

  auto parts = t.all("Split", {"y", "sizes"}, {{"axis", int64_t{4}}}, 3);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(*parts[0].shape, (Shape{1, 3, 80, 80, 2}));
  EXPECT_EQ(*parts[1].shape, (Shape{1, 3, 80, 80, 2}));
  EXPECT_EQ(*parts[2].shape, (Shape{1, 3, 80, 80, 81}));
  auto attr = t.all("Split", {"y"}, {{"axis", int64_t{-1}}, {"split", Ints{80, 5}}}, 2);
  EXPECT_EQ(*attr[1].shape, (Shape{1, 3, 80, 80, 5}));
  // num_outputs (opset 18): ceil(85 / 4) = 22 -> 22, 22, 22, 19
  auto num = t.all("Split", {"y"}, {{"axis", int64_t{4}}, {"num_outputs", int64_t{4}}}, 4);
  EXPECT_EQ((*num[0].shape)[4], 22);
  EXPECT_EQ((*num[3].shape)[4], 19);
  auto even = t.all("Split", {"y"}, {{"axis", int64_t{1}}}, 3);
  EXPECT_EQ(*even[2].shape, (Shape{1, 1, 80, 80, 85}));
  EXPECT_HAS(t.error("Split", {"y", "wrong"}, {{"axis", int64_t{4}}}, 3),
             "split [2, 2, 80] sums to 84 but axis 4 has length 85");
  EXPECT_HAS(t.error("Split", {"y"}, {{"axis", int64_t{4}}}, 2),
             "axis 4 of length 85 cannot be split evenly into 2 outputs");
}

TEST(ShapeInference, Slice) {
  OneNode t;
  t.input("x", {10, 20, 3});
  t.ints("st", {1, -5}).ints("en", {kMax, 1000}).ints("ax", {0, 1}).ints("sp", {2, 1});
  // axis 0: [1, 10) step 2 -> ceil(9 / 2) = 5; axis 1: [15, 20) -> 5
  EXPECT_EQ(t.shape("Slice", {"x", "st", "en", "ax", "sp"}), (Shape{5, 5, 3}));
  // no axes: the first two axes; no steps: 1. axis 0: [1, 10) = 9
  EXPECT_EQ(t.shape("Slice", {"x", "st", "en"}), (Shape{9, 5, 3}));
  // reverse: start -1 -> 9, end INT64_MIN -> clamped to -1, step -1: 10; step -3: ceil(10/3) = 4
  t.ints("rs", {-1}).ints("re", {kMin}).ints("r1", {-1}).ints("r3", {-3}).ints("a0", {0});
  EXPECT_EQ(t.shape("Slice", {"x", "rs", "re", "a0", "r1"}), (Shape{10, 20, 3}));
  EXPECT_EQ(t.shape("Slice", {"x", "rs", "re", "a0", "r3"}), (Shape{4, 20, 3}));
  // empty slice: start 5, end 2, step 1
  t.ints("s5", {5}).ints("e2", {2}).ints("a2", {-1});
  EXPECT_EQ(t.shape("Slice", {"x", "s5", "e2", "a0"}), (Shape{0, 20, 3}));
  // the YOLOv5 v6.0 form y[..., 4:] on the last axis
  t.ints("s4", {4}).ints("e3", {3});
  EXPECT_EQ(t.shape("Slice", {"x", "a0", "e3", "a2"}), (Shape{10, 20, 3}));
  // opset 1-9 attributes
  EXPECT_EQ(t.shape("Slice", {"x"}, {{"starts", Ints{2}}, {"ends", Ints{4}}, {"axes", Ints{1}}}),
            (Shape{10, 2, 3}));
  t.input("dyn", {4});
  t.ints("zero", {0});
  EXPECT_HAS(t.error("Slice", {"x", "st", "en", "ax", "zero"}), "must have the same length");
  EXPECT_HAS(t.error("Slice", {"x", "dyn", "en"}), "starts (input 1 'dyn') must be a constant");
}

TEST(ShapeInference, ResizeAndUpsample) {
  OneNode t;
  t.input("x", {1, 128, 20, 20}).floats("sc", {1, 1, 2, 2}).floats("empty", {});
  t.ints("sz", {1, 128, 33, 41}).floats("third", {1, 1, 0.5f, 1.5f});
  EXPECT_EQ(t.shape("Resize", {"x", "", "sc"}), (Shape{1, 128, 40, 40}));
  EXPECT_EQ(t.shape("Resize", {"x", "empty", "sc"}), (Shape{1, 128, 40, 40}));
  EXPECT_EQ(t.shape("Resize", {"x", "", "empty", "sz"}), (Shape{1, 128, 33, 41}));
  EXPECT_EQ(t.shape("Resize", {"x", "", "third"}), (Shape{1, 128, 10, 30}));
  EXPECT_HAS(t.error("Resize", {"x", "", "sc", "sz"}), "scales and sizes are both given");
  EXPECT_HAS(t.error("Resize", {"x", ""}), "neither scales nor sizes");
  EXPECT_EQ(t.shape("Upsample", {"x", "sc"}), (Shape{1, 128, 40, 40}));
  EXPECT_EQ(t.shape("Upsample", {"x"}, {{"scales", std::vector<double>{1, 1, 3, 3}}}),
            (Shape{1, 128, 60, 60}));
  OneNode old;
  old.opset(10).input("x", {1, 2, 5, 5}).floats("sc", {1, 1, 2, 2});
  EXPECT_EQ(old.shape("Resize", {"x", "sc"}), (Shape{1, 2, 10, 10}));
}

TEST(ShapeInference, ReshapeTransposeSqueezeUnsqueeze) {
  OneNode t;
  t.input("x", {1, 255, 80, 80}).ints("s5", {1, 3, 85, 80, 80}).ints("zm", {0, -1});
  t.ints("bad", {1, 3, 84, 80, 80}).ints("two", {-1, -1}).ints("fl", {1, -1, 85});
  EXPECT_EQ(t.shape("Reshape", {"x", "s5"}), (Shape{1, 3, 85, 80, 80}));
  EXPECT_EQ(t.shape("Reshape", {"x", "zm"}), (Shape{1, 1632000}));  // 255*80*80
  EXPECT_EQ(t.shape("Reshape", {"x", "fl"}), (Shape{1, 19200, 85}));
  EXPECT_HAS(t.error("Reshape", {"x", "bad"}), "cannot reshape 1x255x80x80 (1632000 elements)");
  EXPECT_HAS(t.error("Reshape", {"x", "two"}), "more than one -1");

  OneNode p;
  p.input("y", {1, 3, 85, 80, 40});
  EXPECT_EQ(p.shape("Transpose", {"y"}, {{"perm", Ints{0, 1, 3, 4, 2}}}),
            (Shape{1, 3, 80, 40, 85}));
  EXPECT_EQ(p.shape("Transpose", {"y"}), (Shape{40, 80, 85, 3, 1}));
  EXPECT_HAS(p.error("Transpose", {"y"}, {{"perm", Ints{0, 1, 1, 2, 3}}}), "is not a permutation");

  OneNode s;
  s.input("x", {1, 3, 1, 5}).ints("a0", {0}).ints("a1", {1}).ints("u", {0, 4});
  EXPECT_EQ(s.shape("Squeeze", {"x", "a0"}), (Shape{3, 1, 5}));
  EXPECT_EQ(s.shape("Squeeze", {"x"}), (Shape{3, 5}));
  EXPECT_EQ(s.shape("Squeeze", {"x"}, {{"axes", Ints{-2}}}), (Shape{1, 3, 5}));
  EXPECT_HAS(s.error("Squeeze", {"x", "a1"}), "cannot squeeze axis 1 of length 3");
  // ONNX's example: (3, 4, 5) with axes [0, 4] -> (1, 3, 4, 5, 1); here (1, 3, 1, 5) -> rank 6
  EXPECT_EQ(s.shape("Unsqueeze", {"x", "u"}), (Shape{1, 1, 3, 1, 1, 5}));
  EXPECT_EQ(s.shape("Unsqueeze", {"x"}, {{"axes", Ints{-1}}}), (Shape{1, 3, 1, 5, 1}));
  EXPECT_HAS(s.error("Unsqueeze", {"x"}), "axes (input 1 or attribute) is required");
}

TEST(ShapeInference, ShapeGather) {
  OneNode t;
  t.input("x", {5, 4, 3}).input("idx", {2, 2}, DType::Int64).typed("k", DType::Int64, {});
  t.ints("oob", {3, 7});
  auto sh = t.all("Shape", {"x"}, {}, 1);
  EXPECT_EQ(sh[0].dtype, DType::Int64);
  EXPECT_EQ(*sh[0].shape, (Shape{3}));
  EXPECT_EQ(t.shape("Shape", {"x"}, {{"start", int64_t{-2}}}), (Shape{2}));
  EXPECT_EQ(t.shape("Gather", {"x", "idx"}, {{"axis", int64_t{1}}}), (Shape{5, 2, 2, 3}));
  EXPECT_EQ(t.shape("Gather", {"x", "k"}), (Shape{4, 3}));
  EXPECT_HAS(t.error("Gather", {"x", "oob"}, {{"axis", int64_t{1}}}),
             "index 7 is out of range for axis 1 of length 4");
}

TEST(ShapeInference, QuantizeDequantizeDtypes) {
  OneNode t;
  t.input("x", {1, 64, 8, 8}).scalar("s", 0.1f).typed("zp_i8", DType::Int8, {});
  t.typed("zp_u8", DType::UInt8, {}).weight("pc", {64}).typed("pc_zp", DType::Int8, {64});
  t.weight("pc_bad", {32}).input("q", {1, 64, 8, 8}, DType::Int8);
  auto q8 = t.all("QuantizeLinear", {"x", "s", "zp_i8"}, {}, 1);
  EXPECT_EQ(q8[0].dtype, DType::Int8);
  EXPECT_EQ(*q8[0].shape, (Shape{1, 64, 8, 8}));
  EXPECT_EQ(t.all("QuantizeLinear", {"x", "s", "zp_u8"}, {}, 1)[0].dtype, DType::UInt8);
  EXPECT_EQ(t.all("QuantizeLinear", {"x", "s"}, {}, 1)[0].dtype, DType::UInt8);
  EXPECT_EQ(t.all("QuantizeLinear", {"x", "pc", "pc_zp"}, {}, 1)[0].dtype, DType::Int8);
  EXPECT_HAS(t.error("QuantizeLinear", {"x", "pc_bad"}),
             "per-axis scale has 32 values, axis 1 of the input has 64");
  auto dq = t.all("DequantizeLinear", {"q", "s", "zp_i8"}, {}, 1);
  EXPECT_EQ(dq[0].dtype, DType::Float32);
  EXPECT_EQ(*dq[0].shape, (Shape{1, 64, 8, 8}));
  EXPECT_HAS(t.error("DequantizeLinear", {"q", "s", "zp_u8"}), "zero point dtype uint8 differs");
  EXPECT_HAS(t.error("DequantizeLinear", {"x", "s"}), "input must be an integer tensor");
}

TEST(ShapeInference, UnsupportedAndUnknownInputs) {
  OneNode t;
  t.input("x", {1, 3});
  EXPECT_HAS(t.error("NonMaxSuppression", {"x"}),
             "unsupported op 'NonMaxSuppression' at node 'n0'");
  EXPECT_HAS(t.error("Relu", {"nowhere"}),
             "node 'n0' (Relu): shape of input tensor 'nowhere' is not known");
  EXPECT_HAS(t.error("Relu", {"x", "x"}), "expected 1 inputs, got 2");
}

TEST(ShapeInference, HostileSizesGiveMessagesNotOverflow) {
  OneNode t;
  const int64_t big = int64_t{1} << 31;
  t.input("x", {big, big, big, 2}).input("huge", {1, big + 1}).weight("w", {4, 4, 3, 3});
  t.ints("s", {big, big, big, big}).input("y", {1, 4, 8, 8});
  EXPECT_HAS(t.error("Relu", {"huge"}), "dimensions above 2^31 are not supported");
  EXPECT_HAS(t.error("Flatten", {"x"}, {{"axis", int64_t{3}}}), "gives a dimension above 2^31");
  EXPECT_HAS(t.error("Reshape", {"x", "s"}), "has more than 2^63 elements");
  EXPECT_HAS(t.error("Conv", {"y", "w"}, {{"dilations", Ints{kMax, 1}}}), "exceeds 2^31");
  EXPECT_HAS(t.error("Conv", {"y", "w"}, {{"group", kMax}}), "group must be in [1, 2^31]");
}

// The shape-subgraph operators' rules, by hand from the ONNX definitions.
TEST(ShapeInference, ShapeSubgraphOperators) {
  OneNode t;
  t.input("x", {2, 1, 4}).input("y", {1, 3, 1}).input("b", {2, 1, 4}, DType::Bool);
  t.ints("to", {3, 1, 1}).ints("to4", {3, 1, 1, 1}).ints("reps", {1, 3, 2});
  t.ints("s", {0}).ints("l", {10}).ints("d", {3}).ints("zero", {0});
  // Expand: numpy broadcasting of 2x1x4 with 3x1x1 fails on axis 0 (2 vs 3); with 3x1x1x1 it is
  // 3x2x1x4.
  EXPECT_HAS(t.error("Expand", {"x", "to"}), "cannot be broadcast together");
  EXPECT_EQ(t.shape("Expand", {"x", "to4"}), (Shape{3, 2, 1, 4}));
  EXPECT_HAS(t.error("Expand", {"x", "y"}), "shape (input 1 'y') must be a constant");
  // Tile: 2x1x4 times [1, 3, 2].
  EXPECT_EQ(t.shape("Tile", {"x", "reps"}), (Shape{2, 3, 8}));
  EXPECT_HAS(t.error("Tile", {"x", "to4"}), "has 4 values for rank 3");
  // Where / Equal: 2x1x4 with 1x3x1 broadcast to 2x3x4; Equal gives bool.
  EXPECT_EQ(t.shape("Where", {"b", "x", "y"}), (Shape{2, 3, 4}));
  EXPECT_EQ(t.shape("Equal", {"x", "y"}), (Shape{2, 3, 4}));
  EXPECT_EQ(t.all("Equal", {"x", "y"}, {}, 1)[0].dtype, DType::Bool);
  EXPECT_HAS(t.error("Where", {"x", "x", "y"}), "condition must be bool");
  EXPECT_HAS(t.error("Not", {"x"}), "input must be bool");
  // Range(0, 10, 3): ceil(10 / 3) = 4 elements; a zero delta is an error.
  EXPECT_EQ(t.shape("Range", {"s", "l", "d"}), (Shape{4}));
  EXPECT_HAS(t.error("Range", {"s", "l", "zero"}), "delta is 0");
  // ScatterND: data's shape; updates must be indices.shape[:-1] + data.shape[k:].
  t.ints("data", {1, 2, 3, 4, 5, 6}).input("idx", {2, 1}, DType::Int64).input("upd", {2});
  t.ints("upd_i", {7, 8});
  EXPECT_EQ(t.shape("ScatterND", {"data", "idx", "upd_i"}), (Shape{6}));
  EXPECT_HAS(t.error("ScatterND", {"data", "idx", "upd"}), "updates have dtype float32");
  EXPECT_HAS(t.error("ScatterND", {"data", "idx", "data"}), "updates 6 should have shape 2");
}

// A graph builder for infer_shapes tests.
Node make(const std::string& name, const std::string& op, std::vector<std::string> in,
          std::vector<std::string> out, std::map<std::string, Attribute> attrs = {}) {
  return Node{name, op, "", std::move(in), std::move(out), std::move(attrs)};
}

TEST(InferShapes, FollowsShapeArithmeticChains) {
  // What exporters emit for x.view(x.size(0), -1): Shape -> Gather -> Unsqueeze -> Concat ->
  // Reshape, deliberately listed out of order.
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{2, 3, 4, 5}};
  g.initializers["zero"] = Initializer::from_ints({}, {0});
  g.initializers["axes"] = Initializer::from_ints({1}, {0});
  g.initializers["minus1"] = Initializer::from_ints({1}, {-1});
  g.outputs = {"y"};
  g.nodes.push_back(make("reshape", "Reshape", {"x", "target"}, {"y"}));
  g.nodes.push_back(make("shape", "Shape", {"x"}, {"s"}));
  g.nodes.push_back(make("gather", "Gather", {"s", "zero"}, {"n"}));
  g.nodes.push_back(make("unsq", "Unsqueeze", {"n", "axes"}, {"n1"}));
  g.nodes.push_back(make("cat", "Concat", {"n1", "minus1"}, {"target"}, {{"axis", int64_t{0}}}));
  // x.view(-1, x.size(2) * x.size(3)): Gather, Gather, Mul on int64 values.
  g.initializers["two"] = Initializer::from_ints({1}, {2});
  g.initializers["three"] = Initializer::from_ints({1}, {3});
  g.outputs.push_back("z");
  g.nodes.push_back(make("g2", "Gather", {"s", "two"}, {"h"}));
  g.nodes.push_back(make("g3", "Gather", {"s", "three"}, {"w"}));
  g.nodes.push_back(make("hw", "Mul", {"h", "w"}, {"hw"}));
  g.nodes.push_back(make("cat2", "Concat", {"minus1", "hw"}, {"target2"}, {{"axis", int64_t{0}}}));
  g.nodes.push_back(make("reshape2", "Reshape", {"x", "target2"}, {"z"}));
  infer_shapes(g);
  EXPECT_EQ(*g.values.at("z").shape, (Shape{6, 20}));
  EXPECT_EQ(g.nodes[4].name, "reshape");
  EXPECT_EQ(*g.values.at("s").shape, (Shape{4}));
  EXPECT_EQ(*g.values.at("n").shape, (Shape{}));
  EXPECT_EQ(*g.values.at("target").shape, (Shape{2}));
  EXPECT_EQ(*g.values.at("y").shape, (Shape{2, 60}));
}

std::string infer_error(Graph g) {
  try {
    infer_shapes(g);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(InferShapes, BrokenGraphsNameTheNode) {
  Graph g;
  g.inputs = {"x"};
  g.values["x"] = {DType::Float32, Shape{1, 3, 32, 32}};
  g.initializers["conv1.weight"] = Initializer::shape_only(DType::Float32, {32, 3, 3, 3});
  g.initializers["layer1.0.conv1.weight"] = Initializer::shape_only(DType::Float32, {64, 64, 3, 3});
  g.outputs = {"b"};
  g.nodes.push_back(
      make("conv1", "Conv", {"x", "conv1.weight"}, {"a"}, {{"pads", Ints{1, 1, 1, 1}}}));
  g.nodes.push_back(make("layer1.0.conv1", "Conv", {"a", "layer1.0.conv1.weight"}, {"b"}));
  EXPECT_HAS(infer_error(g),
             "node 'layer1.0.conv1' (Conv): weight expects 64 input channels, input has 32");

  Graph declared = g;
  declared.initializers["layer1.0.conv1.weight"] =
      Initializer::shape_only(DType::Float32, {64, 32, 3, 3});
  declared.values["a"] = {DType::Float32, Shape{1, 32, 30, 30}};
  EXPECT_HAS(infer_error(declared),
             "node 'conv1' (Conv): inferred shape 1x32x32x32 for tensor 'a' but the graph declares "
             "1x32x30x30");

  Graph no_shape = g;
  no_shape.values.erase("x");
  EXPECT_HAS(infer_error(no_shape), "graph input 'x' has no shape");

  // A consistent graph: a declared dimension fills an inferred unknown one; an unknown batch
  // dimension propagates.
  Graph ok = declared;
  ok.values["x"] = {DType::Float32, Shape{-1, 3, 32, 32}};
  ok.values["a"] = {DType::Float32, Shape{4, 32, 32, 32}};
  infer_shapes(ok);
  EXPECT_EQ(*ok.values.at("a").shape, (Shape{4, 32, 32, 32}));
  EXPECT_EQ(*ok.values.at("b").shape, (Shape{4, 64, 30, 30}));
  Graph dynamic = declared;
  dynamic.values.erase("a");
  dynamic.values["x"] = {DType::Float32, Shape{-1, 3, 32, 32}};
  infer_shapes(dynamic);
  EXPECT_EQ(*dynamic.values.at("b").shape, (Shape{-1, 64, 30, 30}));
}

// ---- the registry rows shape inference reads (ops/registry.h: `shape`, `fold`)

TEST(Registry, ShapeSubgraphOperatorsAreRowsThatNoExecutorRuns) {
  for (std::string_view op :
       {"Shape", "Size", "Cast", "Range", "Mod", "Equal", "Where", "Not", "ReduceProd", "Neg"}) {
    const ops::Family* f = ops::row(op);
    ASSERT_NE(f, nullptr) << op;
    EXPECT_TRUE(f->shape != nullptr) << op;
    EXPECT_TRUE(f->fold != nullptr) << op;
    EXPECT_EQ(ops::find(op), nullptr) << op << " has no kernel";
  }
  // A row without a shape rule is an operator shape inference rejects, as one without a row.
  ASSERT_NE(ops::row("QLinearConv"), nullptr);
  EXPECT_TRUE(ops::row("QLinearConv")->shape == nullptr);
}

}  // namespace
}  // namespace hetcim::graph
