/*
 * suggest.sql
 *	  The next configuration of a study (tuner.suggest_next), and its replay
 *	  from what it was computed from (tuner.replay_suggestion).
 */

-- What one suggestion computed: the configuration (native values), where
-- it came from (design, model, random), the model's prediction there, and
-- the fitted models (the GP or ICM model; clustered-icm's cluster fits;
-- the failure model and each outcome constraint's), which
-- tuner._store_models keeps; history_md5 identifies the values it saw.
CREATE TYPE tuner.suggest_result AS (
	config float8[], source text,
	predicted_mean float8, predicted_sd float8, acquisition float8,
	lengthscales float8[], outputscale float8, noise float8,
	log_likelihood float8, mean float8, fit_ms float8,
	tasks_used int[], rank int, kronecker bool,
	task_loadings float8[], task_variance float8[], task_covariance float8[],
	task_correlation float8[], task_noise float8[], task_mean float8[],
	cluster_used int[], cluster_tasks int[], cluster_lengthscales float8[],
	cluster_task_covariance float8[], cluster_task_correlation float8[],
	cluster_task_noise float8[], cluster_task_mean float8[],
	cluster_log_likelihood float8[], cluster_kronecker int[], cluster_rank int[],
	cluster_task_loadings float8[], cluster_task_variance float8[],
	feasibility float8,
	constraint_n int[], constraint_lengthscales float8[],
	constraint_outputscale float8[], constraint_noise float8[],
	constraint_mean float8[], constraint_log_likelihood float8[],
	constraint_y_mean float8[], constraint_y_sd float8[],
	constraint_bound_std float8[], constraint_trend_intercept float8[],
	constraint_trend_slopes float8[], constraint_calibration_threshold float8[],
	constraint_calibration_spread float8[],
	history_md5 text);

-- What a suggestion record (tuner.suggestion) names, read from the
-- study's tables by tuner._suggestion_data: the trials' configurations as
-- native values (src/core/space.h) and their values (objective values
-- minimised: times the record's sign, or its ParEGO scalarization), the
-- outcome constraints in their <= form, the parameter constraints and the
-- warm start; the observed values' standard errors (NULL where a value
-- has none; NULL when none has, or with several objectives) and which
-- observed trials the record names as disturbed (NULL: none).
CREATE TYPE tuner.suggestion_data AS (
	x_observed float8[], y_observed float8[], y_aux float8[],
	x_pending float8[], x_other float8[], x_failed float8[],
	y_constraint float8[], constraint_bound float8[],
	linear_coef float8[], linear_rhs float8[], linear_strict bool[],
	warm_lengthscales float8[], warm_outputscale float8, warm_noise float8,
	warm_mean float8, warm_task_loadings float8[], warm_task_variance float8[],
	warm_task_noise float8[], warm_task_mean float8[],
	warm_feasibility_lengthscales float8[], warm_feasibility_outputscale float8,
	warm_feasibility_noise float8, warm_feasibility_mean float8,
	history_md5 text, y_std_error float8[], disturbed bool[]);

-- The policy's answer for the next suggestion (src/core/suggest_policy.h):
-- the model code to run, the design length, and whether the model learns
-- from the auxiliary metrics and from earlier studies.
CREATE TYPE tuner.suggest_plan AS (
	algorithm text, n_initial int, use_aux bool, use_transfer bool);

-- One suggestion computed from its record (src/pg/suggest_glue.c): the
-- record's space, trials, seeds, algorithm, design length, warm starts
-- and conditions; the data it names comes from tuner._suggestion_data.
-- Earlier studies' trials are not recorded and come with the call.
CREATE OR REPLACE FUNCTION tuner._suggest(study_id bigint, g tuner.suggestion,
								x_transfer float8[] DEFAULT NULL,
								y_transfer float8[] DEFAULT NULL)
RETURNS tuner.suggest_result
AS 'MODULE_PATHNAME', 'tuner_suggest_from_record'
LANGUAGE C STABLE;

CREATE OR REPLACE FUNCTION tuner._suggest_plan(study_algorithm text, sapphire_phase text,
									sapphire_model text, d int, n_initial int,
									n_aux int, n_transfer int, n_clusters int,
									n_observed int, n_failed int)
RETURNS tuner.suggest_plan
AS 'MODULE_PATHNAME', 'tuner_suggest_plan'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The data a suggestion record names, as tuner._suggest reads it (see
-- tuner.suggestion_data).  Trials are read by id, in the record's order;
-- its other trials split into failed ones (the failure model learns from
-- them) and the rest (only kept from being suggested again).
CREATE OR REPLACE FUNCTION tuner._suggestion_data(study_id bigint, g tuner.suggestion)
RETURNS tuner.suggestion_data
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	r tuner.suggestion_data;
	w tuner.model;
	v_failed bigint[];
	v_other bigint[];
	v_con_ids bigint[];
	v_con_signs float8[];
	f record;
	p_study_id bigint := $1;
BEGIN
	r.x_observed := tuner._native_rows(p_study_id, g.observed, g.parameters);
	IF g.objective_metrics IS NOT NULL THEN
		IF pg_catalog.cardinality(g.observed) > 0 THEN
			r.y_observed := tuner._parego_scalarize(
				tuner._objective_matrix(g.observed, g.objective_metrics, g.objective_signs), g.seed);
		END IF;
	ELSE
		SELECT pg_catalog.array_agg(g.sign * ob.value ORDER BY o.k) INTO r.y_observed
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k)
		  JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = g.objective_metric;
		-- each value's known noise (GP-EI): its standard error
		IF pg_catalog.cardinality(g.observed) > 0 THEN
			SELECT CASE WHEN pg_catalog.bool_or(ob.std_error IS NOT NULL)
						THEN pg_catalog.array_agg(ob.std_error ORDER BY o.k) END
			  INTO r.y_std_error
			  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k)
			  JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = g.objective_metric;
		END IF;
		-- a pruned trial's last value is biased: it is observed as
		-- tuner._pruned_observations forecasts its end
		FOR f IN SELECT * FROM tuner._pruned_observations(g.objective_metric, g.observed)
		LOOP
			r.y_observed[f.k] := g.sign * f.value;
			r.y_std_error := COALESCE(r.y_std_error,
									  pg_catalog.array_fill(NULL::float8,
															ARRAY[pg_catalog.cardinality(g.observed)]));
			r.y_std_error[f.k] := f.std_error;
		END LOOP;
	END IF;
	IF g.aux_metrics IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT ax.value
					  FROM pg_catalog.unnest(g.aux_metrics) WITH ORDINALITY AS a(id, j)
					  LEFT JOIN tuner.observation ax ON ax.trial_id = o.id AND ax.metric_id = a.id
					 ORDER BY a.j) ORDER BY o.k)
		  INTO r.y_aux
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	r.history_md5 := tuner._history_md5(r.y_observed, r.y_aux);
	-- whether the record saw each trial disturbed; the md5 covers the
	-- standard errors and these when there are any, so a history without
	-- them keeps the md5 it always had
	IF g.disturbed IS NOT NULL THEN
		SELECT pg_catalog.array_agg(o.id = ANY (g.disturbed) ORDER BY o.k)
		  INTO r.disturbed
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	IF r.y_std_error IS NOT NULL OR r.disturbed IS NOT NULL THEN
		r.history_md5 := pg_catalog.md5(r.history_md5 || '|' || COALESCE(r.y_std_error::text, '')
										|| '|' || COALESCE(r.disturbed::text, ''));
	END IF;
	-- (no trials, no rows: NULL, as _native_rows gives for none)
	IF pg_catalog.cardinality(g.pending) > 0 THEN
		r.x_pending := tuner._native_rows(p_study_id, g.pending, g.parameters);
	END IF;
	IF pg_catalog.cardinality(g.other) > 0 THEN
		SELECT pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state = 'failed'),
			   pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state <> 'failed')
		  INTO v_failed, v_other
		  FROM pg_catalog.unnest(g.other) WITH ORDINALITY AS o(id, k)
		  JOIN tuner.trial x ON x.id = o.id;
		r.x_other := tuner._native_rows(p_study_id, v_other, g.parameters);
		r.x_failed := tuner._native_rows(p_study_id, v_failed, g.parameters);
	END IF;
	-- bounded constraint metrics in their <= form (a maximized one negated)
	SELECT pg_catalog.array_agg(m.id ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -1 ELSE 1 END ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -m.bound ELSE m.bound END ORDER BY m.id)
	  INTO v_con_ids, v_con_signs, r.constraint_bound
	  FROM tuner.metric m
	 WHERE m.study_id = p_study_id AND m.role = 'constraint' AND m.bound IS NOT NULL;
	IF v_con_ids IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, j)
					  LEFT JOIN tuner.observation cx ON cx.trial_id = o.id AND cx.metric_id = c.id
					 ORDER BY c.j) ORDER BY o.k)
		  INTO r.y_constraint
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	SELECT l.lin_coef, l.lin_rhs, l.lin_strict
	  INTO r.linear_coef, r.linear_rhs, r.linear_strict
	  FROM tuner._linear_constraints(p_study_id) l;
	IF g.warm_model IS NOT NULL THEN
		SELECT * INTO w FROM tuner.model m WHERE m.id = g.warm_model;
		r.warm_lengthscales := w.lengthscales;
		r.warm_outputscale := w.outputscale;
		r.warm_noise := w.noise;
		r.warm_mean := w.mean;
		r.warm_task_loadings := w.task_loadings;
		r.warm_task_variance := w.task_variance;
		r.warm_task_noise := w.task_noise;
		r.warm_task_mean := w.task_mean;
	END IF;
	IF g.warm_feasibility_model IS NOT NULL THEN
		SELECT * INTO w FROM tuner.model m WHERE m.id = g.warm_feasibility_model;
		r.warm_feasibility_lengthscales := w.lengthscales;
		r.warm_feasibility_outputscale := w.outputscale;
		r.warm_feasibility_noise := w.noise;
		r.warm_feasibility_mean := w.mean;
	END IF;
	RETURN r;
