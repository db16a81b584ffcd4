// util/omp_wait.h's description of the spin-wait, from the environment it reads (the re-execution
// itself is tested on the binary: tests/integration/cli_test.cpp, BoundsLibgompsSpinWait...).
#include "util/omp_wait.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

void clear() {
  for (const char* v : {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY", "HETCIM_GOMP_SPINCOUNT_DEFAULT"})
    ::unsetenv(v);
}

TEST(OmpWait, NamesWhereTheSettingComesFrom) {
  clear();
  EXPECT_EQ(hetcim::openmp_wait_description(), "libgomp's default (GOMP_SPINCOUNT=300000)");
  ::setenv("GOMP_SPINCOUNT", "300", 1);
  ::setenv("HETCIM_GOMP_SPINCOUNT_DEFAULT", "1", 1);
  EXPECT_EQ(hetcim::openmp_wait_description(), "GOMP_SPINCOUNT=300 (hetcim's default)");
  ::setenv("OMP_WAIT_POLICY", "active", 1);  // a user's policy beside it: the user's setting
  EXPECT_EQ(hetcim::openmp_wait_description(),
            "OMP_WAIT_POLICY=active, GOMP_SPINCOUNT=300 (environment)");
  clear();
  ::setenv("GOMP_SPINCOUNT", "7", 1);
  EXPECT_EQ(hetcim::openmp_wait_description(), "GOMP_SPINCOUNT=7 (environment)");
  clear();
}

// With a variable set there is nothing to bound: the call returns (no exec) and changes nothing.
TEST(OmpWait, KeepsTheUsersSetting) {
  clear();
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  char arg0[] = "/nonexistent/omp_wait_test";
  char* argv[] = {arg0, nullptr};
  hetcim::bound_openmp_spin(argv);
  EXPECT_EQ(std::getenv("GOMP_SPINCOUNT"), nullptr);
  EXPECT_EQ(hetcim::openmp_wait_description(), "OMP_WAIT_POLICY=PASSIVE (environment)");
  clear();
}

}  // namespace
