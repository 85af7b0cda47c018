-- Spaces: conditional parameters (inactive ones keep their default),
-- parameters disabled from the model, and soft bounds that widen when the
-- optimizer keeps pressing against them; every error.
\set SHOW_CONTEXT never

-- Conditions: parsing, normalisation and errors.
SELECT tuner.create_study('cond', 'v', 'minimize', '{"seed": 3, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('cond', 'queue', 'categorical', choices => ARRAY['wpq', 'mclock'], default_value => 'wpq');
SELECT tuner.add_parameter('cond', 'cut', 'bool', default_value => 'false');
SELECT tuner.add_parameter('cond', 'threads', 'int', 1, 64, default_value => '8');
SELECT tuner.add_parameter('cond', 'wpq_weight', 'float', 0, 1, default_value => '0.5', condition => 'queue = wpq');
SELECT tuner.add_parameter('cond', 'mclock_res', 'float', 0, 1, default_value => '0.25', condition => 'queue IN (''mclock'')');
SELECT tuner.add_parameter('cond', 'cut_level', 'int', 1, 10, default_value => '5', condition => 'cut == true');
SELECT tuner.add_parameter('cond', 'per_thread', 'float', 0, 1, default_value => '0', condition => 'threads>=16');
SELECT tuner.add_parameter('cond', 'nested', 'float', 0, 1, default_value => '0', condition => 'wpq_weight < 0.5');
SELECT name, condition, condition_parameter, condition_op, condition_values
  FROM tuner.parameter WHERE condition IS NOT NULL ORDER BY position;
SELECT tuner.add_parameter('cond', 'e1', 'float', 0, 1, default_value => '0', condition => 'nosuch = 1');
SELECT tuner.add_parameter('cond', 'e2', 'float', 0, 1, default_value => '0', condition => 'queue = fifo');
SELECT tuner.add_parameter('cond', 'e3', 'float', 0, 1, default_value => '0', condition => 'queue < wpq');
SELECT tuner.add_parameter('cond', 'e4', 'float', 0, 1, default_value => '0', condition => 'threads = lots');
SELECT tuner.add_parameter('cond', 'e5', 'float', 0, 1, default_value => '0', condition => 'cut = maybe');
SELECT tuner.add_parameter('cond', 'e6', 'float', 0, 1, default_value => '0', condition => 'threads ~ 3');
SELECT tuner.add_parameter('cond', 'e7', 'float', 0, 1, default_value => '0', condition => 'queue IN wpq');
SELECT tuner.add_parameter('cond', 'e8', 'float', 0, 1, condition => 'queue = wpq');
SELECT tuner.add_parameter('cond', 'e9', 'float', 0, 1, default_value => '0', condition => 'e9 = 1');
SELECT tuner.add_parameter('cond', 'e10', 'float', 0, 1, default_value => '0', condition => 'threads = NaN');
SELECT tuner.add_parameter('cond', 'e11', 'float', 0, 1, default_value => '0', condition => 'queue =');

-- Every suggestion has inactive parameters at their defaults, active ones free.
CREATE TEMP TABLE sugg AS SELECT 0 AS i, NULL::jsonb AS p WHERE false;
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 16 LOOP
		r := tuner.suggest_next('cond');
		INSERT INTO sugg VALUES (i, r -> 'params');
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			(r -> 'params' ->> 'threads')::float8 / 64 + (r -> 'params' ->> 'wpq_weight')::float8));
	END LOOP;
END;
$$;
SELECT count(*) AS suggestions,
       count(*) FILTER (WHERE p ->> 'queue' <> 'wpq' AND (p ->> 'wpq_weight')::float8 <> 0.5) AS inactive_wpq_moved,
       count(*) FILTER (WHERE p ->> 'queue' <> 'mclock' AND (p ->> 'mclock_res')::float8 <> 0.25) AS inactive_mclock_moved,
       count(*) FILTER (WHERE NOT (p ->> 'cut')::bool AND (p ->> 'cut_level')::int <> 5) AS inactive_cut_moved,
       count(*) FILTER (WHERE (p ->> 'threads')::int < 16 AND (p ->> 'per_thread')::float8 <> 0) AS inactive_per_thread_moved,
       count(*) FILTER (WHERE ((p ->> 'queue') <> 'wpq' OR (p ->> 'wpq_weight')::float8 >= 0.5)
                          AND (p ->> 'nested')::float8 <> 0) AS inactive_nested_moved,
       count(*) FILTER (WHERE p ->> 'queue' = 'wpq' AND (p ->> 'wpq_weight')::float8 <> 0.5) > 0 AS active_wpq_varies,
       count(*) FILTER (WHERE p ->> 'queue' = 'mclock' AND (p ->> 'mclock_res')::float8 <> 0.25) > 0 AS active_mclock_varies
  FROM sugg;

-- Disabled parameters: fixed at their defaults, left out of the model.
SELECT tuner.create_study('bad', 'v') > 0 AS created;
SELECT tuner.create_study('dis', 'v', 'minimize', '{"seed": 4, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('dis', 'a', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('dis', 'b', 'float', 0, 1, default_value => '0.25');
SELECT tuner.add_parameter('dis', 'c', 'int', 1, 100, default_value => '7', log_scale => true);
SELECT tuner.enable_parameters('dis', ARRAY['a', 'c']);
SELECT p.name, p.enabled FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'dis' ORDER BY position;
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 8 LOOP
		r := tuner.suggest_next('dis');
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			(r -> 'params' ->> 'a')::float8 + (r -> 'params' ->> 'b')::float8));
	END LOOP;
