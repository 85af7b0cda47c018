-------------------------------------------------------------------------------
-- Plots show tuner.best's trials and hide no data (issue 26, items 3-5).
--
-- The convergence plot drew its best-so-far line through every complete
-- trial and the slice plot highlighted the best value of them all, a
-- trial that broke an outcome constraint too; the pareto plot put such a
-- trial on the front.  They now take tuner._trial_outcomes's feasible
-- flags and best so far (src/sql/best.sql): a trial that broke a
-- constraint is a ring and never the best, the slice plot's best trial is
-- tuner.best's, and the front is that of the feasible trials, as
-- tuner.pareto_front's is.  The C entry points of the old signatures stay
-- for an older extension script (src/pg/plot_glue.c); these are new.
--
-- The importance plot failed on a study with a disabled parameter (after
-- select_top or enable_parameters): the model has no length-scale for
-- it, the plot passed Infinity, and the array check refused it.  It now
-- passes NULL, and the plot writes "not in the model" on that row.
--
-- The legend no longer covers data: the drawing (src/core/plot_frame.c)
-- puts it in a corner of the plot area no data falls into, else in a
-- strip above it; a categorical slice spreads the trials of a label
-- across its column (tests/plots/test_render.sh checks both on the
-- rendered SVG of every kind).
-------------------------------------------------------------------------------

DROP FUNCTION tuner._plot_convergence(text, text, float8[], float8[], float8[],
									  float8, bool, bool, int, int);
DROP FUNCTION tuner._plot_slice(text, text, text, float8[], float8[], float8[],
								text[], bool, bool, bool, int, int);
DROP FUNCTION tuner._plot_pareto(text, text, text, float8[], float8[], float8[],
								 bool, bool, int, int);

-- Not STRICT: NULL marks an absent optional part (the default line, the
-- categories, no best trial yet); the C side rejects NULL where it is
-- required.  feasible: the trials tuner.best may choose; best: the best so
-- far at each trial (NULL before the first feasible one).
CREATE FUNCTION tuner._plot_convergence(title text, y_label text,
										numbers float8[], "values" float8[],
										feasible bool[], best float8[],
										failed float8[], default_value float8,
										minimize bool, log_y bool,
										width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_convergence_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- best_number: the number of tuner.best's trial (NULL: none).
CREATE FUNCTION tuner._plot_slice(title text, x_label text, y_label text,
								  x float8[], y float8[], numbers float8[],
								  feasible bool[], best_number float8,
								  categories text[], x_log bool, log_y bool,
								  minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_slice_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_pareto(title text, x_label text, y_label text,
								   x float8[], y float8[], numbers float8[],
								   feasible bool[], x_minimize bool,
								   y_minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_pareto_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
	v_best float8[];
	v_failed float8[];
	v_default float8;
BEGIN
	PERFORM tuner._plot_require_trials(s);
	SELECT pg_catalog.array_agg(r.number::float8 ORDER BY r.number),
		   pg_catalog.array_agg(r.value ORDER BY r.number),
		   pg_catalog.array_agg(r.feasible ORDER BY r.number),
		   pg_catalog.array_agg(r.best_so_far ORDER BY r.number)
	  INTO v_numbers, v_values, v_feasible, v_best
	  FROM tuner._trial_outcomes(s.id) r
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
		COALESCE(o.title, pg_catalog.format('%s: %s by trial (%s)', s.name, s.objective, s.direction)),
		tuner._plot_metric_label(s.id, s.objective),
		v_numbers, v_values, v_feasible, v_best, v_failed, v_default,
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
		COALESCE(o.title, pg_catalog.format('%s: %s against %s', s.name, s.objective, p.name)),
		p.name || CASE WHEN p.log_scale THEN ' (log scale)' ELSE '' END,
		tuner._plot_metric_label(s.id, s.objective),
		v_x, v_y, v_numbers, v_feasible,
		(SELECT b.number::float8 FROM tuner._best_trial(s.id) b),
		v_categories, p.log_scale, o.log_y,
		s.direction = 'minimize', o.width, o.height);
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
