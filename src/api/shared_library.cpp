// libhetcim.so is the api module (and report above it) linked whole (src/CMakeLists.txt): this
// file only gives the shared library target a source of its own.
#include "api/hetcim.h"
