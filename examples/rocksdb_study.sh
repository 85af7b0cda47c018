#!/bin/bash
# rocksdb_study.sh: the main job.  A real RocksDB tuning study: the
# "rocksdb" preset (the paper's Table 1, db_bench mixgraph scaled to this
# machine, each trial measured paired with the default configuration),
# run by tuner's background workers, printed one row per finished trial;
# then the configuration tuner.recommend picks is confirmed by more paired
# runs (tuner.confirm) and its improvement over the default is printed
# with its 95 % confidence interval.  Needs a server where the caller may
# run programs (superuser or pg_execute_server_program) and the connection
# in PG* variables.
#
#   TRIALS      trials to run (default 10)
#   DURATION    seconds of each db_bench run (default 30; a paired trial
#               is two runs plus restoring the DB and a final compaction)
#   PARALLEL    background workers (default 1: parallel trials share the
#               machine's disk and cores and disturb each other's numbers)
#   CONFIRM_PAIRS  paired runs that confirm the recommended configuration
#               (default 3, at least 2)
set -euo pipefail

TRIALS=${TRIALS:-10}
DURATION=${DURATION:-30}
PARALLEL=${PARALLEL:-1}
CONFIRM_PAIRS=${CONFIRM_PAIRS:-3}
STUDY=rocksdb_study

sql() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

sql -c "CREATE EXTENSION IF NOT EXISTS tuner"
sql -v study="$STUDY" -v duration="$DURATION" <<'SQL'
SELECT count(tuner.drop_study(name)) AS dropped FROM tuner.study WHERE name = :'study' \gset
SELECT tuner.create_study(:'study', preset => 'rocksdb',
		settings => jsonb_build_object('seed', 42,
			'runner', jsonb_build_object('duration_s', :duration::int))) > 0 AS created \gset
-- its typed view: best_so_far as tuner.best decides (only trials that met
-- every outcome constraint count)
SELECT tuner.create_view(:'study') AS view_name \gset
SQL

echo "Study $STUDY: RocksDB db_bench mixgraph, 10 parameters (paper Table 1, scaled),"
echo "objective ratio_to_default (paired with the default configuration), $TRIALS trials of ${DURATION} s runs"
echo

sql -c "SELECT tuner.run('$STUDY', trials => $TRIALS, parallel => $PARALLEL) AS workers_started" >/dev/null

# One row per finished trial: print each as it completes, as fixed-width
# columns so that rows printed at different times line up.
FMT='%5s | %-8s | %-7s | %12s | %7s | %10s | %11s | %10s | %11s | %11s | %6s | %11s | %s'
ROW_SQL="
SELECT format('$FMT', t.number, t.state, t.source,
	   t.params ->> 'write_buffer_size', t.params ->> 'max_write_buffer_number',
	   t.params ->> 'level0_file_num_compaction_trigger',
	   t.params ->> 'max_background_compactions', t.params ->> 'block_size',
	   round((t.metrics ->> 'ops_per_sec')::numeric),
	   round((t.metrics ->> 'ops_per_sec_default')::numeric),
	   round(t.value::numeric, 3),
	   round(v.best_so_far::numeric, 3),
	   left(t.error, 60))
  FROM tuner.trials t
  JOIN tuner.${STUDY}_trials v ON v.trial = t.trial
 WHERE t.study = '$STUDY' AND t.state NOT IN ('running', 'queued')
 ORDER BY t.number"
# shellcheck disable=SC2059
printf "$FMT\n" trial state source write_buffer buffers l0_trigger compactions \
	block_size ops_per_sec default_ops ratio best_so_far error
printf -- '-%.0s' $(seq 1 150); echo

