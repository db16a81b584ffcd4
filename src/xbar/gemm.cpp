#include "xbar/gemm.h"

#include <omp.h>

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/error.h"

namespace hetcim::xbar {
namespace {

// A CPU engine and an in-order stream: stateless handles, created once per calling thread.
// Primitives come from oneDNN's primitive cache, so repeated shapes are not re-generated.
//
// The matmul primitives themselves are kept per calling thread too, keyed by the three memory
// descriptors and the thread budget they were created under: a convolution on the chip makes one
// product per chunk of 512 rows, and creating the primitive descriptor each time (oneDNN's
// implementation dispatch, even when its primitive cache then hits) cost as much as a small
// product. The same primitive computes the same bytes as a freshly created one. Each keeps its
// three memory objects, pointed at the call's buffers with set_data_handle (creating them cost
// more than a narrow layer's 512 x 9 x 32 product).
struct Context {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};

  struct Key {
    dnnl::memory::desc a, b, c;
    int threads;
    bool in_parallel;
    bool operator==(const Key& o) const {
      return a == o.a && b == o.b && c == o.c && threads == o.threads &&
             in_parallel == o.in_parallel;
    }
  };
  struct Entry {
    dnnl::matmul prim;
    dnnl::memory a, b, c;
    std::unordered_map<int, dnnl::memory> args;  // the three above (shared handles)
  };
  std::vector<std::pair<Key, Entry>> primitives;  // most recently used last

  Entry& matmul(const dnnl::memory::desc& a, const dnnl::memory::desc& b,
                const dnnl::memory::desc& c) {
    const Key key{a, b, c, omp_get_max_threads(), omp_in_parallel() != 0};
    for (size_t i = primitives.size(); i-- > 0;) {
      if (primitives[i].first == key) {
        if (i + 1 != primitives.size()) std::swap(primitives[i], primitives.back());
        return primitives.back().second;
      }
    }
    constexpr size_t kKept = 32;  // a network's layers and chunk shapes; the oldest goes
    if (primitives.size() == kKept) primitives.erase(primitives.begin());
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, b, c), engine);
    Entry e{dnnl::matmul(pd),
            dnnl::memory(a, engine, nullptr),
            dnnl::memory(b, engine, nullptr),
            dnnl::memory(c, engine, nullptr),
            {}};
    e.args = {{DNNL_ARG_SRC, e.a}, {DNNL_ARG_WEIGHTS, e.b}, {DNNL_ARG_DST, e.c}};
    primitives.emplace_back(key, std::move(e));
    return primitives.back().second;
  }
};

Context& context() {
  thread_local Context c;
  return c;
}

void run_matmul(const dnnl::memory::desc& a_md, const float* a, const dnnl::memory::desc& b_md,
                const float* b, const dnnl::memory::desc& c_md, float* c, GemmThreads threads) {
  // oneDNN sizes its work split from omp_get_max_threads() when it creates and runs a primitive;
  // outside a parallel region the calling thread's nthreads-var decides, so narrow it to 1 for
  // Caller products and restore it afterwards.
  const int saved = omp_get_max_threads();
  const bool narrow = threads == GemmThreads::Caller && !omp_in_parallel() && saved > 1;
  if (narrow) omp_set_num_threads(1);
  struct Restore {
    bool active;
    int n;
    ~Restore() {
      if (active) omp_set_num_threads(n);
    }
  } restore{narrow, saved};
  Context& ctx = context();
  Context::Entry& e = ctx.matmul(a_md, b_md, c_md);
  e.a.set_data_handle(const_cast<float*>(a));
  e.b.set_data_handle(const_cast<float*>(b));
  e.c.set_data_handle(c);
  e.prim.execute(ctx.stream, e.args);
  ctx.stream.wait();
}

using dt = dnnl::memory::data_type;
using dims = dnnl::memory::dims;

}  // namespace

void sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, GemmThreads threads) {
  HETCIM_ASSERT(m >= 0 && n >= 0 && k >= 0 && lda >= k && ldb >= n && ldc >= n);
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    return;
  }
  run_matmul(dnnl::memory::desc({m, k}, dt::f32, dims{lda, 1}), a,
             dnnl::memory::desc({k, n}, dt::f32, dims{ldb, 1}), b,
             dnnl::memory::desc({m, n}, dt::f32, dims{ldc, 1}), c, threads);
}

}  // namespace hetcim::xbar
