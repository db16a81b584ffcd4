// The activations: Relu, LeakyRelu, Sigmoid, Tanh, Clip, HardSigmoid, HardSwish, the int8 forms
// QLinearSigmoid and QLinearLeakyRelu (com.microsoft) and PRelu (facts only). Their kernels are
// oneDNN's eltwise algorithms (exec/families/eltwise.cpp, qlinear_eltwise.cpp); the shape rules
// are here (Clip's bounds; the others keep their input's shape).
#include "ops/families.h"

namespace hetcim::ops {
namespace {

using namespace shape_rules;

Infos clip(const Ctx& c) {
  c.arity(1, 3, 1, 1);
  for (size_t i = 1; i < 3; ++i) {
    if (!c.has(i)) continue;
    if (count_elements(c.shape(i)) != 1) {
      c.fail(i == 1 ? "min" : "max", " must be a scalar, got shape ", shape_str(c.shape(i)));
    }
    if (c.dtype(i) != c.dtype(0)) {
      c.fail(i == 1 ? "min" : "max", " has dtype ", dtype_name(c.dtype(i)), ", input has ",
             dtype_name(c.dtype(0)));
    }
  }
  return same_as_input(c);
}

}  // namespace

std::vector<Family> eltwise_family() {
  return {{.op = "Relu",
           .family = "eltwise",
           .shape = unary,
           .is_activation = true,
           .int8_runs = true,
           .int8_passthrough = true,
           .nhwc = true},
          {.op = "LeakyRelu",
           .family = "eltwise",
           .shape = unary,
           .qform = "QLinearLeakyRelu",
           .qlayout = QLayout::Unary,
           .int8_runs = true,
           .nhwc = true},
          {.op = "Sigmoid",
           .family = "eltwise",
           .shape = unary,
           .qform = "QLinearSigmoid",
           .qlayout = QLayout::Unary,
           .int8_runs = true,
           .nhwc = true},
          {.op = "Tanh", .family = "eltwise", .shape = unary},
          {.op = "Clip",
           .family = "eltwise",
           .shape = clip,
           .is_activation = true,
           .int8_runs = true,
           .int8_passthrough = true,
           .nhwc = true},
          {.op = "HardSigmoid", .family = "eltwise", .shape = unary},
          {.op = "HardSwish", .family = "eltwise", .shape = unary},
          {.op = "QLinearSigmoid",
           .family = "qunary",
           .domain = kMicrosoft,
           .qform = "Sigmoid",
           .qlayout = QLayout::Unary,
           .quantized = true,
           .nhwc = true},
          {.op = "QLinearLeakyRelu",
           .family = "qunary",
           .domain = kMicrosoft,
           .qform = "LeakyRelu",
           .qlayout = QLayout::Unary,
           .quantized = true,
           .nhwc = true},
          {.op = "PRelu", .family = "eltwise", .runs = false, .params = {1}}};
}

}  // namespace hetcim::ops
