#!/bin/bash
# run.sh: the "slurm" suite of scripts/test-all.sh.  Starts a throwaway
# local Slurm cluster (tests/slurm/cluster.sh, its own directory and
# ports), checks start/status, runs test_cluster.sh (real jobs),
# test_agent_job.sh (tuner trials as Slurm jobs, against a pg_virtualenv
# server with the installed extension) and test_executor.sh (studies with
# executor "slurm" through tuner.run: 6 trials 2 at a time, scancel,
# tuner.stop, a time limit, a node down with and without requeue, a
# preemption), test_fastquery_jobs.sh (a 6-trial FastQuery study as jobs,
# ranks as each job's srun tasks) and test_rocksdb_jobs.sh (a 4-trial
# RocksDB study as jobs; both need the installed runners), then stops the
# cluster with a job still running and checks that nothing is left.
# Exits non-zero on any failure.  About 7 minutes here (2 CPUs, with make
# install, 2026-12-03), most of it the two time-limit jobs, the requeued
# jobs' waits and a lost agent's lease.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
ROOT=$(pwd)
CLUSTER=$ROOT/tests/slurm/cluster.sh

export TUNER_SLURM_DIR
TUNER_SLURM_DIR=$(mktemp -d /tmp/tuner-slurm-suite.XXXXXX)
export TUNER_SLURM_PORT=${TUNER_SLURM_TEST_PORT:-47817}
export SLURM_CONF=$TUNER_SLURM_DIR/etc/slurm.conf
trap 'bash "$CLUSTER" purge >/dev/null 2>&1; rm -rf "$TUNER_SLURM_DIR"' EXIT

failed=0
ok() { echo "ok - $1"; }
not_ok() {
	echo "not ok - $1"
	[ -n "${2:-}" ] && echo "$2" | tail -20 | sed 's/^/    /'
	failed=$((failed + 1))
}
daemon_pids() { cat "$TUNER_SLURM_DIR"/run/*.pid 2>/dev/null | sort; }
alive() { # alive and not a zombie (a container's init may not reap)
	local stat
	stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ "$stat" != Z* ]]
}
alive_of() { # the PIDs of $@ that are alive
	local p
	for p in "$@"; do
		if alive "$p"; then echo "$p"; fi
	done
}

if out=$(bash "$CLUSTER" start 2>&1); then
	ok "start creates and starts the cluster ($(grep -o 'ready in .*' <<<"$out"))"
else
	not_ok "start creates and starts the cluster" "$out"
	for f in "$TUNER_SLURM_DIR"/log/*.log; do echo "--- $f"; tail -5 "$f"; done
	exit 1
fi
grep -qx "SLURM_CONF=$SLURM_CONF" <<<"$out" && ok "start prints SLURM_CONF" ||
	not_ok "start prints SLURM_CONF" "$out"
before=$(daemon_pids)
if out=$(bash "$CLUSTER" start 2>&1) && [ "$(daemon_pids)" = "$before" ]; then
	ok "start again keeps the running daemons ($(wc -l <<<"$before") PIDs)"
else
	not_ok "start again keeps the running daemons" "$out"
fi
status=$(bash "$CLUSTER" status 2>&1)
want="munged mariadbd slurmdbd slurmctld slurmd-tn1 slurmd-tn2"
got=$(grep -o '^[a-z0-9-]*: running' <<<"$status" | cut -d: -f1 | tr '\n' ' ')
[ "$got" = "$want " ] && ok "status: $want running" || not_ok "status names what runs" "$status"
grep -qE '^tn1 tuner\* idle' <<<"$status" && grep -qE '^tn2 tuner\* idle' <<<"$status" &&
	ok "status: tn1 and tn2 idle in partition tuner" || not_ok "status shows the nodes" "$status"

# The test files are TAP; prove runs each (the server tests each in its
# own throwaway PostgreSQL cluster) and checks its plan.
prove -v -e bash tests/slurm/test_cluster.sh || not_ok "tests/slurm/test_cluster.sh"
for t in test_agent_job test_executor test_fastquery_jobs test_rocksdb_jobs; do
	prove -v -e "pg_virtualenv -t bash" "tests/slurm/$t.sh" || not_ok "tests/slurm/$t.sh"
done

# stop with a job running: the job is cancelled, its processes and every
# daemon are gone.
work=$(mktemp -d /tmp/tuner-slurm-stop.XXXXXX)
chmod 755 "$work"
job=$(cd "$work" && sbatch --parsable -o /dev/null --wrap "sleep 600 & echo \$\$ \$! > $work/pids; wait")
for ((i = 0; i < 300; i++)); do
	[ -s "$work/pids" ] && break
	sleep 0.2
done
[ -s "$work/pids" ] || not_ok "job $job started before stop" "$(squeue)"
pids=$(daemon_pids)
if out=$(bash "$CLUSTER" stop 2>&1); then ok "stop"; else not_ok "stop" "$out"; fi
# shellcheck disable=SC2046,SC2086
left=$(alive_of $pids $(cat "$work/pids" 2>/dev/null))
[ -z "$left" ] && ok "stop leaves no daemon and no job process" ||
	not_ok "stop leaves no daemon and no job process" "$(ps -o pid,cmd -p "$(echo $left | tr ' ' ,)")"
left=$(grep -lzx "TUNER_SLURM_CLUSTER=$TUNER_SLURM_DIR" /proc/[0-9]*/environ 2>/dev/null)
[ -z "$left" ] && ok "no process of the cluster's daemons is left" ||
	not_ok "no process of the cluster's daemons is left" "$left"
bash "$CLUSTER" status >/dev/null 2>&1 && not_ok "status fails when nothing runs" ||
	ok "status fails when nothing runs"

# start again (the stopped cluster's state is kept), then the nodes' slurmd
# die under a running job: stop still leaves no process of that job.
rm -f "$work/pids"
if out=$(bash "$CLUSTER" start 2>&1); then
	ok "start resumes the stopped cluster ($(grep -o 'ready in .*' <<<"$out"))"
else
	not_ok "start resumes the stopped cluster" "$out"
fi
job=$(cd "$work" && sbatch --parsable -o /dev/null --wrap "sleep 600 & echo \$\$ \$! > $work/pids; wait")
for ((i = 0; i < 300; i++)); do
	[ -s "$work/pids" ] && break
	sleep 0.2
done
[ -s "$work/pids" ] || not_ok "job $job started after the restart" "$(squeue)"
kill -KILL "$(cat "$TUNER_SLURM_DIR/run/slurmd-tn1.pid")" "$(cat "$TUNER_SLURM_DIR/run/slurmd-tn2.pid")"
bash "$CLUSTER" stop >/dev/null 2>&1 || not_ok "stop after the slurmd were killed"
left=""
for p in $(cat "$work/pids" 2>/dev/null); do
	if alive "$p"; then left="$left $p"; fi
done
[ -z "$left" ] && ok "stop kills the job processes a dead slurmd left" ||
	not_ok "stop kills the job processes a dead slurmd left" "$(ps -o pid,cmd -p "${left// /,}")"
rm -rf "$work"

[ "$failed" -eq 0 ] && echo "slurm suite: all passed" || echo "slurm suite: $failed failed"
[ "$failed" -eq 0 ]
