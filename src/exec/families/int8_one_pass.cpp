#include "exec/families/int8_one_pass.h"

#include <cstdlib>
#include <cstring>
#include <memory>

#include "exec/int8_gemm.h"

namespace hetcim::exec::native {

bool int8_one_pass() {
  static const bool yes = [] {
    const char* v = std::getenv("HETCIM_INT8_HALVES");
    const bool halves_forced = v != nullptr && std::strcmp(v, "1") == 0;
    return int8_weight_halves() && int8_gemm::available() && !halves_forced;
  }();
  return yes;
}

namespace {

int8_gemm::Output output_of(const Int8Product& p) {
  return int8_gemm::make_output(p.scales, p.bias, p.zy, p.ytype == DType::Int8, p.act, p.sy);
}

}  // namespace

void conv_one_pass(EngineContext& e, const graph::Node& n, const Window2d& w, const Tensor& w8,
                   const Int8Product& p) {
  const std::string& x = n.inputs.at(0);
  const std::string& y = n.outputs.at(0);
  auto cv = std::make_shared<const int8_gemm::Conv>(
      int8_gemm::prepare_conv(w, w8.data<int8_t>(), p.xtype == DType::Int8, p.zx, output_of(p)));
  const memory xm = e.get(x, nhwc_md(e.shape(x), dnnl_type(p.xtype, &n)));
  const memory ym = e.output(y, nhwc_md(e.shape(y), dnnl_type(p.ytype, &n)), p.ytype);
  const int threads = e.cur->info.threads;
  e.cur->steps.push_back([cv, xm, ym, threads]() {
    int8_gemm::run_conv(*cv, static_cast<const uint8_t*>(xm.get_data_handle()),
                        static_cast<uint8_t*>(ym.get_data_handle()), threads);
  });
  e.cur->info.impl = "hetcim:int8_vpmaddwd (exact, one pass)" + e.cur->info.impl;
}

void gemm_one_pass(EngineContext& e, const std::string& a, const std::string& y, int64_t rows,
                   int64_t K, int64_t N, const Tensor& b8, int64_t stride_k, int64_t stride_n,
                   const Int8Product& p) {
  auto g = std::make_shared<const int8_gemm::Gemm>(int8_gemm::prepare(
      b8.data<int8_t>(), K, N, stride_k, stride_n, p.xtype == DType::Int8, p.zx, output_of(p)));
  const memory am = e.get_plain(a);
  const memory ym = e.output(y, plain_md(e.shape(y), dnnl_type(p.ytype)), p.ytype);
  const int threads = e.cur->info.threads;
  e.cur->steps.push_back([g, am, ym, rows, K, N, threads]() {
    int8_gemm::run(*g, rows, static_cast<const uint8_t*>(am.get_data_handle()), K,
                   static_cast<uint8_t*>(ym.get_data_handle()), N, threads);
  });
  e.cur->info.impl = "hetcim:int8_vpmaddwd (exact, one pass)" + e.cur->info.impl;
}

}  // namespace hetcim::exec::native
