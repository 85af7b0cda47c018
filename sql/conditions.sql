-- conditions: conditional parameters in the suggestions (issue 26).
--  1. A configuration is compared with the history in its canonical form
--     (inactive parameters at their defaults, values on their grid), so
--     no suggestion repeats a trial: not with failures, categoricals,
--     integer grids or trials still running, in random conditional spaces.
--  2. Conditions chain: a parameter whose parent is inactive is inactive,
--     whatever the parent's default says (suggest_next, enqueue).
--  3. Values are on their grid: no float noise such as 2.4999999999999982.
\set SHOW_CONTEXT never

-- The objective of the studies below: smooth in every numeric parameter
-- (its distance from 30% of its range), a penalty per categorical choice
-- after the first and for true bools.
CREATE FUNCTION regress_cond_objective(p_study text, config jsonb)
RETURNS float8
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(sum(CASE p.kind
		WHEN 'bool' THEN CASE WHEN (config ->> p.name)::bool THEN 0.2 ELSE 0 END
		WHEN 'categorical' THEN 0.3 * (array_position(p.choices, config ->> p.name) - 1)
		ELSE (((config ->> p.name)::float8 - p.low) / (p.high - p.low) - 0.3) ^ 2 END), 0)
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = p_study;
$$;

-- Run n trials of a study: a trial whose configuration hashes to 0-2
-- fails (about one in five), every fourth stays running for two more
-- suggestions (parallel workers), the others report the objective.
CREATE FUNCTION regress_cond_run(p_study text, n int)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	r jsonb;
	held bigint[] := '{}';
	i int;
BEGIN
	FOR i IN 1 .. n LOOP
		BEGIN
			r := tuner.suggest_next(p_study);
		EXCEPTION WHEN OTHERS THEN
			RETURN format('stopped at %s: %s', i, SQLERRM);
		END;
		IF left(md5(r ->> 'params'), 1) IN ('0', '1', '2') THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSIF i % 4 = 0 THEN
			held := held || (r ->> 'trial')::bigint;
		ELSE
			PERFORM tuner.report((r ->> 'trial')::bigint,
				jsonb_build_object('v', regress_cond_objective(p_study, r -> 'params')));
		END IF;
		IF cardinality(held) > 0 AND i % 4 = 2 THEN
			PERFORM tuner.report(held[1], jsonb_build_object('v', 1));
			held := held[2:];
		END IF;
	END LOOP;
	RETURN 'ran';
END;
$$;

-- Every trial of a study: how many, how many distinct configurations,
-- whether some failed, and how many configurations are not canonical
-- (tuner.enqueue's completion of the configuration changes it).  Which
-- trials failed depends on the model's choices, whose last digits depend
-- on the CPU's BLAS kernels: not printed.
CREATE FUNCTION regress_cond_summary(p_study text,
									 OUT trials bigint, OUT distinct_configs bigint,
									 OUT some_failed bool, OUT not_canonical bigint)
LANGUAGE sql STABLE
AS $$
SELECT count(*), count(DISTINCT t.config), bool_or(t.state = 'failed'),
	   count(*) FILTER (WHERE (tuner._complete_config(s.id, t.config)).config <> t.config)
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = p_study;
$$;

-------------------------------------------------------------------------------
-- 1. No repeats.  The issue's study: a parameter active only for one
-- choice of a categorical, and a failure.
-------------------------------------------------------------------------------
SELECT tuner.create_study('cond_dup', 'v', 'minimize', '{"seed": 7}') > 0 AS created;
SELECT tuner.add_parameter('cond_dup', 'mode', 'categorical', choices => ARRAY['a', 'b', 'c'], default_value => 'a');
SELECT tuner.add_parameter('cond_dup', 'n', 'int', 1, 6, default_value => '2');
SELECT tuner.add_parameter('cond_dup', 'w', 'int', 1, 50, default_value => '5', condition => 'mode = b');
SELECT tuner.add_parameter('cond_dup', 'x', 'float', 0, 1, default_value => '0.5', condition => 'mode = c');
DO $$
DECLARE
	r jsonb;
	p jsonb;
BEGIN
	FOR i IN 1 .. 25 LOOP
		r := tuner.suggest_next('cond_dup');
		p := r -> 'params';
		IF i = 3 THEN
			PERFORM tuner.fail((r ->> 'trial')::bigint, 'crashed');
		ELSE
			PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
				CASE p ->> 'mode' WHEN 'a' THEN ((p ->> 'n')::float8 - 3) ^ 2
								  WHEN 'b' THEN 2 + ((p ->> 'w')::float8 - 20) ^ 2 / 100
								  ELSE 3 + (p ->> 'x')::float8 END));
		END IF;
	END LOOP;
