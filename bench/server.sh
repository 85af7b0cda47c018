#!/bin/bash
# bench/server.sh PROGRAM ARGS... — run a benchmark's Python PROGRAM with
# ARGS against a server: the one in PG* (PGHOST/PGPORT) if set, else a
# throwaway pg_virtualenv cluster of the installed extension, or with
# DESTDIR=/path of a private install (make install DESTDIR=...).  -h or
# --help among ARGS runs PROGRAM without a server.  Everything
# single-threaded, like the extension (openblas_set_num_threads(1)).
set -euo pipefail
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
py=/usr/bin/python3
program=$1
shift
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$program" "$@" ;; esac
done
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	exec "$py" "$program" "$@"
fi
opts=()
if [ -n "${DESTDIR:-}" ]; then
	opts=(-o "extension_destdir=$DESTDIR"
		  -o "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
fi
exec pg_virtualenv -t "${opts[@]}" "$py" "$program" "$@"
