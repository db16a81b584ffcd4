// OpenBLAS's idle thread pool, parked. Debian's OpenBLAS (pthread build), which hetcim loads only
// through CBC/Clp's LAPACK, starts its pool while the libraries load, before main(); every pool
// thread then busy-waits (a sched_yield loop) for 2^28 TSC cycles, about 0.1 s, before it sleeps
// (OpenBLAS driver/others/blas_server.c: blas_thread_server, THREAD_TIMEOUT 28). On a quiet
// machine that is a second core fully busy during the first 0.1 s of every hetcim process: a short
// `run --threads 1` then reports twice its wall time as CPU time, and a 2-thread run competes with
// the spinning thread. park_blas_pool() stops the pool the way OpenBLAS does before a fork
// (blas_thread_shutdown_); OpenBLAS starts it again at its next threaded call (exec_blas re-inits
// a stopped pool), so a later LAPACK call of the solver still works. Without OpenBLAS loaded it
// does nothing. Call it first thing in main(), while no other thread can be inside BLAS.
#pragma once

namespace hetcim {

void park_blas_pool();

}  // namespace hetcim
