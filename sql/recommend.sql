-- recommend: the configuration to keep is the tried one the GP predicts
-- best, not the luckiest single trial; pruned trials inform the fit but
-- are never kept; fewer than three trials fall back to best(); bad input.
\set SHOW_CONTEXT never

-- A smooth objective, peak 1.0 at x = 0.5, measured with noise; one far
-- trial got a lucky +0.6 that the model pools with its neighbours.
SELECT tuner.create_study('noisy', 'ops', 'maximize', '{"seed": 5, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('noisy', 'x', 'float', 0, 1);
CREATE TEMP TABLE h (i int, id bigint, x float8, value float8);
DO $$
DECLARE
	r jsonb;
	x float8;
	v float8;
BEGIN
	FOR i IN 1 .. 14 LOOP
		r := tuner.suggest_next('noisy');
		x := (r -> 'params' ->> 'x')::float8;
		-- deterministic "noise" of +-0.05 from the trial number
		v := 1 - 4 * (x - 0.5) ^ 2 + 0.05 * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END);
		IF i = 2 THEN
			v := v + 0.6;
		END IF;
		INSERT INTO h VALUES (i, (r ->> 'trial')::bigint, x, v);
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('ops', v));
	END LOOP;
END;
$$;
-- The lucky trial is best() ...
SELECT b.trial = (SELECT id FROM h WHERE i = 2) AS best_is_lucky,
       abs((SELECT x FROM h WHERE i = 2) - 0.5) > 0.2 AS lucky_is_far
  FROM tuner.best('noisy') b;
-- ... recommend() keeps a configuration near the peak instead, says what
-- the model predicts for it, and returns the trial's own observation.
SELECT r.trial <> (SELECT id FROM h WHERE i = 2) AS not_lucky,
       abs((r.params ->> 'x')::float8 - 0.5) < 0.1 AS near_peak,
       r.value = (SELECT value FROM h WHERE id = r.trial) AS own_value,
       r.predicted BETWEEN 0.85 AND 1.15 AS predicted_near_1,
       r.predicted_sd > 0 AS has_sd
  FROM tuner.recommend('noisy') r;
-- It is the argmax of the posterior mean over the tried configurations.
WITH m AS (
	SELECT tuner.gp_fit(array_agg(ARRAY[x] ORDER BY i), array_agg(value ORDER BY i),
	                    '{"seed": 5}') AS model,
	       array_agg(ARRAY[x] ORDER BY i) AS xs, array_agg(id ORDER BY i) AS ids
	  FROM h
), p AS (
	SELECT m.ids[g.k] AS id, g.mean
	  FROM m, tuner.gp_predict(m.model, m.xs) WITH ORDINALITY AS g(mean, sd, k)
)
SELECT (SELECT id FROM p ORDER BY mean DESC LIMIT 1) =
       (SELECT trial FROM tuner.recommend('noisy')) AS is_argmax;

-- Minimize: the same data negated gives the same configuration.
SELECT tuner.create_study('noisy_min', 'lat', 'minimize', '{"seed": 5, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('noisy_min', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('noisy_min', 'mode', 'categorical', choices => ARRAY['a', 'b']);
SELECT tuner.add_parameter('noisy_min', 'on', 'bool');
SELECT tuner.add_parameter('noisy_min', 'n', 'int', 1, 1000, log_scale => true);
DO $$
DECLARE
	r jsonb;
	x float8;
BEGIN
	FOR i IN 1 .. 10 LOOP
		r := tuner.suggest_next('noisy_min');
		x := (r -> 'params' ->> 'x')::float8;
		PERFORM tuner.report((r ->> 'trial')::bigint,
			jsonb_build_object('lat', 4 * (x - 0.3) ^ 2
				+ CASE WHEN r -> 'params' ->> 'mode' = 'a' THEN 0 ELSE 0.5 END));
	END LOOP;
END;
$$;
SELECT abs((r.params ->> 'x')::float8 - 0.3) < 0.15 AS near_minimum,
       r.params ->> 'mode' AS mode,
       r.predicted < 0.2 AS predicted_low
  FROM tuner.recommend('noisy_min') r;

-- A known measurement noise (noise_sd, argument or study setting) floors
-- the fitted noise: the model is less sure of every trial and the lucky
-- one gives way.
SELECT tuner.create_study('wide', 'ops', 'maximize', '{"seed": 9, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('wide', 'p' || i, 'float', 0, 1) FROM generate_series(1, 8) i;
CREATE TEMP TABLE w (i int, id bigint, value float8);
DO $$
DECLARE
	r jsonb;
	v float8;
BEGIN
	FOR i IN 1 .. 9 LOOP
		r := tuner.suggest_next('wide');
		v := 1 + 0.1 * (r -> 'params' ->> 'p1')::float8 + 0.05 * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END);
		IF i = 3 THEN
			v := v + 0.5;
		END IF;
		INSERT INTO w VALUES (i, (r ->> 'trial')::bigint, v);
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('ops', v));
	END LOOP;
