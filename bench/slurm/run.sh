#!/bin/bash
# bench/slurm/run.sh: issue 31's throughput bench.  The same 20 trials of
# a fixed-duration runner (DURATION s, default 2) run through tuner.run, 2
# at a time, as Slurm jobs on a two-node cluster (executor 'slurm') and in
# the server's background workers (executor 'local'), ROUNDS times
# (default 2) in alternating order (slurm, local, local, slurm, ...), in
# one run on one server and cluster; slurm_bench.sh prints trials per
# minute for both, their ratio and the overhead per trial.
#
#   bash bench/slurm/run.sh            # TRIALS=20 DURATION=2 ROUNDS=2
#
# The Slurm cluster: the one SLURM_CONF names if set, else a throwaway
# tests/slurm/cluster.sh cluster (port BENCH_SLURM_PORT, default 47917)
# purged at the end.  The server: the one in PG* if set, else a throwaway
# pg_virtualenv cluster of the installed extension; DESTDIR=/path runs a
# private install (make install DESTDIR=...) instead.  Needs the agent
# built (make agent; TUNER_AGENT).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
if [ -z "${SLURM_CONF:-}" ]; then
	export TUNER_SLURM_DIR TUNER_SLURM_PORT=${BENCH_SLURM_PORT:-47917}
	TUNER_SLURM_DIR=$(mktemp -d /tmp/tuner-bench-slurm.XXXXXX)
	rmdir "$TUNER_SLURM_DIR"
	export SLURM_CONF=$TUNER_SLURM_DIR/etc/slurm.conf
	trap 'bash "$ROOT/tests/slurm/cluster.sh" purge >/dev/null 2>&1' EXIT
	bash tests/slurm/cluster.sh start >/dev/null
fi
if [ -n "${PGHOST:-}${PGPORT:-}" ]; then
	bash bench/slurm/slurm_bench.sh
	exit
fi
opts=()
if [ -n "${DESTDIR:-}" ]; then
	opts=(-o "extension_destdir=$DESTDIR"
		-o "dynamic_library_path=$DESTDIR/usr/lib/postgresql/15/lib:/usr/lib/postgresql/15/lib")
fi
pg_virtualenv -t "${opts[@]}" bash bench/slurm/slurm_bench.sh