END;
$$;
SELECT * FROM regress_cond_summary('cond_dup');
-- the optimum (mode a, n = 3) was found, once
SELECT count(*) FILTER (WHERE t.config @> '{"mode": "a", "n": 3}') AS at_optimum
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'cond_dup';
-- every suggestion replays to its configuration
SELECT count(*) AS replayed, count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'cond_dup' AND t.source IN ('design', 'model', 'random');

-- Random conditional spaces (property-style): six studies of 4 to 7
-- parameters, categorical, integer, bool and float, each after the first
-- conditional on an earlier one with probability 0.6 (so conditions
-- chain), with failures and running trials, under gp-ei and random
-- search.
SELECT setseed(0.26);
DO $$
DECLARE
	k int;
	j int;
	n_params int;
	kind text;
	parent int;
	pk text;
	cond text;
	hi int;
	kinds text[];
	highs int[];
	study text;
BEGIN
	FOR k IN 1 .. 6 LOOP
		study := 'cond_prop' || k;
		PERFORM tuner.create_study(study, 'v', 'minimize',
			jsonb_build_object('seed', 100 + k, 'n_initial', 4));
		IF k % 3 = 0 THEN
			PERFORM tuner.set_algorithm(study, 'random');
		END IF;
		n_params := 4 + floor(random() * 4)::int;
		kinds := '{}';
		highs := '{}';
		FOR j IN 1 .. n_params LOOP
			kind := (ARRAY['categorical', 'int', 'bool', 'int', 'float'])[1 + floor(random() * 5)::int];
			hi := 2 + floor(random() * 6)::int;
			kinds := kinds || kind;
			highs := highs || hi;
			cond := NULL;
			IF j > 1 AND random() < 0.6 THEN
				parent := 1 + floor(random() * (j - 1))::int;
				pk := kinds[parent];
				cond := 'p' || parent || ' ' || CASE pk
					WHEN 'categorical' THEN (ARRAY['= c0', 'IN (c0, c1)', '<> c1'])[1 + floor(random() * 3)::int]
					WHEN 'bool' THEN (ARRAY['= true', '= false'])[1 + floor(random() * 2)::int]
					WHEN 'int' THEN (ARRAY['> ', '<= ', '= '])[1 + floor(random() * 3)::int] || (1 + floor(random() * highs[parent])::int)
					ELSE (ARRAY['< 0.5', '>= 0.25'])[1 + floor(random() * 2)::int] END;
			END IF;
			PERFORM tuner.add_parameter(study, 'p' || j, kind,
				CASE WHEN kind IN ('int', 'float') THEN CASE kind WHEN 'int' THEN 1 ELSE 0 END END,
				CASE WHEN kind IN ('int', 'float') THEN CASE kind WHEN 'int' THEN hi ELSE 1 END END,
				default_value => CASE kind WHEN 'categorical' THEN 'c' || floor(random() * 3)::int
										   WHEN 'bool' THEN (random() < 0.5)::text
										   WHEN 'int' THEN (1 + floor(random() * hi)::int)::text
										   ELSE round(random()::numeric, 2)::text END,
				choices => CASE WHEN kind = 'categorical' THEN ARRAY['c0', 'c1', 'c2'] END,
				condition => cond);
		END LOOP;
	END LOOP;
END;
$$;
SELECT s.name, s.algorithm, string_agg(p.name || ' ' || p.kind || COALESCE(' if ' || p.condition, ''), ', ' ORDER BY p.position) AS space
  FROM tuner.study s JOIN tuner.parameter p ON p.study_id = s.id
 WHERE s.name LIKE 'cond_prop%' GROUP BY s.name, s.algorithm ORDER BY s.name;
