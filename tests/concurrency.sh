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
psql -X -q -d postgres -c "DROP DATABASE $DB"

if [ "$result" != "t t t t t t" ]; then
	echo "concurrency: FAILED (checks: $result; expected all t: count, distinct numbers, no gaps, complete, running, distinct configs)" >&2
	exit 1
fi
echo "concurrency: no duplicate numbers, no lost trials, no repeated configurations"
