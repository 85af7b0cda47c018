-- heteroscedastic: each value's known noise (issue 29).  A report's
-- "_std_error" is stored per observation and checked; GP-EI, recommend
-- and the low-level GP give a value with a standard error (or a disturbed
-- trial's value) extra noise, so a huge standard error makes an outlier
-- irrelevant where the same value without one moves the model;
-- replay_suggestion reproduces such suggestions; a runner's "_std_error"
-- goes the same way through tuner.step.
\set SHOW_CONTEXT never

-- The error of reporting metrics m for a new trial of study s.
CREATE FUNCTION tuner_pg_temp_report(s text, m jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tuner.report(tuner.enqueue(s, '{"x": 0.5}'), m);
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END;
$$;

-- Storage: the objective's and other metrics' standard errors, null = none.
SELECT tuner.create_study('hs_store', 'y', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('hs_store', 'x', 'float', 0, 1);
SELECT tuner.report(tuner.enqueue('hs_store', '{"x": 0.1}'),
					'{"y": 1.5, "lat": 3, "_std_error": {"y": 0.25, "lat": null}}');
SELECT tuner.report(tuner.enqueue('hs_store', '{"x": 0.2}'), '{"y": 2, "_std_error": null}');
SELECT tuner.report(tuner.enqueue('hs_store', '{"x": 0.3}'), '{"y": 2.5, "lat": 4, "_std_error": {"lat": 0}}');
SELECT tuner.report(tuner.enqueue('hs_store', '{"x": 0.4}'), '{"y": 3, "_std_error": {}}');
SELECT number, value, std_error, std_errors, metrics FROM tuner.trials WHERE study = 'hs_store' ORDER BY number;
SELECT m.name, ob.value, ob.std_error
  FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
  JOIN tuner.trial t ON t.id = ob.trial_id JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'hs_store' ORDER BY t.number, m.name;

-- Bad standard errors: each refused, and the report with it.
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"y": "NaN"}}') AS nan;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"y": "Infinity"}}') AS inf;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"y": -0.5}}') AS negative;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"y": 1e400}}') AS huge;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"y": true}}') AS bool;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": {"z": 0.1}}') AS unknown_metric;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": [0.1]}') AS not_object;
SELECT tuner_pg_temp_report('hs_store', '{"y": 1, "_std_error": 0.1}') AS number;
SELECT count(*) AS trials FROM tuner.trials WHERE study = 'hs_store';
-- the column's own check
DO $$
DECLARE
	t bigint := tuner.enqueue('hs_store', '{"x": 0.9}');
	v text;
BEGIN
	FOREACH v IN ARRAY ARRAY['NaN', 'Infinity', '-1'] LOOP
		BEGIN
			INSERT INTO tuner.observation (trial_id, metric_id, value, std_error)
			SELECT t, m.id, 1, v::float8 FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
			 WHERE s.name = 'hs_store' AND m.name = 'y';
			RAISE NOTICE 'std_error % stored', v;
		EXCEPTION WHEN check_violation THEN
			RAISE NOTICE 'std_error % refused: %', v, SQLSTATE;
		END;
	END LOOP;
END;
$$;

-- Four studies of the same ten trials of y = 10 (x - 0.3)^2 plus an
-- outlier y = 5 at x = 0.35: reported with a huge standard error (hs_a),
-- without one (hs_b), not at all (hs_c), disturbed without one (hs_d).
DO $$
DECLARE
	s text;
	i int;
	x float8;
	t bigint;
BEGIN
	FOREACH s IN ARRAY ARRAY['hs_a', 'hs_b', 'hs_c', 'hs_d'] LOOP
		PERFORM tuner.create_study(s, 'y', settings => '{"seed": 7, "n_initial": 4}');
		PERFORM tuner.add_parameter(s, 'x', 'float', 0, 1);
		FOR i IN 0 .. 9 LOOP
			x := 0.05 + 0.1 * i;
			PERFORM tuner.report(tuner.enqueue(s, jsonb_build_object('x', x)),
								 jsonb_build_object('y', 10 * (x - 0.3) ^ 2));
		END LOOP;
		t := tuner.enqueue(s, '{"x": 0.35}');
		CASE s
			WHEN 'hs_a' THEN PERFORM tuner.report(t, '{"y": 5, "_std_error": {"y": 1000}}');
			WHEN 'hs_c' THEN PERFORM tuner.fail(t, 'not measured');
			ELSE PERFORM tuner.report(t, '{"y": 5}');
		END CASE;
		IF s = 'hs_d' THEN
			PERFORM tuner._record_context(t, '{"elapsed_s": 1, "others_cpu_share": 0.9}');
		END IF;
	END LOOP;
