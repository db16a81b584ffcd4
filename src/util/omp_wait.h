// libgomp's spin-wait, bounded for the CLI. libgomp (the OpenMP runtime Debian's oneDNN and the
// exec engine's own kernels use) makes an idle pool thread, and a thread waiting at a barrier,
// busy-wait GOMP_SPINCOUNT times before it sleeps; with neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY
// set that is 300,000 spins, about 7 ms on the 2-vCPU EPYC VM of bench/README.md (a spin is one
// `pause`, 24 ns there), longer when the spinning thread is itself interrupted. When another
// process holds the second core, a 2-thread parallel region then waits for its descheduled peer
// that long: MobileNetV3-small at 64x64 (0.2 ms a run) ran whole rounds at 12 to 40 ms a run at 2
// threads, against 0.2 ms at 1 thread, with 86 % of the samples in libgomp's spin loop (perf).
// libgomp reads these variables once, while it loads (before main() and before a preinit_array
// function's setenv is visible to it), and has no call to change them later, so
// bound_openmp_spin() sets GOMP_SPINCOUNT=kHetcimSpinCount and executes the program again
// (/proc/self/exe, same arguments) when neither variable is set. A user's OMP_WAIT_POLICY or
// GOMP_SPINCOUNT is kept as it is. Library users (python/, other programs) set them themselves.
#pragma once

#include <string>

namespace hetcim {

// About 7 us on that VM, the cost of waking a sleeping pool thread there (an empty 2-thread
// region: 6 to 8 us with OMP_WAIT_POLICY=PASSIVE, 0.4 to 1.5 us with a spinning peer): spinning
// as long as a wake-up costs, then sleeping, is never worse than twice the better of the two
// choices made in hindsight (the ski-rental argument), while 7 ms of spinning can be 1000x worse.
inline constexpr long kHetcimSpinCount = 300;

// Call first thing in main(), with main's argv. Returns when no re-execution is needed (either
// variable set, including by the re-executed process) or possible (exec failed: the program then
// runs with libgomp's default).
void bound_openmp_spin(char** argv);

// The spin-wait this process runs with, for provenance: "GOMP_SPINCOUNT=300 (hetcim's default)",
// "OMP_WAIT_POLICY=PASSIVE (environment)", "GOMP_SPINCOUNT=99 (environment)" or "libgomp's
// default (GOMP_SPINCOUNT=300000)".
[[nodiscard]] std::string openmp_wait_description();

}  // namespace hetcim