END;
$$;

-- Native configurations (rows) in the model's unit cube (src/core/space.h).
CREATE OR REPLACE FUNCTION tuner._unit_points(kinds int[], lows float8[], highs float8[],
								   log_scales bool[], n_choices int[],
								   x float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_unit_points'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Sapphire's settings with their defaults and its next step
-- (src/core/suggest_policy.h): explore, rank, or model.
CREATE OR REPLACE FUNCTION tuner._sapphire_plan(d int, explore_setting int, top_k_setting int,
									 ranked bool, n_complete int,
									 OUT explore int, OUT top_k int, OUT step text)
AS 'MODULE_PATHNAME', 'tuner_sapphire_plan'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The sapphire pipeline's phase for the next suggestion, with its
-- settings: {"phase": "explore" | "model", "explore": n, "top_k": k,
-- "model": "gp-ei" | "icm"}.  The first call whose plan is to rank
-- (tuner._sapphire_plan) ranks the parameters (tuner.lasso_rank), enables
-- the top K (tuner.select_top) and records the transition in
-- tuner.study_event; a study ranked since its algorithm was last set
-- models.
CREATE OR REPLACE FUNCTION tuner._sapphire_phase(s tuner.study)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	v_conf jsonb := COALESCE(s.settings -> 'sapphire', '{}');
	v_plan record;
	v_complete int;
BEGIN
	SELECT pg_catalog.count(*) INTO v_complete
	  FROM tuner.trial t WHERE t.study_id = s.id AND t.state = 'complete';
	v_plan := tuner._sapphire_plan(
		(SELECT pg_catalog.count(*)::int FROM tuner.parameter p WHERE p.study_id = s.id),
		(v_conf ->> 'explore')::int, (v_conf ->> 'top_k')::int,
		EXISTS (SELECT 1 FROM tuner.study_event e
				 WHERE e.study_id = s.id AND e.event = 'sapphire_model'
				   AND e.id > COALESCE((SELECT pg_catalog.max(e2.id) FROM tuner.study_event e2
										WHERE e2.study_id = s.id AND e2.event = 'set_algorithm'), 0)),
		v_complete);
	v_conf := pg_catalog.jsonb_build_object('explore', v_plan.explore, 'top_k', v_plan.top_k,
											'model', COALESCE(v_conf ->> 'model', 'gp-ei'));
	IF v_plan.step = 'explore' THEN
		RETURN v_conf || '{"phase": "explore"}';
	END IF;
	IF v_plan.step = 'rank' THEN
		PERFORM 1 FROM tuner.select_top(s.name, v_plan.top_k);
		INSERT INTO tuner.study_event (study_id, trials, event, detail)
		VALUES (s.id, v_complete, 'sapphire_model',
				v_conf || pg_catalog.jsonb_build_object('enabled', ARRAY(
					SELECT p.name FROM tuner.parameter p
					 WHERE p.study_id = s.id AND p.enabled ORDER BY p.position)));
	END IF;
	RETURN v_conf || '{"phase": "model"}';
END;
$$;

-- Suggest the next trial of a study for a worker (any name that identifies
-- one client: a host and process, an agent id).  Idempotent: while the
-- worker holds a running trial of the study, it gets that trial back (and
-- its lease renewed) instead of a new one.
CREATE OR REPLACE FUNCTION tuner.suggest_next(study text, worker text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	t tuner.trial;
	v_next jsonb;
	p_study text := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	PERFORM tuner._not_null(p_worker, 'worker');
	IF pg_catalog.btrim(p_worker) = '' OR pg_catalog.length(p_worker) > 200 THEN
		RAISE EXCEPTION 'worker must be a name of 1 to 200 characters, not blank'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s characters.', pg_catalog.length(p_worker)),
				  HINT = 'Name the client asking, for example its host and process id.';
	END IF;
	PERFORM tuner.reap(p_study);
	-- One suggestion of a study at a time, so a worker never gets two.
	SELECT * INTO s FROM tuner.study WHERE tuner.study.name = p_study FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		s := tuner._find_study(p_study);	-- raises the error
	END IF;
	SELECT * INTO t FROM tuner.trial
	 WHERE tuner.trial.study_id = s.id AND tuner.trial.state = 'running'
	   AND tuner.trial.worker = p_worker
	 ORDER BY tuner.trial.number LIMIT 1
	   FOR NO KEY UPDATE;
	IF FOUND THEN
		PERFORM tuner._worker_heartbeat(t.id);
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'params', t.config);
	END IF;
	v_next := tuner.suggest_next(p_study);
	UPDATE tuner.trial SET worker = p_worker
	 WHERE tuner.trial.id = (v_next ->> 'trial')::bigint;
	RETURN v_next;
END;
$$;

CREATE OR REPLACE FUNCTION tuner.suggest_next(study text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	sp record;
	plan record;
	g tuner.suggestion;
	r tuner.suggest_result;
	v_number int;
	v_seed bigint;
	v_params jsonb;
	v_trial bigint;
	v_sapphire jsonb;
	v_queued tuner.trial;
	p_study text := $1;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	-- Trials whose server process is gone are never left running.
	PERFORM tuner._reconcile();
	-- Nor are trials whose lease expired (and their retries come first).
	PERFORM tuner.reap(p_study);
	-- Serialize concurrent suggestions for this study.
	SELECT * INTO s FROM tuner.study x WHERE x.name = p_study FOR NO KEY UPDATE;
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
		UPDATE tuner.trial t SET state = 'running', started_at = pg_catalog.now()
		 WHERE t.id = v_queued.id;
		RETURN pg_catalog.jsonb_build_object('trial', v_queued.id, 'params', v_queued.config);
	END IF;

	-- sapphire: when the exploration is complete, rank and keep the top K
	-- (this changes the space, so before reading it).
	IF s.algorithm = 'sapphire' THEN
		v_sapphire := tuner._sapphire_phase(s);
	END IF;

	sp := tuner._space(s.id);
	IF COALESCE(pg_catalog.cardinality(sp.names), 0) = 0 THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	SELECT COALESCE(pg_catalog.max(t.number), 0) + 1 INTO v_number
	  FROM tuner.trial t WHERE t.study_id = s.id;
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

	-- What the suggestion is computed from, and the suggestion (src/core).
	plan := tuner._plan_suggestion(s, v_seed, v_sapphire);
	g := plan.g;
	r := tuner._suggest(s.id, g, plan.x_transfer, plan.y_transfer);
	v_params := tuner._suggested_config(s, r.config);

	BEGIN
		INSERT INTO tuner.trial (study_id, number, config, state, source,
								 predicted_mean, predicted_sd, acquisition,
								 seed, started_at)
		VALUES (s.id, v_number, v_params, 'running', r.source,
				-- (several objectives: a scalarization's, in no unit)
				CASE WHEN g.objective_metrics IS NULL THEN g.sign * r.predicted_mean END,
				CASE WHEN g.objective_metrics IS NULL THEN r.predicted_sd END, r.acquisition,
				v_seed, pg_catalog.now())
		RETURNING id INTO v_trial;
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'trial number % of study "%" was taken by a concurrent transaction', v_number, s.name
			USING ERRCODE = 'serialization_failure',
				  HINT = 'Retry the call; under READ COMMITTED concurrent callers wait for each other instead.';
	END;

	-- Everything the suggestion was computed from, for replay_suggestion,
	-- and the models it fitted.
	g.trial_id := v_trial;
	g.history_md5 := r.history_md5;
	PERFORM tuner._suggestion_insert(g);
	PERFORM tuner._widen_soft_bounds(s, v_trial);
	PERFORM tuner._store_models(s, g, r, plan.n_observed, plan.tasks,
								plan.cluster_names, plan.constraint_names);

	RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', v_params);
END;
$$;

-- Everything the next suggestion of a study is computed from, as its
-- record (tuner.suggestion, without trial_id and history_md5, which
-- tuner.suggest_next adds): the space and its conditions, the trials by
-- id, seeds, the plan of src/core/suggest_policy.c (algorithm and design
-- length), the warm starts; and what is not recorded: earlier studies'
-- trials, the names the stored models need and the count of observed
-- trials.  Raises the study's errors a suggestion cannot be made with.
CREATE OR REPLACE FUNCTION tuner._plan_suggestion(s tuner.study, seed bigint, sapphire jsonb,
									   OUT g tuner.suggestion,
									   OUT x_transfer float8[], OUT y_transfer float8[],
									   OUT n_observed int, OUT tasks text[],
									   OUT cluster_names text[], OUT constraint_names text[])
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	sp record;
	v_cond record;
	v_trials record;
	plan tuner.suggest_plan;
	v_mo_ids bigint[];
	v_mo_signs float8[];
	v_aux_ids bigint[];
	v_aux_names text[];
	v_source_tasks text[];
	v_joint float8;
	p_seed bigint := $2;
BEGIN
	sp := tuner._space(s.id);
	v_cond := tuner._space_conditions(s.id, sp.names);
	-- Several objectives: the model fits a ParEGO scalarization of them.
	IF tuner._is_multiobjective(s.id) THEN
		SELECT pg_catalog.array_agg(o.id ORDER BY o.ordinal), pg_catalog.array_agg(o.sign ORDER BY o.ordinal)
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
	g.objective_metric := (SELECT m.id FROM tuner.metric m WHERE m.study_id = s.id AND m.name = s.objective);
	v_trials := tuner._suggestion_trials(s.id, g.objective_metric, v_mo_ids);
	n_observed := v_trials.n_observed;
	SELECT COALESCE(pg_catalog.array_agg(m.id ORDER BY m.id), '{}'), COALESCE(pg_catalog.array_agg(m.name ORDER BY m.id), '{}')
	  INTO v_aux_ids, v_aux_names
	  FROM tuner.metric m WHERE m.study_id = s.id AND m.role = 'auxiliary';
	-- clustered-icm: one row of 0/1 per auxiliary metric with a cluster,
	-- and that metric's column among the auxiliary metrics.
	IF s.algorithm = 'clustered-icm' THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT CASE WHEN p.name = ANY (m.cluster) THEN 1 ELSE 0 END
					  FROM tuner.parameter p WHERE p.study_id = s.id AND p.enabled
					 ORDER BY p.position) ORDER BY a.k),
			   pg_catalog.array_agg((a.k - 1)::int ORDER BY a.k), pg_catalog.array_agg(m.name ORDER BY a.k)
		  INTO g.cluster_members, g.cluster_metric, cluster_names
		  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
		  JOIN tuner.metric m ON m.id = a.id
		 WHERE m.cluster IS NOT NULL
		   AND EXISTS (SELECT 1 FROM tuner.parameter p
						WHERE p.study_id = s.id AND p.enabled AND p.name = ANY (m.cluster));
	END IF;
	-- Earlier studies' trials join the model as tasks of their own, when
	-- the policy learns from them.
	plan := tuner._suggest_plan(s.algorithm, sapphire ->> 'phase', sapphire ->> 'model',
								pg_catalog.cardinality(sp.names), 0, 0, 1, 0, 0, 0);
	IF s.settings ? 'transfer_from' AND plan.use_transfer THEN
		SELECT pg_catalog.array_agg(tr.x), pg_catalog.array_agg(tr.y)
		  INTO x_transfer, y_transfer
		  FROM tuner._transfer_rows(s.id, ARRAY(SELECT pg_catalog.jsonb_array_elements_text(s.settings -> 'transfer_from'))) tr;
		v_source_tasks := ARRAY(
			SELECT COALESCE(st.name || '.' || st.objective, o.name)
			  FROM pg_catalog.jsonb_array_elements_text(s.settings -> 'transfer_from') WITH ORDINALITY AS o(name, k)
			  LEFT JOIN tuner.study st ON st.name = o.name
			 ORDER BY o.k);
	END IF;
	plan := tuner._suggest_plan(s.algorithm, sapphire ->> 'phase', sapphire ->> 'model',
								pg_catalog.cardinality(sp.names),
								COALESCE((s.settings ->> 'n_initial')::int, 0),
								pg_catalog.cardinality(v_aux_ids),
								COALESCE(pg_catalog.array_length(x_transfer, 1), 0),
								COALESCE(pg_catalog.cardinality(g.cluster_metric), 0),
								n_observed, v_trials.n_failed);
	IF NOT plan.use_aux THEN
		v_aux_ids := '{}';
		v_aux_names := '{}';
	END IF;
	IF NOT plan.use_transfer THEN
		x_transfer := NULL;
		y_transfer := NULL;
	END IF;
	-- icm's joint target: each auxiliary metric's signed weight, +w to
	-- minimize, -w to maximize, 0 (model only) without a direction.
	v_joint := COALESCE((s.settings ->> 'icm_joint')::float8, 0);
	IF plan.use_aux AND n_observed > 0 THEN
		g.aux_metrics := CASE WHEN plan.algorithm IN ('icm', 'clustered-icm') THEN v_aux_ids END;
		IF plan.algorithm = 'icm' AND s.algorithm = 'icm' AND v_joint > 0 THEN
			SELECT pg_catalog.array_agg(CASE m.direction WHEN 'minimize' THEN v_joint
										WHEN 'maximize' THEN -v_joint ELSE 0 END ORDER BY a.k)
			  INTO g.aux_weights
			  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
			  JOIN tuner.metric m ON m.id = a.id;
		END IF;
	END IF;
	constraint_names := tuner._check_constraints_reported(s, n_observed, plan.n_initial);
	tasks := ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END] || v_aux_names
			 || COALESCE(v_source_tasks, '{}');

	g.algorithm := plan.algorithm;
	g.parameters := sp.names;
	g.kinds := sp.kinds;
	g.lows := sp.lows;
	g.highs := sp.highs;
	g.log_scales := sp.log_scales;
	g.n_choices := sp.n_choices;
	g.fixed := COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
						   FROM tuner.parameter p WHERE p.study_id = s.id AND NOT p.enabled), '{}');
	g.sign := CASE s.direction WHEN 'maximize' THEN -1 ELSE 1 END;
	g.observed := COALESCE(v_trials.observed, '{}');
	g.disturbed := (SELECT pg_catalog.array_agg(t.id ORDER BY t.number)
					  FROM tuner.trial t
					 WHERE t.id = ANY (g.observed) AND t.disturbed);
	g.pending := COALESCE(v_trials.pending, '{}');
	g.other := COALESCE(v_trials.other, '{}');
	g.n_initial := plan.n_initial;
	g.design_index := (SELECT pg_catalog.count(*)::int FROM tuner.trial t
						WHERE t.study_id = s.id AND t.source <> 'default');
	g.seed := p_seed;
	g.design_seed := s.seed;
	g.icm_rank := (s.settings ->> 'icm_rank')::int;
	g.warm_model := tuner._warm_model(s.id, plan.algorithm, tasks, sp.names);
	g.warm_feasibility_model := tuner._warm_feasibility_model(s.id, sp.names, v_trials.n_failed,
															  n_observed + v_trials.n_failed);
	g := tuner._cluster_warm_start(s.id, g, cluster_names);
	g.transfer := x_transfer IS NOT NULL;
	g.objective_metrics := v_mo_ids;
	g.objective_signs := v_mo_signs;
	g.scalarization_weights := CASE WHEN v_mo_ids IS NOT NULL
									THEN tuner._parego_weights(pg_catalog.cardinality(v_mo_ids), p_seed) END;
	g.canonical := true;
	g.condition_parent := v_cond.parents;
	g.condition_op := v_cond.ops;
	g.condition_values := v_cond.vals;
	g.condition_default := v_cond.defaults;
