#!/bin/bash
# bench/confirm/run.sh: issue 29's benchmark, results a user can trust on
# a busy machine.  The main job's study (examples/rocksdb_study.sh: the
# rocksdb preset, TRIALS trials, then the recommended configuration
# confirmed by PAIRS paired runs) and a control (the default
# configuration confirmed against itself, PAIRS pairs), run twice: on a
# quiet machine, and with a CPU hog of one core switched on and off at
# seeded random intervals (5-14 s on, 5-14 s off).  Prints per condition
# the confirmation of both, the trials flagged disturbed and each trial's
# share of the CPU used by others.  So that the two conditions are
# compared on one configuration, the hog condition also confirms the
# configuration the quiet run confirmed (queued again with tuner.enqueue
# when the hog's own study recommended another) and prints whether its
# ratio lies in the quiet run's interval.  Needs tuner and tuner_rocksdb
# installed and a server in the PG* environment (pg_virtualenv), e.g.
#
#   pg_virtualenv -t bash bench/confirm/run.sh
#
#   TRIALS=10 DURATION=30 PAIRS=3 SEED=7
set -euo pipefail
cd "$(dirname "$0")/../.."

TRIALS=${TRIALS:-10}
DURATION=${DURATION:-30}
PAIRS=${PAIRS:-3}
SEED=${SEED:-7}
STUDY=rocksdb_study
OUT=$(mktemp -d /tmp/tuner-bench-confirm.XXXXXX)
HOG_PID=

sql() { psql -X -At -v ON_ERROR_STOP=1 "$@"; }

# One core busy for 5-14 s, idle for 5-14 s, and again, from SEED.
start_hog() {
	setsid bash -c "RANDOM=$SEED
		while :; do
			sleep \$((RANDOM % 10 + 5))
			timeout \$((RANDOM % 10 + 5)) sh -c 'while :; do :; done' || true
		done" </dev/null >/dev/null 2>&1 &
	HOG_PID=$!
}
stop_hog() {
	if [ -n "$HOG_PID" ]; then
		kill -- -"$HOG_PID" 2>/dev/null || kill "$HOG_PID" 2>/dev/null || true
		HOG_PID=
	fi
}
trap stop_hog EXIT

wait_idle() {
	local deadline=$((SECONDS + 3600))
	while [ "$(sql -c "SELECT count(*) FROM tuner.trials WHERE study = '$STUDY' AND state IN ('queued', 'running')")" != 0 ]; do
		[ $SECONDS -lt $deadline ] || { echo "bench/confirm: timed out" >&2; exit 1; }
		sleep 5
	done
}

condition() {
	local name=$1 hog=$2 n
	[ "$hog" = yes ] && start_hog
	echo "== $name (hog: $hog), $TRIALS trials of ${DURATION} s runs, $PAIRS pairs"
	TRIALS=$TRIALS DURATION=$DURATION CONFIRM_PAIRS=$PAIRS PARALLEL=1 \
		bash examples/rocksdb_study.sh > "$OUT/$name.log"
	tail -n 1 "$OUT/$name.log"
	# the control: the default configuration (trial 1) against itself
	n=$(sql -c "SELECT tuner.confirm('$STUDY', tuner.trial_id('$STUDY', 1), pairs => $PAIRS)")
	sql -c "SELECT tuner.run('$STUDY', trials => $n, parallel => 1)" >/dev/null
	wait_idle
	[ "$hog" = yes ] && confirm_quiet_configuration
	stop_hog
	psql -X -P footer=off -c "
SELECT number AS confirmed_trial, pairs, round(ratio::numeric, 3) AS ratio,
       round(ratio_low::numeric, 3) AS low, round(ratio_high::numeric, 3) AS high,
       round(p_value::numeric, 3) AS p, verdict, disturbed
  FROM tuner.confirmation('$STUDY') ORDER BY number"
	psql -X -P footer=off -c "
SELECT source, confirms, count(*) AS trials, count(*) FILTER (WHERE disturbed) AS disturbed,
       round(avg((details #>> '{context,others_cpu_share}')::numeric), 3) AS mean_others,
       round(max((details #>> '{context,others_cpu_share}')::numeric), 3) AS max_others,
       round(avg(value)::numeric, 3) AS mean_ratio,
       round((stddev(value) / avg(value))::numeric, 3) AS cv
  FROM tuner.trials WHERE study = '$STUDY' AND state = 'complete'
 GROUP BY source, confirms ORDER BY source, confirms"
}

# The configuration the main job confirmed (its first confirmation run's
# target) and the interval the run gave it.
main_confirmed() {
	sql -c "SELECT c.trial, t.params, c.ratio, c.ratio_low, c.ratio_high
	          FROM tuner.confirmation('$STUDY') c JOIN tuner.trials t ON t.trial = c.trial
	         WHERE c.trial = (SELECT confirms FROM tuner.trials
	                           WHERE study = '$STUDY' AND source = 'confirm'
	                           ORDER BY number LIMIT 1)" -F '|'
}

# Under the hog: confirm the quiet run's configuration (QUIET_PARAMS) in
# this study too, and compare its ratio with the quiet run's interval.
confirm_quiet_configuration() {
	local trial n
	trial=$(sql -c "SELECT min(trial) FROM tuner.trials
	                 WHERE study = '$STUDY' AND state = 'complete'
	                   AND source NOT IN ('confirm', 'baseline') AND params = '$QUIET_PARAMS'::jsonb")
	if [ -z "$trial" ]; then
		trial=$(sql -c "SELECT tuner.enqueue('$STUDY', '$QUIET_PARAMS'::jsonb)")
		sql -c "SELECT tuner.run('$STUDY', trials => 1, parallel => 1)" >/dev/null
		wait_idle
	fi
	# the control may have confirmed it already (the default)
	if [ "$(sql -c "SELECT count(*) FROM tuner.confirmation('$STUDY') c
	                 WHERE c.trial = $trial AND c.pairs >= $PAIRS")" = 0 ]; then
		n=$(sql -c "SELECT tuner.confirm('$STUDY', $trial, pairs => $PAIRS)")
		sql -c "SELECT tuner.run('$STUDY', trials => $n, parallel => 1)" >/dev/null
		wait_idle
	fi
	psql -X -P footer=off -c "
SELECT c.trial, c.pairs, round(c.ratio::numeric, 3) AS hog_ratio,
       round(c.ratio_low::numeric, 3) AS hog_low, round(c.ratio_high::numeric, 3) AS hog_high,
       $QUIET_RATIO AS quiet_ratio, $QUIET_LOW AS quiet_low, $QUIET_HIGH AS quiet_high,
       c.ratio BETWEEN $QUIET_LOW AND $QUIET_HIGH AS hog_ratio_in_quiet_ci, c.disturbed
  FROM tuner.confirmation('$STUDY') c WHERE c.trial = $trial"
}

condition quiet no
IFS='|' read -r _ QUIET_PARAMS QUIET_RATIO QUIET_LOW QUIET_HIGH <<<"$(main_confirmed)"
echo "quiet run confirmed $QUIET_PARAMS: $QUIET_RATIO [$QUIET_LOW, $QUIET_HIGH]"
condition hog yes
echo "bench/confirm: logs in $OUT"