END;
$$;
SELECT study, number, value, std_error, disturbed FROM tuner.trials
 WHERE study LIKE 'hs\__' AND number = 11 ORDER BY study;

-- recommend: the huge standard error leaves the prediction where it is
-- without the outlier; the same value without one moves it; a disturbed
-- one moves it less.
CREATE TEMP TABLE hs_rec AS
SELECT s AS study, r.predicted, r.params ->> 'x' AS x
  FROM unnest(ARRAY['hs_a', 'hs_b', 'hs_c', 'hs_d']) s, tuner.recommend(s) r;
SELECT a.x = c.x AS same_pick, abs(a.predicted - c.predicted) < 0.01 AS a_as_c,
	   abs(b.predicted - c.predicted) > 0.1 AS b_moved,
	   abs(d.predicted - c.predicted) < abs(b.predicted - c.predicted) AS d_less
  FROM hs_rec a, hs_rec b, hs_rec c, hs_rec d
 WHERE a.study = 'hs_a' AND b.study = 'hs_b' AND c.study = 'hs_c' AND d.study = 'hs_d';

-- GP-EI: the next suggestion of each, replayed.  hs_b is the plain step
-- (its md5 is the one of before issue 29, no disturbed trials recorded);
-- hs_a's and hs_d's see the known noise, so their fits differ from
-- hs_b's on the same values.
SELECT s AS study, tuner.suggest_next(s) ->> 'trial' IS NOT NULL AS suggested
  FROM unnest(ARRAY['hs_a', 'hs_b', 'hs_d']) s;
SELECT s.name AS study, g.disturbed IS NOT NULL AS disturbed_recorded,
	   cardinality(g.disturbed) AS n_disturbed,
	   (d).y_std_error IS NOT NULL AS has_std_error,
	   g.history_md5 = tuner._history_md5((d).y_observed, (d).y_aux) AS plain_md5,
	   tuner.replay_suggestion(t.id) = t.config AS replays
  FROM tuner.suggestion g
  JOIN tuner.trial t ON t.id = g.trial_id
  JOIN tuner.study s ON s.id = t.study_id,
	   LATERAL tuner._suggestion_data(s.id, g) d
 WHERE s.name IN ('hs_a', 'hs_b', 'hs_d') AND t.source = 'model'
 ORDER BY s.name;
SELECT a.log_likelihood <> b.log_likelihood AS a_differs, d.log_likelihood <> b.log_likelihood AS d_differs
  FROM (SELECT m.log_likelihood, s.name FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
		 WHERE m.kind = 'gp' AND s.name IN ('hs_a', 'hs_b', 'hs_d')) a,
	   (SELECT m.log_likelihood, s.name FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
		 WHERE m.kind = 'gp' AND s.name IN ('hs_a', 'hs_b', 'hs_d')) b,
	   (SELECT m.log_likelihood, s.name FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
		 WHERE m.kind = 'gp' AND s.name IN ('hs_a', 'hs_b', 'hs_d')) d
 WHERE a.name = 'hs_a' AND b.name = 'hs_b' AND d.name = 'hs_d';

-- The low-level GP: std_error per point, kept in the model.
SELECT tuner.gp_fit(ARRAY[[0.0], [0.25], [0.5], [0.75], [1.0]], ARRAY[0, 0.5, 5, 0.5, 0],
					'{"seed": 1, "std_error": [null, 0, 1000, null, null]}') AS m_se \gset
SELECT tuner.gp_fit(ARRAY[[0.0], [0.25], [0.5], [0.75], [1.0]], ARRAY[0, 0.5, 5, 0.5, 0],
					'{"seed": 1}') AS m_plain \gset
SELECT :'m_se'::jsonb -> 'std_error' AS kept, :'m_plain'::jsonb ? 'std_error' AS plain_has;
SELECT (SELECT mean FROM tuner.gp_predict(:'m_se', ARRAY[[0.5]])) < 1 AS ignores_outlier,
	   (SELECT mean FROM tuner.gp_predict(:'m_plain', ARRAY[[0.5]])) > 2 AS follows_outlier;
