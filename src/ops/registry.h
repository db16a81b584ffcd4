// The operator-family registry: one row per operator hetcim knows, the one place that holds the
// facts code elsewhere needs about an operator: its family; the family's shape rule and constant
// evaluator (shape inference, ops/shape_inference.h) and, for the families whose kernels live here
// in src/ops, the kernel compiler; where its weight, bias and quantization operands sit; its
// GEMM / MVM view (the workload's and the crossbar's); which inputs are learned parameters and how
// an architecture-only graph fills them; its int8 form (calibration, QDQ export) and whether it can
// absorb an activation. The engine's dispatch reads `compile`: a row with one runs that portable
// kernel unless the engine has a native (oneDNN) kernel of the family that takes the node; a row
// without one is a family whose kernels sit in the engine (exec/families/<family>.cpp). The
// reference interpreter runs `reference` where a row has one. Rows with
// `runs = false` carry facts only (operators no executor runs: ConvTranspose and PRelu, which the
// workload and the weight filler know, and the operators of shape subgraphs, which shape
// inference evaluates and passes::fold_constants folds).
// Each family's rows sit in its own file (src/ops/<family>.cpp, beside its shape rule, evaluator
// and portable kernel); registry.cpp's table is their union. Adding an operator: one row and its
// functions (shape rule, evaluator, kernel and reference kernel) in its family's file.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"
#include "ops/kernel.h"

namespace hetcim::ops {

// Where the operands of a weighted operator sit, in its float form and in its QLinear form:
// Conv / QLinearConv, Gemm / QGemm (com.microsoft), MatMul / QLinearMatMul.
struct QLinearOperands {
  bool quantized = false;
  size_t x = 0;  // the activation (A of a MatMul)
  size_t w = 1;  // the weight (B of a MatMul)
  std::optional<size_t> bias;
  // QLinear forms only: scales and zero points of x, w and the output.
  std::optional<size_t> x_scale, x_zero_point, w_scale, w_zero_point, y_scale, y_zero_point;
};

// The GEMM view of an operator whose weight a crossbar can hold (workload, xbar): a convolution
// (weight [OC, C/g, K...]), a Gemm (2-D B, transA/transB, alpha/beta) or a MatMul (B [K, N]).
enum class GemmView { None, Conv, Gemm, MatMul };

// How an architecture-only graph fills a constant input that has a shape but no values
// (onnxio/weight_fill.h).
enum class Fill {
  Generic,    // float: the generic seeded weight rule; other dtypes: left empty
  Weight,     // float: Kaiming-uniform by the operator's fan-in
  Zero,       // zeros (bias, BatchNorm bias and mean, zero points)
  One,        // ones (BatchNorm scale and variance)
  Scale,      // a quantization scale
  Quantized,  // DequantizeLinear's x: int8/uint8 seeded weights, int32 zeros
};

// Operand layout of a QLinear operator (com.microsoft / ONNX), as calibration writes it and the
// QDQ export reads it.
enum class QLayout {
  None,
  Weighted,  // the QLinearOperands of the row
  Binary,    // A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp
  Unary,     // X, X_scale, X_zp, Y_scale, Y_zp
  Concat,    // Y_scale, Y_zp, then (X, X_scale, X_zp) per input
};

// The quantization boundary operators (ONNX QuantizeLinear / DequantizeLinear).
enum class Qdq { None, Quantize, Dequantize };

namespace shape_rules {
class Ctx;
struct ConstValue;
}  // namespace shape_rules
// The shape and dtype rule of an operator: the infos of its outputs from the infos and constant
// operands of its inputs (ops/shape_rule.h); a UserError naming the node when they do not fit.
using ShapeRule = std::vector<graph::TensorInfo> (*)(const shape_rules::Ctx&);
// The value of its single output from constants and static shapes (shape subgraphs): (context,
// the output's info, its element count) -> the values, or nullopt when they are not constant.
using Fold = std::optional<shape_rules::ConstValue> (*)(const shape_rules::Ctx&,
                                                        const graph::TensorInfo&, int64_t);
// The value of its single output as an initializer of any dtype and size, from constant inputs
// (initializers with values), or nullopt when they are not constant; a UserError naming the node
// when its attributes cannot be represented.
using FoldAny = std::optional<graph::Initializer> (*)(const graph::Graph&, const graph::Node&);

struct Family {
  std::string_view op;        // ONNX op_type
  std::string_view family;    // the family's name ("binary", "softmax", ...): one engine entry each
  Compile compile = nullptr;  // the portable kernel of this file's family; nullptr: engine-native
  // The reference interpreter's kernel (exec/reference.h, the test oracle), when the family file
  // holds it; else a KernelRow of exec/reference/<family>.cpp runs the operator there. Written
  // apart from `compile`: plain loops in double rounded once to float32, no arithmetic shared
  // with it, so a test of the engine against the interpreter compares two implementations
  // (registry.cpp refuses a row whose two are one function). Same interface as `compile`.
  Compile reference = nullptr;
  // Inputs the kernel reads at run time (activations or constants); every other present input
  // must be a constant, captured at compile time. An empty list means "input 0 only".
  std::vector<size_t> activations = {};
  std::string_view domain = "";  // the domain the op is written in ("com.microsoft" for QGemm, ...)
  bool runs = true;              // false: a row of facts only (no executor runs the operator)
  ShapeRule shape = nullptr;     // nullptr: shape inference rejects the operator
  Fold fold = nullptr;           // nullptr: its output is never computed from constants
  // passes::fold_constants folds with this first, beyond `fold`'s small shape arithmetic: Cast of
  // a constant and ConstantOfShape of a constant shape (the torch.ao exporter's zero points).
  FoldAny fold_any = nullptr;
  // Inputs whose values (not only their shapes) decide the output's shape (Reshape's shape,
  // Slice's bounds, Resize's scales or sizes, ...): passes::fold_constants names the first that is
  // not a constant when the output's shape stays open.
  std::vector<size_t> shape_operands = {};
  bool reads_shape_only = false;  // its output is its input's shape (Shape, Size), not its values

