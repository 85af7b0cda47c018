-------------------------------------------------------------------------------
-- Suggestions in canonical form: the model code applies the conditions
-- (issue 26).
--
-- tuner._suggest_point checked a point against the history before
-- tuner.suggest_next reset its inactive parameters to their defaults, so
-- the stored configuration could be a trial already made: 17 distinct
-- configurations in 25 trials of a study with a conditional parameter
-- and one failure.  The core now receives the conditions (each
-- parameter's parent, operator, the parent's values and its own default,
-- native values: tuner._space_conditions) and compares every
-- configuration in its canonical form (src/core/space.h: values on their
-- grid, inactive parameters at their defaults, conditions applied parents
-- first): the trials' before the model, the fantasies of the running
-- ones and the check for repeats see them, and each design, random or
-- model point before it is checked.  Values on their grid also means no
-- float noise in a configuration (2.5, not 2.4999999999999982).
-- suggest_next still applies tuner._apply_conditions, the same rule in
-- SQL, and raises an internal error if that changes the core's answer.
-- tuner.suggestion keeps the conditions a suggestion saw, and canonical:
-- false for the suggestions of earlier versions, which replay_suggestion
-- replays as they were computed.  suggest_next is 0.2.0's and
-- replay_suggestion 0.1.0's with those changes only.
-------------------------------------------------------------------------------

ALTER TABLE tuner.suggestion
	ADD COLUMN canonical bool NOT NULL DEFAULT false,
	ADD COLUMN condition_parent int[],
	ADD COLUMN condition_op text[],
	ADD COLUMN condition_values float8[],
	ADD COLUMN condition_default float8[];
COMMENT ON COLUMN tuner.suggestion.canonical IS
	'The suggestion compared configurations in canonical form, with the conditions below (false: computed by tuner 0.2.0 or earlier, as replay_suggestion replays it)';
COMMENT ON COLUMN tuner.suggestion.condition_parent IS
	'Per parameter: the 1-based position in parameters of the parameter its condition tests (0: none)';
COMMENT ON COLUMN tuner.suggestion.condition_op IS
	'Per parameter: its condition''s operator (=, <>, in, not in, <, <=, >, >=; never: a disabled parameter rules it out; NULL: no condition)';
COMMENT ON COLUMN tuner.suggestion.condition_values IS
	'Per parameter, a row of the native values its condition compares the parent with (NULL-padded; NULL: no condition has values)';
COMMENT ON COLUMN tuner.suggestion.condition_default IS
	'Per parameter: the native value it takes while inactive (NULL: no condition)';

