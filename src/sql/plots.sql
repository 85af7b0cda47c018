/*
 * plots.sql
 *	  Plots of a study as SVG: convergence, slices, Pareto fronts, parameter
 *	  importance and task correlations.
 */

-- Not STRICT: NULL marks an absent optional part (the default line, the
-- categories, no best trial yet); the C side rejects NULL where it is
-- required.  labels: the title, the x and the y axis' labels; feasible:
-- the trials tuner.best may choose; disturbed: trials run while the
-- machine was busy; best: the best so far at each trial (NULL before the
-- first feasible one).
CREATE OR REPLACE FUNCTION tuner._plot_convergence(labels text[],
										numbers float8[], "values" float8[],
										feasible bool[], disturbed bool[],
										best float8[],
										failed float8[], default_value float8,
										minimize bool, log_y bool,
										width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_convergence_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- best_number: the number of tuner.best's trial (NULL: none).
CREATE OR REPLACE FUNCTION tuner._plot_slice(labels text[],
								  x float8[], y float8[], numbers float8[],
								  feasible bool[], best_number float8,
								  categories text[], x_log bool, log_y bool,
								  minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_slice_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._plot_pareto(title text, x_label text, y_label text,
								   x float8[], y float8[], numbers float8[],
								   feasible bool[], x_minimize bool,
								   y_minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_pareto_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._plot_importance(title text, names text[],
									   lasso float8[], lengthscales float8[],
									   width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_importance'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner._plot_heatmap(title text, names text[], matrix float8[],
									width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_heatmap'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- A string option of a plot, or NULL when absent; required raises the
-- error for an absent one.
CREATE OR REPLACE FUNCTION tuner._plot_string(options jsonb, key text, kind text,
								   required bool)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF NOT options ? key THEN
		IF required THEN
			RAISE EXCEPTION 'plot kind % needs the option "%"', kind, key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = CASE kind
						  WHEN 'slice' THEN 'For example {"parameter": "x1"}.'
						  ELSE 'For example {"x": "throughput", "y": "p99_latency"}.' END;
		END IF;
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(options -> key) IS DISTINCT FROM 'string' THEN
		RAISE EXCEPTION 'plot option "%" must be a string', key
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options -> key);
	END IF;
	RETURN options ->> key;
END;
$$;

-- The options every plot takes (width, height, title, log_y) checked
-- against the keys its kind allows.
CREATE OR REPLACE FUNCTION tuner._plot_options(options jsonb, kind text, allowed text[],
									OUT width int, OUT height int,
									OUT title text, OUT log_y bool)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v_key text;
BEGIN
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'plot options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options),
				  HINT = 'For example {"width": 800, "height": 500}.';
	END IF;
	allowed := allowed || ARRAY['width', 'height', 'title'];
	FOR v_key IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF NOT v_key = ANY (allowed) THEN
			RAISE EXCEPTION 'unknown option "%" for plot kind %', v_key, kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('The options of plot kind %s are %s.', kind,
											   pg_catalog.array_to_string(allowed, ', '));
		END IF;
	END LOOP;
	width := 720;
	IF options ? 'width' THEN
		width := tuner._json_int(options -> 'width', 'plot option width', 200, 4000);
	END IF;
	height := 480;
	IF options ? 'height' THEN
		height := tuner._json_int(options -> 'height', 'plot option height', 200, 4000);
	END IF;
	title := tuner._plot_string(options, 'title', kind, false);
	log_y := false;
	IF options ? 'log_y' THEN
		IF pg_catalog.jsonb_typeof(options -> 'log_y') IS DISTINCT FROM 'boolean' THEN
			RAISE EXCEPTION 'plot option "log_y" must be true or false'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'log_y');
		END IF;
		log_y := (options ->> 'log_y')::bool;
	END IF;
END;
$$;

-- "name (unit)" of a metric of the study, or just its name.
CREATE OR REPLACE FUNCTION tuner._plot_metric_label(study_id bigint, metric text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
	SELECT CASE WHEN m.unit IS NULL OR m.unit = '' THEN $2
				ELSE pg_catalog.format('%s (%s)', $2, m.unit) END
	  FROM (SELECT NULL) AS one
	  LEFT JOIN tuner.metric m ON m.study_id = $1 AND m.name = $2
$$;

-- The study's complete trials that reported the objective, or the error
-- when there are none.
CREATE OR REPLACE FUNCTION tuner._plot_require_trials(s tuner.study)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF NOT EXISTS (SELECT 1
					 FROM tuner.trial t
					 JOIN tuner.observation ob ON ob.trial_id = t.id
					 JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
					WHERE t.study_id = s.id AND t.state = 'complete') THEN
		RAISE EXCEPTION 'study "%" has no complete trials to plot', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report trials with tuner.report() (or run them with tuner.run()) first.';
	END IF;
END;
$$;

-- Convergence: each complete trial's objective, whether tuner.best may
-- choose it, and the best so far by trial number (tuner._trial_outcomes),
-- the default's value, failed trials.
CREATE OR REPLACE FUNCTION tuner._plot_convergence_of(s tuner.study, o record)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_numbers float8[];
	v_values float8[];
	v_feasible bool[];
	v_disturbed bool[];
	v_best float8[];
	v_failed float8[];
	v_default float8;
BEGIN
	PERFORM tuner._plot_require_trials(s);
	SELECT pg_catalog.array_agg(r.number::float8 ORDER BY r.number),
		   pg_catalog.array_agg(r.value ORDER BY r.number),
		   pg_catalog.array_agg(r.feasible ORDER BY r.number),
		   pg_catalog.array_agg(COALESCE(t.disturbed, false) ORDER BY r.number),
		   pg_catalog.array_agg(r.best_so_far ORDER BY r.number)
	  INTO v_numbers, v_values, v_feasible, v_disturbed, v_best
	  FROM tuner._trial_outcomes(s.id) r
	  JOIN tuner.trial t ON t.id = r.trial
	 WHERE r.value IS NOT NULL;
	SELECT COALESCE(pg_catalog.array_agg(t.number::float8 ORDER BY t.number), '{}')
	  INTO v_failed
	  FROM tuner.trial t
	 WHERE t.study_id = s.id AND t.state = 'failed';
	SELECT ob.value INTO v_default
	  FROM tuner.trial t
	  JOIN tuner.observation ob ON ob.trial_id = t.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE t.study_id = s.id AND t.state = 'complete' AND t.source = 'default'
	 ORDER BY t.number LIMIT 1;
	RETURN tuner._plot_convergence(
		ARRAY[COALESCE(o.title, pg_catalog.format('%s: %s by trial (%s)', s.name, s.objective, s.direction)),
			  'trial', tuner._plot_metric_label(s.id, s.objective)],
		v_numbers, v_values, v_feasible, v_disturbed, v_best, v_failed, v_default,
		s.direction = 'minimize', o.log_y, o.width, o.height);
END;
$$;

-- Slice: the objective against one parameter's value in each complete
-- trial (its default where the trial's config lacks it), which trials
-- tuner.best may choose and its trial.
CREATE OR REPLACE FUNCTION tuner._plot_slice_of(s tuner.study, o record, p_name text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
	v_feasible bool[];
	v_categories text[];
BEGIN
	SELECT * INTO p FROM tuner.parameter WHERE study_id = s.id AND name = p_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, p_name
			USING ERRCODE = 'undefined_object',
				  HINT = pg_catalog.format('Its parameters are: %s.',
						   COALESCE((SELECT pg_catalog.string_agg(pg_catalog.quote_ident(q.name), ', ' ORDER BY q.position)
									   FROM tuner.parameter q WHERE q.study_id = s.id), 'none'));
	END IF;
	PERFORM tuner._plot_require_trials(s);
	IF p.kind = 'bool' THEN
		v_categories := ARRAY['false', 'true'];
	ELSIF p.kind = 'categorical' THEN
		v_categories := p.choices;
	END IF;
	SELECT pg_catalog.array_agg(q.x ORDER BY q.number),
		   pg_catalog.array_agg(q.value ORDER BY q.number),
		   pg_catalog.array_agg(q.number::float8 ORDER BY q.number),
		   pg_catalog.array_agg(q.feasible ORDER BY q.number)
	  INTO v_x, v_y, v_numbers, v_feasible
	  FROM (SELECT r.number, r.value, r.feasible,
				   CASE WHEN v_categories IS NULL THEN (v.v)::float8
						ELSE (pg_catalog.array_position(v_categories, v.v) - 1)::float8 END AS x
			  FROM tuner._trial_outcomes(s.id) r
			  JOIN tuner.trial t ON t.id = r.trial
			 CROSS JOIN LATERAL (SELECT COALESCE(t.config ->> p.name, p.default_value #>> '{}') AS v) v
			 WHERE r.value IS NOT NULL) q
	 WHERE q.x IS NOT NULL;
	IF v_x IS NULL THEN
		RAISE EXCEPTION 'no complete trial of study "%" has a value for parameter "%"', s.name, p.name
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	RETURN tuner._plot_slice(
		ARRAY[COALESCE(o.title, pg_catalog.format('%s: %s against %s', s.name, s.objective, p.name)),
			  p.name || CASE WHEN p.log_scale THEN ' (log scale)' ELSE '' END,
			  tuner._plot_metric_label(s.id, s.objective)],
		v_x, v_y, v_numbers, v_feasible,
		(SELECT b.number::float8 FROM tuner._best_trial(s.id) b),
		v_categories, p.log_scale, o.log_y,
		s.direction = 'minimize', o.width, o.height);
END;
$$;

-- A metric of the study with its direction, or the error.
CREATE OR REPLACE FUNCTION tuner._plot_metric(s tuner.study, p_name text)
RETURNS tuner.metric
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	m tuner.metric;
BEGIN
	SELECT * INTO m FROM tuner.metric WHERE study_id = s.id AND name = p_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no metric "%"', s.name, p_name
			USING ERRCODE = 'undefined_object',
				  HINT = pg_catalog.format('Its metrics are: %s.',
						   (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(q.name), ', ' ORDER BY q.id)
							  FROM tuner.metric q WHERE q.study_id = s.id));
	END IF;
	m.direction := COALESCE(m.direction, CASE WHEN m.name = s.objective THEN s.direction END);
	IF m.direction IS NULL THEN
		RAISE EXCEPTION 'metric "%" of study "%" has no direction, so its better end is unknown', p_name, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = pg_catalog.format('Give it one: tuner.add_metric(%L, %L, direction => ''minimize'').', s.name, p_name);
	END IF;
	RETURN m;
END;
$$;

-- Pareto: two metrics of every complete trial that reported both, and
-- which of them tuner.best's definition admits (only those compete for
-- the front, as in tuner.pareto_front).
CREATE OR REPLACE FUNCTION tuner._plot_pareto_of(s tuner.study, o record, p_x text, p_y text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	mx tuner.metric;
	my tuner.metric;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
	v_feasible bool[];
BEGIN
	mx := tuner._plot_metric(s, p_x);
	my := tuner._plot_metric(s, p_y);
	IF mx.id = my.id THEN
		RAISE EXCEPTION 'a pareto plot needs two different metrics, got "%" twice', p_x
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT pg_catalog.array_agg(ox.value ORDER BY t.number),
		   pg_catalog.array_agg(oy.value ORDER BY t.number),
		   pg_catalog.array_agg(t.number::float8 ORDER BY t.number),
		   pg_catalog.array_agg(r.feasible ORDER BY t.number)
	  INTO v_x, v_y, v_numbers, v_feasible
	  FROM tuner.trial t
	  JOIN tuner._trial_outcomes(s.id) r ON r.trial = t.id
	  JOIN tuner.observation ox ON ox.trial_id = t.id AND ox.metric_id = mx.id
	  JOIN tuner.observation oy ON oy.trial_id = t.id AND oy.metric_id = my.id
	 WHERE t.study_id = s.id AND t.state = 'complete';
	IF v_x IS NULL THEN
		RAISE EXCEPTION 'no complete trial of study "%" reported both "%" and "%"', s.name, p_x, p_y
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report both metrics with tuner.report().';
	END IF;
	RETURN tuner._plot_pareto(
		COALESCE(o.title, pg_catalog.format('%s: %s (%s) and %s (%s)', s.name,
											mx.name, mx.direction, my.name, my.direction)),
		tuner._plot_metric_label(s.id, mx.name) || ', ' || mx.direction,
		tuner._plot_metric_label(s.id, my.name) || ', ' || my.direction,
		v_x, v_y, v_numbers, v_feasible, mx.direction = 'minimize', my.direction = 'minimize',
		o.width, o.height);
END;
$$;

-- Importance: the Lasso ranking (tuner.lasso_rank) and/or the GP
-- length-scales of the latest single- or multi-task model.  method 'auto'
-- shows what is available: Lasso when it can rank (enough complete
-- trials, a varying objective), length-scales when a model exists.
CREATE OR REPLACE FUNCTION tuner._plot_importance_of(s tuner.study, o record, p_method text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_method text := COALESCE(p_method, 'auto');
	v_names text[];
	v_lasso float8[];
	v_ls float8[];
	m tuner.model;
	v_rank jsonb;
	v_why text;
BEGIN
	IF v_method NOT IN ('auto', 'lasso', 'lengthscale', 'both') THEN
		RAISE EXCEPTION 'unknown importance method "%"', v_method
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The methods are auto, lasso, lengthscale and both.';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	IF v_method IN ('auto', 'lengthscale', 'both') THEN
		SELECT * INTO m FROM tuner.model
		 WHERE study_id = s.id AND kind IN ('gp', 'icm') AND parameters IS NOT NULL
		 ORDER BY id DESC LIMIT 1;
		IF NOT FOUND AND v_method <> 'auto' THEN
			RAISE EXCEPTION 'study "%" has no GP model yet', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'tuner.suggest_next() fits one after the initial design (algorithm gp-ei or icm); or use {"method": "lasso"}.';
		END IF;
	END IF;
	IF v_method IN ('lasso', 'both') THEN
		PERFORM tuner._plot_require_trials(s);
		SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(r.parameter, r.importance) ORDER BY r.rank)
		  INTO v_rank FROM tuner.lasso_rank(s.name) r;
	ELSIF v_method = 'auto' THEN
		BEGIN
			SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(r.parameter, r.importance) ORDER BY r.rank)
			  INTO v_rank FROM tuner.lasso_rank(s.name) r;
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			GET STACKED DIAGNOSTICS v_why = MESSAGE_TEXT;
			v_rank := NULL;
		END;
		IF v_rank IS NULL AND m.id IS NULL THEN
			RAISE EXCEPTION 'study "%" has neither a Lasso ranking nor a GP model to show', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('Lasso: %s.', v_why),
					  HINT = 'Complete more trials (at least 5, with different objective values).';
		END IF;
	END IF;
	IF v_rank IS NOT NULL THEN
		-- rows in Lasso rank order
		SELECT pg_catalog.array_agg(e ->> 0 ORDER BY i), pg_catalog.array_agg((e ->> 1)::float8 ORDER BY i)
		  INTO v_names, v_lasso
		  FROM pg_catalog.jsonb_array_elements(v_rank) WITH ORDINALITY AS a(e, i);
	ELSE
		-- rows by length-scale, shortest (most important) first
		SELECT pg_catalog.array_agg(p.name ORDER BY COALESCE(m.lengthscales[pg_catalog.array_position(m.parameters, p.name)],
															  'Infinity'), p.position)
		  INTO v_names
		  FROM tuner.parameter p WHERE p.study_id = s.id;
	END IF;
	IF m.id IS NOT NULL THEN
		-- a parameter the model left out (disabled) has no length-scale:
		-- NULL, drawn as "not in the model"
		v_ls := ARRAY(SELECT m.lengthscales[pg_catalog.array_position(m.parameters, u.name)]
						FROM pg_catalog.unnest(v_names) WITH ORDINALITY AS u(name, i) ORDER BY u.i);
	END IF;
	RETURN tuner._plot_importance(
		COALESCE(o.title, pg_catalog.format('%s: parameter importance for %s', s.name, s.objective)
						  || CASE WHEN m.id IS NOT NULL
								  THEN pg_catalog.format(' (model of trial %s, n = %s)',
									   (SELECT t.number FROM tuner.trial t WHERE t.id = m.trial_id), m.n)
								  ELSE '' END),
		v_names, v_lasso, v_ls, o.width, o.height);
END;
$$;

-- Task correlations: a heat map of the latest multi-task model's learned
-- correlations (tuner.task_correlation, which raises the error when the
-- study has none).
CREATE OR REPLACE FUNCTION tuner._plot_task_correlation_of(s tuner.study, o record)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_a text[];
	v_b text[];
	v_corr float8[];
	v_names text[] := '{}';
	v_matrix float8[];
	v_row float8[];
	v_model bigint;
	v_n int;
	v_found bool;
BEGIN
	SELECT pg_catalog.array_agg(c.metric ORDER BY c.ord), pg_catalog.array_agg(c.other_metric ORDER BY c.ord),
		   pg_catalog.array_agg(c.correlation ORDER BY c.ord), pg_catalog.max(c.model), pg_catalog.max(c.n)
	  INTO v_a, v_b, v_corr, v_model, v_n
	  FROM tuner.task_correlation(s.name)
		   WITH ORDINALITY AS c(metric, other_metric, correlation, covariance, model, n, ord);
	-- the metrics in the order tuner.task_correlation lists them
	FOR i IN 1 .. pg_catalog.cardinality(v_a)
	LOOP
		IF NOT v_a[i] = ANY (v_names) THEN
			v_names := v_names || v_a[i];
		END IF;
	END LOOP;
	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		v_row := '{}';
		FOR j IN 1 .. pg_catalog.cardinality(v_names)
		LOOP
			v_found := false;
			FOR k IN 1 .. pg_catalog.cardinality(v_a)
			LOOP
				IF v_a[k] = v_names[i] AND v_b[k] = v_names[j] THEN
					v_row := v_row || v_corr[k];
					v_found := true;
					EXIT;
				END IF;
			END LOOP;
			IF NOT v_found THEN
				v_row := v_row || NULL::float8;	-- a pair the model did not learn
			END IF;
		END LOOP;
		v_matrix := v_matrix || ARRAY[v_row];
	END LOOP;
	RETURN tuner._plot_heatmap(
		COALESCE(o.title, pg_catalog.format('%s: task correlations (model of trial %s, n = %s)', s.name,
											(SELECT t.number FROM tuner.model mm JOIN tuner.trial t ON t.id = mm.trial_id
											  WHERE mm.id = v_model), v_n)),
		v_names, v_matrix, o.width, o.height);
END;
$$;

-- Draw a study as standalone SVG text.  kind: 'convergence', 'importance',
-- 'slice' (options {"parameter": name}), 'pareto' (options {"x": metric,
-- "y": metric}) or 'task_correlation'.  Every kind takes {"width": px,
-- "height": px, "title": text}; convergence and slice take {"log_y":
-- true}; importance takes {"method": "auto" | "lasso" | "lengthscale" |
-- "both"}.
CREATE OR REPLACE FUNCTION tuner._plot_progress(labels text[], numbers float8[], steps float8[],
									 vals float8[], states int[], log_y bool,
									 width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_progress'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The progress plot of a study: every trial's intermediate values of a
-- metric (the objective unless one is named) against the step, from
-- tuner.trial_progress, pruned trials marked where they were stopped,
-- disturbed ones (tuner.trial.disturbed) drawn apart.
CREATE OR REPLACE FUNCTION tuner._plot_progress_of(s tuner.study, o record, metric text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_metric text := COALESCE(metric, s.objective);
	v_numbers float8[];
	v_steps float8[];
	v_values float8[];
	v_states int[];
BEGIN
	SELECT pg_catalog.array_agg(t.number::float8 ORDER BY t.number, p.step),
		   pg_catalog.array_agg(p.step ORDER BY t.number, p.step),
		   pg_catalog.array_agg((p.metrics ->> v_metric)::float8 ORDER BY t.number, p.step),
		   pg_catalog.array_agg(CASE WHEN t.state = 'complete' AND t.disturbed THEN 3
									 WHEN t.state = 'complete' THEN 0 WHEN t.state = 'pruned' THEN 1 ELSE 2 END
								ORDER BY t.number, p.step)
	  INTO v_numbers, v_steps, v_values, v_states
	  FROM tuner.trial t
	  JOIN tuner.trial_progress p ON p.trial_id = t.id
	 WHERE t.study_id = s.id AND pg_catalog.jsonb_typeof(p.metrics -> v_metric) = 'number';
	IF v_numbers IS NULL THEN
		RAISE EXCEPTION 'no trial of study "%" reported intermediate values of "%"', s.name, v_metric
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = COALESCE(pg_catalog.format('Its trials reported: %s.',
							(SELECT pg_catalog.string_agg(DISTINCT pg_catalog.quote_ident(k), ', ')
							   FROM tuner.trial t
							   JOIN tuner.trial_progress p ON p.trial_id = t.id,
									pg_catalog.jsonb_object_keys(p.metrics) k
							  WHERE t.study_id = s.id)),
							'Runners report them on file descriptor 3, clients with tuner.report_progress (docs/runners.md).');
	END IF;
	RETURN tuner._plot_progress(
		ARRAY[COALESCE(o.title, pg_catalog.format('%s: %s while its trials ran', s.name, v_metric)),
			  'step', tuner._plot_metric_label(s.id, v_metric)],
		v_numbers, v_steps, v_values, v_states, o.log_y, o.width, o.height);
END;
$$;

CREATE OR REPLACE FUNCTION tuner.plot(study text, kind text, options jsonb DEFAULT '{}')
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	p_kind text := $2;
	p_options jsonb := $3;
	o record;
	v_objectives text[];
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_kind, 'kind');
	PERFORM tuner._not_null(p_options, 'options');
	CASE p_kind
		WHEN 'convergence' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['log_y']);
			RETURN tuner._plot_convergence_of(s, o);
		WHEN 'slice' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['log_y', 'parameter']);
			RETURN tuner._plot_slice_of(s, o, tuner._plot_string(p_options, 'parameter', p_kind, true));
		WHEN 'pareto' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['x', 'y']);
			-- a multi-objective study: its first two objectives by default
			v_objectives := ARRAY(SELECT q.name FROM tuner._objectives(s.id) q ORDER BY q.ordinal);
			RETURN tuner._plot_pareto_of(s, o,
				COALESCE(tuner._plot_string(p_options, 'x', p_kind, pg_catalog.cardinality(v_objectives) < 2), v_objectives[1]),
				COALESCE(tuner._plot_string(p_options, 'y', p_kind, pg_catalog.cardinality(v_objectives) < 2), v_objectives[2]));
		WHEN 'importance' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['method']);
			RETURN tuner._plot_importance_of(s, o, tuner._plot_string(p_options, 'method', p_kind, false));
		WHEN 'task_correlation' THEN
			o := tuner._plot_options(p_options, p_kind, '{}');
			RETURN tuner._plot_task_correlation_of(s, o);
		WHEN 'progress' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['log_y', 'metric']);
			RETURN tuner._plot_progress_of(s, o, tuner._plot_string(p_options, 'metric', p_kind, false));
		ELSE
			RAISE EXCEPTION 'unknown plot kind "%"', p_kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'The kinds are convergence, importance, slice, pareto, task_correlation and progress.';
	END CASE;
END;
$$;

COMMENT ON FUNCTION tuner.plot(text, text, jsonb) IS
	'A study drawn as standalone SVG: convergence, importance, slice, pareto, task_correlation or progress';
