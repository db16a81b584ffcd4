#include "formats/number_text.h"

#include <cstdio>

namespace hetcim::formats {

std::string number_g9(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

}  // namespace hetcim::formats