END;
$$;

-- The trials a suggestion sees, by id in trial order: observed (complete
-- or pruned with an objective value; with several objectives, all of
-- them), pending (running or queued) and other (failed, interrupted, or
-- complete without an objective value), and how many failed.
CREATE OR REPLACE FUNCTION tuner._suggestion_trials(study_id bigint, objective_id bigint, mo_ids bigint[],
										 OUT observed bigint[], OUT pending bigint[],
										 OUT other bigint[], OUT n_observed int,
										 OUT n_failed int)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	-- (plpgsql: its plan is kept for the session)
	SELECT pg_catalog.array_agg(o.id ORDER BY o.number) FILTER (WHERE o.observed),
		   pg_catalog.array_agg(o.id ORDER BY o.number) FILTER (WHERE o.state IN ('running', 'queued')),
		   pg_catalog.array_agg(o.id ORDER BY o.number) FILTER (WHERE o.state IN ('failed', 'interrupted')
																 OR (o.state IN ('complete', 'pruned') AND NOT o.observed)),
		   (pg_catalog.count(*) FILTER (WHERE o.observed))::int,
		   (pg_catalog.count(*) FILTER (WHERE o.state = 'failed'))::int
	  INTO observed, pending, other, n_observed, n_failed
	  FROM (SELECT t.id, t.number, t.state,
				   t.state IN ('complete', 'pruned') AND ob.trial_id IS NOT NULL
				   AND CASE WHEN $3 IS NULL THEN true
							ELSE (SELECT pg_catalog.count(*) FROM tuner.observation mo
								   WHERE mo.trial_id = t.id AND mo.metric_id = ANY ($3))
								 = pg_catalog.cardinality($3) END AS observed
			  FROM tuner.trial t
			  LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = $2
			 WHERE t.study_id = $1) o;
