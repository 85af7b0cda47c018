-- recommend: the configuration to keep is the tried one the GP predicts
-- best, not the luckiest single trial; fewer than three complete trials
-- fall back to best(); bad input.
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

-- Fewer than three complete trials: the best trial, no prediction.
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
SELECT tuner.drop_study(n) FROM unnest(ARRAY['noisy', 'noisy_min', 'short', 'wide', 'wide2']) n;
