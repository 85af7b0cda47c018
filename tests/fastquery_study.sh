#!/bin/bash
# fastquery_study.sh: a short fastquery study end to end through the
# background workers.  tuner.run runs 4 trials of the preset at 2^20
# particles (tuner_fastquery_runner -> mpiexec.mpich -> tuner_fastquery
# gen/build/query); every trial completes with its metrics in
# tuner.observation, trial 1 is the default configuration.  Then a study
# whose trial_timeout_s is shorter than a trial: the worker's timeout
# ends the runner, the runner kills mpiexec with its proxy and ranks (no
# process of the trial is left) and the trial is failed.
# Needs a server reachable through the PG* environment (pg_virtualenv)
# with tuner installed.  FQ_RUNNER: the runner program to register
# (default: tuner_fastquery_runner from PostgreSQL's bindir, installed by
# make install-runner-fastquery).
set -euo pipefail
cd "$(dirname "$0")/.."

DB=tuner_fastquery_study
RUNNER=${FQ_RUNNER:-tuner_fastquery_runner}
WORK=$(mktemp -d /tmp/tuner-fq-study.XXXXXX)
# the server (user postgres) writes the data sets and indexes here
chmod 1777 "$WORK"
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
check() {
	local what=$1 got=$2 want=$3
	if [ "$got" = "$want" ]; then
		echo "ok: $what"
		passed=$((passed + 1))
	else
		echo "FAILED: $what: got '$got', want '$want'"
		failed=$((failed + 1))
	fi
}
q() {
	psql -X -A -t -v ON_ERROR_STOP=1 -d "$DB" -c "$1"
}
# Wait up to $2 seconds for query $1 to print t.
wait_for() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ "$(q "$1")" = t ] && return 0
		sleep 0.2
	done
	return 1
}
# Processes whose command line mentions $1 (the study's data dir).
procs_of() {
	ps -eo pid=,stat=,args= | awk -v dir="$1" 'index($0, dir) && $2 !~ /^Z/ && $3 != "awk" && $3 != "ps" { print $1 }'
}

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q "CREATE EXTENSION tuner" >/dev/null
q "SELECT tuner.register_runner('fastquery', '$RUNNER')" >/dev/null

# 1. Four trials through one background worker.
q "SELECT tuner.create_study('fq', preset => 'fastquery', settings => '{\"seed\": 3, \"trial_timeout_s\": 300,
   \"runner\": {\"particles\": 1048576, \"random_queries\": 4, \"data_dir\": \"$WORK/data\"}}')" >/dev/null
check "tuner.run starts one worker" "$(q "SELECT tuner.run('fq', 4)")" 1
wait_for "SELECT state = 'finished' FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id WHERE s.name = 'fq'" 600 ||
	echo "the job did not finish in 600 s"
check "four trials, all complete" \
	"$(q "SELECT string_agg(number || ':' || state, ',' ORDER BY number) FROM tuner.trials WHERE study = 'fq'")" \
	"1:complete,2:complete,3:complete,4:complete"
q "SELECT number, error FROM tuner.trials WHERE study = 'fq' AND state <> 'complete'"
check "trial 1 is the default configuration" \
	"$(q "SELECT params = '{\"io\": \"collective\", \"bins\": 64, \"align\": \"0\", \"ranks\": 1, \"layout\": \"contiguous\", \"overlap\": false, \"threads\": 1, \"cb_nodes\": 1, \"romio_cb_read\": \"automatic\", \"romio_ds_read\": \"automatic\", \"cb_buffer_size\": 16777216, \"romio_cb_write\": \"automatic\"}'::jsonb
	     FROM tuner.trials WHERE study = 'fq' AND number = 1")" t
check "objective and auxiliary metrics of every trial are in tuner.observation" \
	"$(q "SELECT count(*) FROM tuner.observation o JOIN tuner.trial t ON t.id = o.trial_id
	       JOIN tuner.study s ON s.id = t.study_id JOIN tuner.metric m ON m.id = o.metric_id
	      WHERE s.name = 'fq' AND m.name IN ('total_s', 'read_s', 'index_s', 'write_s') AND o.value > 0")" 16
