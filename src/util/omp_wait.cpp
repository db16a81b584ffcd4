#include "util/omp_wait.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace hetcim {

namespace {

// Set beside GOMP_SPINCOUNT by bound_openmp_spin, so that the process (and the programs it
// starts, such as hetcim-torch) can tell hetcim's default from a user's setting.
constexpr const char* kMarker = "HETCIM_GOMP_SPINCOUNT_DEFAULT";

const char* env(const char* name) {
  const char* v = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read before threads run
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

void bound_openmp_spin(char** argv) {
  if (env("GOMP_SPINCOUNT") != nullptr || env("OMP_WAIT_POLICY") != nullptr) return;
  const std::string count = std::to_string(kHetcimSpinCount);
  // NOLINTBEGIN(concurrency-mt-unsafe): first thing in main(), no thread reads the environment
  if (::setenv("GOMP_SPINCOUNT", count.c_str(), 1) != 0 || ::setenv(kMarker, "1", 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // exec failed (no /proc): run on with libgomp's default, which it read while loading.
  ::unsetenv("GOMP_SPINCOUNT");
  ::unsetenv(kMarker);
  // NOLINTEND(concurrency-mt-unsafe)
}

std::string openmp_wait_description() {
  const char* spin = env("GOMP_SPINCOUNT");
  const char* policy = env("OMP_WAIT_POLICY");
  if (spin != nullptr && policy == nullptr && env(kMarker) != nullptr)
    return std::string("GOMP_SPINCOUNT=") + spin + " (hetcim's default)";
  std::string out;
  if (policy != nullptr) out += std::string("OMP_WAIT_POLICY=") + policy;
  if (spin != nullptr) out += std::string(out.empty() ? "" : ", ") + "GOMP_SPINCOUNT=" + spin;
  return out.empty() ? "libgomp's default (GOMP_SPINCOUNT=300000)" : out + " (environment)";
}

}  // namespace hetcim
