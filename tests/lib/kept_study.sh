# kept_study.sh: the study that tests/dump_restore.sh and tests/upgrade.sh
# carry through pg_dump/pg_restore and ALTER EXTENSION UPDATE.  Source it;
# every function takes a database name and talks to it through psql with
# the PG* environment.

# Create study "kept" (tuner must be installed in the database): 12 trials,
# the 6th failed, then a 13th left running, its models, and its typed view.
kept_study_create() {
	psql -X -q -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
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
}

# What must survive, as one line per table (ids included).
kept_study_fingerprint() {
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

# Report the running trial, ask for the next one; prints "NUMBER SOURCE"
# of the new trial (a study that goes on: "14 model").
kept_study_next() {
	psql -X -At -v ON_ERROR_STOP=1 -d "$1" <<'SQL' | tail -1
SELECT tuner.report(t.id, '{"latency": 1, "cpu": 0.5}') FROM tuner.trial t WHERE t.state = 'running';
SELECT tuner.suggest_next('kept') ->> 'trial' AS next \gset
SELECT concat_ws(' ', number, source) FROM tuner.trial WHERE id = :next;
SQL
}