SELECT s.name, regress_cond_run(s.name, 24) AS run FROM tuner.study s
 WHERE s.name LIKE 'cond_prop%' ORDER BY s.name;
SELECT s.name, r.* FROM tuner.study s, regress_cond_summary(s.name) r
 WHERE s.name LIKE 'cond_prop%' ORDER BY s.name;
SELECT count(*) AS replayed, count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name LIKE 'cond_prop%' AND t.source IN ('design', 'model', 'random');

-------------------------------------------------------------------------------
-- 2. Chained conditions: b is active when a = x, c when b > 0.5.  b's
-- default (0.9) satisfies c's condition, yet c is inactive whenever b is.
-------------------------------------------------------------------------------
SELECT tuner.create_study('cond_chain', 'v', 'minimize', '{"seed": 3, "n_initial": 5}') > 0 AS created;
SELECT tuner.add_parameter('cond_chain', 'a', 'categorical', choices => ARRAY['x', 'y'], default_value => 'y');
SELECT tuner.add_parameter('cond_chain', 'b', 'float', 0, 1, default_value => '0.9', condition => 'a = x');
SELECT tuner.add_parameter('cond_chain', 'c', 'float', 0, 1, default_value => '0.1', condition => 'b > 0.5');
SELECT tuner.add_parameter('cond_chain', 'e', 'int', 1, 9, default_value => '4', condition => 'c <= 0.5');
SELECT tuner.add_parameter('cond_chain', 'z', 'float', 0, 1, default_value => '0.5');
-- enqueue completes a configuration the same way
SELECT tuner.enqueue('cond_chain', '{"a": "y", "b": 0.3, "c": 0.7, "e": 2}') > 0 AS queued;
SELECT tuner.enqueue('cond_chain', '{"a": "x", "b": 0.7, "c": 0.2, "e": 2}') > 0 AS queued;
SELECT tuner.enqueue('cond_chain', '{"a": "x", "b": 0.3, "c": 0.2, "e": 2}') > 0 AS queued;
SELECT t.number, t.config FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'cond_chain' ORDER BY t.number;
SELECT regress_cond_run('cond_chain', 30) AS run;
SELECT count(*) FILTER (WHERE config ->> 'a' = 'y' AND (config -> 'c' <> '0.1' OR config -> 'e' <> '4')) AS c_or_e_moved_while_b_inactive,
       count(*) FILTER (WHERE (config ->> 'b')::float8 <= 0.5 AND (config -> 'c' <> '0.1' OR config -> 'e' <> '4')) AS c_or_e_moved_while_c_inactive,
       count(*) FILTER (WHERE config ->> 'a' = 'x' AND (config ->> 'b')::float8 > 0.5 AND config -> 'c' <> '0.1') > 0 AS c_varies_when_active
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'cond_chain';
SELECT * FROM regress_cond_summary('cond_chain');
SELECT count(*) AS replayed, count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'cond_chain' AND t.source IN ('design', 'model', 'random');

-- A disabled parent is fixed at its default: with b left out of the
-- model (0.9 > 0.5), c is active exactly when a = x.
SELECT tuner.enable_parameters('cond_chain', ARRAY['a', 'c', 'e', 'z']);
SELECT regress_cond_run('cond_chain', 12) AS run;
SELECT count(*) FILTER (WHERE config ->> 'a' = 'y' AND config -> 'c' <> '0.1') AS c_moved_while_inactive,
       count(*) FILTER (WHERE config ->> 'a' = 'x' AND config -> 'c' <> '0.1') > 0 AS c_varies_when_active,
       count(*) FILTER (WHERE config -> 'b' <> '0.9') AS b_moved
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'cond_chain' AND t.number > 33;
SELECT * FROM regress_cond_summary('cond_chain');

