#!/bin/bash
# bench/pruning/run.sh — issue 30's pruning benchmarks.  Bench (a), the
# learning-curve benchmark against Optuna: options go to pruning_bench.py.
# Bench (b), --rocksdb first: the real RocksDB study with and without
# pruning at the same wall-clock budget; the other options go to
# rocksdb_wallclock.py (--smoke, --seeds, --budget-s, --duration, --rule,
# --help ...).  Uses the server in PG* if set, else a throwaway
# pg_virtualenv cluster of the installed extension; DESTDIR=/path runs a
# private install (make install DESTDIR=...) instead (bench/server.sh).
here="$(dirname "$0")"
if [ "${1:-}" = "--rocksdb" ]; then
	shift
	exec bash "$here/../server.sh" "$here/rocksdb_wallclock.py" "$@"
fi
exec bash "$here/../server.sh" "$here/pruning_bench.py" "$@"