END;
$$;

-- A study's bounded constraint metrics (names, by id), once the design is
-- done: one that no complete trial reported cannot be modelled or met.
CREATE OR REPLACE FUNCTION tuner._check_constraints_reported(s tuner.study, n_observed int, n_initial int)
RETURNS text[]
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	m record;
	v_names text[] := '{}';
BEGIN
	FOR m IN SELECT x.id, x.name FROM tuner.metric x
			  WHERE x.study_id = s.id AND x.role = 'constraint' AND x.bound IS NOT NULL ORDER BY x.id
	LOOP
		v_names := v_names || m.name;
		IF n_observed >= n_initial
		   AND NOT EXISTS (SELECT 1 FROM tuner.observation ob
							 JOIN tuner.trial t ON t.id = ob.trial_id
							WHERE ob.metric_id = m.id AND t.state = 'complete') THEN
			RAISE EXCEPTION 'constraint metric "%" of study "%" was never reported', m.name, s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('%s complete trials reported the objective, none of them "%s".',
												 n_observed, m.name),
					  HINT = 'Report it with each trial''s metrics, or declare it ''auxiliary'' to drop the constraint.';
		END IF;
	END LOOP;
	RETURN v_names;
END;
$$;

-- Warm start from the last fit of the same model over the same tasks and
-- parameters.  icm falls back to the last gp fit: its steps below
-- ICM_MIN_TRIALS (src/core/suggest_icm.c) are GP-EI's and store gp rows,
-- and without this each of them was fitted cold; an ICM step given a gp
-- row (no task loadings) fits cold as before.  clustered-icm warm-starts
-- each cluster instead (tuner._cluster_warm_start).
CREATE OR REPLACE FUNCTION tuner._warm_model(study_id bigint, algorithm text, tasks text[], parameters text[])
RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	-- (plpgsql: its plan is kept for the session)
	RETURN (
		SELECT m.id
		  FROM tuner.model m
		 WHERE m.study_id = $1
		   AND (($2 = 'icm' AND m.kind = 'icm' AND m.tasks = $3)
				OR ($2 IN ('icm', 'gp-ei') AND m.kind = 'gp'))
		   AND m.parameters = $4
		 ORDER BY m.kind = 'icm' DESC, m.id DESC LIMIT 1);