-- A value of a configuration (JSON) as the native value of parameter p
-- (src/core/space.h): a bool's 0 or 1, a categorical's choice index,
-- else the number; NULL for a choice p does not have.
CREATE FUNCTION tuner._native_value(p tuner.parameter, v jsonb)
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
CREATE FUNCTION tuner._folded_condition(p tuner.parameter, names text[],
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
CREATE FUNCTION tuner._space_conditions(p_study_id bigint, names text[],
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

-- The failure model's warm start (issue 28): from 50 trials on, while no
-- trial has failed since the study's last feasibility model, suggest_next
-- passes that model's hyperparameters to _suggest_point, which refines
-- them instead of fitting the failure model from three cold starts each
-- time (src/core/suggest.h, warm_feasibility_*), and records the model
-- for replay_suggestion.
ALTER TABLE tuner.suggestion ADD COLUMN warm_feasibility_model bigint;
COMMENT ON COLUMN tuner.suggestion.warm_feasibility_model IS
	'The feasibility model (tuner.model) whose fit the failure model started from (NULL: fitted from cold starts, as before tuner 0.3.0)';

-- The 0.2.0 entry point, with the conditions and canonical added at the
-- end, then the failure model's warm start.
DROP FUNCTION tuner._suggest_point(int[], float8[], float8[], bool[], int[], float8[], float8[], float8[], float8[], int, int, bigint, bigint, float8[], float8, float8, float8, text, float8[], int, float8[], float8[], float8[], float8[], float8[], float8[], int[], int[], float8[], int[], int[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], bool[]);

CREATE FUNCTION tuner._suggest_point(kinds int[], lows float8[], highs float8[],
									 log_scales bool[], n_choices int[],
									 x_observed float8[], y_observed float8[],
									 x_pending float8[], x_other float8[],
									 n_initial int, design_index int,
									 seed bigint, design_seed bigint,
									 warm_lengthscales float8[],
									 warm_outputscale float8,
									 warm_noise float8,
									 warm_mean float8 DEFAULT NULL,
									 algorithm text DEFAULT 'gp-ei',
									 y_aux float8[] DEFAULT NULL,
									 icm_rank int DEFAULT NULL,
									 warm_task_loadings float8[] DEFAULT NULL,
									 warm_task_variance float8[] DEFAULT NULL,
									 warm_task_noise float8[] DEFAULT NULL,
									 warm_task_mean float8[] DEFAULT NULL,
									 x_transfer float8[] DEFAULT NULL,
									 y_transfer float8[] DEFAULT NULL,
									 cluster_members int[] DEFAULT NULL,
									 cluster_metric int[] DEFAULT NULL,
									 aux_weights float8[] DEFAULT NULL,
									 warm_cluster_tasks int[] DEFAULT NULL,
									 warm_cluster_rank int[] DEFAULT NULL,
									 warm_cluster_lengthscales float8[] DEFAULT NULL,
									 warm_cluster_loadings float8[] DEFAULT NULL,
									 warm_cluster_variance float8[] DEFAULT NULL,
									 warm_cluster_noise float8[] DEFAULT NULL,
									 warm_cluster_mean float8[] DEFAULT NULL,
									 x_failed float8[] DEFAULT NULL,
									 y_constraint float8[] DEFAULT NULL,
									 constraint_bound float8[] DEFAULT NULL,
									 linear_coef float8[] DEFAULT NULL,
									 linear_rhs float8[] DEFAULT NULL,
									 linear_strict bool[] DEFAULT NULL,
									 condition_parent int[] DEFAULT NULL,
									 condition_op text[] DEFAULT NULL,
									 condition_values float8[] DEFAULT NULL,
									 condition_default float8[] DEFAULT NULL,
									 canonical bool DEFAULT true,
									 warm_feasibility_lengthscales float8[] DEFAULT NULL,
									 warm_feasibility_outputscale float8 DEFAULT NULL,
									 warm_feasibility_noise float8 DEFAULT NULL,
									 warm_feasibility_mean float8 DEFAULT NULL,
									 OUT config float8[], OUT source text,
									 OUT predicted_mean float8,
									 OUT predicted_sd float8,
									 OUT acquisition float8,
									 OUT lengthscales float8[],
									 OUT outputscale float8, OUT noise float8,
									 OUT log_likelihood float8,
									 OUT mean float8,
									 OUT fit_ms float8,
									 OUT tasks_used int[],
									 OUT rank int,
									 OUT kronecker bool,
									 OUT task_loadings float8[],
									 OUT task_variance float8[],
									 OUT task_covariance float8[],
									 OUT task_correlation float8[],
									 OUT task_noise float8[],
									 OUT task_mean float8[],
									 OUT cluster_used int[],
									 OUT cluster_tasks int[],
									 OUT cluster_lengthscales float8[],
									 OUT cluster_task_covariance float8[],
									 OUT cluster_task_correlation float8[],
									 OUT cluster_task_noise float8[],
									 OUT cluster_task_mean float8[],
									 OUT cluster_log_likelihood float8[],
									 OUT cluster_kronecker int[],
									 OUT cluster_rank int[],
									 OUT cluster_task_loadings float8[],
									 OUT cluster_task_variance float8[],
									 OUT feasibility float8,
									 OUT constraint_n int[],
									 OUT constraint_lengthscales float8[],
									 OUT constraint_outputscale float8[],
									 OUT constraint_noise float8[],
									 OUT constraint_mean float8[],
									 OUT constraint_log_likelihood float8[],
									 OUT constraint_y_mean float8[],
									 OUT constraint_y_sd float8[],
									 OUT constraint_bound_std float8[],
									 OUT constraint_trend_intercept float8[],
									 OUT constraint_trend_slopes float8[],
									 OUT constraint_calibration_threshold float8[],
									 OUT constraint_calibration_spread float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_suggest_point'
LANGUAGE C IMMUTABLE PARALLEL SAFE;


CREATE OR REPLACE FUNCTION tuner.suggest_next(study text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	h record;
	w record;
	wf record;
	r record;
	d int;
	v_number int;
	v_seed bigint;
	v_sign float8;
	v_n_initial int;
	v_params jsonb;
	v_trial bigint;
	v_objective_id bigint;
	v_icm bool;
	v_aux_ids bigint[] := '{}';
	v_aux_names text[] := '{}';
	v_tasks text[];
	v_sources text[] := '{}';
	v_source_tasks text[] := '{}';
	v_x_transfer float8[];
	v_y_transfer float8[];
	v_algorithm text;
	v_cluster_members int[];
	v_cluster_metric int[];
	v_cluster_names text[];
	v_joint float8;
	v_aux_weights float8[];
	c int;
	wm tuner.model;
	v_wc_tasks int[] := '{}';
	v_wc_rank int[] := '{}';
	v_wc_ls float8[] := '{}';
	v_wc_w float8[] := '{}';
	v_wc_v float8[] := '{}';
	v_wc_noise float8[] := '{}';
	v_wc_mean float8[] := '{}';
	v_sapphire jsonb;
	v_queued tuner.trial;
	v_con_ids bigint[] := '{}';
	v_con_names text[] := '{}';
	v_con_signs float8[] := '{}';
	v_con_bounds float8[] := '{}';
	v_lin record;
	v_mo_ids bigint[];
	v_mo_signs float8[];
	v_mo_weights float8[];
	v_cond record;
	p_study text := $1;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	-- Trials whose server process is gone are never left running.
	PERFORM tuner._reconcile();
	-- Nor are trials whose lease expired (and their retries come first).
	PERFORM tuner.reap(p_study);
	-- Serialize concurrent suggestions for this study.
	SELECT * INTO s FROM tuner.study WHERE tuner.study.name = p_study FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		s := tuner._find_study(p_study);	-- raises the error
	END IF;

	-- Configurations queued with tuner.enqueue() come first, in order.
	-- SKIP LOCKED: a queued trial that tuner.agent_claim is taking is left
	-- to it (agents claim queued trials without the study's lock).
	SELECT * INTO v_queued FROM tuner.trial t
	 WHERE t.study_id = s.id AND t.state = 'queued' ORDER BY t.number LIMIT 1
	   FOR NO KEY UPDATE SKIP LOCKED;
	IF FOUND THEN
		UPDATE tuner.trial SET state = 'running', started_at = pg_catalog.now()
		 WHERE id = v_queued.id;
		RETURN pg_catalog.jsonb_build_object('trial', v_queued.id, 'params', v_queued.config);
	END IF;

	-- sapphire: when the exploration is complete, rank and keep the top K
	-- (this changes the space, so before reading it).
	IF s.algorithm = 'sapphire' THEN
		v_sapphire := tuner._sapphire_phase(s);
	END IF;

	sp := tuner._space(s.id);
	d := COALESCE(pg_catalog.cardinality(sp.names), 0);
	IF d = 0 THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	v_cond := tuner._space_conditions(s.id, sp.names);

	SELECT COALESCE(pg_catalog.max(number), 0) + 1 INTO v_number
	  FROM tuner.trial WHERE study_id = s.id;
	v_seed := pg_catalog.hashint8extended(v_number, s.seed);

	-- Trial 1 measures the defaults when every parameter has one.
	IF sp.all_defaults AND NOT EXISTS (
		SELECT 1 FROM tuner.trial t
		 WHERE t.study_id = s.id AND t.config = sp.default_config) THEN
		INSERT INTO tuner.trial (study_id, number, config, state, source, seed, started_at)
		VALUES (s.id, v_number, sp.default_config, 'running', 'default', v_seed, pg_catalog.now())
		RETURNING id INTO v_trial;
		RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', sp.default_config);
	END IF;

	v_sign := CASE s.direction WHEN 'maximize' THEN -1 ELSE 1 END;

	-- The history as native values (see src/core/space.h), in trial order.
	-- The objective is joined per trial by (trial, metric) key: a separate
	-- aggregate joined afterwards was planned as a nested loop over all
	-- trials for each trial (50 ms at 100 trials).
	SELECT m.id INTO v_objective_id
	  FROM tuner.metric m WHERE m.study_id = s.id AND m.name = s.objective;
	-- Several objectives: the model fits a ParEGO scalarization of them
	-- (the multi-objective section at the end of this file).
	IF tuner._is_multiobjective(s.id) THEN
		SELECT pg_catalog.array_agg(o.id ORDER BY o.ordinal),
			   pg_catalog.array_agg(o.sign ORDER BY o.ordinal)
		  INTO v_mo_ids, v_mo_signs
		  FROM tuner._objectives(s.id) o;
		IF s.algorithm NOT IN ('gp-ei', 'random') THEN
			RAISE EXCEPTION 'study "%" has % objectives, which algorithm % does not support', s.name,
				  pg_catalog.cardinality(v_mo_ids), s.algorithm
				USING ERRCODE = 'feature_not_supported',
					  HINT = pg_catalog.format('Use gp-ei (ParEGO scalarization) or random: tuner.set_algorithm(%L, ''gp-ei'').', s.name);
		END IF;
		IF s.settings ? 'transfer_from' THEN
			RAISE EXCEPTION 'study "%" has % objectives and cannot learn from earlier studies', s.name,
				  pg_catalog.cardinality(v_mo_ids)
				USING ERRCODE = 'feature_not_supported',
					  DETAIL = 'transfer_from brings one objective per earlier study.';
		END IF;
	END IF;
	-- The multi-task model learns from the declared auxiliary metrics too:
	-- one row of them per observed trial, NULL where a trial lacks one.
	IF s.algorithm IN ('icm', 'clustered-icm')
	   OR (s.algorithm = 'sapphire' AND v_sapphire ->> 'model' = 'icm' AND v_sapphire ->> 'phase' = 'model') THEN
		SELECT COALESCE(pg_catalog.array_agg(m.id ORDER BY m.id), '{}'),
			   COALESCE(pg_catalog.array_agg(m.name ORDER BY m.id), '{}')
		  INTO v_aux_ids, v_aux_names
		  FROM tuner.metric m WHERE m.study_id = s.id AND m.role = 'auxiliary';
	END IF;
	-- Earlier studies' trials join the model as tasks of their own (also
	-- under gp-ei: then the objective and theirs only).
	IF s.settings ? 'transfer_from' AND s.algorithm IN ('icm', 'gp-ei') THEN
		v_sources := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(s.settings -> 'transfer_from'));
		SELECT pg_catalog.array_agg(tr.x), pg_catalog.array_agg(tr.y)
		  INTO v_x_transfer, v_y_transfer
		  FROM tuner._transfer_rows(s.id, v_sources) tr;
		v_source_tasks := ARRAY(
			SELECT COALESCE(st.name || '.' || st.objective, o.name)
			  FROM pg_catalog.unnest(v_sources) WITH ORDINALITY AS o(name, k)
			  LEFT JOIN tuner.study st ON st.name = o.name
			 ORDER BY o.k);
	END IF;
	-- clustered-icm: one row of 0/1 per auxiliary metric with a cluster,
	-- and that metric's column among the auxiliary metrics.
	IF s.algorithm = 'clustered-icm' THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT CASE WHEN p.name = ANY (m.cluster) THEN 1 ELSE 0 END
					  FROM tuner.parameter p WHERE p.study_id = s.id AND p.enabled
					 ORDER BY p.position) ORDER BY a.k),
			   pg_catalog.array_agg((a.k - 1)::int ORDER BY a.k),
			   pg_catalog.array_agg(m.name ORDER BY a.k)
		  INTO v_cluster_members, v_cluster_metric, v_cluster_names
		  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
		  JOIN tuner.metric m ON m.id = a.id
		 WHERE m.cluster IS NOT NULL
		   AND EXISTS (SELECT 1 FROM tuner.parameter p
						WHERE p.study_id = s.id AND p.enabled AND p.name = ANY (m.cluster));
	END IF;
	v_icm := pg_catalog.cardinality(v_aux_ids) > 0 OR v_x_transfer IS NOT NULL;
	-- What the core runs: clustered-icm without clusters is icm, icm
	-- without anything to learn from besides the objective is gp-ei.
	v_algorithm := CASE
		WHEN s.algorithm = 'sapphire' THEN CASE WHEN v_icm THEN 'icm' ELSE 'gp-ei' END
		WHEN s.algorithm = 'clustered-icm' AND v_cluster_members IS NOT NULL THEN 'clustered-icm'
		WHEN v_icm THEN 'icm'
		WHEN s.algorithm IN ('icm', 'clustered-icm') THEN 'gp-ei'
		ELSE s.algorithm END;
	v_icm := v_algorithm = 'icm';
	-- icm's joint target: each auxiliary metric's signed weight, +w to
	-- minimize, -w to maximize, 0 (model only) without a direction.
	v_joint := COALESCE((s.settings ->> 'icm_joint')::float8, 0);
	IF v_icm AND s.algorithm = 'icm' AND v_joint > 0 THEN
		SELECT pg_catalog.array_agg(CASE m.direction WHEN 'minimize' THEN v_joint
									WHEN 'maximize' THEN -v_joint ELSE 0 END ORDER BY a.k)
		  INTO v_aux_weights
		  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
		  JOIN tuner.metric m ON m.id = a.id;
	END IF;
	-- Outcome constraints (issue 10): each bounded constraint metric in
	-- its <= form (a maximized one negated).
	SELECT COALESCE(pg_catalog.array_agg(m.id ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(m.name ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -1 ELSE 1 END ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -m.bound ELSE m.bound END ORDER BY m.id), '{}')
	  INTO v_con_ids, v_con_names, v_con_signs, v_con_bounds
	  FROM tuner.metric m
	 WHERE m.study_id = s.id AND m.role = 'constraint' AND m.bound IS NOT NULL;
	SELECT * INTO v_lin FROM tuner._linear_constraints(s.id);
	WITH p AS MATERIALIZED (
		SELECT position, name, kind, choices
		  FROM tuner.parameter WHERE study_id = s.id AND enabled
	), native AS MATERIALIZED (
		SELECT t.id, t.number, t.state, ob.value,
			   CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 AND t.state IN ('complete', 'pruned') THEN ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, k)
					  LEFT JOIN tuner.observation cx
						ON cx.trial_id = t.id AND cx.metric_id = c.id
					 ORDER BY c.k) END AS cons,
			   CASE WHEN pg_catalog.cardinality(v_aux_ids) > 0 AND t.state IN ('complete', 'pruned') THEN ARRAY(
					SELECT ax.value
					  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
					  LEFT JOIN tuner.observation ax
						ON ax.trial_id = t.id AND ax.metric_id = a.id
					 ORDER BY a.k) END AS aux,
			   -- One jsonb_each per trial: the config of a study with many
			   -- parameters is stored compressed, and a t.config -> p.name
			   -- per parameter decompressed it again each time (200
			   -- parameters, 250 trials: 220 ms a suggestion, 45 ms this
			   -- way).  A subquery per trial rather than a join grouped by
			   -- trial: no sort of every (trial, parameter) pair (4000
			   -- trials: 64 ms -> 37 ms).
			   ARRAY(SELECT CASE p.kind
							WHEN 'bool' THEN CASE WHEN e.value::bool THEN 1 ELSE 0 END
							WHEN 'categorical' THEN pg_catalog.array_position(p.choices, e.value #>> '{}') - 1
							ELSE e.value::float8 END
					   FROM p LEFT JOIN pg_catalog.jsonb_each(t.config) e ON e.key = p.name
					  ORDER BY p.position) AS x
		  FROM tuner.trial t
		  LEFT JOIN tuner.observation ob
			ON ob.trial_id = t.id AND ob.metric_id = v_objective_id
			   AND t.state IN ('complete', 'pruned')
			   -- several objectives: observed only with all of them
			   AND (v_mo_ids IS NULL
					OR (SELECT pg_catalog.count(*) FROM tuner.observation mo
						 WHERE mo.trial_id = t.id AND mo.metric_id = ANY (v_mo_ids))
					   = pg_catalog.cardinality(v_mo_ids))
		 WHERE t.study_id = s.id
	)
	-- (a pruned trial counts with the last value it reported, pruning.sql)
	SELECT pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS x_observed,
		   pg_catalog.array_agg(v_sign * n.value ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS y_observed,
		   pg_catalog.array_agg(n.aux ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL AND n.aux IS NOT NULL) AS y_aux,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS x_pending,
		   pg_catalog.array_agg(n.cons ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL AND n.cons IS NOT NULL) AS y_constraint,
		   -- failed trials feed the feasibility model (src/core/feasibility.h)
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'failed') AS x_failed,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'interrupted'
																 OR (n.state IN ('complete', 'pruned') AND n.value IS NULL)) AS x_other,
		   pg_catalog.count(*) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS n_observed,
		   pg_catalog.count(*) FILTER (WHERE n.state = 'failed') AS n_failed,
		   -- the trials behind each array, for tuner.replay_suggestion
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS id_observed,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS id_pending,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('failed', 'interrupted')
																 OR (n.state IN ('complete', 'pruned') AND n.value IS NULL)) AS id_other
	  INTO h
	  FROM native n;
	-- Several objectives: the GP sees this suggestion's random augmented
	-- Chebyshev scalarization of them, weights drawn from its seed.
	IF v_mo_ids IS NOT NULL THEN
		v_mo_weights := tuner._parego_weights(pg_catalog.cardinality(v_mo_ids), v_seed);
		IF h.id_observed IS NOT NULL THEN
			h.y_observed := tuner._parego_scalarize(
				tuner._objective_matrix(h.id_observed, v_mo_ids, v_mo_signs), v_seed);
		END IF;
	END IF;
	-- No trial has reported yet: nothing to cluster, the design comes first.
	IF v_algorithm = 'clustered-icm' AND h.y_aux IS NULL THEN
		v_algorithm := 'gp-ei';
	END IF;

	-- Warm start from the last fit of the same model over the same tasks.
	-- icm falls back to the last gp fit: its steps below ICM_MIN_TRIALS
	-- (src/core/suggest_icm.c) are GP-EI's and store gp rows, and without
	-- this each of them was fitted cold; an ICM step given a gp row (no
	-- task loadings) fits cold as before.
	v_tasks := ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END] || v_aux_names;
	IF v_x_transfer IS NOT NULL THEN
		v_tasks := v_tasks || v_source_tasks;
	END IF;
	SELECT m.id, m.lengthscales, m.outputscale, m.noise, m.mean, m.task_loadings,
		   m.task_variance, m.task_noise, m.task_mean INTO w
	  FROM tuner.model m
	 WHERE m.study_id = s.id
	   -- clustered-icm warm-starts each cluster below, not from these
	   AND ((v_algorithm = 'icm' AND m.kind = 'icm' AND m.tasks = v_tasks)
			OR (v_algorithm IN ('icm', 'gp-ei') AND m.kind = 'gp'))
	   -- the same parameters (select_top may have changed them)
	   AND m.parameters = sp.names
	 ORDER BY m.kind = 'icm' DESC, m.id DESC LIMIT 1;
	-- With failed trials, from 50 trials on (FAILURE_WARM_MIN_N in
	-- src/core/feasibility.c), the failure model starts from its last fit
	-- over the same parameters while no trial has failed since (issue 28):
	-- its outcome's mean is the share of failed trials it learned from.  A
	-- new failure can change the failing region's shape, and is fitted
	-- from cold starts.
	SELECT m.id, m.lengthscales, m.outputscale, m.noise, m.mean INTO wf
	  FROM tuner.model m
	 WHERE h.n_failed > 0 AND h.n_observed + h.n_failed >= 50
	   AND m.study_id = s.id AND m.kind = 'feasibility'
	   AND m.parameters = sp.names
	   AND pg_catalog.round(m.outcome_mean * m.n) = h.n_failed
	   AND m.id = (SELECT pg_catalog.max(l.id) FROM tuner.model l
				   WHERE l.study_id = s.id AND l.kind = 'feasibility');

	-- With earlier studies to learn from, the model starts after two trials.
	v_n_initial := COALESCE((s.settings ->> 'n_initial')::int,
							CASE WHEN v_x_transfer IS NOT NULL THEN 2 END,
							GREATEST(4, LEAST(10, d + 1)));
	-- Failed trials count towards the design's length, as they do for a
	-- tuner that records them as the worst value, but the model needs two
	-- trials that ran.  Counting only trials that ran made a study whose
	-- design hit a failing region spend 3-4 more trials on the design
	-- (bench/README.md, section 9).
	IF h.n_failed > 0 THEN
		v_n_initial := GREATEST(LEAST(v_n_initial, 2), v_n_initial - h.n_failed::int);
	END IF;
	-- sapphire explores with the space-filling design until it has ranked
	-- (also while exploration trials are still running), then models
	IF s.algorithm = 'sapphire' THEN
		v_n_initial := CASE WHEN v_sapphire ->> 'phase' = 'explore'
							THEN h.n_observed + 1 ELSE 1 END;
	END IF;

	-- A constraint metric no trial reported cannot be modelled or met.
	IF pg_catalog.cardinality(v_con_ids) > 0 AND h.n_observed >= v_n_initial THEN
		FOR c IN 1 .. pg_catalog.cardinality(v_con_ids)
		LOOP
			IF NOT EXISTS (SELECT 1 FROM tuner.observation ob
							 JOIN tuner.trial t ON t.id = ob.trial_id
							WHERE ob.metric_id = v_con_ids[c] AND t.state = 'complete') THEN
				RAISE EXCEPTION 'constraint metric "%" of study "%" was never reported', v_con_names[c], s.name
					USING ERRCODE = 'object_not_in_prerequisite_state',
						  DETAIL = pg_catalog.format('%s complete trials reported the objective, none of them "%s".',
													 h.n_observed, v_con_names[c]),
						  HINT = 'Report it with each trial''s metrics, or declare it ''auxiliary'' to drop the constraint.';
			END IF;
		END LOOP;
	END IF;

	-- clustered-icm: each cluster starts from its latest fit (same metric,
	-- same parameters), rows padded to 2 tasks and rank 2.
	IF v_algorithm = 'clustered-icm' THEN
		FOR c IN 1 .. pg_catalog.cardinality(v_cluster_metric)
		LOOP
			wm := NULL;
			SELECT * INTO wm FROM tuner.model m
			 WHERE m.study_id = s.id AND m.kind = 'cluster'
			   AND m.cluster_metric = v_cluster_names[c]
			   AND m.parameters = ARRAY(SELECT sp.names[j] FROM pg_catalog.generate_series(1, d) AS j
										 WHERE v_cluster_members[c][j] = 1 ORDER BY j)
			 ORDER BY m.id DESC LIMIT 1;
			v_wc_tasks := v_wc_tasks || COALESCE(pg_catalog.cardinality(wm.tasks), 0);
			v_wc_rank := v_wc_rank || COALESCE(wm.rank, 0);
			v_wc_ls := v_wc_ls || ARRAY[ARRAY(
				SELECT wm.lengthscales[pg_catalog.array_position(wm.parameters, sp.names[j])]
				  FROM pg_catalog.generate_series(1, d) AS j ORDER BY j)];
			v_wc_w := v_wc_w || ARRAY[ARRAY(
				SELECT u.v FROM pg_catalog.generate_series(1, 4) AS g
				  LEFT JOIN pg_catalog.unnest(wm.task_loadings) WITH ORDINALITY AS u(v, k) ON u.k = g
				 ORDER BY g)];
			v_wc_v := v_wc_v || ARRAY[ARRAY[wm.task_variance[1], wm.task_variance[2]]];
			v_wc_noise := v_wc_noise || ARRAY[ARRAY[wm.task_noise[1], wm.task_noise[2]]];
			v_wc_mean := v_wc_mean || ARRAY[ARRAY[wm.task_mean[1], wm.task_mean[2]]];
		END LOOP;
	END IF;

	r := tuner._suggest_point(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices,
							  h.x_observed, h.y_observed, h.x_pending, h.x_other,
							  v_n_initial,
							  (SELECT pg_catalog.count(*)::int FROM tuner.trial t
								WHERE t.study_id = s.id AND t.source <> 'default'),
							  v_seed, s.seed,
							  w.lengthscales, w.outputscale, w.noise, w.mean,
							  v_algorithm,
							  CASE WHEN v_algorithm IN ('icm', 'clustered-icm') THEN h.y_aux END,
							  (s.settings ->> 'icm_rank')::int,
							  w.task_loadings, w.task_variance, w.task_noise,
							  w.task_mean, v_x_transfer, v_y_transfer,
							  v_cluster_members, v_cluster_metric,
							  CASE WHEN h.y_aux IS NOT NULL THEN v_aux_weights END,
							  v_wc_tasks, v_wc_rank, v_wc_ls, v_wc_w, v_wc_v,
							  v_wc_noise, v_wc_mean,
							  h.x_failed,
							  CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 THEN h.y_constraint END,
							  CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 THEN v_con_bounds END,
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict,
							  v_cond.parents, v_cond.ops, v_cond.vals,
							  v_cond.defaults, true,
							  wf.lengthscales, wf.outputscale, wf.noise, wf.mean);

	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(r.config[p.i])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(r.config[p.i])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(r.config[p.i] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(r.config[p.i])::int + 1]) END)
	  INTO v_params
	  FROM (SELECT name, kind, choices,
				   pg_catalog.row_number() OVER (ORDER BY position) AS i
			  FROM tuner.parameter WHERE study_id = s.id AND enabled) p;
	-- Disabled parameters keep their defaults; the core put inactive ones
	-- at theirs, as tuner._apply_conditions does.
	v_params := COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
							FROM tuner.parameter p
						   WHERE p.study_id = s.id AND NOT p.enabled), '{}') || v_params;
	IF tuner._apply_conditions(s.id, v_params) <> v_params THEN
		RAISE EXCEPTION 'the suggestion for study "%" is not in canonical form', s.name
			USING ERRCODE = 'internal_error',
				  DETAIL = pg_catalog.format('The model code suggested %s, the conditions make it %s.',
											 v_params, tuner._apply_conditions(s.id, v_params));
	END IF;

	BEGIN
		INSERT INTO tuner.trial (study_id, number, config, state, source,
								 predicted_mean, predicted_sd, acquisition,
								 seed, started_at)
		VALUES (s.id, v_number, v_params, 'running', r.source,
				-- (several objectives: a scalarization's, in no unit)
				CASE WHEN v_mo_ids IS NULL THEN v_sign * r.predicted_mean END,
				CASE WHEN v_mo_ids IS NULL THEN r.predicted_sd END, r.acquisition,
				v_seed, pg_catalog.now())
		RETURNING id INTO v_trial;
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'trial number % of study "%" was taken by a concurrent transaction', v_number, s.name
			USING ERRCODE = 'serialization_failure',
				  HINT = 'Retry the call; under READ COMMITTED concurrent callers wait for each other instead.';
	END;

	-- Everything the suggestion was computed from, for replay_suggestion.
	PERFORM tuner._suggestion_insert(pg_catalog.jsonb_populate_record(NULL::tuner.suggestion, pg_catalog.to_jsonb(x)))
	  FROM (SELECT v_trial AS trial_id,
				v_algorithm AS algorithm,
				sp.names AS parameters,
				sp.kinds AS kinds,
				sp.lows AS lows,
				sp.highs AS highs,
				sp.log_scales AS log_scales,
				sp.n_choices AS n_choices,
				COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
						FROM tuner.parameter p
					   WHERE p.study_id = s.id AND NOT p.enabled), '{}') AS fixed,
				v_objective_id AS objective_metric,
				v_sign AS sign,
				CASE WHEN v_algorithm IN ('icm', 'clustered-icm') AND h.y_aux IS NOT NULL THEN v_aux_ids END AS aux_metrics,
				CASE WHEN h.y_aux IS NOT NULL THEN v_aux_weights END AS aux_weights,
				COALESCE(h.id_observed, '{}') AS observed,
				COALESCE(h.id_pending, '{}') AS pending,
				COALESCE(h.id_other, '{}') AS other,
				v_n_initial AS n_initial,
				(SELECT pg_catalog.count(*)::int FROM tuner.trial t
			  WHERE t.study_id = s.id AND t.source <> 'default' AND t.id <> v_trial) AS design_index,
				v_seed AS seed,
				s.seed AS design_seed,
				(s.settings ->> 'icm_rank')::int AS icm_rank,
				w.id AS warm_model,
				v_cluster_members AS cluster_members,
				v_cluster_metric AS cluster_metric,
				v_wc_tasks AS warm_cluster_tasks,
				v_wc_rank AS warm_cluster_rank,
				v_wc_ls AS warm_cluster_lengthscales,
				v_wc_w AS warm_cluster_loadings,
				v_wc_v AS warm_cluster_variance,
				v_wc_noise AS warm_cluster_noise,
				v_wc_mean AS warm_cluster_mean,
				v_x_transfer IS NOT NULL AS transfer,
				tuner._history_md5(h.y_observed,
							   CASE WHEN v_algorithm IN ('icm', 'clustered-icm') THEN h.y_aux END) AS history_md5,
				v_mo_ids AS objective_metrics,
				v_mo_signs AS objective_signs,
				v_mo_weights AS scalarization_weights,
				true AS canonical,
				wf.id AS warm_feasibility_model,
				v_cond.parents AS condition_parent,
				v_cond.ops AS condition_op,
				v_cond.vals AS condition_values,
				v_cond.defaults AS condition_default) x;

	PERFORM tuner._widen_soft_bounds(s, v_trial);

	IF r.source = 'model' AND v_algorithm = 'clustered-icm' THEN
		-- one row per cluster that was fitted
		FOR c IN 1 .. pg_catalog.cardinality(v_cluster_metric)
		LOOP
			CONTINUE WHEN r.cluster_tasks[c] = 0;
			PERFORM tuner._model_insert(ARRAY(
				SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
				  FROM (SELECT s.id AS study_id,
						v_trial AS trial_id,
						'cluster' AS kind,
						h.n_observed AS n,
						pg_catalog.array_agg(r.cluster_lengthscales[c][j] ORDER BY j) AS lengthscales,
						r.cluster_task_covariance[c][1] AS outputscale,
						r.cluster_task_noise[c][1] AS noise,
						r.cluster_task_mean[c][1] AS mean,
						r.cluster_log_likelihood[c] AS log_likelihood,
						CASE r.cluster_tasks[c] WHEN 2 THEN ARRAY[s.objective, v_cluster_names[c]]
						ELSE ARRAY[s.objective] END AS tasks,
						r.cluster_rank[c] AS rank,
						CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_covariance[c][1], r.cluster_task_covariance[c][2]],
							  [r.cluster_task_covariance[c][3], r.cluster_task_covariance[c][4]]] END AS task_covariance,
						CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_correlation[c][1], r.cluster_task_correlation[c][2]],
							  [r.cluster_task_correlation[c][3], r.cluster_task_correlation[c][4]]] END AS task_correlation,
						ARRAY(SELECT r.cluster_task_noise[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_noise,
						ARRAY(SELECT r.cluster_task_mean[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_mean,
						r.cluster_kronecker[c] = 1 AS kronecker,
						r.fit_ms AS fit_ms,
						pg_catalog.array_agg(sp.names[j] ORDER BY j) AS parameters,
						v_cluster_names[c] AS cluster_metric,
						-- W (tasks x rank) from its row of 4, v from its row of 2
				   (SELECT pg_catalog.array_agg(ARRAY(
							SELECT r.cluster_task_loadings[c][(t - 1) * r.cluster_rank[c] + k]
							  FROM pg_catalog.generate_series(1, r.cluster_rank[c]) AS k
							 ORDER BY k) ORDER BY t)
					  FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t) AS task_loadings,
						ARRAY(SELECT r.cluster_task_variance[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_variance
					  FROM pg_catalog.generate_series(1, d) AS j
			 WHERE v_cluster_members[c][j] = 1) x));
		END LOOP;
		-- every combination of the clusters' proposals was tried: the point
		-- came from one GP over every parameter, stored as a row of kind gp
		IF NOT (1 = ANY (r.cluster_used)) THEN
			PERFORM tuner._model_insert(ARRAY(
				SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
				  FROM (SELECT s.id AS study_id,
						v_trial AS trial_id,
						'gp' AS kind,
						h.n_observed AS n,
						r.lengthscales AS lengthscales,
						r.outputscale AS outputscale,
						r.noise AS noise,
						r.mean AS mean,
						r.log_likelihood AS log_likelihood,
						ARRAY[s.objective] AS tasks,
						r.fit_ms AS fit_ms,
						sp.names AS parameters) x));
		END IF;
	ELSIF r.source = 'model' THEN
		-- the tasks the model kept, in its order (tasks_used is 0-based)
		SELECT pg_catalog.array_agg(v_tasks[u.k] ORDER BY u.used) INTO v_tasks
		  FROM pg_catalog.unnest(r.tasks_used) WITH ORDINALITY AS u(used, k)
		 WHERE u.used >= 0;
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					v_trial AS trial_id,
					CASE WHEN r.rank IS NULL THEN 'gp' ELSE 'icm' END AS kind,
					h.n_observed AS n,
					r.lengthscales AS lengthscales,
					r.outputscale AS outputscale,
					r.noise AS noise,
					r.mean AS mean,
					r.log_likelihood AS log_likelihood,
					COALESCE(v_tasks, ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END]) AS tasks,
					r.rank AS rank,
					r.task_loadings AS task_loadings,
					r.task_variance AS task_variance,
					r.task_covariance AS task_covariance,
					r.task_correlation AS task_correlation,
					r.task_noise AS task_noise,
					r.task_mean AS task_mean,
					r.kronecker AS kronecker,
					r.fit_ms AS fit_ms,
					sp.names AS parameters) x));
	END IF;
	-- the feasibility model and each constraint's, when fitted (issue 10)
	IF r.source = 'model' AND r.constraint_n IS NOT NULL THEN
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					v_trial AS trial_id,
					CASE WHEN c = 1 THEN 'feasibility' ELSE 'constraint' END AS kind,
					r.constraint_n[c] AS n,
					ARRAY(SELECT r.constraint_lengthscales[c][j]
					   FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) AS lengthscales,
					r.constraint_outputscale[c] AS outputscale,
					r.constraint_noise[c] AS noise,
					r.constraint_mean[c] AS mean,
					r.constraint_log_likelihood[c] AS log_likelihood,
					CASE WHEN c > 1 THEN ARRAY[v_con_names[c - 1]] END AS tasks,
					sp.names AS parameters,
					r.constraint_y_mean[c] AS outcome_mean,
					r.constraint_y_sd[c] AS outcome_sd,
					r.constraint_bound_std[c] AS bound,
					CASE WHEN c > 1 THEN v_con_names[c - 1] END AS constraint_metric,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN r.constraint_trend_intercept[c] END AS trend_intercept,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN
					ARRAY(SELECT r.constraint_trend_slopes[c][j]
							FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) END AS trend_slopes,
					CASE WHEN r.constraint_calibration_threshold[c] <> 'NaN' THEN r.constraint_calibration_threshold[c] END AS calibration_threshold,
					CASE WHEN r.constraint_calibration_spread[c] <> 'NaN' THEN r.constraint_calibration_spread[c] END AS calibration_spread
				  FROM pg_catalog.generate_series(1, pg_catalog.cardinality(r.constraint_n)) AS c
		 WHERE r.constraint_n[c] > 0) x));
	END IF;

	RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', v_params);