# Print each trial as it finishes until $1 trials have; fail if the
# workers stop early or the run takes far longer than its trials should.
shown=0
follow() {
	local total=$1 runs=$2 deadline done_count running workers left
	deadline=$((SECONDS + runs * (4 * DURATION + 120) + 300))
	while :; do
		done_count=$(psql -X -At -c "SELECT count(*) FROM tuner.trials WHERE study = '$STUDY' AND state NOT IN ('running', 'queued')")
		if [ "$done_count" -gt "$shown" ]; then
			psql -X -At -c "$ROW_SQL OFFSET $shown LIMIT $((done_count - shown))"
			shown=$done_count
		fi
		[ "$shown" -ge "$total" ] && break
		running=$(psql -X -At -c "SELECT count(*) FROM tuner.progress WHERE study = '$STUDY' AND alive")
		workers=$(psql -X -At -c "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'tuner worker'")
		if [ "$running" -eq 0 ] && [ "$workers" -eq 0 ]; then
			sleep 2
			left=$(psql -X -At -c "SELECT count(*) FROM tuner.trials WHERE study = '$STUDY' AND state NOT IN ('running', 'queued')")
			if [ "$left" -le "$shown" ]; then
				echo "rocksdb_study.sh: the workers stopped after $shown of $total trials" >&2
				exit 1
			fi
		fi
		if [ $SECONDS -gt "$deadline" ]; then
			echo "rocksdb_study.sh: timed out after $shown of $total trials" >&2
			exit 1
		fi
		sleep 3
	done
}
follow "$TRIALS" "$TRIALS"

# A single paired trial is one noisy measurement (about 10 % on a busy
# machine), so the best one is partly luck: it is shown as that, and the
# result is the recommended configuration confirmed by more paired runs.
echo
echo "Best single trial (tuner.best; one noisy measurement, not the result):"
psql -X -P footer=off <<SQL
SELECT b.trial, t.number, round(b.value::numeric, 3) AS ratio_to_default,
	   round((t.metrics ->> 'ops_per_sec')::numeric) AS ops_per_sec,
	   round((t.metrics ->> 'ops_per_sec_default')::numeric) AS default_ops_per_sec
  FROM tuner.best('$STUDY') b JOIN tuner.trials t ON t.trial = b.trial;
SQL

echo "Configuration to keep (tuner.recommend: the tried one with the highest GP posterior mean):"
psql -X -P footer=off <<SQL
SELECT r.trial, t.number, round(r.value::numeric, 3) AS measured_ratio,
	   round(r.predicted::numeric, 3) AS predicted_ratio,
	   round(r.predicted_sd::numeric, 3) AS predicted_sd
  FROM tuner.recommend('$STUDY') r JOIN tuner.trials t ON t.trial = r.trial;
SELECT e.key AS parameter, e.value
  FROM tuner.recommend('$STUDY') r, jsonb_each(r.params) e ORDER BY e.key;
SQL

echo "Confirming it: $CONFIRM_PAIRS more paired runs against the default (tuner.confirm)"
queued=$(psql -X -At -v ON_ERROR_STOP=1 -c "SELECT tuner.confirm('$STUDY', pairs => $CONFIRM_PAIRS)")
psql -X -q -v ON_ERROR_STOP=1 -c "SELECT tuner.run('$STUDY', trials => $queued, parallel => 1)" >/dev/null
follow $((TRIALS + queued)) "$queued"

echo
psql -X -P footer=off <<SQL
SELECT number AS confirmed_trial, pairs, round(ratio::numeric, 3) AS ratio,
	   round(ratio_low::numeric, 3) AS ratio_low, round(ratio_high::numeric, 3) AS ratio_high,
	   round(p_value::numeric, 3) AS p_value, verdict, lost
  FROM tuner.confirmation('$STUDY');
SQL
psql -X -At -v ON_ERROR_STOP=1 <<SQL
SELECT CASE
	WHEN verdict = 'too few pairs' THEN
		format('No confirmed result: only %s of the %s pairs completed.', pairs, $CONFIRM_PAIRS)
	WHEN verdict = 'no change shown' THEN
		format('No improvement over the default was shown: %s %% [%s, %s] (95 %% CI, %s pairs) contains no change.',
			   to_char(change_pct, 'FMSG9990.0'), to_char(change_low_pct, 'FMSG9990.0'),
			   to_char(change_high_pct, 'FMSG9990.0'), pairs)
	ELSE
		format('%s over the default: %s %% [%s, %s] (95 %% CI, %s pairs)',
			   CASE verdict WHEN 'improvement' THEN 'Improvement' ELSE 'Regression' END,
			   to_char(change_pct, 'FMSG9990.0'), to_char(change_low_pct, 'FMSG9990.0'),
			   to_char(change_high_pct, 'FMSG9990.0'), pairs)
	END
  FROM tuner.confirmation('$STUDY');
SQL