END;
$$;

-- With failed trials, from 50 trials on (FAILURE_WARM_MIN_N in
-- src/core/feasibility.c), the failure model starts from its last fit
-- over the same parameters, failures since or not: its posterior holds
-- every failed trial at once, and its hyperparameters are refined on
-- feasibility.c's schedule, as the objective's are.  Below 50 trials it
-- is fitted from cold starts (a few 0/1 outcomes' likelihood has several
-- modes close in value).
CREATE OR REPLACE FUNCTION tuner._warm_feasibility_model(study_id bigint, parameters text[],
											  n_failed int, n_observed_or_failed int)
RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	-- (plpgsql: its plan is kept for the session)
	RETURN (
		SELECT m.id
		  FROM tuner.model m
		 WHERE $3 > 0 AND $4 >= 50
		   AND m.study_id = $1 AND m.kind = 'feasibility'
		   AND m.parameters = $2
		   AND m.id = (SELECT pg_catalog.max(l.id) FROM tuner.model l
						WHERE l.study_id = $1 AND l.kind = 'feasibility'));
END;
$$;

-- clustered-icm: each cluster starts from its latest fit (same metric,
-- same parameters), rows padded to 2 tasks and rank 2.
CREATE OR REPLACE FUNCTION tuner._cluster_warm_start(study_id bigint, g tuner.suggestion,
										  cluster_names text[])
