#include "hybrid/evaluate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "exec/reference.h"
#include "exec/weights.h"
#include "passes/pipeline.h"
#include "util/error.h"
#include "util/hash.h"
#include "xbar/chips_yaml.h"
#include "zoo/race_cnn.h"

namespace hetcim::hybrid {
namespace {

// 7 images of 1x16x16 with seeded pixels and labels in 0..3.
data::ImageDataset tiny_data() {
  data::ImageDataset d;
  d.name = "tiny/test";
  d.count = 7;
  d.channels = 1;
  d.height = 16;
  d.width = 16;
  d.classes = 4;
  SplitMix64 s{42};
  for (int64_t i = 0; i < d.count * 256; ++i)
    d.images.push_back(static_cast<uint8_t>(s.next() % 256));
  for (int64_t i = 0; i < d.count; ++i) d.labels.push_back(static_cast<uint8_t>(s.next() % 4));
  return d;
}

graph::Graph tiny_model(int64_t batch) {
  graph::Graph g = zoo::race_cnn(batch, {1, 16, 16, 4});
  (void)exec::materialize_weights(g, 3);
  return g;
}

// Digital: each image's logits are the reference interpreter's on that image alone (1e-4
// relative: oneDNN sums in another order), the last batch's zero padding changes nothing, and the
// accuracy is the count of argmax == label.
TEST(HybridEvaluate, DigitalLogitsAreTheReferenceInterpretersPerImage) {
  const data::ImageDataset d = tiny_data();
  const EvaluateResult r = evaluate(tiny_model(3), d, {});
  ASSERT_EQ(r.count, 7);
  EXPECT_EQ(r.batch, 3);
  EXPECT_EQ(r.seeded_weights, 0u);
  passes::PipelineOptions o;
  o.precision = passes::Precision::Fp32;
  const graph::Graph one = passes::lower(tiny_model(1), o);
  int64_t correct = 0;
  for (int64_t i = 0; i < d.count; ++i) {
    std::vector<float> px(256);
    for (size_t k = 0; k < px.size(); ++k)
      px[k] = static_cast<float>(d.images[static_cast<size_t>(i * 256) + k]) / 255.0f;
    const exec::TensorMap in = {{one.inputs[0], exec::Tensor::from_floats({1, 1, 16, 16}, px)}};
    const std::vector<float> ref = exec::run_reference(one, in).at(one.outputs[0]).floats();
    float scale = 0;
    for (float v : ref) scale = std::max(scale, std::fabs(v));
    for (size_t c = 0; c < 4; ++c)
      EXPECT_NEAR(r.logits[static_cast<size_t>(i * 4) + c], ref[c], 1e-4 * scale) << i;
    const auto best = std::max_element(ref.begin(), ref.end()) - ref.begin();
    correct += best == d.labels[static_cast<size_t>(i)];
  }
  EXPECT_EQ(r.correct, correct);
  EXPECT_DOUBLE_EQ(r.accuracy, static_cast<double>(correct) / 7.0);
}

// On a chip: the same options twice give the same logits (a replay), another read seed others.
TEST(HybridEvaluate, AnalogRunsAreReplayedByTheirSeeds) {
  const data::ImageDataset d = tiny_data();
  EvaluateOptions o;
  o.chip = xbar::load_chip_profile(std::string(HETCIM_SOURCE_DIR) + "/data/chips.yaml:A5");
  o.analog_nodes = {"features.0", "features.6", "classifier.0"};
  const EvaluateResult a = evaluate(tiny_model(3), d, o);
  const EvaluateResult b = evaluate(tiny_model(3), d, o);
  EXPECT_EQ(a.logits, b.logits);
  EXPECT_EQ(a.audits.size(), 3u);
  EXPECT_GT(a.conversions.adc_conversions, 0);
  o.read_seed = 2;
  EXPECT_NE(evaluate(tiny_model(3), d, o).logits, a.logits);
  EXPECT_NE(evaluate(tiny_model(3), d, {}).logits, a.logits);
}

TEST(HybridEvaluate, ShapesThatDoNotFitTheDataSetAreNamed) {
  data::ImageDataset d = tiny_data();
  d.classes = 5;
  try {
    (void)evaluate(tiny_model(2), d, {});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("tiny/test has 5 classes"), std::string::npos) << e.what();
  }
  EvaluateOptions o;
  o.chip = xbar::ChipProfile{};
  o.analog_nodes = {"features.2"};  // a max pool
  EXPECT_THROW((void)evaluate(tiny_model(2), tiny_data(), o), UserError);
}

}  // namespace
}  // namespace hetcim::hybrid
