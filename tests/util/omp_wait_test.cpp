// util/omp_wait.h's description of libgomp's spin-wait, from the environment it reads (the
// binary's `--version` against libgomp's own listing: tests/integration/cli_test.cpp).
#include "util/omp_wait.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace {

void clear() {
  for (const char* v : {"GOMP_SPINCOUNT", "OMP_WAIT_POLICY"}) ::unsetenv(v);
}

TEST(OmpWait, NamesWhereTheSettingComesFrom) {
  clear();
  EXPECT_EQ(hetcim::openmp_wait_description(), "libgomp's default (GOMP_SPINCOUNT=300000)");
  ::setenv("GOMP_SPINCOUNT", "", 1);  // empty: libgomp ignores it too
  EXPECT_EQ(hetcim::openmp_wait_description(), "libgomp's default (GOMP_SPINCOUNT=300000)");
  ::setenv("GOMP_SPINCOUNT", "300", 1);
  EXPECT_EQ(hetcim::openmp_wait_description(), "GOMP_SPINCOUNT=300 (environment)");
  ::setenv("OMP_WAIT_POLICY", "active", 1);
  EXPECT_EQ(hetcim::openmp_wait_description(),
            "OMP_WAIT_POLICY=active, GOMP_SPINCOUNT=300 (environment)");
  clear();
  ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  EXPECT_EQ(hetcim::openmp_wait_description(), "OMP_WAIT_POLICY=PASSIVE (environment)");
  clear();
}

}  // namespace
