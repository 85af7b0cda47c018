# shellcheck shell=bash
# lib.sh: what the slurm suite's tests against a server share; sourced
# after "set -euo pipefail" by test_agent_job.sh, test_executor.sh and
# test_fastquery_jobs.sh.
#
#   slurm_test_begin NAME DB: the repository's root as ROOT, the agent as
#     AGENT (TUNER_AGENT, default src/agent/tuner-agent), the test
#     cluster's SLURM_CONF, a fresh world-readable WORK directory whose
#     out/ any job may write, and the test's name for its messages.
#   slurm_test_database agent|plain: DB created afresh with tuner; with
#     "agent", a copy of the agent in WORK named by tuner.agent_path and
#     the cluster by tuner.slurm_conf, as a Slurm study needs.
#   slurm_test_cleanup [JOB...]: cancels the given jobs and every job
#     named tuner-trial-*, drops DB and removes WORK (the tests' EXIT trap).
#   watch_study_job STUDY SECONDS: waits until the study's tuner.run job
#     is no longer running (returns 1 if it still runs after SECONDS), and
#     leaves in MAX_OUT the most tuner-trial-* Slurm jobs outstanding at
#     once meanwhile.
#   max_overlap STUDY: the most trials of the study that ran at once.
#   fail MESSAGE, ok MESSAGE, sql STATEMENT, ... | note.
#
# The output is TAP: "ok N - ..." for each check, "not ok N - ..." for the
# one that failed (a test stops at its first failure), other lines as
# comments, and the plan "1..N" at exit (slurm_test_cleanup), so prove
# runs each file as a test (tests/slurm/run.sh).
SLURM_TEST_COUNT=0

slurm_test_begin() {
	SLURM_TEST_NAME=$1
	DB=$2
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	ROOT=$(pwd)
	AGENT=$(realpath "${TUNER_AGENT:-src/agent/tuner-agent}")
	if [ -z "${SLURM_CONF:-}" ]; then
		eval "$(bash "$ROOT/tests/slurm/cluster.sh" env)"
		export SLURM_CONF
	fi
	WORK=$(mktemp -d "/tmp/tuner-$SLURM_TEST_NAME.XXXXXX")
	chmod 755 "$WORK"
	mkdir -m 1777 "$WORK/out"
	[ -x "$AGENT" ] || fail "$AGENT is not built (make agent)"
	[ -f "$SLURM_CONF" ] || fail "no Slurm cluster ($SLURM_CONF); tests/slurm/cluster.sh start"
}

slurm_test_database() {
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
		-c "CREATE DATABASE $DB"
	sql "CREATE EXTENSION tuner" >/dev/null
	if [ "${1:-}" = agent ]; then
		cp "$AGENT" "$WORK/tuner-agent"
		sql "ALTER DATABASE $DB SET tuner.slurm_conf = '$SLURM_CONF'" >/dev/null
		sql "ALTER DATABASE $DB SET tuner.agent_path = '$WORK/tuner-agent'" >/dev/null
	fi
}

slurm_test_cleanup() {
	local jobs
	echo "1..$SLURM_TEST_COUNT"
	jobs=$(squeue -h -o '%i %j' 2>/dev/null | awk '$2 ~ /^tuner-trial-/ {print $1}' | tr '\n' ' ') || true
	jobs="$jobs $*"
	# shellcheck disable=SC2086
	[ -n "${jobs// /}" ] && scancel $jobs 2>/dev/null
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}

watch_study_job() {
	local i n
	MAX_OUT=0
	for ((i = 0; i < $2 * 5; i++)); do
		n=$(squeue -h -t PENDING,RUNNING,CONFIGURING -o %j | grep -c '^tuner-trial-' || true)
		[ "$n" -gt "$MAX_OUT" ] && MAX_OUT=$n
		[ "$(sql "SELECT count(*) FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
		           WHERE s.name = '$1' AND j.state = 'running'")" = 0 ] && return 0
		sleep 0.2
	done
	return 1
}

max_overlap() {
	sql "SELECT max(n) FROM (SELECT count(*) AS n FROM tuner.trials a JOIN tuner.trials b
	       ON b.study = a.study AND b.started_at <= a.started_at AND b.finished_at > a.started_at
	      WHERE a.study = '$1' GROUP BY a.number) c"
}

# The jobs' output files' tails, between two copies of the message: the
# last lines of a CI log name the failure.
fail() {
	local f
	SLURM_TEST_COUNT=$((SLURM_TEST_COUNT + 1))
	echo "not ok $SLURM_TEST_COUNT - $(head -1 <<<"$*")"
	echo "$SLURM_TEST_NAME: FAILED: $*" >&2
	for f in "$WORK"/*.out "$WORK"/out/*.out; do
		[ -f "$f" ] || continue
		echo "--- $f" >&2
		tail -20 "$f" >&2
	done
	echo "$SLURM_TEST_NAME: FAILED: $*" >&2
	exit 1
}
ok() {
	SLURM_TEST_COUNT=$((SLURM_TEST_COUNT + 1))
	echo "ok $SLURM_TEST_COUNT - $1"
}
sql() { psql -X -At -v ON_ERROR_STOP=1 -d "$DB" -c "$1"; }
note() { sed 's/^/# /'; } # what a test shows besides its checks, as TAP comments