END;
$$;

-- P(feasible) of a configuration: the product over the study's latest
-- feasibility and constraint models, each with its stored hyperparameters
-- over every trial finished so far (so trials finished after the fit

-- Compute a trial's suggestion again from what it saw (tuner.suggestion):
-- the same space, conditions, trials, seeds and warm start.  Returns the
-- configuration, which equals the trial's config.  A suggestion of 0.2.0
-- or earlier (canonical false) is computed as it was then.
CREATE OR REPLACE FUNCTION tuner.replay_suggestion(trial bigint)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	g tuner.suggestion;
	w tuner.model;
	wf tuner.model;
	r record;
	v_ids bigint[];
	v_x_observed float8[];
	v_y_observed float8[];
	v_y_aux float8[];
	v_params jsonb;
	v_failed bigint[];
	v_other bigint[];
	v_con_ids bigint[];
	v_con_signs float8[];
	v_con_bounds float8[];
	v_y_constraint float8[];
	v_lin record;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	SELECT * INTO t FROM tuner.trial x WHERE x.id = p_trial;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object';
	END IF;
	SELECT * INTO g FROM tuner.suggestion x WHERE x.trial_id = t.id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % was not suggested by the study''s algorithm', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('Its source is %s.', t.source),
				  HINT = 'Only trials made by the design, the model or random search (source design, model or random) can be replayed.';
	END IF;
	IF g.transfer THEN
		RAISE EXCEPTION 'trial % learned from earlier studies and cannot be replayed', p_trial
			USING ERRCODE = 'feature_not_supported',
				  DETAIL = 'The trials of the studies in transfer_from are not recorded with the suggestion.';
	END IF;

	-- Every trial it saw, with the same values, and every parameter.
	v_ids := g.observed || g.pending || g.other;
	IF (SELECT pg_catalog.count(*) FROM tuner.trial x
		 WHERE x.study_id = t.study_id AND x.id = ANY (v_ids)) <> pg_catalog.cardinality(v_ids)
	   OR (SELECT pg_catalog.count(*) FROM tuner.parameter p
			WHERE p.study_id = t.study_id AND p.name = ANY (g.parameters)) <> pg_catalog.cardinality(g.parameters)
	   OR (g.warm_model IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tuner.model m WHERE m.id = g.warm_model))
	   OR (g.warm_feasibility_model IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM tuner.model m WHERE m.id = g.warm_feasibility_model)) THEN
		RAISE EXCEPTION 'the study of trial % changed since its suggestion', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A trial, parameter or model it was computed from is gone.';
	END IF;
	v_x_observed := tuner._native_rows(t.study_id, g.observed, g.parameters);
	SELECT pg_catalog.array_agg(g.sign * ob.value ORDER BY o.k) INTO v_y_observed
	  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k)
	  JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = g.objective_metric;
	-- several objectives: the same scalarization, from the same seed
	IF g.objective_metrics IS NOT NULL AND pg_catalog.cardinality(g.observed) > 0 THEN
		v_y_observed := tuner._parego_scalarize(
			tuner._objective_matrix(g.observed, g.objective_metrics, g.objective_signs), g.seed);
	END IF;
	IF g.aux_metrics IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT ax.value
					  FROM pg_catalog.unnest(g.aux_metrics) WITH ORDINALITY AS a(id, j)
					  LEFT JOIN tuner.observation ax ON ax.trial_id = o.id AND ax.metric_id = a.id
					 ORDER BY a.j) ORDER BY o.k)
		  INTO v_y_aux
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	IF tuner._history_md5(v_y_observed, v_y_aux) <> g.history_md5 THEN
		RAISE EXCEPTION 'the study of trial % changed since its suggestion', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A metric value of a trial it was computed from is different now.';
	END IF;
	IF g.warm_model IS NOT NULL THEN
		SELECT * INTO w FROM tuner.model m WHERE m.id = g.warm_model;
	END IF;
	IF g.warm_feasibility_model IS NOT NULL THEN
		SELECT * INTO wf FROM tuner.model m WHERE m.id = g.warm_feasibility_model;
	END IF;
	-- As suggest_next: failed trials feed the feasibility model, the other
	-- unobserved ones are only kept from being suggested again; bounded
	-- constraint metrics and parameter constraints as the study has them.
	SELECT pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state = 'failed'),
		   pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state <> 'failed')
	  INTO v_failed, v_other
	  FROM pg_catalog.unnest(g.other) WITH ORDINALITY AS o(id, k)
	  JOIN tuner.trial x ON x.id = o.id;
	SELECT pg_catalog.array_agg(m.id ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -1 ELSE 1 END ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -m.bound ELSE m.bound END ORDER BY m.id)
	  INTO v_con_ids, v_con_signs, v_con_bounds
	  FROM tuner.metric m
	 WHERE m.study_id = t.study_id AND m.role = 'constraint' AND m.bound IS NOT NULL;
	IF v_con_ids IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, j)
					  LEFT JOIN tuner.observation cx ON cx.trial_id = o.id AND cx.metric_id = c.id
					 ORDER BY c.j) ORDER BY o.k)
		  INTO v_y_constraint
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	SELECT * INTO v_lin FROM tuner._linear_constraints(t.study_id);

	r := tuner._suggest_point(g.kinds, g.lows, g.highs, g.log_scales, g.n_choices,
							  v_x_observed, v_y_observed,
							  tuner._native_rows(t.study_id, g.pending, g.parameters),
							  tuner._native_rows(t.study_id, v_other, g.parameters),
							  g.n_initial, g.design_index, g.seed, g.design_seed,
							  w.lengthscales, w.outputscale, w.noise, w.mean,
							  g.algorithm, v_y_aux, g.icm_rank,
							  w.task_loadings, w.task_variance, w.task_noise,
							  w.task_mean, NULL, NULL,
							  g.cluster_members, g.cluster_metric, g.aux_weights,
							  g.warm_cluster_tasks, g.warm_cluster_rank,
							  g.warm_cluster_lengthscales, g.warm_cluster_loadings,
							  g.warm_cluster_variance, g.warm_cluster_noise,
							  g.warm_cluster_mean,
							  tuner._native_rows(t.study_id, v_failed, g.parameters),
							  v_y_constraint, v_con_bounds,
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict,
							  g.condition_parent, g.condition_op,
							  g.condition_values, g.condition_default,
							  g.canonical,
							  wf.lengthscales, wf.outputscale, wf.noise, wf.mean);

	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(r.config[n.j])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(r.config[n.j])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(r.config[n.j] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(r.config[n.j])::int + 1]) END)
	  INTO v_params
	  FROM pg_catalog.unnest(g.parameters) WITH ORDINALITY AS n(name, j)
	  JOIN tuner.parameter p ON p.study_id = t.study_id AND p.name = n.name;
	RETURN tuner._apply_conditions(t.study_id, g.fixed || v_params);
END;
$$;