RETURNS tuner.suggestion
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	wm tuner.model;
	c int;
	d int := pg_catalog.cardinality(g.parameters);
	p_study_id bigint := $1;
BEGIN
	g.warm_cluster_tasks := '{}';
	g.warm_cluster_rank := '{}';
	g.warm_cluster_lengthscales := '{}';
	g.warm_cluster_loadings := '{}';
	g.warm_cluster_variance := '{}';
	g.warm_cluster_noise := '{}';
	g.warm_cluster_mean := '{}';
	IF g.algorithm <> 'clustered-icm' THEN
		RETURN g;
	END IF;
	FOR c IN 1 .. pg_catalog.cardinality(g.cluster_metric)
	LOOP
		wm := NULL;
		SELECT * INTO wm FROM tuner.model m
		 WHERE m.study_id = p_study_id AND m.kind = 'cluster'
		   AND m.cluster_metric = cluster_names[c]
		   AND m.parameters = ARRAY(SELECT g.parameters[j] FROM pg_catalog.generate_series(1, d) AS j
									 WHERE g.cluster_members[c][j] = 1 ORDER BY j)
		 ORDER BY m.id DESC LIMIT 1;
		g.warm_cluster_tasks := g.warm_cluster_tasks || COALESCE(pg_catalog.cardinality(wm.tasks), 0);
		g.warm_cluster_rank := g.warm_cluster_rank || COALESCE(wm.rank, 0);
		g.warm_cluster_lengthscales := g.warm_cluster_lengthscales || ARRAY[ARRAY(
			SELECT wm.lengthscales[pg_catalog.array_position(wm.parameters, g.parameters[j])]
			  FROM pg_catalog.generate_series(1, d) AS j ORDER BY j)];
		g.warm_cluster_loadings := g.warm_cluster_loadings || ARRAY[ARRAY(
			SELECT u.v FROM pg_catalog.generate_series(1, 4) AS x
			  LEFT JOIN pg_catalog.unnest(wm.task_loadings) WITH ORDINALITY AS u(v, k) ON u.k = x
			 ORDER BY x)];
		g.warm_cluster_variance := g.warm_cluster_variance || ARRAY[ARRAY[wm.task_variance[1], wm.task_variance[2]]];
		g.warm_cluster_noise := g.warm_cluster_noise || ARRAY[ARRAY[wm.task_noise[1], wm.task_noise[2]]];
		g.warm_cluster_mean := g.warm_cluster_mean || ARRAY[ARRAY[wm.task_mean[1], wm.task_mean[2]]];
	END LOOP;
	RETURN g;
