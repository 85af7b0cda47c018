/*
 * parameters.sql
 *	  The search space: parameters, their kinds, bounds (hard and soft),
 *	  conditions between them and their native values.
 */

-- The parameter arrays of the space the model searches (the enabled
-- parameters), in position order; all_defaults and default_config cover
-- every parameter.
CREATE OR REPLACE FUNCTION tuner._space(study_id bigint,
							 OUT names text[], OUT kinds int[],
							 OUT lows float8[], OUT highs float8[],
							 OUT log_scales bool[], OUT n_choices int[],
							 OUT all_defaults bool, OUT default_config jsonb)
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(p.name ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(CASE p.kind WHEN 'float' THEN 0 WHEN 'int' THEN 1
							WHEN 'bool' THEN 2 ELSE 3 END ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(p.low, 0) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(p.high, 1) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(p.log_scale ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(pg_catalog.cardinality(p.choices), 0) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.bool_and(p.default_value IS NOT NULL),
	   pg_catalog.jsonb_object_agg(p.name, p.default_value)
  FROM tuner.parameter p
 WHERE p.study_id = $1;
$$;

-- Add a parameter to a study's search space (before its first trial).
-- A parameter's condition, "other op value": other is an earlier
-- parameter of the study; op is =, <>, !=, <, <=, >, >= (numbers only),
-- IN (...) or NOT IN (...); values are numbers, true/false, or labels
-- (bare or in single quotes) of a categorical.  Returned normalised.
CREATE OR REPLACE FUNCTION tuner._parse_condition(p_study_id bigint, p_name text, p_text text,
									   OUT condition text, OUT parameter text,
									   OUT op text, OUT vals jsonb)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	m text[];
	ref tuner.parameter;
	raw text[];
	v text;
	num float8;
BEGIN
	m := pg_catalog.regexp_match($3,
		'^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(=|==|!=|<>|<=|>=|<|>|\s[Nn][Oo][Tt]\s+[Ii][Nn]\s|\s[Ii][Nn]\s)\s*(.*?)\s*$');
	IF m IS NULL OR m[3] = '' THEN
		RAISE EXCEPTION 'cannot parse the condition of parameter "%": %', $2, $3
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Write "other_parameter = value" (also <>, <, <=, >, >=) or "other_parameter IN (a, b)".';
	END IF;
	SELECT * INTO ref FROM tuner.parameter p WHERE p.study_id = $1 AND p.name = m[1];
	IF NOT FOUND THEN
		RAISE EXCEPTION 'the condition of parameter "%" refers to unknown parameter "%"', $2, m[1]
			USING ERRCODE = 'undefined_object',
				  HINT = 'Add the parameter the condition tests before the conditional one.';
	END IF;
	op := pg_catalog.lower(pg_catalog.regexp_replace(pg_catalog.btrim(m[2]), '\s+', ' ', 'g'));
	op := CASE op WHEN '==' THEN '=' WHEN '!=' THEN '<>' ELSE op END;
	IF op IN ('in', 'not in') THEN
		IF m[3] !~ '^\(.*\)$' THEN
			RAISE EXCEPTION 'the condition of parameter "%" needs a parenthesised list after %', $2, pg_catalog.upper(op)
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Write e.g. "osd_op_queue IN (wpq, mclock_scheduler)".';
		END IF;
		raw := pg_catalog.regexp_split_to_array(pg_catalog.substr(m[3], 2, pg_catalog.length(m[3]) - 2), '\s*,\s*');
	ELSE
		raw := ARRAY[m[3]];
	END IF;
	IF ref.kind IN ('bool', 'categorical') AND op IN ('<', '<=', '>', '>=') THEN
		RAISE EXCEPTION 'the condition of parameter "%" orders % parameter "%"', $2, ref.kind, ref.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use =, <>, IN or NOT IN with bool and categorical parameters.';
	END IF;
	vals := '[]';
	FOREACH v IN ARRAY raw LOOP
		v := pg_catalog.btrim(v);
		IF v ~ '^''.*''$' THEN
			v := pg_catalog.substr(v, 2, pg_catalog.length(v) - 2);
		END IF;
		IF v = '' THEN
			RAISE EXCEPTION 'the condition of parameter "%" has an empty value', $2
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF ref.kind = 'categorical' THEN
			IF pg_catalog.array_position(ref.choices, v) IS NULL THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a choice of "%"', $2, v, ref.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The choices are %s.', ref.choices);
			END IF;
			vals := vals || pg_catalog.to_jsonb(v);
		ELSIF ref.kind = 'bool' THEN
			IF pg_catalog.lower(v) NOT IN ('true', 'false') THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a boolean', $2, v
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			vals := vals || pg_catalog.to_jsonb(pg_catalog.lower(v)::bool);
		ELSE
			BEGIN
				num := v::float8;
			EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a number', $2, v
					USING ERRCODE = 'invalid_parameter_value';
			END;
			IF num = 'NaN' OR num IN ('Infinity', '-Infinity') THEN
				RAISE EXCEPTION 'the condition of parameter "%" compares with a non-finite number', $2
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			vals := vals || pg_catalog.to_jsonb(num);
		END IF;
	END LOOP;
	parameter := ref.name;
	condition := pg_catalog.format('%s %s %s', ref.name, pg_catalog.upper(op),
		CASE WHEN op IN ('in', 'not in')
			 THEN '(' || (SELECT pg_catalog.string_agg(e #>> '{}', ', ') FROM pg_catalog.jsonb_array_elements(vals) e) || ')'
			 ELSE vals ->> 0 END);
END;
$$;

-- Whether a conditional parameter is active in a configuration (name ->
-- value); a parameter without condition always is.
CREATE OR REPLACE FUNCTION tuner._condition_holds(p tuner.parameter, config jsonb)
RETURNS bool
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE
	WHEN $1.condition_parameter IS NULL THEN true
	WHEN $2 -> $1.condition_parameter IS NULL THEN false
	WHEN $1.condition_op IN ('=', 'in') THEN
		EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements($1.condition_values) e
				 WHERE CASE pg_catalog.jsonb_typeof(e) WHEN 'number'
						THEN (e)::float8 = ($2 -> $1.condition_parameter)::float8
						ELSE e = $2 -> $1.condition_parameter END)
	WHEN $1.condition_op IN ('<>', 'not in') THEN
		NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements($1.condition_values) e
					 WHERE CASE pg_catalog.jsonb_typeof(e) WHEN 'number'
							THEN (e)::float8 = ($2 -> $1.condition_parameter)::float8
							ELSE e = $2 -> $1.condition_parameter END)
	WHEN $1.condition_op = '<' THEN ($2 -> $1.condition_parameter)::float8 < ($1.condition_values -> 0)::float8
	WHEN $1.condition_op = '<=' THEN ($2 -> $1.condition_parameter)::float8 <= ($1.condition_values -> 0)::float8
	WHEN $1.condition_op = '>' THEN ($2 -> $1.condition_parameter)::float8 > ($1.condition_values -> 0)::float8
	ELSE ($2 -> $1.condition_parameter)::float8 >= ($1.condition_values -> 0)::float8
END;
$$;

-------------------------------------------------------------------------------
-- Conditions chain: an inactive parent makes its children inactive
-- (issue 26).
--
-- A conditional parameter was active whenever its own condition held on
-- its parent's value, and an inactive parent has its default: with b
-- active when a = 'x' and c active when b > 0.5, c went on varying while
-- a <> 'x' because b's default was above 0.5.  A parameter is now active
-- only when its parent is active too, transitively.  Parents come
-- before their children (tuner.add_parameter takes a condition on an
-- existing parameter only), so one pass in position order decides each
-- parameter after its parent.  This is the rule of space_canonical in
-- src/core/space.c, which the suggestions apply in C (see
-- canonical_suggestions.sql); enqueue, the trial guard and the runner
-- check get it through tuner._complete_config.
-------------------------------------------------------------------------------

-- A configuration with every inactive parameter at its default, in
-- position order (so a condition sees the final value of the parameter
-- it tests): a parameter is inactive when its condition fails or the
-- parameter it tests is inactive.
CREATE OR REPLACE FUNCTION tuner._apply_conditions(study_id bigint, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	c jsonb := $2;
	v_inactive text[] := '{}';
BEGIN
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = $1 AND q.condition_parameter IS NOT NULL
			  ORDER BY q.position
	LOOP
		IF p.condition_parameter = ANY (v_inactive) OR NOT tuner._condition_holds(p, c) THEN
			c := c || pg_catalog.jsonb_build_object(p.name, p.default_value);
			v_inactive := v_inactive || p.name;
		END IF;
	END LOOP;
	RETURN c;
END;
$$;

-- The bounds, scale and choices of parameter p (a row add_parameter is
-- about to insert: name, kind, low, high, log_scale and choices set) fit
-- its kind: finite, ordered bounds (integers for int) for float and int,
-- none for bool and categorical, distinct choices for categorical only.
CREATE OR REPLACE FUNCTION tuner._check_parameter_bounds(p tuner.parameter)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	dup text;
BEGIN
	IF p.kind IN ('float', 'int') THEN
		IF p.low IS NULL OR p.high IS NULL THEN
			RAISE EXCEPTION '% parameter "%" needs low and high bounds', p.kind, p.name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Pass low => ... and high => ....';
		END IF;
		IF p.low = 'NaN' OR p.high = 'NaN' OR p.low IN ('Infinity', '-Infinity')
		   OR p.high IN ('Infinity', '-Infinity') THEN
			RAISE EXCEPTION 'bounds of parameter "%" must be finite', p.name
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF p.low >= p.high THEN
			RAISE EXCEPTION 'low must be less than high for parameter "%"', p.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s and high is %s.', p.low, p.high);
		END IF;
		IF p.kind = 'int' AND (p.low <> pg_catalog.trunc(p.low) OR p.high <> pg_catalog.trunc(p.high)) THEN
			RAISE EXCEPTION 'bounds of int parameter "%" must be integers', p.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s and high is %s.', p.low, p.high);
		END IF;
		IF p.log_scale AND p.low <= 0 THEN
			RAISE EXCEPTION 'log-scaled parameter "%" needs a positive low bound', p.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s.', p.low),
					  HINT = 'Use log_scale => false, or a low bound above zero.';
		END IF;
		IF p.choices IS NOT NULL THEN
			RAISE EXCEPTION '% parameter "%" does not take choices', p.kind, p.name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only categorical parameters have choices.';
		END IF;
	ELSE
		IF p.low IS NOT NULL OR p.high IS NOT NULL THEN
			RAISE EXCEPTION '% parameter "%" does not take bounds', p.kind, p.name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only float and int parameters have low and high.';
		END IF;
		IF p.log_scale THEN
			RAISE EXCEPTION '% parameter "%" cannot be log-scaled', p.kind, p.name
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF p.kind = 'bool' AND p.choices IS NOT NULL THEN
			RAISE EXCEPTION 'bool parameter "%" does not take choices', p.name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only categorical parameters have choices.';
		END IF;
		IF p.kind = 'categorical' THEN
			IF p.choices IS NULL OR pg_catalog.cardinality(p.choices) = 0 THEN
				RAISE EXCEPTION 'categorical parameter "%" needs choices', p.name
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Pass choices => ARRAY[''a'', ''b''].';
			END IF;
			IF pg_catalog.array_ndims(p.choices) <> 1 THEN
				RAISE EXCEPTION 'choices of parameter "%" must be a one-dimensional array', p.name
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			IF pg_catalog.array_position(p.choices, NULL) IS NOT NULL THEN
				RAISE EXCEPTION 'choices of parameter "%" must not contain NULL', p.name
					USING ERRCODE = 'null_value_not_allowed';
			END IF;
			SELECT c INTO dup FROM pg_catalog.unnest(p.choices) c
			 GROUP BY c HAVING pg_catalog.count(*) > 1 ORDER BY c LIMIT 1;
			IF FOUND THEN
				RAISE EXCEPTION 'choices of parameter "%" must be distinct', p.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('"%s" appears more than once.', dup);
			END IF;
		END IF;
	END IF;
END;
$$;

-- The default of parameter p (as for tuner._check_parameter_bounds) given
-- as text (default_value), checked against p's kind, bounds and choices,
-- as the JSON value tuner.parameter.default_value stores: a number (an
-- integer for int), a boolean or one of the choices.  NULL for none.
CREATE OR REPLACE FUNCTION tuner._parameter_default(p tuner.parameter, default_value text)
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_num float8;
	v_default jsonb;
BEGIN
	IF default_value IS NOT NULL THEN
		IF p.kind IN ('float', 'int') THEN
			BEGIN
				v_num := default_value::float8;
			EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
				RAISE EXCEPTION 'default value "%" of parameter "%" is not a number', default_value, p.name
					USING ERRCODE = 'invalid_parameter_value';
			END;
			IF v_num = 'NaN' OR v_num IN ('Infinity', '-Infinity') THEN
				RAISE EXCEPTION 'default value of parameter "%" must be finite', p.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', default_value);
			END IF;
			IF v_num < p.low OR v_num > p.high THEN
				RAISE EXCEPTION 'default value % of parameter "%" is outside its bounds', default_value, p.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The bounds are [%s, %s].', p.low, p.high);
			END IF;
			IF p.kind = 'int' THEN
				IF v_num <> pg_catalog.trunc(v_num) THEN
					RAISE EXCEPTION 'default value % of int parameter "%" is not an integer', default_value, p.name
						USING ERRCODE = 'invalid_parameter_value';
				END IF;
				v_default := pg_catalog.to_jsonb(v_num::bigint);
			ELSE
				v_default := pg_catalog.to_jsonb(v_num);
			END IF;
		ELSIF p.kind = 'bool' THEN
			BEGIN
				v_default := pg_catalog.to_jsonb(default_value::bool);
			EXCEPTION WHEN invalid_text_representation THEN
				RAISE EXCEPTION 'default value "%" of bool parameter "%" is not a boolean', default_value, p.name
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use true or false.';
			END;
		ELSE
			IF pg_catalog.array_position(p.choices, default_value) IS NULL THEN
				RAISE EXCEPTION 'default value "%" of parameter "%" is not one of its choices', default_value, p.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The choices are %s.', p.choices);
			END IF;
			v_default := pg_catalog.to_jsonb(default_value);
		END IF;
	END IF;
	RETURN v_default;
END;
$$;

-- The soft bounds and hard limits of parameter p (as for
-- tuner._check_parameter_bounds, with soft_bounds, hard_low and hard_high
-- set): only float and int bounds are soft, hard limits only with soft
-- bounds, finite, around the bounds, integers for int, positive for a log
-- scale.
CREATE OR REPLACE FUNCTION tuner._check_hard_limits(p tuner.parameter)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF (p.soft_bounds OR p.hard_low IS NOT NULL OR p.hard_high IS NOT NULL)
	   AND p.kind NOT IN ('float', 'int') THEN
		RAISE EXCEPTION '% parameter "%" has no bounds to widen', p.kind, p.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'soft_bounds, hard_low and hard_high apply to float and int parameters.';
	END IF;
	IF (p.hard_low IS NOT NULL OR p.hard_high IS NOT NULL) AND NOT p.soft_bounds THEN
		RAISE EXCEPTION 'hard limits of parameter "%" need soft_bounds => true', p.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Hard limits say how far soft bounds may widen; without soft bounds low and high are the limits.';
	END IF;
	IF p.hard_low = 'NaN' OR p.hard_high = 'NaN'
	   OR p.hard_low IN ('Infinity', '-Infinity') OR p.hard_high IN ('Infinity', '-Infinity') THEN
		RAISE EXCEPTION 'hard limits of parameter "%" must be finite', p.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave a hard limit NULL for none.';
	END IF;
	IF p.hard_low > p.low OR p.hard_high < p.high THEN
		RAISE EXCEPTION 'hard limits of parameter "%" must contain its bounds', p.name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('The bounds are [%s, %s], the hard limits [%s, %s].',
											 p.low, p.high, COALESCE(p.hard_low::text, 'none'),
											 COALESCE(p.hard_high::text, 'none'));
	END IF;
	IF p.kind = 'int' AND (p.hard_low <> pg_catalog.trunc(p.hard_low)
						   OR p.hard_high <> pg_catalog.trunc(p.hard_high)) THEN
		RAISE EXCEPTION 'hard limits of int parameter "%" must be integers', p.name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p.log_scale AND p.hard_low <= 0 THEN
		RAISE EXCEPTION 'log-scaled parameter "%" needs a positive hard_low', p.name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
END;
$$;

CREATE OR REPLACE FUNCTION tuner.add_parameter(study text, name text, kind text,
									low float8 DEFAULT NULL,
									high float8 DEFAULT NULL,
									default_value text DEFAULT NULL,
									log_scale bool DEFAULT false,
									choices text[] DEFAULT NULL,
									condition text DEFAULT NULL,
									soft_bounds bool DEFAULT false,
									hard_low float8 DEFAULT NULL,
									hard_high float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p tuner.parameter;
	p_name text := $2;
	p_kind text := $3;
	p_low float8 := $4;
	p_high float8 := $5;
	p_default text := $6;
	p_log bool := $7;
	p_choices text[] := $8;
	p_condition text := $9;
	p_soft bool := $10;
	p_hard_low float8 := $11;
	p_hard_high float8 := $12;
	v_cond_text text;
	v_cond_param text;
	v_cond_op text;
	v_cond_vals jsonb;
	v_default jsonb;
	v_position int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_kind, 'kind');
	PERFORM tuner._not_null(p_log, 'log_scale');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'parameter name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p_kind NOT IN ('float', 'int', 'bool', 'categorical') THEN
		RAISE EXCEPTION 'invalid parameter kind "%"', p_kind
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use float, int, bool or categorical.';
	END IF;

	-- Lock the study so no trial appears while the space changes.
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	IF EXISTS (SELECT 1 FROM tuner.trial WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'cannot add parameter "%" to study "%" because it has trials', p_name, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Define the whole search space before the first tuner.suggest_next(), or create a new study.';
	END IF;

	-- The row to insert, as far as the checks below need it.
	p.name := p_name;
	p.kind := p_kind;
	p.low := p_low;
	p.high := p_high;
	p.log_scale := p_log;
	p.choices := p_choices;
	p.soft_bounds := p_soft;
	p.hard_low := p_hard_low;
	p.hard_high := p_hard_high;
	PERFORM tuner._check_parameter_bounds(p);

	v_default := tuner._parameter_default(p, p_default);

	PERFORM tuner._not_null(p_soft, 'soft_bounds');
	PERFORM tuner._check_hard_limits(p);

	IF p_condition IS NOT NULL THEN
		SELECT c.condition, c.parameter, c.op, c.vals
		  INTO v_cond_text, v_cond_param, v_cond_op, v_cond_vals
		  FROM tuner._parse_condition(s.id, p_name, p_condition) c;
		IF v_default IS NULL THEN
			RAISE EXCEPTION 'conditional parameter "%" needs a default value', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A parameter keeps its default while its condition is false: pass default_value => ....';
		END IF;
	END IF;

	SELECT COALESCE(pg_catalog.max(position), 0) + 1 INTO v_position
	  FROM tuner.parameter WHERE study_id = s.id;
	BEGIN
		INSERT INTO tuner.parameter (study_id, position, name, kind, low, high,
									 log_scale, choices, default_value,
									 condition, condition_parameter,
									 condition_op, condition_values,
									 soft_bounds, hard_low, hard_high)
		VALUES (s.id, v_position, p_name, p_kind, p_low, p_high, p_log,
				p_choices, v_default, v_cond_text, v_cond_param, v_cond_op,
				v_cond_vals, p_soft, p_hard_low, p_hard_high);
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'parameter "%" already exists in study "%"', p_name, s.name
			USING ERRCODE = 'duplicate_object';
	END;
END;
$$;

-- Tune only these parameters: the others are disabled, fixed at their
-- defaults in every suggestion and left out of the model (tuner.select_top
-- does this with a Lasso ranking).  Allowed between trials.  Returns the
-- number of parameters enabled.
CREATE OR REPLACE FUNCTION tuner.enable_parameters(study text, parameters text[])
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_unknown text;
	v_no_default text;
	v_count int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'parameters');
	IF pg_catalog.cardinality($2) = 0 OR pg_catalog.array_position($2, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'parameters must name at least one parameter and no NULL'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'A study tunes at least one parameter.';
	END IF;
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	SELECT u.name INTO v_unknown FROM pg_catalog.unnest($2) AS u(name)
	 WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id AND p.name = u.name)
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, v_unknown
			USING ERRCODE = 'undefined_object';
	END IF;
	SELECT p.name INTO v_no_default FROM tuner.parameter p
	 WHERE p.study_id = s.id AND p.name <> ALL ($2) AND p.default_value IS NULL
	 ORDER BY p.position LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" cannot be disabled because it has no default value', v_no_default
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'A disabled parameter is fixed at its default: give it one, or keep it enabled.';
	END IF;
	UPDATE tuner.parameter p SET enabled = (p.name = ANY ($2)) WHERE p.study_id = s.id;
	SELECT pg_catalog.count(*) INTO v_count FROM tuner.parameter p
	 WHERE p.study_id = s.id AND p.enabled;
	RETURN v_count;
END;
$$;

-- A soft bound widens (see 0.1.0) only while the range stays samplable.
CREATE OR REPLACE FUNCTION tuner._widen_soft_bounds(s tuner.study, p_trial bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	p tuner.parameter;
	v_margin float8 := COALESCE((s.settings ->> 'bound_margin')::float8, 0.05);
	v_hits int := COALESCE((s.settings ->> 'bound_hits')::int, 3);
	v_best jsonb;
	v_since bigint;
	v_count int;
	v_incumbent bool;
	v_old float8;
	v_new float8;
	v_side text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter q
					WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled) THEN
		RETURN;
	END IF;
	-- (several objectives have no single incumbent)
	IF NOT tuner._is_multiobjective(s.id) THEN
		SELECT b.params INTO v_best FROM tuner.best(s.name) b;
	END IF;
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled
			  ORDER BY q.position
	LOOP
		FOREACH v_side IN ARRAY ARRAY['low', 'high']
		LOOP
			SELECT COALESCE(pg_catalog.max(c.trial_id), 0) INTO v_since
			  FROM tuner.bound_change c
			 WHERE c.parameter_id = p.id AND c.side = v_side;
			SELECT pg_catalog.count(*) INTO v_count
			  FROM tuner.trial t
			 WHERE t.study_id = s.id AND t.id > v_since AND t.source = 'model'
			   AND tuner._near_bound(p, (t.config ->> p.name)::float8, v_side, v_margin);
			v_incumbent := v_best IS NOT NULL
				AND tuner._near_bound(p, (v_best ->> p.name)::float8, v_side, v_margin);
			CONTINUE WHEN v_count + v_incumbent::int < v_hits;

			v_old := CASE v_side WHEN 'low' THEN p.low ELSE p.high END;
			v_new := tuner._widened_bound(p, v_side);
			CONTINUE WHEN v_new = v_old;
			-- never past what can be sampled (tuner._parameter_limits)
			CONTINUE WHEN tuner._bounds_problem(p.kind,
				CASE v_side WHEN 'low' THEN v_new ELSE p.low END,
				CASE v_side WHEN 'high' THEN v_new ELSE p.high END, p.log_scale) IS NOT NULL;

			IF v_side = 'low' THEN
				UPDATE tuner.parameter SET low = v_new WHERE id = p.id;
				p.low := v_new;
			ELSE
				UPDATE tuner.parameter SET high = v_new WHERE id = p.id;
				p.high := v_new;
			END IF;
			INSERT INTO tuner.bound_change (study_id, parameter_id, trial_id, side,
											old_value, new_value, reason)
			VALUES (s.id, p.id, p_trial, v_side, v_old, v_new,
					pg_catalog.format('%s model suggestions%s within %s of the range of the %s bound',
									  v_count, CASE WHEN v_incumbent THEN ' and the incumbent' ELSE '' END,
									  v_margin, v_side));
		END LOOP;
	END LOOP;
END;
$$;

-- Whether a value lies within margin (share of the range, log space for
-- log-scaled parameters) of a parameter's low or high bound; and where
-- that bound goes when it widens (src/core/soft_bounds.h).
CREATE OR REPLACE FUNCTION tuner._near_bound(p tuner.parameter, value float8, side text,
								  margin float8)
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_near_bound'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._widened_bound(p tuner.parameter, side text)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_widened_bound'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Why a value is not one of a parameter's: NULL when it is, else
-- {reason, message}, reason one of wrong_type, out_of_bounds,
-- unknown_choice.
CREATE OR REPLACE FUNCTION tuner._value_problem(p tuner.parameter, value jsonb)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_type text := pg_catalog.jsonb_typeof(value);
	v numeric;
BEGIN
	IF p.kind = 'bool' THEN
		IF v_type <> 'boolean' THEN
			RETURN ARRAY['wrong_type', pg_catalog.format('must be true or false, not %s', value)];
		END IF;
		RETURN NULL;
	END IF;
	IF p.kind = 'categorical' THEN
		IF v_type <> 'string' THEN
			RETURN ARRAY['wrong_type', pg_catalog.format('must be a string (one of its choices), not %s', value)];
		END IF;
		IF NOT (value #>> '{}') = ANY (p.choices) THEN
			RETURN ARRAY['unknown_choice', pg_catalog.format('%s is not one of its choices (%s)',
				value, pg_catalog.array_to_string(p.choices, ', '))];
		END IF;
		RETURN NULL;
	END IF;
	IF v_type <> 'number' THEN
		RETURN ARRAY['wrong_type', pg_catalog.format('must be a number, not %s', value)];
	END IF;
	v := value::numeric;
	IF p.kind = 'int' AND v <> pg_catalog.trunc(v) THEN
		RETURN ARRAY['wrong_type', pg_catalog.format('must be an integer, not %s', value)];
	END IF;
	IF v < p.low::numeric OR v > p.high::numeric THEN
		RETURN ARRAY['out_of_bounds', pg_catalog.format('%s is outside its bounds [%s, %s]',
			CASE WHEN pg_catalog.length(value::text) > 30
				 THEN pg_catalog.left(value::text, 20) || '...' ELSE value::text END, p.low, p.high)];
	END IF;
	RETURN NULL;
END;
$$;

-- A configuration (name -> value) checked against a study's space and
-- completed: known parameters' values are checked and normalised (an int
-- as a JSON integer, a float as a double), missing ones take their
-- default, unknown ones are dropped, inactive conditional ones take their
-- default.  problem is {reason, message} (reasons: wrong_type,
-- out_of_bounds, unknown_choice, missing_parameter) or NULL.
CREATE OR REPLACE FUNCTION tuner._complete_config(p_study_id bigint, params jsonb,
									   OUT config jsonb, OUT problem text[],
									   OUT defaulted text[], OUT dropped text[])
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	v jsonb;
BEGIN
	config := '{}';
	defaulted := '{}';
	dropped := ARRAY(SELECT k FROM pg_catalog.jsonb_object_keys(params) AS k
					  WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter q
										 WHERE q.study_id = p_study_id AND q.name = k)
					  ORDER BY k);
	FOR p IN SELECT * FROM tuner.parameter q WHERE q.study_id = p_study_id ORDER BY q.position
	LOOP
		v := params -> p.name;
		IF v IS NULL OR pg_catalog.jsonb_typeof(v) = 'null' THEN
			IF p.default_value IS NULL THEN
				problem := ARRAY['missing_parameter',
					pg_catalog.format('parameter %s has no value and no default', pg_catalog.to_jsonb(p.name))];
				RETURN;
			END IF;
			defaulted := defaulted || p.name;
			v := p.default_value;
		ELSE
			problem := tuner._value_problem(p, v);
			IF problem IS NOT NULL THEN
				problem[2] := pg_catalog.format('parameter %s %s', pg_catalog.to_jsonb(p.name), problem[2]);
				RETURN;
			END IF;
			v := CASE p.kind WHEN 'int' THEN pg_catalog.to_jsonb((v::numeric)::bigint)
							 WHEN 'float' THEN pg_catalog.to_jsonb(v::float8)
							 ELSE v END;
		END IF;
		config := config || pg_catalog.jsonb_build_object(p.name, v);
	END LOOP;
	config := tuner._apply_conditions(p_study_id, config);
END;
$$;

-------------------------------------------------------------------------------
-- _native_rows reads only the trials of its study.
--
-- The native rows of trials were built by joining the given trial ids to
-- tuner.trial and reading each trial's config through the study's
-- parameters in a LATERAL subquery.  Nothing tied the trials to the study,
-- so a plan that scans tuner.trial first (the planner may, depending on
-- the table's statistics) cast other studies' configs with this study's
-- parameter kinds: "cannot cast jsonb numeric to type boolean" from
-- replay_suggestion, seen in the conditions regress test depending on
-- which tests ran before it.  The trial must now belong to the study,
-- which every caller's ids already do.
-------------------------------------------------------------------------------

-- The native rows (src/core/space.h) of trials, in the given order, over
-- the named parameters: what suggest_next builds from its history.
CREATE OR REPLACE FUNCTION tuner._native_rows(p_study_id bigint, ids bigint[], names text[])
RETURNS float8[]
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	-- (plpgsql, not sql: its plan is kept for the session, and a
	-- suggestion reads four sets of rows.)  One jsonb_each per trial: the
	-- config of a study with many parameters is stored compressed, and a
	-- config -> name per parameter decompressed it again each time.  The
	-- trials asked for are found first (t): joined directly, a plan that
	-- scanned the study's trials ran jsonb_each on every one of them for
	-- each of the four sets (n = 100, d = 10: 0.9 ms for ten failed
	-- trials, and for none, against 1.6 ms for the hundred observed).
	RETURN (
		WITH p AS MATERIALIZED (
			SELECT n.j, n.name, x.kind, x.choices
			  FROM pg_catalog.unnest(names) WITH ORDINALITY AS n(name, j)
			  JOIN tuner.parameter x ON x.study_id = p_study_id AND x.name = n.name),
		t AS MATERIALIZED (
			SELECT o.k, x.config
			  FROM pg_catalog.unnest(ids) WITH ORDINALITY AS o(id, k)
			  JOIN tuner.trial x ON x.id = o.id AND x.study_id = p_study_id)
		SELECT pg_catalog.array_agg(r.x ORDER BY t.k)
		  FROM t
		 CROSS JOIN LATERAL (
			SELECT pg_catalog.array_agg(CASE p.kind
						WHEN 'bool' THEN CASE WHEN e.value::bool THEN 1 ELSE 0 END
						WHEN 'categorical' THEN pg_catalog.array_position(p.choices, e.value #>> '{}') - 1
						ELSE e.value::float8 END ORDER BY p.j) AS x
			  FROM p LEFT JOIN pg_catalog.jsonb_each(t.config) e ON e.key = p.name) r);
END;
$$;

-- A stored configuration as native values over the enabled parameters.
CREATE OR REPLACE FUNCTION tuner._config_native(study_id bigint, config jsonb)
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(CASE p.kind
			WHEN 'bool' THEN CASE WHEN (config -> p.name)::bool THEN 1 ELSE 0 END
			WHEN 'categorical' THEN pg_catalog.array_position(p.choices, config ->> p.name) - 1
			ELSE (config -> p.name)::float8 END ORDER BY p.position)
  FROM tuner.parameter p
 WHERE p.study_id = $1 AND p.enabled;
$$;

-------------------------------------------------------------------------------
-- A parameter's bounds must be representable and samplable, and a study
-- has at most 2000 parameters (issue 25 b).
--
-- Bounds are float8 columns; an int parameter's values are bigint
-- (suggestions, tuner.best, create_view) and a float's are drawn as
-- low + u * (high - low).  So int bounds past bigint failed later with
-- "bigint out of range", float bounds of +-1e308 made high - low
-- infinite and every suggestion the same (the study was "exhausted"
-- after one trial), and a study of more than 1000 parameters got no
-- design point (the scrambled Halton design, src/core/design.c, spanned
-- at most 1000 dimensions), Ceph's washed catalog of 1153 options
-- included.  The design now spans 2000 (MAX_DESIGN_DIMS), and a trigger on
-- tuner.parameter now refuses such rows however they come
-- (add_parameter, the presets and catalog imports, which go through it,
-- a widening soft bound, direct DML), and a soft bound stops widening
-- before its range would become one.
-------------------------------------------------------------------------------

-- Why a float or int range [low, high] cannot be sampled, or NULL when it
-- can: a bound not finite (or, for int, not an integer or outside
-- bigint), high - low not finite (float) or outside bigint (int), a
-- log-scaled low bound not positive.  Other kinds have no range: NULL.
CREATE OR REPLACE FUNCTION tuner._bounds_problem(kind text, low float8, high float8, log_scale bool)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT CASE
	WHEN $1 NOT IN ('float', 'int') OR $2 IS NULL OR $3 IS NULL THEN NULL
	WHEN $2 IN ('NaN', 'Infinity', '-Infinity') OR $3 IN ('NaN', 'Infinity', '-Infinity')
		THEN 'a bound is not finite'
	WHEN $1 = 'int' AND ($2 <> pg_catalog.trunc($2) OR $3 <> pg_catalog.trunc($3))
		THEN 'a bound is not an integer'
	-- bigint is [-2^63, 2^63 - 1]; 2^63 - 1 itself rounds up to 2^63 in float8
	WHEN $1 = 'int' AND ($2 < '-9223372036854775808'::float8 OR $3 >= '9223372036854775808'::float8)
		THEN 'a bound is outside bigint'
	WHEN $1 = 'int' AND $3 - $2 >= '9223372036854775808'::float8
		THEN 'high - low is outside bigint'
	-- (halved, as high - low itself would raise an overflow)
	WHEN $1 = 'float' AND $3 / 2 - $2 / 2 > '1.7976931348623157e308'::float8 / 2
		THEN 'high - low overflows float8'
	WHEN $4 AND $2 <= 0
		THEN 'the scale is logarithmic and low is not positive'
END;
$$;

-- The most parameters a study may have: the design's dimensions
-- (MAX_DESIGN_DIMS in src/core/design.c).
CREATE OR REPLACE FUNCTION tuner._max_parameters()
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, tuner, pg_temp
AS $$ SELECT 2000 $$;

-- Trigger: a parameter row must be samplable.  Its bounds, and the widest
-- range its soft bounds may reach (up to hard_low and hard_high), pass
-- tuner._bounds_problem; a new row (or one moved to another study) finds
-- fewer than tuner._max_parameters() others in its study.
CREATE OR REPLACE FUNCTION tuner._parameter_limits()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_problem text;
	v_count bigint;
BEGIN
	-- (rows already stored stay updatable in their other columns)
	IF TG_OP = 'UPDATE'
	   AND (NEW.kind, NEW.low, NEW.high, NEW.log_scale, NEW.hard_low, NEW.hard_high)
		   IS NOT DISTINCT FROM (OLD.kind, OLD.low, OLD.high, OLD.log_scale, OLD.hard_low, OLD.hard_high)
	   AND NEW.study_id = OLD.study_id THEN
		RETURN NEW;
	END IF;
	v_problem := tuner._bounds_problem(NEW.kind, NEW.low, NEW.high, NEW.log_scale);
	IF v_problem IS NOT NULL THEN
		RAISE EXCEPTION 'bounds [%, %] of % parameter "%" cannot be sampled',
			  NEW.low, NEW.high, NEW.kind, NEW.name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('In [%s, %s] %s.', NEW.low, NEW.high, v_problem),
				  HINT = CASE WHEN NEW.kind = 'int'
							  THEN 'An int parameter takes bigint values: keep low, high and high - low within bigint (below 9.2e18 in magnitude).'
							  ELSE 'Keep the bounds finite and high - low below 1.7e308; rescale the parameter (for example, tune its logarithm) if it spans more.' END;
	END IF;
	IF NEW.hard_low IS NOT NULL OR NEW.hard_high IS NOT NULL THEN
		v_problem := tuner._bounds_problem(NEW.kind, COALESCE(NEW.hard_low, NEW.low),
										   COALESCE(NEW.hard_high, NEW.high), NEW.log_scale);
		IF v_problem IS NOT NULL THEN
			RAISE EXCEPTION 'hard limits [%, %] of % parameter "%" cannot be sampled',
				  COALESCE(NEW.hard_low::text, 'none'), COALESCE(NEW.hard_high::text, 'none'),
				  NEW.kind, NEW.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Its soft bounds may widen to [%s, %s], and there %s.',
												 COALESCE(NEW.hard_low, NEW.low),
												 COALESCE(NEW.hard_high, NEW.high), v_problem),
					  HINT = 'Hard limits bound the widest range the parameter may reach: they must be samplable as bounds are.';
		END IF;
	END IF;
	IF TG_OP = 'INSERT' OR NEW.study_id IS DISTINCT FROM OLD.study_id THEN
		SELECT pg_catalog.count(*) INTO v_count
		  FROM tuner.parameter p
		 WHERE p.study_id = NEW.study_id AND p.id <> NEW.id;
		IF v_count >= tuner._max_parameters() THEN
			RAISE EXCEPTION 'study "%" cannot have more than % parameters',
				  (SELECT s.name FROM tuner.study s WHERE s.id = NEW.study_id),
				  tuner._max_parameters()
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = pg_catalog.format('Parameter "%s" would be number %s; the space-filling design spans at most %s dimensions.',
												 NEW.name, v_count + 1, tuner._max_parameters()),
					  HINT = 'Split the space over several studies, or leave out parameters known not to matter.';
		END IF;
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER parameter_limits BEFORE INSERT OR UPDATE ON tuner.parameter
	FOR EACH ROW EXECUTE FUNCTION tuner._parameter_limits();

-- A value of a configuration (JSON) as the native value of parameter p
-- (src/core/space.h): a bool's 0 or 1, a categorical's choice index,
-- else the number; NULL for a choice p does not have.
CREATE OR REPLACE FUNCTION tuner._native_value(p tuner.parameter, v jsonb)
RETURNS float8
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE $1.kind
	WHEN 'bool' THEN CASE WHEN ($2)::bool THEN 1 ELSE 0 END
	WHEN 'categorical' THEN pg_catalog.array_position($1.choices, $2 #>> '{}') - 1
	ELSE ($2)::float8 END;
$$;

-- The condition of a modelled parameter p whose condition tests a
-- parameter left out of the model (tuner.enable_parameters), which is
-- fixed at its default: that condition is then always false (a row with
-- op 'never') or always true, and in the latter case p is active exactly
-- when that parent is, so p takes the parent's condition, up to a
-- modelled ancestor (a row: its 1-based position in names, the operator
-- and the ancestor's native values) or none (no row: always active).
CREATE OR REPLACE FUNCTION tuner._folded_condition(p tuner.parameter, names text[],
										OUT parent int, OUT op text, OUT vals float8[])
RETURNS SETOF record
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	q tuner.parameter;
	r tuner.parameter := $1;
BEGIN
	WHILE r.condition_parameter IS NOT NULL AND r.condition_parameter <> ALL (names)
	LOOP
		SELECT * INTO q FROM tuner.parameter x
		 WHERE x.study_id = r.study_id AND x.name = r.condition_parameter;
		IF NOT tuner._condition_holds(r, pg_catalog.jsonb_build_object(q.name, q.default_value)) THEN
			parent := 0;
			op := 'never';
			RETURN NEXT;
			RETURN;
		END IF;
		r.condition_parameter := q.condition_parameter;
		r.condition_op := q.condition_op;
		r.condition_values := q.condition_values;
	END LOOP;
	IF r.condition_parameter IS NOT NULL THEN
		SELECT * INTO q FROM tuner.parameter x
		 WHERE x.study_id = r.study_id AND x.name = r.condition_parameter;
		parent := pg_catalog.array_position(names, q.name);
		op := r.condition_op;
		vals := ARRAY(SELECT v FROM pg_catalog.jsonb_array_elements(r.condition_values) WITH ORDINALITY AS e(value, k)
						CROSS JOIN LATERAL tuner._native_value(q, e.value) AS v
					   WHERE v IS NOT NULL ORDER BY e.k);
		RETURN NEXT;
	END IF;
END;
$$;

-- The conditions of the modelled parameters (names, in order) as the
-- core takes them (tuner._suggest_point): per parameter the 1-based
-- position of the parameter it tests (0: none), the operator (NULL: no
-- condition), a row of the parent's native values (NULL-padded; vals is
-- NULL when no condition has values; a choice the parent no longer has
-- matches nothing and is left out) and its native default.  A condition
-- on a parameter left out of the model is folded (tuner._folded_condition).
CREATE OR REPLACE FUNCTION tuner._space_conditions(p_study_id bigint, names text[],
										OUT parents int[], OUT ops text[],
										OUT vals float8[], OUT defaults float8[])
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter x
					WHERE x.study_id = p_study_id AND x.condition_parameter IS NOT NULL
					  AND x.name = ANY (names)) THEN
		parents := pg_catalog.array_fill(0, ARRAY[pg_catalog.cardinality(names)]);
		ops := pg_catalog.array_fill(NULL::text, ARRAY[pg_catalog.cardinality(names)]);
		defaults := pg_catalog.array_fill(NULL::float8, ARRAY[pg_catalog.cardinality(names)]);
		RETURN;
	END IF;
	WITH n AS (
		SELECT u.name, u.j FROM pg_catalog.unnest(names) WITH ORDINALITY AS u(name, j)
	), c AS (
		SELECT n.j, e.parent, e.op, e.vals,
			   CASE p.kind WHEN 'bool' THEN CASE WHEN p.default_value::bool THEN 1 ELSE 0 END
						   WHEN 'categorical' THEN pg_catalog.array_position(p.choices, p.default_value #>> '{}') - 1
						   ELSE p.default_value::float8 END AS dflt
		  FROM n
		  JOIN tuner.parameter p ON p.study_id = p_study_id AND p.name = n.name
							   AND p.condition_parameter IS NOT NULL
		 CROSS JOIN LATERAL (
			SELECT pn.j::int AS parent, p.condition_op AS op,
				   ARRAY(SELECT x.v
						   FROM pg_catalog.jsonb_array_elements(p.condition_values) WITH ORDINALITY AS e(value, k)
						   CROSS JOIN LATERAL (SELECT CASE q.kind
									WHEN 'bool' THEN CASE WHEN e.value::bool THEN 1 ELSE 0 END
									WHEN 'categorical' THEN pg_catalog.array_position(q.choices, e.value #>> '{}') - 1
									ELSE e.value::float8 END::float8 AS v) x
						  WHERE x.v IS NOT NULL ORDER BY e.k) AS vals
			  FROM n pn
			  JOIN tuner.parameter q ON q.study_id = p_study_id AND q.name = pn.name
			 WHERE pn.name = p.condition_parameter
			UNION ALL
			SELECT f.parent, f.op, f.vals FROM tuner._folded_condition(p, names) f
			 WHERE p.condition_parameter <> ALL (names)) e
	), w AS (
		SELECT COALESCE(pg_catalog.max(pg_catalog.cardinality(c.vals)), 0) AS m FROM c
	)
	SELECT pg_catalog.array_agg(COALESCE(c.parent, 0) ORDER BY n.j),
		   pg_catalog.array_agg(c.op ORDER BY n.j),
		   pg_catalog.array_agg(COALESCE(c.vals, '{}')
								|| pg_catalog.array_fill(NULL::float8, ARRAY[w.m - COALESCE(pg_catalog.cardinality(c.vals), 0)])
								ORDER BY n.j) FILTER (WHERE w.m > 0),
		   pg_catalog.array_agg(c.dflt ORDER BY n.j)
	  INTO parents, ops, vals, defaults
	  FROM n LEFT JOIN c ON c.j = n.j CROSS JOIN w;
END;
$$;
