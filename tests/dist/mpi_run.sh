#!/usr/bin/env bash
# mpi_run.sh MPIEXEC N PROGRAM [ARGS...]: PROGRAM on N ranks of this machine (--oversubscribe;
# --allow-run-as-root when run as root, as in CI containers).
set -euo pipefail
mpiexec=$1
n=$2
shift 2
args=(--oversubscribe)
if [ "$(id -u)" = 0 ]; then args+=(--allow-run-as-root); fi
exec "$mpiexec" "${args[@]}" -np "$n" "$@"