END;
$$;

-- The configuration a suggestion's native values stand for, as the
-- trial's config: the enabled parameters from the model's values, the
-- disabled ones at their defaults.  The core put inactive parameters at
-- their defaults, as tuner._apply_conditions does; a difference is a bug.
CREATE OR REPLACE FUNCTION tuner._suggested_config(s tuner.study, config float8[])
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_params jsonb;
BEGIN
	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(config[p.i])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(config[p.i])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(config[p.i] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(config[p.i])::int + 1]) END)
	  INTO v_params
	  FROM (SELECT x.name, x.kind, x.choices,
				   pg_catalog.row_number() OVER (ORDER BY x.position) AS i
			  FROM tuner.parameter x WHERE x.study_id = s.id AND x.enabled) p;
	v_params := COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
							FROM tuner.parameter p
						   WHERE p.study_id = s.id AND NOT p.enabled), '{}') || v_params;
	IF tuner._apply_conditions(s.id, v_params) <> v_params THEN
		RAISE EXCEPTION 'the suggestion for study "%" is not in canonical form', s.name
			USING ERRCODE = 'internal_error',
				  DETAIL = pg_catalog.format('The model code suggested %s, the conditions make it %s.',
											 v_params, tuner._apply_conditions(s.id, v_params));
	END IF;
	RETURN v_params;
END;
$$;

-- The models a suggestion fitted, kept with its trial (tuner.model, through
-- tuner._model_insert): the GP or ICM model that chose the point (kind gp
-- or icm), clustered-icm's cluster fits (kind cluster), and the failure
-- model and each outcome constraint's (kinds feasibility, constraint).
CREATE OR REPLACE FUNCTION tuner._store_models(s tuner.study, g tuner.suggestion, r tuner.suggest_result,
									n_observed int, tasks text[], cluster_names text[],
									constraint_names text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	d int := pg_catalog.cardinality(g.parameters);
	v_tasks text[];
BEGIN
	IF r.source <> 'model' THEN
		RETURN;
	END IF;
	IF g.algorithm = 'clustered-icm' THEN
		PERFORM tuner._store_cluster_models(s, g, r, n_observed, cluster_names);
	ELSE
		-- the tasks the model kept, in its order (tasks_used is 0-based)
		SELECT pg_catalog.array_agg(tasks[u.k] ORDER BY u.used) INTO v_tasks
		  FROM pg_catalog.unnest(r.tasks_used) WITH ORDINALITY AS u(used, k)
		 WHERE u.used >= 0;
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					g.trial_id AS trial_id,
					CASE WHEN r.rank IS NULL THEN 'gp' ELSE 'icm' END AS kind,
					n_observed AS n,
					r.lengthscales AS lengthscales,
					r.outputscale AS outputscale,
					r.noise AS noise,
					r.mean AS mean,
					r.log_likelihood AS log_likelihood,
					COALESCE(v_tasks, ARRAY[CASE WHEN g.objective_metrics IS NULL THEN s.objective ELSE 'parego' END]) AS tasks,
					r.rank AS rank,
					r.task_loadings AS task_loadings,
					r.task_variance AS task_variance,
					r.task_covariance AS task_covariance,
					r.task_correlation AS task_correlation,
					r.task_noise AS task_noise,
					r.task_mean AS task_mean,
					r.kronecker AS kronecker,
					r.fit_ms AS fit_ms,
					g.parameters AS parameters) x));
	END IF;
	-- the feasibility model and each constraint's, when fitted
	IF r.constraint_n IS NOT NULL THEN
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					g.trial_id AS trial_id,
					CASE WHEN c = 1 THEN 'feasibility' ELSE 'constraint' END AS kind,
					r.constraint_n[c] AS n,
					ARRAY(SELECT r.constraint_lengthscales[c][j]
					   FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) AS lengthscales,
					r.constraint_outputscale[c] AS outputscale,
					r.constraint_noise[c] AS noise,
					r.constraint_mean[c] AS mean,
					r.constraint_log_likelihood[c] AS log_likelihood,
					CASE WHEN c > 1 THEN ARRAY[constraint_names[c - 1]] END AS tasks,
					g.parameters AS parameters,
					r.constraint_y_mean[c] AS outcome_mean,
					r.constraint_y_sd[c] AS outcome_sd,
					r.constraint_bound_std[c] AS bound,
					CASE WHEN c > 1 THEN constraint_names[c - 1] END AS constraint_metric,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN r.constraint_trend_intercept[c] END AS trend_intercept,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN
					ARRAY(SELECT r.constraint_trend_slopes[c][j]
							FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) END AS trend_slopes,
					CASE WHEN r.constraint_calibration_threshold[c] <> 'NaN' THEN r.constraint_calibration_threshold[c] END AS calibration_threshold,
					CASE WHEN r.constraint_calibration_spread[c] <> 'NaN' THEN r.constraint_calibration_spread[c] END AS calibration_spread
				  FROM pg_catalog.generate_series(1, pg_catalog.cardinality(r.constraint_n)) AS c
		 WHERE r.constraint_n[c] > 0) x));
	END IF;
