#!/bin/bash
# bench/pruning/run.sh — the learning-curve pruning benchmark (issue 30,
# bench (a)).  Uses the server in PG* if set, else a throwaway
# pg_virtualenv cluster of the installed extension; DESTDIR=/path runs a
# private install (make install DESTDIR=...) instead.  Options go to
# pruning_bench.py.
exec bash "$(dirname "$0")/../server.sh" "$(dirname "$0")/pruning_bench.py" "$@"
