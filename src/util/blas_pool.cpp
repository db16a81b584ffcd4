#include "util/blas_pool.h"

#include <dlfcn.h>

namespace hetcim {

void park_blas_pool() {
  // Looked up at run time: hetcim does not link OpenBLAS itself, and another BLAS (or none) may
  // be behind LAPACK.
  void* shutdown = ::dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
  if (shutdown == nullptr) return;
  using Fn = int (*)();
  (void)reinterpret_cast<Fn>(shutdown)();
}

}  // namespace hetcim
