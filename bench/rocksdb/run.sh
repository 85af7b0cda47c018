#!/bin/bash
# bench/rocksdb/run.sh — the RocksDB tuning benchmark (bench/README.md,
# section "3. RocksDB tuning"): GP-EI studies of the rocksdb preset against
# a long random search, with the winners re-measured.
#
# Assumes the extension and tuner_rocksdb are built and installed (make
# install install-runner-rocksdb).  Without PGHOST/PGPORT in the environment it starts a
# throwaway cluster with pg_virtualenv; with them it uses that server (the
# caller must be allowed to run programs there, and this script must run
# as root or as the server's OS user so the direct runs match the server's).
# Options go to rocksdb_bench.py (--smoke, --studies, --trials, --random,
# --duration, --remeasure, --direct-io, --help ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/rocksdb_bench.py" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/rocksdb_bench.py" "$@"
fi
exec pg_virtualenv -t "$py" "$here/rocksdb_bench.py" "$@"
