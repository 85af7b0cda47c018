#!/bin/bash
# bench/ceph/run.sh — the Ceph tuning benchmark (bench/README.md, section
# "12. Ceph tuning"): Sapphire studies of the ceph preset on the local test
# cluster (objective write_ratio, paired runs) against a random search of
# the same budget, the winners re-measured against the default.
#
# Run as root.  Assumes the extension and tuner_ceph are built and
# installed (make install install-runner-ceph, or with DESTDIR=/path for a
# private install: DESTDIR=/path bash bench/ceph/run.sh ...).  Starts the
# test cluster (tests/ceph/cluster.sh) as the server's OS user
# (TUNER_CEPH_USER, default postgres) in TUNER_CEPH_DIR (default that
# user's /var/tmp/tuner-ceph-<uid>, port TUNER_CEPH_PORT or the script's),
# or reuses it when it runs; a cluster this script started is stopped again
# at the end, its data kept (tests/ceph/cluster.sh purge removes it).
# Without PGHOST/PGPORT it starts a throwaway PostgreSQL cluster with
# pg_virtualenv; with them it uses that server, whose OS user must be
# TUNER_CEPH_USER.  Options go to ceph_bench.py (--smoke, --studies,
# --trials, --random, --repeats, --remeasure, --duration, --help ...).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
py=/usr/bin/python3
for a in "$@"; do
	case "$a" in -h|--help) exec "$py" "$here/ceph_bench.py" "$@" ;; esac
done
if [ "$(id -u)" -ne 0 ]; then
	echo "bench/ceph/run.sh: run as root (the cluster and the direct runs run as the server's OS user)" >&2
	exit 1
fi
user=${TUNER_CEPH_USER:-postgres}
export TUNER_CEPH_DIR=${TUNER_CEPH_DIR:-/var/tmp/tuner-ceph-$(id -u "$user")}
# The cluster script from a place the user can read, whatever the
# checkout's modes (start copies it into the cluster directory).
script=$(mktemp /tmp/tuner-ceph-bench.XXXXXX)
install -m 755 "$root/tests/ceph/cluster.sh" "$script"
cluster() {
	runuser -u "$user" -- env TUNER_CEPH_DIR="$TUNER_CEPH_DIR" \
		${TUNER_CEPH_PORT:+TUNER_CEPH_PORT="$TUNER_CEPH_PORT"} bash "$script" "$@"
}
was_running=false
if cluster status >/dev/null 2>&1; then was_running=true; fi
cleanup() {
	if ! $was_running; then
		echo "stopping the test cluster this run started (data kept in $TUNER_CEPH_DIR)" >&2
		cluster stop || true
	fi
	rm -f "$script"
}
trap cleanup EXIT
if $was_running; then
	echo "reusing the test cluster in $TUNER_CEPH_DIR" >&2
fi
t0=$(date +%s)
cluster start >/dev/null
echo "test cluster ready in $TUNER_CEPH_DIR ($(($(date +%s) - t0)) s)" >&2

bash "$here/../server.sh" "$here/ceph_bench.py" "$@"
