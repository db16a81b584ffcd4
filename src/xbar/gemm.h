// The matrix products of the simulator: row-major fp32 GEMMs through oneDNN's matmul primitive
// (the CPU library of the exec engine; Debian builds it on the OpenMP runtime, which the
// simulator's element-wise passes share, so one thread pool serves both and no idle BLAS threads
// spin against them). Exposed so that benchmarks compare against the very same call.
#pragma once

#include <cstdint>

namespace hetcim::xbar {

// How many threads a product may use: all of the OpenMP pool, or only the calling thread (the
// simulator's chunks, whose results must not depend on the pool size; inside a parallel region
// oneDNN runs on the calling thread anyway).
enum class GemmThreads { Pool, Caller };

// C[m x n] = A[m x k] * B[k x n], all row-major with leading dimensions lda, ldb, ldc.
void sgemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
           int64_t ldb, float* c, int64_t ldc, GemmThreads threads = GemmThreads::Pool);

}  // namespace hetcim::xbar