SELECT tuner.gp_log_likelihood(:'m_se') <> tuner.gp_log_likelihood(:'m_se'::jsonb - 'std_error') AS ll_uses_it;
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[0, 1], '{"std_error": [0.1]}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[0, 1], '{"std_error": [0.1, -1]}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[0, 1], '{"std_error": 0.1}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[0, 1], '{"std_error": [0.1, "a"]}');
SELECT tuner.gp_fit(ARRAY[[0.0], [1.0]], ARRAY[0, 1], '{"std_error": [0.1, 1e200]}');

-- A runner's "_std_error" through tuner.step: stored; a metric printed as
-- null drops its standard error; a bad one fails the trial with the reason.
SELECT tuner.register_runner('hs_se', '/bin/sh', ARRAY['-c',
	'cat >/dev/null; echo ''{"y": 0.5, "aux": null, "_std_error": {"y": 0.05, "aux": 1}, "_note": "hi"}''']);
SELECT tuner.register_runner('hs_se_negative', '/bin/sh', ARRAY['-c',
	'cat >/dev/null; echo ''{"y": 0.5, "_std_error": {"y": -0.05}}''']);
SELECT tuner.register_runner('hs_se_unknown', '/bin/sh', ARRAY['-c',
	'cat >/dev/null; echo ''{"y": 0.5, "_std_error": {"p99": 0.05}}''']);
SELECT tuner.register_runner('hs_se_nan', '/bin/sh', ARRAY['-c',
	'cat >/dev/null; echo ''{"y": 0.5, "_std_error": {"y": "NaN"}}''']);
SELECT tuner.create_study('hs_run', 'y', runner => 'hs_se', settings => '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('hs_run', 'x', 'float', 0, 1);
SELECT tuner.step('hs_run') ->> 'state' AS state;
SELECT number, state, value, std_error, std_errors, metrics, details ->> '_note' AS note,
	   details ? '_std_error' AS in_details
  FROM tuner.trials WHERE study = 'hs_run' ORDER BY number;
SELECT tuner.set_runner('hs_run', 'hs_se_negative');
SELECT tuner.step('hs_run') ->> 'error' AS error;
SELECT tuner.set_runner('hs_run', 'hs_se_unknown');
SELECT tuner.step('hs_run') ->> 'error' AS error;
SELECT tuner.set_runner('hs_run', 'hs_se_nan');
SELECT tuner.step('hs_run') ->> 'error' AS error;
SELECT number, state, value, std_error FROM tuner.trials WHERE study = 'hs_run' ORDER BY number;

-- An agent's runner output (tuner.agent_finish) the same way.
SELECT tuner.create_study('hs_agent', 'y', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('hs_agent', 'x', 'float', 0, 1);
SELECT trial AS ta FROM tuner.agent_claim('hs_agent', 'hs-agent-1') \gset
SELECT f ->> 'state' AS state
  FROM tuner.agent_finish(:ta, 'hs-agent-1', 0, 'exited with exit code 0',
						  '{"y": 2.5, "_std_error": {"y": 0.125}}', '', 1.5, NULL, NULL) f;
SELECT trial AS tb FROM tuner.agent_claim('hs_agent', 'hs-agent-1') \gset
SELECT f ->> 'state' AS state, f ->> 'error' AS error
  FROM tuner.agent_finish(:tb, 'hs-agent-1', 0, 'exited with exit code 0',
						  '{"y": 2.5, "_std_error": {"y": -1}}', '', 1.5, NULL, NULL) f;
SELECT number, state, value, std_error FROM tuner.trials WHERE study = 'hs_agent' ORDER BY number;

-- copy_trials keeps the standard errors.
SELECT tuner.create_study('hs_copy', 'y', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('hs_copy', 'x', 'float', 0, 1);
SELECT tuner.copy_trials('hs_store', 'hs_copy') ->> 'copied' AS copied;
SELECT number, value, std_error, std_errors FROM tuner.trials WHERE study = 'hs_copy' ORDER BY number;

SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'hs\_%' ORDER BY name;
SELECT tuner.drop_runner(r) FROM unnest(ARRAY['hs_se', 'hs_se_negative', 'hs_se_unknown', 'hs_se_nan']) r;
DROP FUNCTION tuner_pg_temp_report(text, jsonb);
