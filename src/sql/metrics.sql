/*
 * metrics.sql
 *	  Metrics, outcome constraints and known-invalid combinations, and the
 *	  failure model's predictions.
 */

-------------------------------------------------------------------------------
-- Metrics and algorithms
-------------------------------------------------------------------------------

-- Declare a metric of a study, or change the role, direction or unit of one
-- already declared or reported.  Auxiliary metrics are the extra tasks of
-- the multi-task algorithms; metrics that trials report without being
-- declared are only recorded.  Returns the metric's id.
CREATE OR REPLACE FUNCTION tuner.add_metric(study text, name text,
								 role text DEFAULT 'auxiliary',
								 direction text DEFAULT NULL,
								 unit text DEFAULT NULL,
								 bound float8 DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_name text := $2;
	p_role text := $3;
	p_direction text := $4;
	p_unit text := $5;
	p_bound float8 := $6;
	v_id bigint;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_role, 'role');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'metric name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.left(p_name, 1) = '_' THEN
		RAISE EXCEPTION 'metric name "%" starts with "_"', p_name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Keys starting with "_" are runner extras, stored in the trial''s details, never metrics.';
	END IF;
	IF p_role NOT IN ('objective', 'auxiliary', 'constraint') THEN
		RAISE EXCEPTION 'invalid metric role "%"', p_role
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''auxiliary'' or ''constraint''; the objective is set by tuner.create_study().';
	END IF;
	IF p_direction IS NOT NULL AND p_direction NOT IN ('minimize', 'maximize') THEN
		RAISE EXCEPTION 'invalid direction "%"', p_direction
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''minimize'' or ''maximize''.';
	END IF;
	-- Another objective (multi-objective study, see the section at the
	-- end of this file) is declared with its direction.
	IF (p_role = 'objective') <> (p_name = s.objective)
	   AND NOT (p_role = 'objective' AND p_direction IS NOT NULL) THEN
		IF p_role = 'objective' THEN
			RAISE EXCEPTION 'study "%" already has the objective "%"', s.name, s.objective
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A study has one objective, chosen by tuner.create_study(); add this metric as ''auxiliary''.';
		END IF;
		RAISE EXCEPTION '"%" is the objective of study "%"', p_name, s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The objective keeps its role; choose another metric.';
	END IF;
	IF p_role = 'objective' AND p_name = s.objective
	   AND p_direction IS DISTINCT FROM s.direction AND p_direction IS NOT NULL THEN
		RAISE EXCEPTION 'the objective of study "%" is to %, not to %', s.name,
			  s.direction, p_direction
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The objective''s direction is set by tuner.create_study().';
	END IF;

	PERFORM tuner._check_metric_bound(p_name, p_role, p_direction, p_bound);

	INSERT INTO tuner.metric AS m (study_id, name, role, direction, unit, bound)
	VALUES (s.id, p_name, p_role, p_direction, p_unit, p_bound)
	ON CONFLICT (study_id, name) DO UPDATE
	   SET role = EXCLUDED.role,
		   direction = COALESCE(EXCLUDED.direction, m.direction),
		   unit = COALESCE(EXCLUDED.unit, m.unit),
		   -- a bound belongs to a constraint: other roles drop it
		   bound = CASE WHEN EXCLUDED.role = 'constraint'
						THEN COALESCE(EXCLUDED.bound, m.bound) END
	RETURNING m.id INTO v_id;
	RETURN v_id;
END;
$$;