-------------------------------------------------------------------------------
-- 3. Values on their grid: integers are JSON integers, floats carry no
-- noise past 15 significant digits of their range (log scale: of the
-- value), bounds are exact.  The design's point in the middle of a log
-- range [0.25, 25] is 2.5, not 2.4999999999999982.
-------------------------------------------------------------------------------
SELECT tuner.create_study('cond_grid', 'v', 'minimize', '{"seed": 2, "n_initial": 8}') > 0 AS created;
SELECT tuner.add_parameter('cond_grid', 'r', 'float', 0.25, 25, log_scale => true);
SELECT tuner.add_parameter('cond_grid', 'u', 'float', 0, 1);
SELECT tuner.add_parameter('cond_grid', 'k', 'int', 1, 1000, log_scale => true);
SELECT tuner.add_parameter('cond_grid', 'f', 'float', -3, 7);
DO $$
DECLARE
	r jsonb;
BEGIN
	FOR i IN 1 .. 16 LOOP
		r := tuner.suggest_next('cond_grid');
		-- pushes r to its upper bound, u to its lower
		PERFORM tuner.report((r ->> 'trial')::bigint, jsonb_build_object('v',
			-ln((r -> 'params' ->> 'r')::float8) + (r -> 'params' ->> 'u')::float8
			+ ((r -> 'params' ->> 'f')::float8 - 1) ^ 2 / 10));
	END LOOP;
END;
$$;
SELECT count(*) AS trials,
       count(*) FILTER (WHERE (config ->> 'r')::numeric <> round((config ->> 'r')::numeric, 14 - floor(log((config ->> 'r')::numeric))::int)) AS r_off_grid,
       count(*) FILTER (WHERE (config ->> 'u')::numeric <> round((config ->> 'u')::numeric, 14)) AS u_off_grid,
       count(*) FILTER (WHERE jsonb_typeof(config -> 'k') <> 'number' OR (config ->> 'k') !~ '^[0-9]+$') AS k_off_grid,
       count(*) FILTER (WHERE (config ->> 'f')::numeric <> round((config ->> 'f')::numeric, 14)) AS f_off_grid,
       count(*) FILTER (WHERE config -> 'r' = '2.5') AS r_at_centre,
       count(*) FILTER (WHERE config -> 'r' = '25') > 0 AS r_at_upper_bound
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'cond_grid';
SELECT count(*) AS replayed, count(*) FILTER (WHERE tuner.replay_suggestion(t.id) = t.config) AS same
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'cond_grid' AND t.source IN ('design', 'model', 'random');

-------------------------------------------------------------------------------
-- The conditions as the model code takes them (tuner._space_conditions),
-- with a disabled parent in a chain, and the checks of tuner._suggest (the
-- C entry point, given a record of its own: regress_cond_record).
-------------------------------------------------------------------------------
SELECT tuner.create_study('cond_args', 'v') > 0 AS created;
SELECT tuner.add_parameter('cond_args', 'a', 'categorical', choices => ARRAY['x', 'y', 'z'], default_value => 'y');
SELECT tuner.add_parameter('cond_args', 'b', 'int', 1, 9, default_value => '7', condition => 'a IN (x, z)');
SELECT tuner.add_parameter('cond_args', 'c', 'float', 0, 1, default_value => '0.25', condition => 'b > 5');
SELECT tuner.add_parameter('cond_args', 'e', 'bool', default_value => 'true', condition => 'c < 0.5');
SELECT tuner.add_parameter('cond_args', 'f', 'float', 0, 1, default_value => '0', condition => 'b <= 5');
SELECT tuner.add_parameter('cond_args', 'g', 'int', 1, 3, default_value => '2', condition => 'e = false');
SELECT c.* FROM tuner.study s, tuner._space_conditions(s.id, ARRAY['a', 'b', 'c', 'e', 'f', 'g']) c
 WHERE s.name = 'cond_args';
-- b left out (fixed at 7 > 5): c takes b's condition on a, f never runs
SELECT c.* FROM tuner.study s, tuner._space_conditions(s.id, ARRAY['a', 'c', 'e', 'f', 'g']) c
 WHERE s.name = 'cond_args';
-- a and b left out: c is always active
SELECT c.* FROM tuner.study s, tuner._space_conditions(s.id, ARRAY['c', 'e', 'f', 'g']) c
 WHERE s.name = 'cond_args';

CREATE FUNCTION regress_cond_record(kinds int[], lows float8[], highs float8[], n_choices int[],
									design_index int, parents int[], ops text[], vals float8[],
									defaults float8[], canonical bool)
