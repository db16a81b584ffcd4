#include "util/build_version.h"

#include "hetcim/version.h"

namespace hetcim {

const char* build_version() {
  return HETCIM_VERSION;
}

const char* build_commit() {
  return HETCIM_GIT_COMMIT;
}

}  // namespace hetcim