END;
$$;
SELECT count(*) AS trials, count(*) FILTER (WHERE (params ->> 'b')::float8 = 0.25) AS b_at_default,
       count(DISTINCT params ->> 'a') > 3 AS a_varies
  FROM tuner.trials WHERE study = 'dis';
SELECT DISTINCT parameters FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'dis';
-- Enabling b again between trials: the model takes it back (new fit, not
-- warm-started from a model over other parameters).
SELECT tuner.enable_parameters('dis', ARRAY['a', 'b', 'c']);
SELECT (tuner.suggest_next('dis') -> 'params') ? 'b' AS has_b;
SELECT parameters FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'dis' ORDER BY m.id DESC LIMIT 1;
SELECT tuner.enable_parameters('dis', ARRAY['a', 'nosuch']);
SELECT tuner.enable_parameters('dis', ARRAY[]::text[]);
SELECT tuner.enable_parameters('dis', ARRAY['a', NULL]);
SELECT tuner.enable_parameters('dis', NULL);
SELECT tuner.enable_parameters('nosuch', ARRAY['a']);
SELECT tuner.add_parameter('bad', 'nodefault', 'float', 0, 1);
SELECT tuner.add_parameter('bad', 'withdefault', 'float', 0, 1, default_value => '0.5');
SELECT tuner.enable_parameters('bad', ARRAY['withdefault']);

-- Soft bounds: the optimum (x = 30) lies outside the initial box [0, 10];
-- the bound widens, with a record of each change, until it is reached.
SELECT tuner.create_study('soft', 'v', 'minimize', '{"seed": 8, "n_initial": 3}') > 0 AS created;
SELECT tuner.add_parameter('soft', 'x', 'float', 0, 10, soft_bounds => true, hard_low => 0, hard_high => 100);
SELECT tuner.add_parameter('soft', 'y', 'float', 0, 1);
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 30 LOOP
		r := tuner.suggest_next('soft');
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			((r -> 'params' ->> 'x')::float8 - 30) ^ 2 / 100 + ((r -> 'params' ->> 'y')::float8 - 0.5) ^ 2));
	END LOOP;
END;
$$;
SELECT side, old_value, new_value, reason FROM tuner.bound_change c
  JOIN tuner.study s ON s.id = c.study_id WHERE s.name = 'soft' ORDER BY c.id;
SELECT low, high FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'soft' AND p.name = 'x';
SELECT abs((params ->> 'x')::float8 - 30) < 3 AS reached_optimum FROM tuner.best('soft');
SELECT bool_and(c.trial_id IN (SELECT trial FROM tuner.trials WHERE study = 'soft' AND source = 'model')) AS triggered_by_model_trials
  FROM tuner.bound_change c JOIN tuner.study s ON s.id = c.study_id WHERE s.name = 'soft';

-- The hard limit stops the widening: optimum at 30, hard limit 20.
SELECT tuner.create_study('hard', 'v', 'minimize', '{"seed": 8, "n_initial": 3, "bound_hits": 2, "bound_margin": 0.1}') > 0 AS created;
SELECT tuner.add_parameter('hard', 'x', 'int', 1, 10, soft_bounds => true, hard_high => 20, log_scale => true);
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 20 LOOP
		r := tuner.suggest_next('hard');
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			abs((r -> 'params' ->> 'x')::float8 - 30)));
	END LOOP;
END;
$$;
SELECT side, old_value, new_value FROM tuner.bound_change c
  JOIN tuner.study s ON s.id = c.study_id WHERE s.name = 'hard' ORDER BY c.id;
SELECT (params ->> 'x')::int AS best_x FROM tuner.best('hard');

-- Errors.
SELECT tuner.add_parameter('hard', 'z', 'float', 0, 1);
SELECT tuner.add_parameter('bad', 'b', 'bool', soft_bounds => true);
SELECT tuner.add_parameter('bad', 'f', 'float', 0, 1, hard_high => 2);
SELECT tuner.add_parameter('bad', 'f', 'float', 0, 1, soft_bounds => true, hard_high => 0.5);
SELECT tuner.add_parameter('bad', 'f', 'float', 0, 1, soft_bounds => true, hard_low => 'NaN');
SELECT tuner.add_parameter('bad', 'f', 'int', 1, 10, soft_bounds => true, hard_high => 20.5);
SELECT tuner.add_parameter('bad', 'f', 'float', 1, 10, soft_bounds => true, log_scale => true, hard_low => 0);
SELECT tuner.add_parameter('bad', 'f', 'float', 0, 1, soft_bounds => NULL);
SELECT tuner.create_study('bad2', 'v', settings => '{"bound_margin": 0.5}');
SELECT tuner.create_study('bad2', 'v', settings => '{"bound_margin": "x"}');
SELECT tuner.create_study('bad2', 'v', settings => '{"bound_hits": 0}');

SELECT tuner.drop_study(n) FROM unnest(ARRAY['cond', 'dis', 'soft', 'hard', 'bad']) n;