END;
$$;

-- clustered-icm's fits: one row per cluster that was fitted, and when
-- every combination of the clusters' proposals had been tried, the GP over
-- every parameter that chose the point (kind gp).
CREATE OR REPLACE FUNCTION tuner._store_cluster_models(s tuner.study, g tuner.suggestion,
											r tuner.suggest_result, n_observed int,
											cluster_names text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	c int;
	d int := pg_catalog.cardinality(g.parameters);
BEGIN
	FOR c IN 1 .. pg_catalog.cardinality(g.cluster_metric)
	LOOP
		CONTINUE WHEN r.cluster_tasks[c] = 0;
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					g.trial_id AS trial_id,
					'cluster' AS kind,
					n_observed AS n,
					pg_catalog.array_agg(r.cluster_lengthscales[c][j] ORDER BY j) AS lengthscales,
					r.cluster_task_covariance[c][1] AS outputscale,
					r.cluster_task_noise[c][1] AS noise,
					r.cluster_task_mean[c][1] AS mean,
					r.cluster_log_likelihood[c] AS log_likelihood,
					CASE r.cluster_tasks[c] WHEN 2 THEN ARRAY[s.objective, cluster_names[c]]
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
					pg_catalog.array_agg(g.parameters[j] ORDER BY j) AS parameters,
					cluster_names[c] AS cluster_metric,
					-- W (tasks x rank) from its row of 4, v from its row of 2
			   (SELECT pg_catalog.array_agg(ARRAY(
						SELECT r.cluster_task_loadings[c][(t - 1) * r.cluster_rank[c] + k]
						  FROM pg_catalog.generate_series(1, r.cluster_rank[c]) AS k
						 ORDER BY k) ORDER BY t)
				  FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t) AS task_loadings,
					ARRAY(SELECT r.cluster_task_variance[c][t]
					   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_variance
				  FROM pg_catalog.generate_series(1, d) AS j
		 WHERE g.cluster_members[c][j] = 1) x));
	END LOOP;
	IF NOT (1 = ANY (r.cluster_used)) THEN
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					g.trial_id AS trial_id,
					'gp' AS kind,
					n_observed AS n,
					r.lengthscales AS lengthscales,
					r.outputscale AS outputscale,
					r.noise AS noise,
					r.mean AS mean,
					r.log_likelihood AS log_likelihood,
					ARRAY[s.objective] AS tasks,
					r.fit_ms AS fit_ms,
					g.parameters AS parameters) x));
	END IF;
END;
$$;

-- Compute a trial's suggestion again from what it saw (tuner.suggestion):
-- the same space, conditions, trials, seeds and warm start, through the
-- same tuner._suggest as tuner.suggest_next.  Returns the configuration,
-- which equals the trial's config.  A suggestion of 0.2.0 or earlier
-- (canonical false) is computed as it was then.
CREATE OR REPLACE FUNCTION tuner.replay_suggestion(trial bigint)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	g tuner.suggestion;
	r tuner.suggest_result;
	v_ids bigint[];
	v_params jsonb;
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
	IF (tuner._suggestion_data(t.study_id, g)).history_md5 <> g.history_md5 THEN
		RAISE EXCEPTION 'the study of trial % changed since its suggestion', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A metric value of a trial it was computed from is different now.';
	END IF;

	r := tuner._suggest(t.study_id, g);
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

-- Phi(z), the standard normal CDF (src/core/log_ei.h).
CREATE OR REPLACE FUNCTION tuner._normal_cdf(z float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_normal_cdf'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Trigger: a queued or running trial's configuration, on insert or change.
CREATE OR REPLACE FUNCTION tuner._trial_config_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	c record;
BEGIN
	IF NEW.state <> ALL (ARRAY['queued', 'running'])
	   OR (TG_OP = 'UPDATE'
		   AND NEW.config IS NOT DISTINCT FROM OLD.config) THEN
		RETURN NEW;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.study s WHERE s.id = NEW.study_id) THEN
		RETURN NEW;		-- a study the caller cannot see: row-level security refuses
	END IF;
	c := tuner._complete_config(NEW.study_id, NEW.config);
	IF pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'parameter "%" is not in study "%"', c.dropped[1],
			  (SELECT s.name FROM tuner.study s WHERE s.id = NEW.study_id)
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	IF c.problem IS NOT NULL THEN
		RAISE EXCEPTION '%', c.problem[2]
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = CASE c.problem[1] WHEN 'missing_parameter' THEN 'Give it a value.'
							  ELSE 'Give a value the parameter''s kind, bounds or choices allow.' END;
	END IF;
	NEW.config := c.config;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_config_guard BEFORE INSERT OR UPDATE OF config ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_config_guard();