-- A measurement noise standard deviation, in objective units.
CREATE OR REPLACE FUNCTION tuner._check_noise_sd(value jsonb, what text)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF pg_catalog.jsonb_typeof(value) <> 'number' OR (value #>> '{}')::float8 <= 0 THEN
		RAISE EXCEPTION '% must be a positive number', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'It is the standard deviation of one measurement of the objective, in its own units.';
	END IF;
	RETURN (value #>> '{}')::float8;
END;
$$;

-- The checks of a constraint metric's bound (tuner.add_metric).
CREATE OR REPLACE FUNCTION tuner._check_metric_bound(name text, role text,
										  direction text, bound float8)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF bound IS NULL THEN
		RETURN;
	END IF;
	IF bound = 'NaN'::float8 OR bound IN ('Infinity'::float8, '-Infinity'::float8) THEN
		RAISE EXCEPTION 'the bound of metric "%" must be a finite number', name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', bound);
	END IF;
	IF role <> 'constraint' THEN
		RAISE EXCEPTION 'only a constraint metric has a bound'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Metric "%s" has role %s.', name, role),
				  HINT = 'Declare it with role => ''constraint''.';
	END IF;
	IF direction IS NULL THEN
		RAISE EXCEPTION 'constraint metric "%" needs a direction for its bound', name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'direction => ''minimize'' means value <= bound, ''maximize'' value >= bound.';
	END IF;
END;
$$;

-- Did a complete trial meet every bounded constraint of its study?  NULL
-- when the study has none or the trial is not complete; a constraint
-- metric the trial did not report is not met.
CREATE OR REPLACE FUNCTION tuner._trial_meets_constraints(trial bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.bool_and(ob.value IS NOT NULL AND
		CASE m.direction WHEN 'maximize' THEN ob.value >= m.bound ELSE ob.value <= m.bound END)
  FROM tuner.trial t
  JOIN tuner.metric m ON m.study_id = t.study_id AND m.role = 'constraint' AND m.bound IS NOT NULL
  LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = m.id
 WHERE t.id = $1 AND t.state = 'complete';
$$;

-- The study's parameter constraints as the rows suggest works with: one row
-- of coefficients per constraint over the enabled parameters in position
-- order, a disabled parameter's default moved to the right-hand side.
CREATE OR REPLACE FUNCTION tuner._linear_constraints(study_id bigint,
										  OUT lin_coef float8[],
										  OUT lin_rhs float8[],
										  OUT lin_strict bool[])
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(ARRAY(
			SELECT COALESCE((pc.coefficients ->> p.name)::float8, 0)
			  FROM tuner.parameter p
			 WHERE p.study_id = pc.study_id AND p.enabled
			 ORDER BY p.position) ORDER BY pc.id),
	   pg_catalog.array_agg(pc.rhs - COALESCE((
			SELECT pg_catalog.sum((pc.coefficients ->> p.name)::float8 * (p.default_value #>> '{}')::float8)
			  FROM tuner.parameter p
			 WHERE p.study_id = pc.study_id AND NOT p.enabled
			   AND pc.coefficients ? p.name), 0) ORDER BY pc.id),
	   pg_catalog.array_agg(pc.strict ORDER BY pc.id)
  FROM tuner.parameter_constraint pc
 WHERE pc.study_id = $1;
$$;

-- Parse one side of a parameter constraint: terms "name", "number",
-- "number * name" or "number name", joined by + and -, into coefficients
-- (jsonb) and a constant.
CREATE OR REPLACE FUNCTION tuner._parse_linear_side(side text, expression text,
										 OUT coefficients jsonb, OUT constant float8)
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_text text := pg_catalog.regexp_replace(side, '\s+', '', 'g');
	m text[];
	v_sign float8;
	v_coef float8;
BEGIN
	coefficients := '{}';
	constant := 0;
	IF v_text = '' THEN
		RAISE EXCEPTION 'parameter constraint "%" has an empty side', expression
			USING ERRCODE = 'syntax_error',
				  HINT = 'Write e.g. ''a <= b'', ''a + 2*b <= 100'' or ''a < b''.';
	END IF;
	IF pg_catalog.left(v_text, 1) NOT IN ('+', '-') THEN
		v_text := '+' || v_text;
	END IF;
	IF v_text !~ '^([+-](([0-9]+\.?[0-9]*|\.[0-9]+)\*?)?([A-Za-z_][A-Za-z0-9_.]*)?)+$' THEN
		RAISE EXCEPTION 'cannot parse parameter constraint "%"', expression
			USING ERRCODE = 'syntax_error',
				  DETAIL = pg_catalog.format('Near "%s".', side),
				  HINT = 'Each side is a sum of terms: name, number, or number*name; the operator is one of <=, <, >=, >.';
	END IF;
	FOR m IN SELECT pg_catalog.regexp_matches(v_text,
			'([+-])(([0-9]+\.?[0-9]*|\.[0-9]+)\*?)?([A-Za-z_][A-Za-z0-9_.]*)?', 'g')
	LOOP
		v_sign := CASE m[1] WHEN '-' THEN -1 ELSE 1 END;
		IF m[3] IS NULL AND m[4] IS NULL THEN
			RAISE EXCEPTION 'cannot parse parameter constraint "%"', expression
				USING ERRCODE = 'syntax_error',
					  DETAIL = 'A sign is not followed by a term.';
		END IF;
		v_coef := v_sign * COALESCE(m[3]::float8, 1);
		IF m[4] IS NULL THEN
			constant := constant + v_coef;
		ELSE
			coefficients := coefficients || pg_catalog.jsonb_build_object(m[4],
				COALESCE((coefficients ->> m[4])::float8, 0) + v_coef);
		END IF;
	END LOOP;
END;
$$;

-- Declare a known-invalid combination of parameters: a linear inequality
-- over int and float parameters that every suggestion must satisfy, e.g.
-- 'level0_slowdown_writes_trigger <= level0_stop_writes_trigger' or
-- 'a + 2*b <= 100'.  Refused when no configuration within the bounds
-- satisfies it (with the study's other constraints) or the defaults break
-- it.  Returns the constraint's id.
CREATE OR REPLACE FUNCTION tuner.add_constraint(study text, expression text,
									 source text DEFAULT 'user')
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	p_expr text := $2;
	m text[];
	l record;
	r record;
	v_op text;
	v_coef jsonb := '{}';
	v_rhs float8;
	v_strict bool;
	v_min float8 := 0;
	v_default float8 := 0;
	v_all_defaults bool := true;
	k text;
	c float8;
	p tuner.parameter;
	v_id bigint;
	v_found bool;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_expr, 'expression');
	PERFORM tuner._not_null($3, 'source');
	IF $3 NOT IN ('user', 'preset') THEN
		RAISE EXCEPTION 'invalid constraint source "%"', $3
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''user'' or ''preset''.';
	END IF;
	m := pg_catalog.regexp_match(p_expr, '^([^<>=!]*)(<=|>=|<|>)([^<>=!]*)$');
	IF m IS NULL THEN
		RAISE EXCEPTION 'cannot parse parameter constraint "%"', p_expr
			USING ERRCODE = 'syntax_error',
				  HINT = 'Use exactly one of <=, <, >=, > between two sums of terms, e.g. ''a + 2*b <= 100''.';
	END IF;
	l := tuner._parse_linear_side(m[1], p_expr);
	r := tuner._parse_linear_side(m[3], p_expr);
	v_op := m[2];
	-- left - right <= right constant - left constant, negated for >= and >
	FOR k IN SELECT key FROM pg_catalog.jsonb_object_keys(l.coefficients || r.coefficients) AS key
	LOOP
		c := COALESCE((l.coefficients ->> k)::float8, 0) - COALESCE((r.coefficients ->> k)::float8, 0);
		IF v_op IN ('>=', '>') THEN
			c := -c;
		END IF;
		IF c <> 0 THEN
			v_coef := v_coef || pg_catalog.jsonb_build_object(k, c);
		END IF;
	END LOOP;
	v_rhs := (r.constant - l.constant) * CASE WHEN v_op IN ('>=', '>') THEN -1 ELSE 1 END;
	v_strict := v_op IN ('<', '>');
	IF v_coef = '{}' THEN
		RAISE EXCEPTION 'parameter constraint "%" involves no parameter', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Name at least one parameter with a nonzero coefficient.';
	END IF;

	-- every name a numeric parameter; the smallest left side within the bounds
	FOR k, c IN SELECT key, value::float8 FROM pg_catalog.jsonb_each_text(v_coef)
	LOOP
		SELECT * INTO p FROM tuner.parameter WHERE study_id = s.id AND name = k;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'parameter "%" of constraint "%" does not exist in study "%"', k, p_expr, s.name
				USING ERRCODE = 'undefined_object',
					  HINT = 'Add it with tuner.add_parameter() first.';
		END IF;
		IF p.kind NOT IN ('int', 'float') THEN
			RAISE EXCEPTION 'parameter "%" of constraint "%" is %', k, p_expr, p.kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Parameter constraints are linear in int and float parameters.';
		END IF;
		v_min := v_min + CASE WHEN c > 0 THEN c * p.low ELSE c * p.high END;
		IF p.default_value IS NULL THEN
			v_all_defaults := false;
		ELSE
			v_default := v_default + c * (p.default_value #>> '{}')::float8;
		END IF;
	END LOOP;
	IF v_min > v_rhs OR (v_strict AND v_min >= v_rhs) THEN
		RAISE EXCEPTION 'no configuration satisfies parameter constraint "%"', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Within the parameters'' bounds its left side minus its right side is at least %s.',
											 v_min - v_rhs),
				  HINT = 'Check the constraint''s direction and the parameters'' bounds.';
	END IF;
	IF v_all_defaults AND (v_default > v_rhs OR (v_strict AND v_default >= v_rhs)) THEN
		RAISE EXCEPTION 'the default configuration breaks parameter constraint "%"', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Change the parameters'' defaults or the constraint: the study measures the defaults first.';
	END IF;

	INSERT INTO tuner.parameter_constraint (study_id, expression, coefficients, strict, rhs, source)
	VALUES (s.id, p_expr, v_coef, v_strict, v_rhs, $3)
	ON CONFLICT ON CONSTRAINT parameter_constraint_study_id_expression_key
		DO UPDATE SET source = EXCLUDED.source
	RETURNING id INTO v_id;

	-- Together with the others: some of 4096 points spread over the space
	-- (uniform in each parameter's search scale) must satisfy all of them.
	WITH pts AS (
		SELECT g AS i,
			   pg_catalog.jsonb_object_agg(pp.name,
					CASE WHEN pp.log_scale THEN pp.low * pg_catalog.power(pp.high / pp.low, u.u)
						 ELSE pp.low + (pp.high - pp.low) * u.u END) AS x
		  FROM pg_catalog.generate_series(1, 4096) AS g
		 CROSS JOIN tuner.parameter pp
		 CROSS JOIN LATERAL (SELECT ((pg_catalog.hashint8extended(g * 1000 + pp.position, 17) & 1048575)::float8 + 0.5)
									/ 1048576 AS u) u
		 WHERE pp.study_id = s.id AND pp.kind IN ('int', 'float')
		 GROUP BY g
	)
	SELECT EXISTS (
		SELECT 1 FROM pts
		 WHERE NOT EXISTS (
			SELECT 1 FROM tuner.parameter_constraint pc
			 CROSS JOIN LATERAL (
				SELECT pg_catalog.sum(e.value::float8 *
						CASE WHEN q.kind = 'int' THEN pg_catalog.round((pts.x ->> e.key)::float8)
							 ELSE (pts.x ->> e.key)::float8 END) AS lhs
				  FROM pg_catalog.jsonb_each_text(pc.coefficients) e
				  JOIN tuner.parameter q ON q.study_id = s.id AND q.name = e.key) v
			 WHERE pc.study_id = s.id
			   AND NOT (v.lhs < pc.rhs OR (NOT pc.strict AND v.lhs <= pc.rhs))))
	  INTO v_found;
	IF NOT v_found THEN
		RAISE EXCEPTION 'no configuration satisfies parameter constraint "%" together with the study''s others', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'None of 4096 configurations spread over the space satisfies all of them.',
				  HINT = 'See tuner.parameter_constraint for the study''s constraints.';
	END IF;
	RETURN v_id;
END;
$$;

-- P(feasible) of a configuration: the product over the study's latest
-- feasibility and constraint models, each with its stored hyperparameters
-- over every trial finished so far (so trials finished after the fit
-- count too).
CREATE OR REPLACE FUNCTION tuner.predict_feasibility(study text, params jsonb)
RETURNS float8
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	mo tuner.model;
	v_x float8[];
	v_u float8[];
	v_train float8[];
	v_y float8[];
	v_objective bigint;
	v_metric tuner.metric;
	v_pred record;
	v_categories int[];
	v_p float8 := 1;
	v_last bigint;
	k text;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'params');
	IF pg_catalog.jsonb_typeof($2) <> 'object' THEN
		RAISE EXCEPTION 'params must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof($2));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys($2)
	LOOP
		IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id AND p.name = k) THEN
			RAISE EXCEPTION 'parameter "%" does not exist in study "%"', k, s.name
				USING ERRCODE = 'undefined_object';
		END IF;
	END LOOP;
	sp := tuner._space(s.id);
	SELECT pg_catalog.max(m.trial_id) INTO v_last FROM tuner.model m
	 WHERE m.study_id = s.id AND m.kind IN ('feasibility', 'constraint');
	IF v_last IS NULL THEN
		RAISE EXCEPTION 'study "%" has no feasibility or constraint model yet', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'tuner.suggest_next() fits them once the study has failed trials or bounded constraint metrics and the model chooses its trials.';
	END IF;
	-- the configuration as native values, then in the unit cube
	SELECT pg_catalog.array_agg(CASE p.kind
				WHEN 'bool' THEN CASE WHEN (v.val)::bool THEN 1 ELSE 0 END
				WHEN 'categorical' THEN pg_catalog.array_position(p.choices, v.val #>> '{}') - 1
				ELSE (v.val)::float8 END ORDER BY p.position)
	  INTO v_x
	  FROM tuner.parameter p
	 CROSS JOIN LATERAL (SELECT COALESCE($2 -> p.name, p.default_value) AS val) v
	 WHERE p.study_id = s.id AND p.enabled;
	IF pg_catalog.array_position(v_x, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'params must give every parameter without a default a value'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2);
	END IF;
	v_u := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices,
							  ARRAY[v_x]);
	-- the kernel's metric: a categorical of three or more choices is
	-- unordered (src/core/space.c, space_kernel_categories)
	v_categories := ARRAY(SELECT CASE WHEN sp.kinds[i] = 3 AND sp.n_choices[i] >= 3
									 THEN sp.n_choices[i] ELSE 0 END
							FROM pg_catalog.generate_series(1, pg_catalog.cardinality(sp.kinds)) AS i
						   ORDER BY i);
	SELECT m.id INTO v_objective FROM tuner.metric m
	 WHERE m.study_id = s.id AND m.name = s.objective;

	FOR mo IN SELECT * FROM tuner.model m
			   WHERE m.study_id = s.id AND m.trial_id = v_last
				 AND m.kind IN ('feasibility', 'constraint') ORDER BY m.id
	LOOP
		IF mo.parameters IS DISTINCT FROM sp.names THEN
			CONTINUE;	-- fitted over another set of parameters
		END IF;
		IF mo.kind = 'feasibility' THEN
			-- 1 failed, 0 ran (complete with the objective)
			WITH d AS (
				SELECT t.number, t.config, CASE t.state WHEN 'failed' THEN 1.0 ELSE 0.0 END AS y
				  FROM tuner.trial t
				 WHERE t.study_id = s.id
				   AND (t.state = 'failed'
						OR (t.state = 'complete' AND EXISTS (
							SELECT 1 FROM tuner.observation ob
							 WHERE ob.trial_id = t.id AND ob.metric_id = v_objective)))
			)
			SELECT pg_catalog.array_agg(tuner._config_native(s.id, d.config) ORDER BY d.number),
				   pg_catalog.array_agg((d.y - mo.outcome_mean) / mo.outcome_sd ORDER BY d.number)
			  INTO v_train, v_y FROM d;
		ELSE
			SELECT * INTO v_metric FROM tuner.metric m
			 WHERE m.study_id = s.id AND m.name = mo.constraint_metric;
			IF NOT FOUND OR v_metric.bound IS NULL OR v_metric.role <> 'constraint' THEN
				CONTINUE;	-- no longer a constraint
			END IF;
			SELECT pg_catalog.array_agg(tuner._config_native(s.id, t.config) ORDER BY t.number),
				   pg_catalog.array_agg((CASE v_metric.direction WHEN 'maximize' THEN -ob.value ELSE ob.value END
										 - mo.outcome_mean) / mo.outcome_sd ORDER BY t.number)
			  INTO v_train, v_y
			  FROM tuner.trial t
			  JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = v_metric.id
			 WHERE t.study_id = s.id AND t.state = 'complete'
			   AND EXISTS (SELECT 1 FROM tuner.observation o2
							WHERE o2.trial_id = t.id AND o2.metric_id = v_objective);
		END IF;
		IF v_train IS NULL THEN
			CONTINUE;
		END IF;
		v_train := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices, v_train);
		v_p := v_p * (tuner._feasibility_predict(
			v_train, v_y, mo.lengthscales, mo.outputscale, mo.noise, mo.mean,
			v_categories, mo.trend_intercept IS NOT NULL, mo.bound,
			mo.calibration_threshold, mo.calibration_spread, v_u))[1];
	END LOOP;
	RETURN v_p;
END;
$$;

-- P(holds) of one stored feasibility or constraint model at each row of x
-- (unit-cube points), rebuilt from its trials (train_x, unit cube; y, the
-- standardized outcome before any trend) and hyperparameters exactly as
-- tuner.suggest_next's acquisition uses it: the kernel's categorical
-- metric, the trend and its uncertainty, the calibration.
CREATE OR REPLACE FUNCTION tuner._feasibility_predict(train_x float8[], y float8[],
										   lengthscales float8[],
										   outputscale float8, noise float8,
										   mean float8, categories int[],
										   with_trend bool, bound float8,
										   calibration_threshold float8,
										   calibration_spread float8,
										   x float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_feasibility_predict'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-------------------------------------------------------------------------------
-- A bounded constraint on a metric the study's trials do not report is
-- refused when it is declared.
--
-- Before, tuner.add_metric(study, 'p99us', role => 'constraint', bound => 5,
-- direction => 'minimize') on a study whose trials report 'p99_us' was
-- accepted, and the next suggest_next failed with "was never reported":
-- the study then stopped suggesting, so no trial could ever report the
-- metric.  Once a trial is complete its metrics are known, so a name none
-- of them reported is caught where the mistake is made.  A constraint
-- without a bound is only recorded (tuner.add_metric's comment), so it
-- may still name a metric that later trials will report.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._metric_constraint_known()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	v_study text;
	v_complete bigint;
	v_reported text;
BEGIN
	-- by name: INSERT ... ON CONFLICT fires this before it finds the
	-- existing row, with a new id
	IF EXISTS (SELECT 1 FROM tuner.metric m
				 JOIN tuner.observation ob ON ob.metric_id = m.id
				 JOIN tuner.trial t ON t.id = ob.trial_id
				WHERE m.study_id = NEW.study_id AND m.name = NEW.name
				  AND t.state = 'complete') THEN
		RETURN NEW;
	END IF;
	SELECT count(*) INTO v_complete FROM tuner.trial t
	 WHERE t.study_id = NEW.study_id AND t.state = 'complete';
	IF v_complete = 0 THEN
		RETURN NEW;		-- nothing is known yet of what trials report
	END IF;
	SELECT s.name INTO v_study FROM tuner.study s WHERE s.id = NEW.study_id;
	SELECT string_agg(quote_ident(m.name), ', ' ORDER BY m.name) INTO v_reported
	  FROM tuner.metric m
	 WHERE m.study_id = NEW.study_id
	   AND EXISTS (SELECT 1 FROM tuner.observation ob
				     JOIN tuner.trial t ON t.id = ob.trial_id
				    WHERE ob.metric_id = m.id AND t.state = 'complete');
	RAISE EXCEPTION 'study "%" has no reported metric "%" to constrain', v_study, NEW.name
		USING ERRCODE = 'undefined_object',
			  DETAIL = format('None of its %s complete trials reported it; they reported %s.',
							  v_complete, coalesce(v_reported, 'nothing')),
			  HINT = 'Check the name, or declare the constraint without a bound until trials report the metric.';
END;
$$;

CREATE TRIGGER metric_constraint_known BEFORE INSERT OR UPDATE OF role, bound ON tuner.metric
	FOR EACH ROW WHEN (NEW.role = 'constraint' AND NEW.bound IS NOT NULL)
	EXECUTE FUNCTION tuner._metric_constraint_known();
