// The message of the UserError a call throws, for tests that assert the exact text a user sees.
#pragma once

#include <string>

#include "util/error.h"

namespace hetcim::testing {

// What `f()` throws as a UserError, or "(no UserError)" when it returns normally.
template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

}  // namespace hetcim::testing