check "total_s is build_s + query_s" \
	"$(q "SELECT bool_and(abs(value - (metrics ->> 'build_s')::float8 - (metrics ->> 'query_s')::float8) < 1e-9)
	       FROM tuner.trials WHERE study = 'fq'")" t
check "the effective hints are stored, none of the tuned ones ignored" \
	"$(q "SELECT bool_and(details -> '_effective' -> 'hints_data' ? 'cb_buffer_size'
	                 AND details -> '_effective' -> 'ignored_hints' = '[]'
	                 AND details -> '_effective' ->> 'fs_type_romio' LIKE 'UFS%')
	       FROM tuner.trials WHERE study = 'fq'")" t
check "each trial's ranks and cb_buffer_size reached ROMIO" \
	"$(q "SELECT bool_and(details -> '_effective' -> 'hints_data' ->> 'cb_buffer_size' = params ->> 'cb_buffer_size'
	                 AND details -> '_effective' -> 'hints_data' ->> 'cb_nodes' = params ->> 'cb_nodes')
	       FROM tuner.trials WHERE study = 'fq'")" t
check "no process of the study is left" "$(procs_of "$WORK/data" | wc -l)" 0
# issue 30: the runner streamed one line per phase on fd 3 (steps 1, 2, 3:
# gen, build, query), stored by the worker; the last running total_s is
# the trial's total_s
check "every trial's three phases are in tuner.trial_progress, the last total_s the trial's" \
	"$(q "SELECT count(*) = 4 AND bool_and(steps = '{1,2,3}' AND abs(last_total - value) < 1e-9)
	       FROM (SELECT tr.value, array_agg(p.step ORDER BY p.step)::int[] AS steps,
	                    max((p.metrics ->> 'total_s')::float8) FILTER (WHERE p.step = 3) AS last_total
	               FROM tuner.trials tr JOIN tuner.trial_progress p ON p.trial_id = tr.trial
	              WHERE tr.study = 'fq' GROUP BY tr.trial, tr.value) x")" t

# 2. A trial longer than trial_timeout_s: 2^24 particles into an empty
# data dir (gen, build and the queries take ~7 s on a quiet 2-core
# machine; 2^22 took only 1.8 s there and completed within the timeout).
q "SELECT tuner.create_study('fq_timeout', preset => 'fastquery', settings => '{\"seed\": 4,
   \"trial_timeout_s\": 3, \"kill_grace_s\": 2,
   \"runner\": {\"particles\": 16777216, \"data_dir\": \"$WORK/slow\"}}')" >/dev/null
q "SELECT tuner.run('fq_timeout', 1)" >/dev/null
# mpiexec and the rank name the data dir; the rank's parent is Hydra's
# proxy (a session of its own, out of reach of a process-group kill).
tree=""
for ((i = 0; i < 200; i++)); do
	pids=$(procs_of "$WORK/slow")
	if [ "$(echo "$pids" | grep -c .)" -ge 2 ]; then
		tree=$pids
		for p in $pids; do
			parent=$(awk '{print $4}' "/proc/$p/stat" 2>/dev/null || true)
			if [ -n "$parent" ] && grep -q hydra_pmi_proxy "/proc/$parent/comm" 2>/dev/null; then
				tree="$tree $parent"
			fi
		done
		break
	fi
	sleep 0.05
done
check "mpiexec, Hydra's proxy and the rank were running" "$(echo $tree | wc -w)" 3
wait_for "SELECT state = 'finished' FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id WHERE s.name = 'fq_timeout'" 120 ||
	echo "the timeout job did not finish in 120 s"
check "the timed-out trial failed" \
	"$(q "SELECT state || ': ' || (error LIKE 'runner timed out after 3 s%') FROM tuner.trials WHERE study = 'fq_timeout'")" \
	"failed: true"
sleep 0.5
left=0
for p in $tree; do
	if [ -e "/proc/$p/stat" ] && [ "$(awk '{print $3}' "/proc/$p/stat")" != Z ]; then
		left=$((left + 1))
	fi
done
check "no mpiexec, proxy or rank of the timed-out trial is left" "$left" 0
check "no other process of the timed-out trial is left" "$(procs_of "$WORK/slow" | wc -l)" 0

psql -X -q -d postgres -c "DROP DATABASE $DB"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