END;
$$;
CREATE TEMP TABLE free AS SELECT * FROM tuner.recommend('wide');
CREATE TEMP TABLE floored AS SELECT * FROM tuner.recommend('wide', noise_sd => 0.3);
SELECT (SELECT trial FROM tuner.best('wide')) = (SELECT id FROM w WHERE i = 3) AS lucky_is_best,
       (SELECT trial FROM floored) <> (SELECT id FROM w WHERE i = 3) AS floored_not_lucky,
       (SELECT predicted_sd FROM floored) > (SELECT predicted_sd FROM free) AS floored_less_sure;
-- The study's setting is used when no argument is given.
SELECT tuner.create_study('wide2', 'ops', 'maximize', '{"noise_sd": 0.3}') > 0 AS created;
UPDATE tuner.study SET settings = settings || '{"noise_sd": 0.3}' WHERE name = 'wide';
SELECT r.trial = f.trial AND r.predicted = f.predicted AND r.predicted_sd = f.predicted_sd AS setting_is_used
  FROM tuner.recommend('wide') r, floored f;
SELECT * FROM tuner.recommend('wide', noise_sd => 0);
SELECT * FROM tuner.recommend('wide', noise_sd => 'NaN');
SELECT tuner.create_study('bad_noise', 'ops', settings => '{"noise_sd": -1}');
SELECT tuner.create_study('bad_noise', 'ops', settings => '{"noise_sd": "high"}');

-- Pruned trials (issue 30): never recommended, but the fit learns from
-- them as the optimizer does (tuner._pruned_observations).  x = 0.1
-- completed once at 1.0, the best value; four more runs of it were
-- stopped at 0.3, and the complete trials' curves forecast they would have
-- ended there: the model believes the 1.0 was luck and keeps x = 0.5
-- (0.98).  A pruned trial with a higher forecast than any is not kept.
CREATE TEMP TABLE st (i int, id bigint, x float8, final float8, partial float8, complete bool);
INSERT INTO st VALUES (1, NULL, 0.1, 1.00, 1.01, true), (2, NULL, 0.5, 0.98, 0.97, true),
	(3, NULL, 0.7, 0.70, 0.72, true), (4, NULL, 0.9, 0.60, 0.58, true),
	(5, NULL, 0.1, NULL, 0.3, false), (6, NULL, 0.1, NULL, 0.31, false),
	(7, NULL, 0.1, NULL, 0.29, false), (8, NULL, 0.1, NULL, 0.3, false),
	(9, NULL, 0.3, NULL, 1.5, false);
-- A study of st's trials (the pruned ones too, or not); st.id names the
-- last study's.
CREATE FUNCTION pg_temp.stopped_study(study text, with_pruned bool)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	r record;
	t bigint;
