#!/bin/bash
# bench/run.sh — run the tuner benchmark (latency + sample efficiency).
#
# Assumes the extension is built and installed (make && make install).
# Without PGHOST/PGPORT in the environment it starts a throwaway cluster
# with pg_virtualenv; with them it uses that server.  Options go to
# bench/bench.py (--quick, --functions, --seeds, --no-tuner, --help ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# Everything single-threaded, like the extension (openblas_set_num_threads(1)).
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in --no-tuner|-h|--help) exec "$py" "$here/bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/bench.py" "$@"
fi
exec pg_virtualenv -t "$py" "$here/bench.py" "$@"
