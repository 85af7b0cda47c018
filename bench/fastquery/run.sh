#!/bin/bash
# bench/fastquery/run.sh — the FastQuery tuning benchmark (bench/README.md,
# section "11. FastQuery tuning"): GP-EI studies of the fastquery preset
# (objective speedup_vs_default, paired runs) against a random search of
# the same budget, the winners re-measured.
#
# Assumes the extension and tuner_fastquery_runner are built and installed
# (make install install-runner-fastquery, or with DESTDIR=/path for a
# private install: DESTDIR=/path bash bench/fastquery/run.sh ...).  Without
# PGHOST/PGPORT in the environment it starts a throwaway cluster with
# pg_virtualenv; with them it uses that server (the caller must be allowed
# to run programs there, and this script must run as root or as the
# server's OS user so the direct runs match the server's).  Options go to
# fastquery_bench.py (--smoke, --studies, --trials, --random, --repeats,
# --remeasure, --particles, --help ...).
exec bash "$(dirname "$0")/../server.sh" "$(dirname "$0")/fastquery_bench.py" "$@"
