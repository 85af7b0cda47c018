#!/bin/bash
# bench/multiobjective/run.sh — the multi-objective benchmark (issue 9):
# hypervolume of tuner (ParEGO) against random search and Optuna's
# NSGA-II and TPE at equal budget.  Uses the server in PG* if set, else a
# throwaway pg_virtualenv cluster of the installed extension;
# DESTDIR=/path runs a private install (make install DESTDIR=...) instead.
# Options go to mo_bench.py (--smoke: one short run).  Needs
# python3-optuna and python3-psycopg2 (scripts/install-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
py=/usr/bin/python3
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/mo_bench.py" "$@"
fi
opts=()
if [ -n "${DESTDIR:-}" ]; then
	opts=(-o "extension_destdir=$DESTDIR"
		  -o "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
fi
exec pg_virtualenv -t "${opts[@]}" "$py" "$here/mo_bench.py" "$@"
