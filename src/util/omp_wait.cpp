#include "util/omp_wait.h"

#include <cstdlib>
#include <string>

namespace hetcim {

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): nothing sets it later
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

std::string openmp_wait_description() {
  const char* spin = env("GOMP_SPINCOUNT");
  const char* policy = env("OMP_WAIT_POLICY");
  std::string out;
  if (policy != nullptr) out += std::string("OMP_WAIT_POLICY=") + policy;
  if (spin != nullptr) out += std::string(out.empty() ? "" : ", ") + "GOMP_SPINCOUNT=" + spin;
  return out.empty() ? "libgomp's default (GOMP_SPINCOUNT=300000)" : out + " (environment)";
}

}  // namespace hetcim
