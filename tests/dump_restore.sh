#!/bin/bash
# dump_restore.sh: a study survives pg_dump and pg_restore into a fresh
# database (issue 8, durability): the extension's tables are registered
# with pg_extension_config_dump, so a dump holds every study, parameter,
# trial, observation, model, event and typed view, and the restored study
# goes on where it stopped (next trial number, warm-started model).  Needs
# a server reachable through the PG* environment (pg_virtualenv) with
# tuner installed.
set -euo pipefail

SRC=tuner_dump_src
DST=tuner_dump_dst
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" >/dev/null 2>&1 || true' EXIT

psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $SRC" -c "DROP DATABASE IF EXISTS $DST" \
	-c "CREATE DATABASE $SRC" -c "CREATE DATABASE $DST"
psql -X -q -v ON_ERROR_STOP=1 -d "$SRC" <<'SQL'
CREATE EXTENSION tuner;
SELECT tuner.create_study('kept', 'latency', 'minimize', '{"seed": 3, "n_initial": 4}');
SELECT tuner.add_parameter('kept', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('kept', 'mode', 'categorical', choices => ARRAY['a', 'b', 'c']);
SELECT tuner.add_metric('kept', 'cpu', 'auxiliary', 'minimize');
DO $$
DECLARE s jsonb;
BEGIN
	FOR i IN 1 .. 12 LOOP
		s := tuner.suggest_next('kept');
		IF i = 6 THEN
			PERFORM tuner.fail((s ->> 'trial')::bigint, 'crashed');
		ELSE
			PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
				'latency', ((s -> 'params' ->> 'x')::float8 - 0.3) ^ 2
						   + CASE s -> 'params' ->> 'mode' WHEN 'b' THEN 0 ELSE 0.5 END,
				'cpu', (s -> 'params' ->> 'x')::float8));
		END IF;
	END LOOP;
END $$;
SELECT tuner.suggest_next('kept') IS NOT NULL AS left_running;
SELECT tuner.create_view('kept') IS NOT NULL AS view_made;
SQL

# What must survive, as one line per table (ids included).
fingerprint() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
SELECT 'study ' || md5(string_agg(concat_ws('|', id, name, objective, direction, algorithm, settings, seed), ',' ORDER BY id)) FROM tuner.study;
SELECT 'parameter ' || md5(string_agg(concat_ws('|', id, study_id, name, kind, low, high, choices), ',' ORDER BY id)) FROM tuner.parameter;
SELECT 'metric ' || md5(string_agg(concat_ws('|', id, study_id, name, role, direction), ',' ORDER BY id)) FROM tuner.metric;
SELECT 'trial ' || count(*) || ' ' || md5(string_agg(concat_ws('|', id, number, state, config, source, error, seed, predicted_mean, created_at, finished_at), ',' ORDER BY id)) FROM tuner.trial;
SELECT 'observation ' || count(*) || ' ' || md5(string_agg(concat_ws('|', trial_id, metric_id, value), ',' ORDER BY trial_id, metric_id)) FROM tuner.observation;
SELECT 'model ' || count(*) || ' ' || md5(string_agg(concat_ws('|', id, trial_id, kind, n, lengthscales, noise), ',' ORDER BY id)) FROM tuner.model;
SELECT 'view ' || count(*) || ' ' || md5(string_agg(t::text, ',' ORDER BY number)) FROM tuner.kept_trials t;
SQL
}
fingerprint "$SRC" > "$WORK/before"

pg_dump -Fc -f "$WORK/dump" "$SRC"
pg_restore --exit-on-error -d "$DST" "$WORK/dump"
fingerprint "$DST" > "$WORK/after"

if ! diff -u "$WORK/before" "$WORK/after"; then
	echo "dump_restore: FAILED: the restored database differs" >&2
	exit 1
fi
echo "dump_restore: restored identically:"
sed 's/^/  /' "$WORK/after"

# The restored study goes on: the running trial is reported, the next one
# is number 14 and computed by the model.
next=$(psql -X -At -v ON_ERROR_STOP=1 -d "$DST" <<'SQL'
SELECT tuner.report(t.id, '{"latency": 1, "cpu": 0.5}') FROM tuner.trial t WHERE t.state = 'running';
SELECT tuner.suggest_next('kept') ->> 'trial' AS next \gset
SELECT concat_ws(' ', number, source) FROM tuner.trial WHERE id = :next;
SQL
)
next=$(echo "$next" | tail -1)
if [ "$next" != "14 model" ]; then
	echo "dump_restore: FAILED: the restored study's next trial is '$next', expected '14 model'" >&2
	exit 1
fi
echo "dump_restore: the restored study continues (trial 14 from the model)"
