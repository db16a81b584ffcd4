// Resize / Upsample in modes linear and cubic (issue 32, scope 3): hand-computed values for every
// mode x coordinate transform on tiny inputs (engine and reference interpreter both), the engine
// against the reference on odd sizes and layouts, ONNX Runtime (tests/corpus/ort_run.js,
// npm onnxruntime-node) on the same models written as ONNX files, and one clear UserError naming
// the node for what is not supported.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "exec/npy.h"
#include "onnxio/export.h"
#include "require_data.h"
#include "test_util.h"
#include "util/error.h"
#include "util/process.h"

namespace hetcim::exec {
namespace {

namespace fs = std::filesystem;
using graph::DType;
using graph::Shape;
using testing::Builder;
using A = std::map<std::string, graph::Attribute>;

// One Resize (or Upsample) node y = op(x) with the operand form of its opset: Upsample-9 and
// Resize-10 (x, scales); Resize-11/12 (x, roi, scales, sizes) with an empty scales tensor when
// sizes decide; Resize-13+ (x, "", scales) or (x, "", "", sizes).
struct ResizeCase {
  std::string name;
  A attrs;
  Shape in;
  std::vector<float> scales = {};   // empty: sizes decide
  std::vector<int64_t> sizes = {};  // empty: scales decide
  int64_t opset = 13;
  std::string op = "Resize";
  DType dtype = DType::Float32;
};

graph::Graph resize_graph(const ResizeCase& c) {
  Builder b(c.opset);
  b.input("x", c.dtype, c.in);
  const int64_t r = static_cast<int64_t>(c.in.size());
  std::vector<std::string> inputs = {"x"};
  if (c.op == "Upsample" || c.opset <= 10) {
    b.constant("scales", Tensor::from_floats({r}, c.scales));
    inputs.push_back("scales");
  } else {
    if (c.opset <= 12) {
      b.constant("roi", Tensor::from_floats({0}, {}));
      inputs.push_back("roi");
    } else {
      inputs.push_back("");
    }
    if (!c.scales.empty()) {
      b.constant("scales", Tensor::from_floats({static_cast<int64_t>(c.scales.size())}, c.scales));
      inputs.push_back("scales");
    } else {
      if (c.opset <= 12) {
        b.constant("no_scales", Tensor::from_floats({0}, {}));
        inputs.push_back("no_scales");
      } else {
        inputs.push_back("");
      }
      b.constant("sizes",
                 Tensor::from_initializer(
                     graph::Initializer::from_ints({static_cast<int64_t>(c.sizes.size())}, c.sizes),
                     "sizes"));
      inputs.push_back("sizes");
    }
  }
  b.node(c.op, inputs, {"y"}, c.attrs);
  return b.done({"y"});
}

// y by the engine and by the reference interpreter.
std::pair<Tensor, Tensor> run_both(const graph::Graph& g, const Tensor& x) {
  Engine e(g);
  const Tensor engine = e.run({{"x", x}}).at("y");
  const Tensor reference = run_reference(g, {{"x", x}}).at("y");
  return {engine, reference};
}

void expect_values(const ResizeCase& c, const std::vector<float>& x, const Shape& out,
                   const std::vector<double>& want, double tol = 1e-6) {
  SCOPED_TRACE(c.name);
  const graph::Graph g = resize_graph(c);
  Tensor xt = Tensor::from_floats(c.in, x);
  if (c.dtype == DType::UInt8) {
    xt = Tensor::zeros(DType::UInt8, c.in);
    for (size_t i = 0; i < x.size(); ++i) xt.data<uint8_t>()[i] = static_cast<uint8_t>(x[i]);
  }
  const auto [engine, reference] = run_both(g, xt);
  for (const Tensor* t : {&engine, &reference}) {
    SCOPED_TRACE(t == &engine ? "engine" : "reference");
    ASSERT_EQ(t->shape, out);
    ASSERT_EQ(t->numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(t->at(static_cast<int64_t>(i)), want[i], tol) << "element " << i;
  }
}

A linear(const std::string& ctm) {
  return {{"mode", std::string("linear")}, {"coordinate_transformation_mode", ctm}};
}
A cubic(const std::string& ctm) {
  return {{"mode", std::string("cubic")}, {"coordinate_transformation_mode", ctm}};
}

// ---- hand-computed values ---------------------------------------------------------------------
// Input row x = [0, 10, 20, 40] along W (1x1x1x4). The original coordinate c of output o:
// half_pixel (o + 0.5) / s - 0.5, pytorch_half_pixel the same but 0 when the output has length 1,
// align_corners o * (in - 1) / (out - 1), asymmetric o / s.
// Linear: (1 - r) x[floor c] + r x[floor c + 1] with r = c - floor c, positions clamped into the
// input (so c < 0 gives x[0], c > 3 gives x[3]).
const std::vector<float> kRow = {0, 10, 20, 40};

TEST(ResizeByHand, LinearHalfPixelUpsample) {
  // c = -0.25, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75, 3.25
  expect_values({"half_pixel x2", linear("half_pixel"), {1, 1, 1, 4}, {1, 1, 1, 2}}, kRow,
                {1, 1, 1, 8}, {0, 2.5, 7.5, 12.5, 17.5, 25, 35, 40});
}

TEST(ResizeByHand, LinearHalfPixelDownsample) {
  // scale 0.5: c = (o + 0.5) * 2 - 0.5 = 0.5, 2.5
  expect_values({"half_pixel x0.5", linear("half_pixel"), {1, 1, 1, 4}, {1, 1, 1, 0.5f}}, kRow,
                {1, 1, 1, 2}, {5, 30});
}

TEST(ResizeByHand, LinearAlignCornersBySizes) {
  // 4 -> 7: c = o * 3 / 6 = o / 2
  expect_values({"align_corners 7", linear("align_corners"), {1, 1, 1, 4}, {}, {1, 1, 1, 7}}, kRow,
                {1, 1, 1, 7}, {0, 5, 10, 15, 20, 30, 40});
}

TEST(ResizeByHand, LinearAsymmetric) {
  // c = o / 2; the last one (3.5) clamps to x[3]
  expect_values({"asymmetric x2", linear("asymmetric"), {1, 1, 1, 4}, {1, 1, 1, 2}}, kRow,
                {1, 1, 1, 8}, {0, 5, 10, 15, 20, 30, 40, 40});
}

TEST(ResizeByHand, PytorchHalfPixelDiffersFromHalfPixelOnlyAtLengthOne) {
  // 4 -> 1 by sizes (scale 0.25): half_pixel c = 0.5 / 0.25 - 0.5 = 1.5 -> 15;
  // pytorch_half_pixel c = 0 -> 0. 4 -> 2 (scale 0.5): both c = (o + 0.5) * 2 - 0.5 = 0.5, 2.5.
  expect_values({"half_pixel to 1", linear("half_pixel"), {1, 1, 1, 4}, {}, {1, 1, 1, 1}}, kRow,
                {1, 1, 1, 1}, {15});
  expect_values({"pytorch to 1", linear("pytorch_half_pixel"), {1, 1, 1, 4}, {}, {1, 1, 1, 1}},
                kRow, {1, 1, 1, 1}, {0});
  expect_values({"pytorch to 2", linear("pytorch_half_pixel"), {1, 1, 1, 4}, {}, {1, 1, 1, 2}},
                kRow, {1, 1, 1, 2}, {5, 30});
}

TEST(ResizeByHand, BilinearAlignCorners2x2To3x3) {
  // [[1, 2], [3, 4]]: corners kept, midpoints averaged, the centre the mean of all four.
  expect_values({"bilinear", linear("align_corners"), {1, 1, 2, 2}, {}, {1, 1, 3, 3}}, {1, 2, 3, 4},
                {1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
}

// Cubic, Keys' kernel with a = -0.75: W(d) = (a+2)d^3 - (a+3)d^2 + 1 for d <= 1,
// a d^3 - 5a d^2 + 8a d - 4a for 1 < d < 2, so W(0.25) = 225/256, W(0.75) = 67/256,
// W(1.25) = -27/256, W(1.75) = -9/256 (they sum to 1). On the impulse x = [0, 1, 0, 0] output o
// is the weight of input 1 among the taps floor(c)-1 .. floor(c)+2 (positions clamped).
// half_pixel x2: c = -0.25 (taps -2..1, input 1 at distance 1.25), 0.25 (0.75), 0.75 (0.25),
// 1.25 (0.25), 1.75 (0.75), 2.25 (1.25), 2.75 (1.75), 3.25 (taps 2..5: input 1 absent).
TEST(ResizeByHand, CubicHalfPixelImpulse) {
  expect_values(
      {"cubic half_pixel", cubic("half_pixel"), {1, 1, 1, 4}, {1, 1, 1, 2}}, {0, 1, 0, 0},
      {1, 1, 1, 8},
      {-27.0 / 256, 67.0 / 256, 225.0 / 256, 225.0 / 256, 67.0 / 256, -27.0 / 256, -9.0 / 256, 0});
}

// exclude_outside=1: taps outside [0, 4) get weight 0 and the rest are renormalised:
// o=0 keeps taps 0, 1 (225 and -27, sum 198) -> -27/198; o=1 drops tap -1 (-27): 67/283;
// o=2 drops tap -1 (-9): 225/265; o=3, 4 all inside; o=5 drops tap 4 (-9): -27/265;
// o=6 drops tap 4 (-27): -9/283; o=7 no tap at 1.
TEST(ResizeByHand, CubicExcludeOutside) {
  A attrs = cubic("half_pixel");
  attrs["exclude_outside"] = int64_t{1};
  expect_values(
      {"cubic exclude_outside", attrs, {1, 1, 1, 4}, {1, 1, 1, 2}}, {0, 1, 0, 0}, {1, 1, 1, 8},
      {-27.0 / 198, 67.0 / 283, 225.0 / 265, 225.0 / 256, 67.0 / 256, -27.0 / 265, -9.0 / 283, 0});
}

// cubic_coeff_a = -0.5, asymmetric x2: c = o / 2. Whole c reproduce the input; at r = 0.5,
// W(0.5) = 0.5625 and W(1.5) = -0.0625: o=1 (c 0.5) and o=3 (c 1.5) weigh input 1 by W(0.5),
// o=5 (c 2.5, taps 1..4) by W(1.5); o=7 (c 3.5, taps 2..5) has no tap at 1.
TEST(ResizeByHand, CubicCoeffAAsymmetric) {
  A attrs = cubic("asymmetric");
  attrs["cubic_coeff_a"] = -0.5;
  expect_values({"cubic a=-0.5", attrs, {1, 1, 1, 4}, {1, 1, 1, 2}}, {0, 1, 0, 0}, {1, 1, 1, 8},
                {0, 0.5625, 1, 0.5625, 0, -0.0625, 0, 0});
}

// align_corners and pytorch_half_pixel with cubic, 4 -> 7 by sizes on the impulse: align_corners
// c = o/2 as above with a = -0.75: W(0.5) = 0.59375, W(1.5) = -0.09375.
TEST(ResizeByHand, CubicAlignCorners) {
  expect_values({"cubic align_corners", cubic("align_corners"), {1, 1, 1, 4}, {}, {1, 1, 1, 7}},
                {0, 1, 0, 0}, {1, 1, 1, 7}, {0, 0.59375, 1, 0.59375, 0, -0.09375, 0});
}

// The legacy forms interpolate with asymmetric coordinates: Upsample-9 and Resize-10.
TEST(ResizeByHand, UpsampleAndResize10Linear) {
  const std::vector<double> want = {0, 5, 10, 15, 20, 30, 40, 40};
  expect_values({"Upsample-9",
                 {{"mode", std::string("linear")}},
                 {1, 1, 1, 4},
                 {1, 1, 1, 2},
                 {},
                 9,
                 "Upsample"},
                kRow, {1, 1, 1, 8}, want);
  expect_values(
      {"Resize-10", {{"mode", std::string("linear")}}, {1, 1, 1, 4}, {1, 1, 1, 2}, {}, 10}, kRow,
      {1, 1, 1, 8}, want);
}

// Resize-11 (roi and an empty scales tensor before sizes) and Resize-18 (axes).
TEST(ResizeByHand, Opset11And18Forms) {
  expect_values({"Resize-11 sizes", linear("align_corners"), {1, 1, 1, 4}, {}, {1, 1, 1, 7}, 11},
                kRow, {1, 1, 1, 7}, {0, 5, 10, 15, 20, 30, 40});
  A attrs = linear("half_pixel");
  attrs["axes"] = std::vector<int64_t>{3};
  expect_values({"Resize-18 axes", attrs, {1, 1, 1, 4}, {2}, {}, 18}, kRow, {1, 1, 1, 8},
                {0, 2.5, 7.5, 12.5, 17.5, 25, 35, 40});
}

// uint8 (an int8 network's upsampling): computed in float, rounded half to even:
// 2.5 -> 2, 7.5 -> 8, 12.5 -> 12, 17.5 -> 18.
TEST(ResizeByHand, LinearUint8RoundsHalfToEven) {
  ResizeCase c{"uint8", linear("half_pixel"), {1, 1, 1, 4}, {1, 1, 1, 2}};
  c.dtype = DType::UInt8;
  expect_values(c, kRow, {1, 1, 1, 8}, {0, 2, 8, 12, 18, 25, 35, 40}, 0);
}

// ---- unsupported forms: one UserError naming the node ----------------------------------------

void expect_refused(const ResizeCase& c, const std::string& what) {
  SCOPED_TRACE(c.name);
  const graph::Graph g = resize_graph(c);
  const std::string node = "node '" + g.nodes.at(0).name + "' (" + c.op + ")";
  const Tensor x = testing::random_tensor(DType::Float32, c.in, 1);
  try {
    Engine e(g);
    (void)e.run({{"x", x}});
    ADD_FAILURE() << "the engine accepted it";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(node), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
  try {
    (void)run_reference(g, {{"x", x}});
    ADD_FAILURE() << "the reference accepted it";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(node), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(ResizeRefused, UnsupportedModesAndTransforms) {
  expect_refused({"crop", linear("tf_crop_and_resize"), {1, 1, 2, 4}, {1, 1, 2, 2}},
                 "coordinate_transformation_mode 'tf_crop_and_resize' is not supported");
  A aa = linear("half_pixel");
  aa["antialias"] = int64_t{1};
  expect_refused({"antialias", aa, {1, 1, 4, 4}, {1, 1, 0.5f, 0.5f}, {}, 18},
                 "antialias=1 is not supported");
  A keep = linear("half_pixel");
  keep["keep_aspect_ratio_policy"] = std::string("not_larger");
  expect_refused({"keep aspect", keep, {1, 1, 4, 4}, {}, {1, 1, 8, 8}, 18},
                 "keep_aspect_ratio_policy 'not_larger' is not supported");
  expect_refused(
      {"tf_half_pixel_for_nn", linear("tf_half_pixel_for_nn"), {1, 1, 2, 4}, {1, 1, 2, 2}},
      "'tf_half_pixel_for_nn' is for mode nearest, not 'linear'");
  expect_refused({"bilinear", {{"mode", std::string("bilinear")}}, {1, 1, 2, 2}, {1, 1, 2, 2}},
                 "mode 'bilinear' is not supported");
}

// ---- engine against the reference on odd sizes and layouts -----------------------------------

TEST(ResizeEngine, MatchesReferenceOnOddSizes) {
  const Shape in = {1, 3, 7, 5};
  const Tensor x = testing::random_tensor(DType::Float32, in, 7);
  for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
    for (const A& mode : {linear(ctm), cubic(ctm)}) {
      for (const ResizeCase& c : {ResizeCase{"sizes up", mode, in, {}, {1, 3, 11, 9}},
                                  ResizeCase{"sizes down", mode, in, {}, {1, 3, 4, 3}},
                                  ResizeCase{"scales", mode, in, {1, 1, 1.7f, 0.6f}},
                                  ResizeCase{"H only", mode, in, {}, {1, 3, 13, 5}},
                                  ResizeCase{"length 1", mode, in, {}, {1, 3, 1, 6}}}) {
        SCOPED_TRACE(std::string(ctm) + " " + std::get<std::string>(mode.at("mode")) + " " +
                     c.name);
        testing::expect_engine_matches_reference(resize_graph(c), {{"x", x}}, 1e-5, 1);
        testing::expect_engine_matches_reference(resize_graph(c), {{"x", x}}, 1e-5, 2);
      }
    }
  }
}

// After a convolution the engine holds the tensor in the layout oneDNN chose (blocked or
// channels-last); after an int8 QLinearConv, in channels-last uint8. Both Resize kernels read
// strided input and write in the producer's order.
TEST(ResizeEngine, MatchesReferenceAfterConvolutions) {
  Builder b;
  b.input("x", DType::Float32, {1, 8, 9, 7});
  b.constant("w", testing::random_tensor(DType::Float32, {16, 8, 3, 3}, 3));
  b.node("Conv", {"x", "w"}, {"c"}, A{{"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  b.constant("sizes", Tensor::from_initializer(graph::Initializer::from_ints({4}, {1, 16, 17, 12}),
                                               "sizes"));
  b.node("Resize", {"c", "", "", "sizes"}, {"y"}, linear("half_pixel"));
  b.node("Resize", {"c", "", "", "sizes"}, {"z"}, cubic("align_corners"));
  testing::expect_engine_matches_reference(
      b.done({"y", "z"}), {{"x", testing::random_tensor(DType::Float32, {1, 8, 9, 7}, 4)}}, 1e-5,
      2);

  Builder q;
  q.input("x", DType::UInt8, {1, 8, 9, 7});
  q.constant("sx", testing::scalar_f(0.02f)).constant("zx", testing::scalar_u8(128));
  q.constant("w", testing::random_tensor(DType::Int8, {16, 8, 3, 3}, 5, -100, 100));
  q.constant("sw", testing::scalar_f(0.004f)).constant("zw", testing::scalar_i8(0));
  q.constant("sy", testing::scalar_f(0.05f)).constant("zy", testing::scalar_u8(100));
  q.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy"}, {"c"},
         A{{"pads", std::vector<int64_t>{1, 1, 1, 1}}}, "", {{DType::UInt8, Shape{1, 16, 9, 7}}});
  q.constant("scales", Tensor::from_floats({4}, {1, 1, 2, 1.5f}));
  q.node("Resize", {"c", "", "scales"}, {"y"}, linear("pytorch_half_pixel"));
  q.node("Resize", {"c", "", "scales"}, {"z"}, cubic("half_pixel"));
  // uint8: the engine sums in float32 one axis at a time, the reference in double over the tensor
  // product; a value whose exact result is a tie (x.5, e.g. (5a + b) / 6 at r = 1/6) rounds either
  // way in each (ONNX Runtime's DequantizeLinear -> Resize -> QuantizeLinear has the same float
  // noise), so they agree within one step.
  const graph::Graph g = q.done({"y", "z"});
  const TensorMap in = {{"x", testing::random_tensor(DType::UInt8, {1, 8, 9, 7}, 6, 0, 255)}};
  const TensorMap ref = run_reference(g, in);
  Engine e(g, {2});
  const TensorMap got = e.run(in);
  for (const char* name : {"y", "z"}) {
    SCOPED_TRACE(name);
    ASSERT_EQ(got.at(name).shape, ref.at(name).shape);
    int64_t off_by_one = 0;
    for (int64_t i = 0; i < ref.at(name).numel(); ++i) {
      const double d = std::fabs(got.at(name).at(i) - ref.at(name).at(i));
      EXPECT_LE(d, 1) << "element " << i;
      off_by_one += d == 1;
    }
    EXPECT_LE(off_by_one, ref.at(name).numel() / 20) << "ties are rare";
  }
}

// ---- ONNX Runtime on the same models ---------------------------------------------------------

const fs::path kOrtDir = fs::path(HETCIM_SOURCE_DIR) / "tests" / "corpus";

TEST(ResizeOrt, EveryModeAndTransformMatchesOnnxRuntime) {
  HETCIM_REQUIRE_DATA_OR_SKIP(
      fs::exists(kOrtDir / "ort" / "node_modules" / "onnxruntime-node" / "package.json"),
      "onnxruntime-node (tests/corpus/ort, npm ci)");
  const fs::path dir =
      fs::temp_directory_path() / ("hetcim_resize_ort_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Shape in = {1, 2, 5, 7};
  std::vector<ResizeCase> cases;
  for (const char* ctm : {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
    for (const A& mode : {linear(ctm), cubic(ctm)}) {
      const std::string m = std::get<std::string>(mode.at("mode")) + "_" + ctm;
      cases.push_back({m + "_scales_up", mode, in, {1, 1, 2, 1.5f}});
      cases.push_back({m + "_scales_down", mode, in, {1, 1, 0.6f, 0.5f}});
      cases.push_back({m + "_sizes_odd", mode, in, {}, {1, 2, 9, 4}});
      cases.push_back({m + "_sizes_to_1", mode, in, {}, {1, 2, 1, 3}});
    }
  }
  A ex = cubic("half_pixel");
  ex["exclude_outside"] = int64_t{1};
  cases.push_back({"cubic_exclude_outside", ex, in, {1, 1, 1.8f, 2.5f}});
  A ca = cubic("align_corners");
  ca["cubic_coeff_a"] = -0.5;
  cases.push_back({"cubic_a_0.5", ca, in, {}, {1, 2, 8, 11}});
  cases.push_back({"linear_opset11_sizes", linear("half_pixel"), in, {}, {1, 2, 6, 13}, 11});
  // (Opset 18's axes are tested by hand above: Debian's libonnx 1.12 checks models up to opset 17.)
  // (Upsample-9 and Resize-10 are tested by hand above: hetcim's exporter writes opsets 11-18.)

  const Tensor x = testing::random_tensor(DType::Float32, in, 11);
  exec::write_npy((dir / "x.in.npy").string(), x);
  std::ofstream manifest(dir / "manifest.tsv");
  for (const ResizeCase& c : cases) {
    onnxio::export_onnx(resize_graph(c), (dir / (c.name + ".onnx")).string());
    manifest << c.name << '\t' << c.name << ".onnx\tx\t-\tfp32\tx.in.npy\n";
  }
  manifest.close();
  const ProcessResult ort =
      run_process({"node", (kOrtDir / "ort_run.js").string(), dir.string()}, "");
  ASSERT_TRUE(ort.started) << "node is not installed";
  ASSERT_EQ(ort.exit_code, 0) << ort.output;
  for (const ResizeCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor want = read_npy((dir / (c.name + ".ort.npy")).string());
    const auto [engine, reference] = run_both(resize_graph(c), x);
    ASSERT_EQ(engine.shape, want.shape);
    double diff = 0, diff_ref = 0;
    for (int64_t i = 0; i < want.numel(); ++i) {
      diff = std::max(diff, std::fabs(engine.at(i) - want.at(i)));
      diff_ref = std::max(diff_ref, std::fabs(reference.at(i) - want.at(i)));
    }
    EXPECT_LE(diff, 2e-6) << "engine vs ONNX Runtime";  // inputs in [-1, 1)
    EXPECT_LE(diff_ref, 2e-6) << "reference vs ONNX Runtime";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hetcim::exec
