// The spin-wait of libgomp (the OpenMP runtime Debian's oneDNN and the exec engine's own kernels
// use), named for provenance. An idle pool thread, and a thread waiting at a barrier, busy-waits
// GOMP_SPINCOUNT times before it sleeps; with neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY set that
// is 300,000 spins, about 7 ms on the 2-vCPU EPYC VM of bench/README.md (one spin is one `pause`,
// 24 ns there). Multi-thread latencies depend on it more than on anything else when other
// processes hold the cores: a 2-thread region whose second thread is descheduled waits that long
// (MobileNetV3-small, 0.2 ms a run, ran whole rounds at 12 to 80 ms a run at 2 threads with load
// average 10; a short spin such as GOMP_SPINCOUNT=300 took those rounds to 0.3 ms but doubled the
// best 2-thread runs of DenseNet-121 and MobileNetV2, whose pool thread then sleeps between
// operators and is woken dozens of times a run). libgomp reads both variables once, while it
// loads, so a process cannot change them for itself; profile headers and `--version` say which
// setting the numbers were measured with.
#pragma once

#include <string>

namespace hetcim {

// "libgomp's default (GOMP_SPINCOUNT=300000)", or the environment's setting:
// "OMP_WAIT_POLICY=PASSIVE (environment)", "GOMP_SPINCOUNT=300 (environment)", both joined by
// ", " when both are set.
[[nodiscard]] std::string openmp_wait_description();

}  // namespace hetcim