  std::optional<QLinearOperands> operands = {};  // weighted operators only
  GemmView gemm = GemmView::None;
  std::string_view no_crossbar = "";  // why a crossbar does not take it when that is the op itself
  std::vector<size_t> params = {};    // inputs holding learned parameters (counted when constant)
  std::vector<Fill> fill = {};        // per input position; beyond the list: Fill::Generic

  // int8: the QLinear form of a float operator, or the float form of a QLinear one; `qlayout` is
  // the QLinear form's operand layout (on both rows).
  std::string_view qform = "";
  QLayout qlayout = QLayout::None;
  bool quantized = false;         // computes on int8/uint8 tensors (QLinear*, QGemm)
  bool takes_activation = false;  // passes::fuse_activation may fuse a Relu/Clip into it
  bool is_activation = false;     // a Relu/Clip that a producer can absorb
  Qdq qdq = Qdq::None;            // a quantization boundary
  bool global_pool = false;       // pools over the whole spatial extent (no window attributes)
  // Upsample's form of Resize: operands (X, scales), transform asymmetric, mode "bilinear" for
  // linear (Resize at opset <= 10 reads its operands the same way).
  bool legacy_resize = false;
  // int8 as ONNX Runtime runs a quantized model: executed on int8 data (a QLinear kernel or data
  // movement); data movement exact when input and output share one quantization; rewritten to
  // channels-last by ORT's NHWC layout transformer.
  bool int8_runs = false;
  bool int8_passthrough = false;
  bool nhwc = false;
};

// The executed row of `op_type` (rows with `runs`), or nullptr: what the engine dispatches on.
[[nodiscard]] const Family* find(std::string_view op_type);

// Any row of `op_type` (facts-only rows included), or nullptr.
[[nodiscard]] const Family* row(std::string_view op_type);

// Every executed operator of the table, in table order (for `inspect`'s list of what `run`
// executes).
[[nodiscard]] std::vector<std::string_view> operators();

// ---- queries over the rows (nothing here compares names; the rows say it)
// ------------------------ Operand positions of a weighted operator (Conv, Gemm, MatMul and their
// QLinear forms), or nullopt.
[[nodiscard]] std::optional<QLinearOperands> weighted_operands(std::string_view op_type);
// The GEMM view of the node's operator (GemmView::None for every other operator).
[[nodiscard]] GemmView gemm_view(const graph::Node& n);
// Where a QLinear operator's output scale and zero point sit (by its `qlayout`); nullopt for every
// other row.
struct OutputQuantization {
  size_t scale = 0, zero_point = 0;
};
[[nodiscard]] std::optional<OutputQuantization> output_quantization(const Family& f);
// The inputs of a weighted QLinear operator in its operand order (`to`): x, w as (tensor, scale,
// zero point), the output's (scale, zero point) and the bias ("" for none; an absent trailing
// bias is left out).
[[nodiscard]] std::vector<std::string> qlinear_weighted_inputs(const QLinearOperands& to,
                                                               const std::array<std::string, 3>& x,
                                                               const std::array<std::string, 3>& w,
                                                               const std::array<std::string, 2>& y,
                                                               const std::string& bias);
// The boundary role of `op_type` (Qdq::None for every other operator).
[[nodiscard]] Qdq qdq_of(std::string_view op_type);
// True for QLinear*/QGemm operators: the rows say so, and an operator the registry does not know
// is quantized when it follows com.microsoft's naming (QLinear<Op>).
[[nodiscard]] bool computes_int8(std::string_view op_type);

}  // namespace hetcim::ops
