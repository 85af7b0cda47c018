#!/bin/bash
# bench/multitask/run.sh — the multi-task benchmark (bench/README.md,
# section "4. Multi-task models"): ICM against single-task GP-EI and random
# search on synthetic multi-task problems, ICM suggestion latency, and the
# Kronecker against the full-matrix ICM fit.
#
# Assumes the extension is built and installed (make && make install).
# Without PGHOST/PGPORT in the environment it starts a throwaway cluster
# with pg_virtualenv; with them it uses that server.  Options go to
# bench/multitask/mt_bench.py (--quick, --problems, --methods, --seeds,
# --budget, --n-initial, --help ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Everything single-threaded, like the extension (openblas_set_num_threads(1)).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/mt_bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/mt_bench.py" "$@"
fi
exec pg_virtualenv -t "$py" "$here/mt_bench.py" "$@"
