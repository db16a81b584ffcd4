#include "zoo/yolov5.h"

#include <string>
#include <vector>

#include "util/error.h"
#include "zoo/builder.h"

namespace hetcim::zoo {
namespace {

constexpr int64_t kClasses = 80;
constexpr int64_t kOutputs = kClasses + 5;  // x, y, w, h, objectness, classes
constexpr int64_t kAnchors = 3;
// models/yolov5n.yaml anchors in pixels, per level (P3/8, P4/16, P5/32), as (w, h) pairs.
constexpr float kAnchorWh[3][3][2] = {{{10, 13}, {16, 30}, {33, 23}},
                                      {{30, 61}, {62, 45}, {59, 119}},
                                      {{116, 90}, {156, 198}, {373, 326}}};

// models/common.py Conv: Conv2d(bias=False) + BN + SiLU, padding k // 2 unless given.
std::string conv(Builder& b, const std::string& p, const std::string& x, int64_t c_out, int64_t k,
                 int64_t s = 1, int64_t pad = -1) {
  std::string y = b.conv(p + ".conv", x, c_out, k, s, pad < 0 ? k / 2 : pad);
  y = b.batch_norm(p + ".bn", y, 1e-3);
  return b.silu(p + ".act", y);
}

// models/common.py C3(c1, c2, n, shortcut, e=0.5): cv3(cat(m(cv1(x)), cv2(x))).
std::string c3(Builder& b, const std::string& p, const std::string& x, int64_t c_out, int64_t n,
               bool shortcut) {
  const int64_t hidden = c_out / 2;
  std::string y = conv(b, p + ".cv1", x, hidden, 1);
  for (int64_t i = 0; i < n; ++i) {  // Bottleneck(hidden, hidden, shortcut, e=1.0)
    const std::string m = p + ".m." + std::to_string(i);
    std::string z = conv(b, m + ".cv1", y, hidden, 1);
    z = conv(b, m + ".cv2", z, hidden, 3);
    y = shortcut ? b.add_tensors(m + ".add", y, z) : z;
  }
  const std::string y2 = conv(b, p + ".cv2", x, hidden, 1);
  return conv(b, p + ".cv3", b.concat(p + ".concat", {y, y2}, 1), c_out, 1);
}

// models/common.py SPPF(c1, c2, k=5): three chained k x k max pools, concatenated.
std::string sppf(Builder& b, const std::string& p, const std::string& x, int64_t c_out) {
  const std::string y = conv(b, p + ".cv1", x, b.channels(x) / 2, 1);
  const std::string p1 = b.max_pool(p + ".m", y, 5, 1, 2);
  const std::string p2 = b.max_pool(p + ".m", p1, 5, 1, 2);
  const std::string p3 = b.max_pool(p + ".m", p2, 5, 1, 2);
  return conv(b, p + ".cv2", b.concat(p + ".concat", {y, p1, p2, p3}, 1), c_out, 1);
}

// One Detect level in inference form; returns the (bs, 3 * ny * nx, 85) tensor.
std::string detect_level(Builder& b, const std::string& x, int level, int64_t batch) {
  const std::string p = "model.24";
  const std::string l = std::to_string(level);
  const int64_t stride = int64_t{8} << level;
  const int64_t ny = b.shape(x)[2], nx = b.shape(x)[3];
  std::string y = b.conv(p + ".m." + l, x, kAnchors * kOutputs, 1, 1, 0, 1, /*bias=*/true);
  y = b.add1("Reshape", p + ".view." + l,
             {y, b.const_ints(p + ".view_shape." + l, {batch, kAnchors, kOutputs, ny, nx})});
  y = b.add1("Transpose", p + ".permute." + l, {y},
             {{"perm", std::vector<int64_t>{0, 1, 3, 4, 2}}});
  y = b.add1("Sigmoid", p + ".sigmoid." + l, {y});
  const std::vector<std::string> parts = b.add(
      "Split", p + ".split." + l, {y, b.const_ints(p + ".split_sizes." + l, {2, 2, kClasses + 1})},
      {{"axis", int64_t{4}}}, 3);
  // grid[0, a, y, x] = (x - 0.5, y - 0.5); anchor_grid[0, a, y, x] = anchor a of this level.
  std::vector<float> grid, anchor_grid;
  grid.reserve(static_cast<size_t>(kAnchors * ny * nx * 2));
  anchor_grid.reserve(grid.capacity());
  for (int64_t a = 0; a < kAnchors; ++a) {
    for (int64_t iy = 0; iy < ny; ++iy) {
      for (int64_t ix = 0; ix < nx; ++ix) {
        grid.push_back(static_cast<float>(ix) - 0.5f);
        grid.push_back(static_cast<float>(iy) - 0.5f);
        anchor_grid.push_back(kAnchorWh[level][a][0]);
        anchor_grid.push_back(kAnchorWh[level][a][1]);
      }
    }
  }
  const graph::Shape gshape = {1, kAnchors, ny, nx, 2};
  const std::string two = b.scalar(2.0f);
  std::string xy = b.add1("Mul", p + ".xy_mul." + l, {parts[0], two});
  xy = b.add1("Add", p + ".xy_grid." + l, {xy, b.const_floats(p + ".grid." + l, gshape, grid)});
  xy = b.add1("Mul", p + ".xy_stride." + l, {xy, b.scalar(static_cast<float>(stride))});
  std::string wh = b.add1("Mul", p + ".wh_mul." + l, {parts[1], two});
  wh = b.add1("Pow", p + ".wh_pow." + l, {wh, two});
  wh = b.add1("Mul", p + ".wh_anchor." + l,
              {wh, b.const_floats(p + ".anchor_grid." + l, gshape, anchor_grid)});
  y = b.concat(p + ".cat." + l, {xy, wh, parts[2]}, 4);
  return b.add1("Reshape", p + ".view_out." + l,
                {y, b.const_ints(p + ".out_shape." + l, {batch, -1, kOutputs})});
}

}  // namespace

graph::Graph yolov5n(int64_t batch, int64_t image_size) {
  if (batch < 1) throw user_error("yolov5n: batch must be >= 1, got ", batch);
  if (image_size < 32 || image_size % 32 != 0) {
    throw user_error("yolov5n: image size must be a positive multiple of 32, got ", image_size);
  }
  Builder b("yolov5n");
  std::string x = b.input("images", {batch, 3, image_size, image_size});
  // backbone
  x = conv(b, "model.0", x, 16, 6, 2, 2);
  x = conv(b, "model.1", x, 32, 3, 2);
  x = c3(b, "model.2", x, 32, 1, true);
  x = conv(b, "model.3", x, 64, 3, 2);
  const std::string p3 = c3(b, "model.4", x, 64, 2, true);
  x = conv(b, "model.5", p3, 128, 3, 2);
  const std::string p4 = c3(b, "model.6", x, 128, 3, true);
  x = conv(b, "model.7", p4, 256, 3, 2);
  x = c3(b, "model.8", x, 256, 1, true);
  x = sppf(b, "model.9", x, 256);
  // head
  const std::string h10 = conv(b, "model.10", x, 128, 1);
  x = b.upsample_nearest("model.11", h10, 2.0f);
  x = b.concat("model.12", {x, p4}, 1);
  x = c3(b, "model.13", x, 128, 1, false);
  const std::string h14 = conv(b, "model.14", x, 64, 1);
  x = b.upsample_nearest("model.15", h14, 2.0f);
  x = b.concat("model.16", {x, p3}, 1);
  const std::string out_p3 = c3(b, "model.17", x, 64, 1, false);
  x = conv(b, "model.18", out_p3, 64, 3, 2);
  x = b.concat("model.19", {x, h14}, 1);
  const std::string out_p4 = c3(b, "model.20", x, 128, 1, false);
  x = conv(b, "model.21", out_p4, 128, 3, 2);
  x = b.concat("model.22", {x, h10}, 1);
  const std::string out_p5 = c3(b, "model.23", x, 256, 1, false);
  // Detect
  const std::string z0 = detect_level(b, out_p3, 0, batch);
  const std::string z1 = detect_level(b, out_p4, 1, batch);
  const std::string z2 = detect_level(b, out_p5, 2, batch);
  b.output(b.concat("model.24.cat", {z0, z1, z2}, 1));
  return std::move(b).finish();
}

}  // namespace hetcim::zoo