RETURNS tuner.suggestion
LANGUAGE sql
AS $$
SELECT jsonb_populate_record(NULL::tuner.suggestion,
	   jsonb_build_object('algorithm', 'gp-ei', 'kinds', kinds, 'lows', lows, 'highs', highs,
						  'log_scales', array_fill(false, ARRAY[cardinality(kinds)]),
						  'n_choices', n_choices, 'fixed', '{}'::jsonb, 'sign', 1,
						  'observed', '{}'::bigint[], 'pending', '{}'::bigint[], 'other', '{}'::bigint[],
						  'n_initial', 2, 'design_index', design_index, 'seed', 1, 'design_seed', 5,
						  'condition_parent', parents, 'condition_op', ops, 'condition_values', vals,
						  'condition_default', defaults, 'canonical', canonical));
$$;
-- One design point of a two-parameter space: x (active when k = 0)
-- takes its default 0.5 when k = 1.
SELECT (tuner._suggest(0, regress_cond_record(ARRAY[3, 0], ARRAY[0, 0], ARRAY[1, 1], ARRAY[2, 0], i,
											  ARRAY[0, 1], ARRAY[NULL, '='], ARRAY[[NULL], [0]]::float8[],
											  ARRAY[NULL, 0.5], true))).config
  FROM generate_series(0, 3) i;
-- canonical => false: the step of 0.2.0, which ignores the conditions
SELECT (tuner._suggest(0, regress_cond_record(ARRAY[3, 0], ARRAY[0, 0], ARRAY[1, 1], ARRAY[2, 0], 3,
											  ARRAY[0, 1], ARRAY[NULL, '='], ARRAY[[NULL], [0]]::float8[],
											  ARRAY[NULL, 0.5], false))).config;
-- Errors.
CREATE FUNCTION regress_cond_point(parents int[], ops text[], vals float8[], defaults float8[],
								   canonical bool DEFAULT true)
RETURNS float8[]
LANGUAGE sql
AS $$
SELECT (tuner._suggest(0, regress_cond_record(ARRAY[3, 0, 1], ARRAY[0, 0, 1], ARRAY[1, 1, 9], ARRAY[2, 0, 0], 0,
											  $1, $2, $3, $4, $5))).config;
$$;
SELECT regress_cond_point('{0,1,2}', '{NULL,=,>}', '{{NULL},{0},{0.5}}', '{NULL,0.5,3}') IS NOT NULL AS valid;
-- parents not earlier
SELECT regress_cond_point('{0,2,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,3,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
-- a categorical ordered
SELECT regress_cond_point('{0,1,0}', '{NULL,<,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
-- two values to compare with, none
SELECT regress_cond_point('{0,1,2}', '{NULL,=,>}', '{{NULL,NULL},{0,NULL},{0.5,0.7}}', '{NULL,0.5,3}');
SELECT regress_cond_point('{0,1,2}', '{NULL,=,>}', '{{NULL},{0},{NULL}}', '{NULL,0.5,3}');
-- unknown operator, no default, infinite default, NaN value
SELECT regress_cond_point('{0,1,0}', '{NULL,like,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,NULL,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,Infinity,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{NaN},{NULL}}', '{NULL,0.5,NULL}');
-- shapes
SELECT regress_cond_point('{0,1}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{0}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{NULL,0,NULL}', '{NULL,0.5,NULL}');
-- NULL arguments
SELECT regress_cond_point(NULL, '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}');
SELECT regress_cond_point('{0,1,0}', '{NULL,=,NULL}', '{{NULL},{0},{NULL}}', '{NULL,0.5,NULL}', NULL);
DROP FUNCTION regress_cond_point(int[], text[], float8[], float8[], bool);
DROP FUNCTION regress_cond_record(int[], float8[], float8[], int[], int, int[], text[], float8[], float8[], bool);

SELECT tuner.drop_study(s.name) FROM tuner.study s WHERE s.name LIKE 'cond\_%' ORDER BY s.name;
DROP FUNCTION regress_cond_summary(text);
DROP FUNCTION regress_cond_run(text, int);
DROP FUNCTION regress_cond_objective(text, jsonb);
