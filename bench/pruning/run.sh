#!/bin/bash
# bench/pruning/run.sh — the learning-curve pruning benchmark (issue 30,
# bench (a)).  Uses the server in PG* if set, else a throwaway
# pg_virtualenv cluster of the installed extension; DESTDIR=/path runs a
# private install (make install DESTDIR=...) instead.  Options go to
# pruning_bench.py.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
py=/usr/bin/python3
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$here/pruning_bench.py" "$@"
fi
opts=()
if [ -n "${DESTDIR:-}" ]; then
	opts=(-o "extension_destdir=$DESTDIR"
		  -o "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
fi
exec pg_virtualenv -t "${opts[@]}" "$py" "$here/pruning_bench.py" "$@"
