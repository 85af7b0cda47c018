#!/bin/bash
# concurrency.sh: concurrent tuner.suggest_next from many sessions never
# produces duplicate trial numbers, never loses a trial and never suggests
# the same configuration twice.  pgbench runs 8 clients against one study:
# first suggest + report transactions, then suggest-only transactions that
# leave trials running (pending).  Needs a server reachable through the PG*
# environment (pg_virtualenv) with tuner installed.
set -euo pipefail
cd "$(dirname "$0")/.."

DB=tuner_concurrency
CLIENTS=8
REPORTED_PER_CLIENT=10
PENDING_PER_CLIENT=2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
CREATE EXTENSION tuner;
SELECT tuner.create_study('conc', 'value', 'minimize', '{"seed": 7, "n_initial": 6}');
SELECT tuner.add_parameter('conc', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('conc', 'y', 'float', 0, 1);
SELECT tuner.add_parameter('conc', 'n', 'int', 1, 50);
SQL

cat > "$WORK/suggest_report.sql" <<'SQL'
SELECT (s ->> 'trial')::bigint AS trial,
       (s -> 'params' ->> 'x')::float8 AS x,
       (s -> 'params' ->> 'y')::float8 AS y,
       (s -> 'params' ->> 'n')::int AS n
  FROM (SELECT tuner.suggest_next('conc') AS s) q \gset
SELECT tuner.report(:trial, jsonb_build_object('value', (:x - 0.3) ^ 2 + (:y - 0.6) ^ 2 + ((:n - 20) / 50.0) ^ 2, 'client', :client_id));
SQL
cat > "$WORK/suggest_only.sql" <<'SQL'
SELECT tuner.suggest_next('conc');
SQL

echo "concurrency: $CLIENTS clients x $REPORTED_PER_CLIENT suggest+report"
pgbench -n -c "$CLIENTS" -j 2 -t "$REPORTED_PER_CLIENT" -f "$WORK/suggest_report.sql" "$DB"
echo "concurrency: $CLIENTS clients x $PENDING_PER_CLIENT suggest (left running)"
pgbench -n -c "$CLIENTS" -j 2 -t "$PENDING_PER_CLIENT" -f "$WORK/suggest_only.sql" "$DB"

reported=$((CLIENTS * REPORTED_PER_CLIENT))
pending=$((CLIENTS * PENDING_PER_CLIENT))
total=$((reported + pending))

result=$(psql -X -At -v ON_ERROR_STOP=1 -d "$DB" <<SQL
SELECT concat_ws(' ',
       count(*) = $total,
       count(DISTINCT number) = count(*),
       min(number) = 1 AND max(number) = $total,
       count(*) FILTER (WHERE state = 'complete') = $reported,
       count(*) FILTER (WHERE state = 'running') = $pending,
       count(DISTINCT params) = count(*))
  FROM tuner.trials WHERE study = 'conc';
SQL
)
psql -X -v ON_ERROR_STOP=1 -d "$DB" -c "
SELECT count(*) AS trials, count(DISTINCT number) AS distinct_numbers,
       min(number), max(number),
       count(*) FILTER (WHERE state = 'complete') AS complete,
       count(*) FILTER (WHERE state = 'running') AS running,
       count(DISTINCT params) AS distinct_configs,
       round(min(value)::numeric, 5) AS best
  FROM tuner.trials WHERE study = 'conc';"

if [ "$result" != "t t t t t t" ]; then
	psql -X -q -d postgres -c "DROP DATABASE $DB"
	echo "concurrency: FAILED (checks: $result; expected all t: count, distinct numbers, no gaps, complete, running, distinct configs)" >&2
	exit 1
fi
echo "concurrency: no duplicate numbers, no lost trials, no repeated configurations"

# At volume: 16 clients x 500 suggest + report cycles on one study (random
# suggestions, so that the model's cost does not dominate): no duplicate
# number, no lost report (every trial complete with both of its metrics,
# each client's reports all there), no configuration twice.
VOLUME_CLIENTS=16
VOLUME_CYCLES=500
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
SELECT tuner.create_study('vol', 'value', 'minimize', '{"seed": 8}');
SELECT tuner.add_parameter('vol', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('vol', 'n', 'int', 1, 1000000);
SELECT tuner.set_algorithm('vol', 'random');
SQL
cat > "$WORK/volume.sql" <<'SQL'
SELECT (s ->> 'trial')::bigint AS trial, (s -> 'params' ->> 'x')::float8 AS x
  FROM (SELECT tuner.suggest_next('vol') AS s) q \gset
SELECT tuner.report(:trial, jsonb_build_object('value', :x, 'client', :client_id));
SQL
echo "concurrency: $VOLUME_CLIENTS clients x $VOLUME_CYCLES suggest+report"
pgbench -n -c "$VOLUME_CLIENTS" -j 2 -t "$VOLUME_CYCLES" -f "$WORK/volume.sql" "$DB"
total=$((VOLUME_CLIENTS * VOLUME_CYCLES))
volume=$(psql -X -At -v ON_ERROR_STOP=1 -d "$DB" <<SQL
WITH t AS (SELECT * FROM tuner.trials WHERE study = 'vol')
SELECT concat_ws(' ',
       (SELECT count(*) FROM t) = $total,
       (SELECT count(DISTINCT number) FROM t) = $total,
       (SELECT min(number) = 1 AND max(number) = $total FROM t),
       (SELECT count(*) FROM t WHERE state = 'complete' AND value IS NOT NULL
           AND metrics ? 'client') = $total,
       (SELECT count(DISTINCT params) FROM t) = $total,
       (SELECT bool_and(c = $VOLUME_CYCLES) AND count(*) = $VOLUME_CLIENTS
          FROM (SELECT (metrics ->> 'client')::int AS client, count(*) AS c
                  FROM t GROUP BY 1) per_client))
SQL
)
echo "concurrency: volume checks (count, distinct numbers, no gaps, all reported, distinct configs, per client): $volume"

# Two sessions report the same trial at once: the first wins, the second
# waits for it and is refused; the trial keeps the first value.
race=$(psql -X -At -v ON_ERROR_STOP=1 -d "$DB" -c "SELECT tuner.suggest_next('vol') ->> 'trial'")
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "BEGIN; SELECT tuner.report($race, '{\"value\": 1}'); SELECT pg_sleep(2); COMMIT;" >/dev/null &
first=$!
sleep 0.5
second=$(psql -X -At -d "$DB" -c "SELECT tuner.report($race, '{\"value\": 2}')" 2>&1 || true)
wait "$first"
kept=$(psql -X -At -v ON_ERROR_STOP=1 -d "$DB" -c "SELECT value FROM tuner.trials WHERE trial = $race")
echo "concurrency: racing second report: $second; kept value $kept"
psql -X -q -d postgres -c "DROP DATABASE $DB"

if [ "$volume" != "t t t t t t" ]; then
	echo "concurrency: FAILED at volume (checks: $volume; expected all t)" >&2
	exit 1
fi
case "$second" in
	*"is already complete"*) ;;
	*) echo "concurrency: FAILED: the racing second report was not refused: $second" >&2; exit 1 ;;
esac
if [ "$kept" != "1" ]; then
	echo "concurrency: FAILED: the trial kept $kept, not the first report's 1" >&2
	exit 1
fi
echo "concurrency: $total cycles from $VOLUME_CLIENTS clients without duplicates or losses; a racing report is refused"
