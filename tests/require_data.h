// Tests that need an installed data set (Fashion-MNIST from Debian's dataset-fashion-mnist) skip
// when it is absent, so a developer without it still gets a green suite. CI sets
// HETCIM_REQUIRE_DATA=1 (.ci/run), which turns every such skip into a failure: a data-dependent
// test can then never pass by not running.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace hetcim::testing {

inline bool data_required() {
  const char* v = std::getenv("HETCIM_REQUIRE_DATA");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

}  // namespace hetcim::testing

// Use at the top of a TEST body: skips (or fails under HETCIM_REQUIRE_DATA=1) unless `present`.
#define HETCIM_REQUIRE_DATA_OR_SKIP(present, what)                                               \
  do {                                                                                           \
    if (!(present)) {                                                                            \
      if (::hetcim::testing::data_required())                                                    \
        FAIL() << what << " is required (HETCIM_REQUIRE_DATA=1) but is not installed";           \
      else                                                                                       \
        GTEST_SKIP() << what << " is not installed (set HETCIM_REQUIRE_DATA=1 to fail instead)"; \
    }                                                                                            \
  } while (false)
