#!/bin/bash
# bench/multiobjective/run.sh — the multi-objective benchmark (issue 9):
# hypervolume of tuner (ParEGO) against random search and Optuna's
# NSGA-II and TPE at equal budget.  Uses the server in PG* if set, else a
# throwaway pg_virtualenv cluster of the installed extension;
# DESTDIR=/path runs a private install (make install DESTDIR=...) instead.
# Options go to mo_bench.py (--smoke: one short run).  Needs
# python3-optuna and python3-psycopg2 (scripts/install-deps.sh).
exec bash "$(dirname "$0")/../server.sh" "$(dirname "$0")/mo_bench.py" "$@"