BEGIN
	PERFORM tuner.create_study(study, 'ops', 'maximize', '{"seed": 3}');
	PERFORM tuner.add_parameter(study, 'x', 'float', 0, 1);
	FOR r IN SELECT * FROM st WHERE complete OR with_pruned ORDER BY i LOOP
		PERFORM tuner.enqueue(study, jsonb_build_object('x', r.x));
		t := (tuner.suggest_next(study) ->> 'trial')::bigint;
		UPDATE st SET id = t WHERE i = r.i;
		PERFORM tuner.report_progress(t, 1, jsonb_build_object('ops', r.partial));
		PERFORM tuner.report_progress(t, 2, jsonb_build_object('ops', r.partial));
		IF r.complete THEN
			PERFORM tuner.report_progress(t, 3, jsonb_build_object('ops', r.final));
			PERFORM tuner.report(t, jsonb_build_object('ops', r.final));
		ELSE
			PERFORM tuner.prune(t, 'stopped');
		END IF;
	END LOOP;
	RETURN true;
END;
$$;
-- Without the pruned trials the luckiest configuration is kept ...
SELECT pg_temp.stopped_study('stopped_complete', false);
SELECT r.trial = (SELECT id FROM st WHERE i = 1) AS keeps_lucky
  FROM tuner.recommend('stopped_complete') r;
-- ... with them, x = 0.5.
SELECT pg_temp.stopped_study('stopped', true);
SELECT (SELECT trial FROM tuner.best('stopped')) = (SELECT id FROM st WHERE i = 1) AS lucky_is_best,
       r.trial = (SELECT id FROM st WHERE i = 2) AS keeps_x_05,
       (SELECT state FROM tuner.trial WHERE id = r.trial) AS state
  FROM tuner.recommend('stopped') r;
-- Its prediction is the posterior mean of a GP fitted to the complete
-- values and the pruned forecasts, each forecast's spread its noise.
WITH o AS (
	SELECT p.k, p.value, p.std_error
	  FROM tuner._pruned_observations(
			(SELECT m.id FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
			  WHERE s.name = 'stopped' AND m.name = 'ops'),
			ARRAY(SELECT id FROM st ORDER BY i)) p
), m AS (
	SELECT tuner.gp_fit(array_agg(ARRAY[st.x] ORDER BY st.i),
						array_agg(COALESCE(o.value, st.final) ORDER BY st.i),
						jsonb_build_object('seed', 3, 'std_error', jsonb_agg(o.std_error ORDER BY st.i))) AS model
	  FROM st LEFT JOIN o ON o.k = st.i
)
SELECT abs(g.mean - r.predicted) < 1e-9 AS same_fit,
       (SELECT count(*) FROM o) AS forecasts,
       (SELECT bool_and(o.std_error > 0) FROM o) AS forecasts_have_noise
  FROM m, tuner.recommend('stopped') r,
       tuner.gp_predict(m.model, ARRAY[ARRAY[0.5]]) g;

-- Fewer than three trials to fit: the best trial, no prediction.
SELECT tuner.create_study('short', 'ops', 'maximize', '{"seed": 6}') > 0 AS created;
SELECT tuner.add_parameter('short', 'x', 'float', 0, 1);
SELECT * FROM tuner.recommend('short');
SELECT tuner.report((tuner.suggest_next('short') ->> 'trial')::bigint, '{"ops": 3}');
SELECT tuner.report((tuner.suggest_next('short') ->> 'trial')::bigint, '{"ops": 4}');
SELECT value, predicted, predicted_sd FROM tuner.recommend('short');
SELECT (SELECT trial FROM tuner.recommend('short')) = (SELECT trial FROM tuner.best('short')) AS same_as_best;

-- Bad input.
SELECT * FROM tuner.recommend('no_such_study');
SELECT * FROM tuner.recommend(NULL);
SELECT tuner._unit_points('{0}', '{0}', '{1}', '{f}', '{0}', '{{0.5, 1}}');
SELECT tuner._unit_points('{0}', '{1}', '{0}', '{f}', '{0}', '{{0.5}}');
SELECT tuner._unit_points('{0}', '{0}', '{10}', '{f}', '{0}', '{{5}, {15}}');

-- Leave nothing behind for the tests that follow.
SELECT tuner.drop_study(n) FROM unnest(ARRAY['noisy', 'noisy_min', 'short', 'stopped', 'stopped_complete', 'wide', 'wide2']) n;
