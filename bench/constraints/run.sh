#!/bin/bash
# bench/constraints/run.sh — the failures and constraints benchmark (issue
# 10).  Uses the server in PG* if set, else a throwaway pg_virtualenv
# cluster of the installed extension; DESTDIR=/path runs a private install
# (make install DESTDIR=...) instead.  Options go to constraints_bench.py.
exec bash "$(dirname "$0")/../server.sh" "$(dirname "$0")/constraints_bench.py" "$@"
