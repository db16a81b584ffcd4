// libhetcim.so is the api module linked whole (src/api/CMakeLists.txt): this file only gives the
// shared library target a source of its own.
#include "api/hetcim.h"
