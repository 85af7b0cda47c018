#!/bin/bash
# bench/slurm/slurm_bench.sh: the measurement of bench/slurm/run.sh (see
# there), against the server in PG* and the Slurm cluster of SLURM_CONF.
#
# Each run is one study (two float parameters, the same seed) of TRIALS
# trials through tuner.run(study, TRIALS, 2): executor 'slurm' (each trial
# a job on the two exclusive nodes) or 'local' (2 background workers).
# The runner sleeps DURATION s and prints a value.  Per run: the wall
# time from tuner.run to the job's end (tuner.job created_at to
# finished_at), trials per minute over it, the overhead per trial
# (finished_at - started_at - DURATION: for Slurm, sbatch, the queue,
# the agent's start and claim, the recording) and for Slurm the jobs'
# mean queue wait (sacct: start - submit, whole seconds).
set -euo pipefail
TRIALS=${TRIALS:-20}
DURATION=${DURATION:-2}
ROUNDS=${ROUNDS:-2}
# shellcheck source=tests/slurm/lib.sh
. "$(dirname "$0")/../../tests/slurm/lib.sh"
slurm_test_begin bench_slurm tuner_bench_slurm
trap slurm_test_cleanup EXIT
slurm_test_database agent
cat >"$WORK/sleep.sh" <<SH
#!/bin/sh
cat >/dev/null
sleep $DURATION
echo '{"value": 1}'
SH
chmod 755 "$WORK/sleep.sh"
sql "SELECT tuner.register_runner('bench_sleep', '$WORK/sleep.sh')" >/dev/null

run() { # run EXECUTOR NAME: one study of TRIALS trials, 2 at a time
	local settings='{"seed": 31, "lease_s": 60, "trial_timeout_s": 120, "executor": "'$1'"'
	[ "$1" = slurm ] && settings="$settings"', "slurm": {"time_limit_s": 300}'
	sql "SELECT tuner.create_study('$2', 'value', 'minimize', '$settings}', runner => 'bench_sleep')" >/dev/null
	sql "SELECT tuner.add_parameter('$2', 'x', 'float', 0, 1)" >/dev/null
	sql "SELECT tuner.add_parameter('$2', 'y', 'float', 0, 1)" >/dev/null
	[ "$(sql "SELECT tuner.run('$2', $TRIALS, 2)")" = 2 ] || fail "tuner.run($2) did not start 2 workers"
	for ((i = 0; i < 3000; i++)); do
		[ "$(sql "SELECT count(*) FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
		           WHERE s.name = '$2' AND j.state = 'running'")" = 0 ] && break
		sleep 0.2
	done
	[ "$(sql "SELECT count(*) FROM tuner.trials WHERE study = '$2' AND state = 'complete'")" = "$TRIALS" ] ||
		fail "$2: not all $TRIALS trials complete: $(sql "SELECT state, count(*) FROM tuner.trials WHERE study = '$2' GROUP BY 1")"
	# executor name wall_s trials_per_min overhead(min median mean max)
	# queue_wait(mean)
	sql "SELECT '$1 $2 ' || round(extract(epoch FROM j.finished_at - j.created_at)::numeric, 1)
	            || ' ' || round(($TRIALS * 60 / extract(epoch FROM j.finished_at - j.created_at))::numeric, 1)
	            || ' ' || round(min(d)::numeric, 2) || ' '
	            || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)
	            || ' ' || round(avg(d)::numeric, 2) || ' ' || round(max(d)::numeric, 2)
	            || ' ' || COALESCE(round(avg(w)::numeric, 2)::text, '-')
	       FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
	       JOIN (SELECT study, extract(epoch FROM finished_at - started_at) - $DURATION AS d,
	                    (details -> 'slurm' ->> 'queue_wait_s')::float8 AS w
	               FROM tuner.trials WHERE study = '$2') t ON t.study = s.name
	      WHERE s.name = '$2' GROUP BY j.finished_at, j.created_at" | tee -a "$WORK/results"
}

echo "# $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')," \
	"TRIALS=$TRIALS DURATION=$DURATION ROUNDS=$ROUNDS, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# executor study wall_s trials_per_min overhead_s(min median mean max) queue_wait_s(mean)"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="slurm local"; else order="local slurm"; fi
	for e in $order; do run "$e" "${e}_$r"; done
done
# Per trial and slot (2 slots): the wall time beyond the runner is the
# overhead inside a trial (claim to outcome) plus the gap between a
# slot's trials (the job's end, the accounting, the next claim).
awk -v T="$TRIALS" -v D="$DURATION" '{ w[$1] += $3; o[$1] += $7; n[$1]++ } END {
	s = n["slurm"] * 60 * T / w["slurm"]; l = n["local"] * 60 * T / w["local"]
	printf "trials per minute (all rounds): slurm %.1f, local %.1f; slurm/local %.2f\n", s, l, s / l
	for (e in n) {
		slot = w[e] / n[e] * 2 / T - D
		printf "%s, per trial and slot beyond the runner (s): %.2f = %.2f inside the trial + %.2f between trials\n",
			e, slot, o[e] / n[e], slot - o[e] / n[e]
	}
}' "$WORK/results"
