#!/bin/bash
# bench/slurm/slurm_bench.sh: the measurement of bench/slurm/run.sh (see
# there), against the server in PG* and the Slurm cluster of SLURM_CONF.
#
# Each run is one study (two float parameters, the same seed) of TRIALS
# trials through tuner.run(study, TRIALS, 2): executor 'slurm' (each trial
# a job on the two exclusive nodes) or 'local' (2 background workers).
# The runner sleeps DURATION s and prints a value.  Per run: the wall
# time from tuner.run to the job's end (tuner.job created_at to
# finished_at), trials per minute over it, and the overhead per trial
# (finished_at - started_at - DURATION: for Slurm, sbatch, the queue,
# the agent's start and claim, the recording).
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
	# executor name wall_s trials_per_min overhead min median max
	sql "SELECT '$1 $2 ' || round(extract(epoch FROM j.finished_at - j.created_at)::numeric, 1)
	            || ' ' || round(($TRIALS * 60 / extract(epoch FROM j.finished_at - j.created_at))::numeric, 1)
	            || ' ' || round(min(d)::numeric, 2) || ' '
	            || round((percentile_cont(0.5) WITHIN GROUP (ORDER BY d))::numeric, 2)
	            || ' ' || round(max(d)::numeric, 2)
	       FROM tuner.job j JOIN tuner.study s ON s.id = j.study_id
	       JOIN (SELECT study, extract(epoch FROM finished_at - started_at) - $DURATION AS d
	               FROM tuner.trials WHERE study = '$2') t ON t.study = s.name
	      WHERE s.name = '$2' GROUP BY j.finished_at, j.created_at" | tee -a "$WORK/results"
}

echo "# $(date -u +%FT%TZ) commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')," \
	"TRIALS=$TRIALS DURATION=$DURATION ROUNDS=$ROUNDS, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# executor study wall_s trials_per_min overhead_s(min median max)"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="slurm local"; else order="local slurm"; fi
	for e in $order; do run "$e" "${e}_$r"; done
done
awk '{ w[$1] += $3; n[$1]++ } END {
	s = n["slurm"] * 60 * '"$TRIALS"' / w["slurm"]; l = n["local"] * 60 * '"$TRIALS"' / w["local"]
	printf "trials per minute (all rounds): slurm %.1f, local %.1f; slurm/local %.2f\n", s, l, s / l
	printf "wall time per trial slot beyond the runner (s): slurm %.2f, local %.2f\n",
		w["slurm"] / n["slurm"] * 2 / '"$TRIALS"' - '"$DURATION"', w["local"] / n["local"] * 2 / '"$TRIALS"' - '"$DURATION"'
}' "$WORK/results"
