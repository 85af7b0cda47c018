-------------------------------------------------------------------------------
-- One definition of a study's best trial (issue 26, item 4).
--
-- tuner.best left out a trial that broke a bounded outcome constraint,
-- but every other "best" computed its own: the best_so_far column of the
-- views of create_view, the convergence plot's step line, the slice
-- plot's highlighted trial, tuner.progress and tuner.studies took the
-- minimum or maximum over every complete trial, and tuner.recommend chose
-- among them all, so a trial that broke p99 <= 10 ms became "the best so
-- far" in a dashboard while best() named another.  Now one function,
-- tuner._trial_outcomes, says for every trial of a study whether it may
-- be the best (feasible: complete, the objective reported, every bounded
-- constraint met, a constraint metric not reported not met) and the best
-- objective value of the feasible trials up to its number, in the study's
-- direction; best, recommend, the views, the plots, progress, studies and
-- the notifications read it.  The typed views of create_view run as their
-- owner and may call no function that reads tables (a reader with SELECT
-- on the view alone may not run it), so _build_view inlines this
-- function's own body (pg_proc.prosrc) into the view: the same text.
--
-- In a study with several objectives the study's own objective (the first)
-- is the one these follow, as before; best and recommend still refuse
-- such a study (its best trials are tuner.pareto_front's).
-------------------------------------------------------------------------------

-- Every trial of a study in number order: its objective value (NULL
-- unless complete), whether it may be the study's best (feasible), and
-- best_so_far, the best value of the feasible trials numbered up to it in
-- the study's direction (NULL before the first).  The body reads tables
-- and calls no function but pg_catalog's, and names the study only as $1:
-- tuner._build_view inlines it into the views of create_view.
CREATE FUNCTION tuner._trial_outcomes(study_id bigint)
RETURNS TABLE (trial bigint, number int, value float8, feasible bool,
			   best_so_far float8)
LANGUAGE sql STABLE
AS $$
SELECT o.trial, o.number, o.value, o.feasible,
       CASE o.direction WHEN 'minimize'
            THEN pg_catalog.min(o.value) FILTER (WHERE o.feasible) OVER w
            ELSE pg_catalog.max(o.value) FILTER (WHERE o.feasible) OVER w END AS best_so_far
  FROM (SELECT t.id AS trial, t.number, st.direction, ob.value,
               t.state = 'complete' AND ob.value IS NOT NULL
               AND NOT EXISTS (
                   SELECT 1
                     FROM tuner.metric mc
                     LEFT JOIN tuner.observation oc ON oc.trial_id = t.id AND oc.metric_id = mc.id
                    WHERE mc.study_id = st.id AND mc.role = 'constraint' AND mc.bound IS NOT NULL
                      AND NOT COALESCE(CASE mc.direction WHEN 'maximize' THEN oc.value >= mc.bound
                                            ELSE oc.value <= mc.bound END, false)) AS feasible
          FROM tuner.study st
          JOIN tuner.trial t ON t.study_id = st.id
          LEFT JOIN tuner.metric mo ON mo.study_id = st.id AND mo.name = st.objective
          LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = mo.id
                AND t.state = 'complete'
         WHERE st.id = $1) o
WINDOW w AS (ORDER BY o.number)
 ORDER BY o.number
$$;

-- The best trial of a study (no row when no trial is feasible): the
-- feasible trial with the best objective value in the study's direction,
-- the lowest number among equal values.
CREATE FUNCTION tuner._best_trial(study_id bigint)
RETURNS TABLE (trial bigint, number int, value float8)
LANGUAGE sql STABLE
AS $$
SELECT o.trial, o.number, o.value
  FROM tuner._trial_outcomes($1) o
  JOIN tuner.study s ON s.id = $1
 WHERE o.feasible
 ORDER BY CASE s.direction WHEN 'minimize' THEN o.value ELSE -o.value END, o.number
 LIMIT 1;
$$;

-- The best complete trial in the study's direction among those that met
-- every outcome constraint (no row if none).
CREATE OR REPLACE FUNCTION tuner.best(study text)
RETURNS TABLE (trial bigint, value float8, params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._require_one_objective(s, 'tuner.best');
	RETURN QUERY
	SELECT b.trial, b.value, t.config
	  FROM tuner._best_trial(s.id) b
	  JOIN tuner.trial t ON t.id = b.trial;
END;
$$;

-- The configuration to keep: among the trials best may choose (complete,
-- every outcome constraint met), the one a GP fitted to every complete
-- trial predicts best.  With noisy trials the best single observation
-- (tuner.best) is biased upwards, the winner's curse; the posterior mean
-- pools each trial with its neighbours.  The fit takes every complete
-- trial, a trial that broke a constraint too (its objective was measured
-- like any other), but such a trial is never recommended.  With few trials
-- in many dimensions the likelihood can explain any data without noise
-- (the fit interpolates and the mean is the observation), so a known
-- measurement noise (noise_sd, or the study's setting of that name) is a
-- floor on the fitted noise.  Below three complete trials there is no
-- model to ask: best's trial, predicted NULL.
CREATE OR REPLACE FUNCTION tuner.recommend(study text, noise_sd float8 DEFAULT NULL)
RETURNS TABLE (trial bigint, value float8, predicted float8,
			   predicted_sd float8, params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	v_ids bigint[];
	v_x float8[];
	v_y float8[];
	v_model jsonb;
	v_noise_sd float8 := $2;
	v_options jsonb;
	v_spread float8;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._require_one_objective(s, 'tuner.recommend');
	IF v_noise_sd IS NOT NULL THEN
		PERFORM tuner._check_noise_sd(pg_catalog.to_jsonb(v_noise_sd), 'noise_sd');
	ELSIF s.settings ? 'noise_sd' THEN
		v_noise_sd := (s.settings ->> 'noise_sd')::float8;
	END IF;
	sp := tuner._space(s.id);
	WITH p AS (
		SELECT position, name, kind, choices
		  FROM tuner.parameter WHERE study_id = s.id AND enabled
	), native AS (
		SELECT t.id, t.number, ob.value,
			   pg_catalog.array_agg(CASE p.kind
					WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
					WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
					ELSE (t.config -> p.name)::float8 END ORDER BY p.position) AS x
		  FROM tuner.trial t
		  JOIN tuner.observation ob ON ob.trial_id = t.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 CROSS JOIN p
		 WHERE t.study_id = s.id AND t.state = 'complete'
		 GROUP BY t.id, t.number, ob.value
	)
	SELECT pg_catalog.array_agg(n.id ORDER BY n.number),
		   pg_catalog.array_agg(n.x ORDER BY n.number),
		   pg_catalog.array_agg(n.value ORDER BY n.number)
	  INTO v_ids, v_x, v_y
	  FROM native n;

	IF COALESCE(pg_catalog.cardinality(v_ids), 0) < 3 THEN
		RETURN QUERY
		SELECT b.trial, b.value, NULL::float8, NULL::float8, b.params
		  FROM tuner.best(s.name) b;
		RETURN;
	END IF;

	v_x := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales,
							  sp.n_choices, v_x);
	v_options := pg_catalog.jsonb_build_object('seed', s.seed);
	-- The fit standardises y: the floor is the noise variance in units of
	-- y's variance, below the fit's upper bound of 2.
	SELECT pg_catalog.stddev_samp(u) INTO v_spread FROM pg_catalog.unnest(v_y) u;
	IF v_noise_sd IS NOT NULL AND v_spread > 0 THEN
		v_options := v_options || pg_catalog.jsonb_build_object('min_noise',
			LEAST(1.9, (v_noise_sd / v_spread) ^ 2));
	END IF;
	v_model := tuner.gp_fit(v_x, v_y, v_options);
	RETURN QUERY
	SELECT t.id, o.value, g.mean, g.sd, t.config
	  FROM tuner.gp_predict(v_model, v_x) WITH ORDINALITY AS g(mean, sd, k)
	  JOIN unnest(v_ids, v_y) WITH ORDINALITY AS o(id, value, k) ON o.k = g.k
	  JOIN tuner.trial t ON t.id = o.id
	  JOIN tuner._trial_outcomes(s.id) f ON f.trial = o.id AND f.feasible
	 ORDER BY CASE s.direction WHEN 'minimize' THEN g.mean ELSE -g.mean END,
			  t.number
	 LIMIT 1;
END;
$$;

-- The studies with their counts and best value (best's).
CREATE OR REPLACE VIEW tuner.studies WITH (security_invoker = true) AS
SELECT s.id,
	   s.name,
	   s.objective,
	   s.direction,
	   s.seed,
	   s.settings,
	   (SELECT pg_catalog.count(*) FROM tuner.parameter p
		 WHERE p.study_id = s.id) AS parameters,
	   (SELECT pg_catalog.count(*) FROM tuner.trial t
		 WHERE t.study_id = s.id) AS trials,
	   (SELECT pg_catalog.count(*) FROM tuner.trial t
		 WHERE t.study_id = s.id AND t.state = 'complete') AS complete,
	   (SELECT b.value FROM tuner._best_trial(s.id) b) AS best_value,
	   s.owner,
	   s.created_at,
	   s.runner,
	   s.algorithm
  FROM tuner.study s;

COMMENT ON COLUMN tuner.studies.best_value IS
	'The objective value of tuner.best: the best complete trial that met every outcome constraint (the first objective of a multi-objective study)';

-- (Re)build one registered view of a study from its current parameters and
-- metrics.  The view is dropped and created again (its columns may change
-- anywhere), keeping its grants.  It runs with its owner's rights (the
-- role that called create_view, subject to row-level security unless a
-- superuser): granting SELECT on it shares the study's trials, which is
-- what it is for.  best_so_far is tuner._trial_outcomes's, whose body the
-- view holds (a function call would run as the reader).
CREATE OR REPLACE FUNCTION tuner._build_view(p_study_id bigint, p_schema name, p_name name)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	p tuner.parameter;
	m tuner.metric;
	v_rel oid;
	v_qname text := pg_catalog.format('%I.%I', p_schema, p_name);
	v_grants record;
	v_acl aclitem[];
	v_owner oid;
	v_objective bigint;
	v_ratio bigint;
	v_default jsonb;
	v_outcomes text;
	v_taken text[] := ARRAY['trial', 'number', 'state', 'source', 'created_at',
							'started_at', 'finished_at', 'objective',
							'best_so_far', 'ratio_to_default', 'error'];
	v_col text;
	v_cols text := '';
	v_aggs text := '';
	v_comments text[] := '{}';
	v_sql text;
	i int;
BEGIN
	SELECT * INTO s FROM tuner.study WHERE id = p_study_id;
	SELECT c.oid, c.relacl, c.relowner INTO v_rel, v_acl, v_owner
	  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = p_schema AND c.relname = p_name;
	IF FOUND THEN
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = v_rel AND c.relkind = 'v') THEN
			RAISE EXCEPTION '"%" is not a view', v_qname
				USING ERRCODE = 'wrong_object_type';
		END IF;
		EXECUTE pg_catalog.format('DROP VIEW %s', v_qname);
	END IF;

	SELECT mt.id INTO v_objective FROM tuner.metric mt
	 WHERE mt.study_id = s.id AND mt.name = s.objective;
	SELECT mt.id INTO v_ratio FROM tuner.metric mt
	 WHERE mt.study_id = s.id AND mt.name = 'ratio_to_default';
	SELECT CASE WHEN pg_catalog.bool_and(q.default_value IS NOT NULL)
				THEN pg_catalog.jsonb_object_agg(q.name, q.default_value) END
	  INTO v_default FROM tuner.parameter q WHERE q.study_id = s.id;
	-- the body of tuner._trial_outcomes with this study's id for $1
	SELECT pg_catalog.regexp_replace(pg_catalog.rtrim(pg_catalog.btrim(f.prosrc, E' \t\n'), ';'),
									 '\$1(?![0-9])', s.id::text, 'g')
	  INTO v_outcomes
	  FROM pg_catalog.pg_proc f
	 WHERE f.oid = 'tuner._trial_outcomes(bigint)'::pg_catalog.regprocedure;

	FOR p IN SELECT * FROM tuner.parameter q WHERE q.study_id = s.id ORDER BY q.position
	LOOP
		v_col := tuner._view_column(p.name, 'param_', v_taken);
		v_taken := v_taken || v_col;
		v_cols := v_cols || pg_catalog.format(E',\n       %s AS %I', CASE p.kind
			WHEN 'int' THEN pg_catalog.format('((t.config -> %L)::numeric)::bigint', p.name)
			WHEN 'float' THEN pg_catalog.format('(t.config -> %L)::double precision', p.name)
			WHEN 'bool' THEN pg_catalog.format('(t.config -> %L)::boolean', p.name)
			ELSE pg_catalog.format('t.config ->> %L', p.name) END, v_col);
		v_comments := v_comments || ARRAY[v_col, pg_catalog.format('parameter %s: %s%s%s',
			pg_catalog.to_jsonb(p.name), p.kind,
			CASE WHEN p.kind IN ('int', 'float') THEN pg_catalog.format(' in [%s, %s]', p.low, p.high)
				 WHEN p.kind = 'categorical' THEN ' of ' || pg_catalog.array_to_string(p.choices, ', ')
				 ELSE '' END,
			CASE WHEN p.log_scale THEN ', log scale' ELSE '' END)];
	END LOOP;
	FOR m IN SELECT * FROM tuner.metric q WHERE q.study_id = s.id ORDER BY q.id
	LOOP
		v_aggs := v_aggs || pg_catalog.format(E',\n                  pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS m%s',
											 m.id, m.id);
		-- the same values as a fixed column already
		CONTINUE WHEN m.name = 'ratio_to_default'
			OR (m.name = 'objective' AND m.id = v_objective);
		v_col := tuner._view_column(m.name, 'metric_', v_taken);
		v_taken := v_taken || v_col;
		v_cols := v_cols || pg_catalog.format(E',\n       o.m%s AS %I', m.id, v_col);
		v_comments := v_comments || ARRAY[v_col, pg_catalog.format('metric %s (%s%s%s)',
			pg_catalog.to_jsonb(m.name), m.role,
			COALESCE(', ' || m.direction, ''), COALESCE(', unit ' || m.unit, ''))];
	END LOOP;

	v_sql := pg_catalog.format(
$v$CREATE VIEW %s AS
SELECT t.id AS trial,
       t.number,
       t.state,
       t.source,
       t.created_at,
       t.started_at,
       t.finished_at,
       o.objective,
       b.best_so_far,
       COALESCE(%s%s) AS ratio_to_default,
       t.error%s
  FROM tuner.trial t
  LEFT JOIN LATERAL (
           SELECT pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS objective%s
             FROM tuner.observation ob
            WHERE ob.trial_id = t.id) o ON true
  LEFT JOIN (%s) b ON b.trial = t.id
 WHERE t.study_id = %s
 ORDER BY t.number$v$,
		v_qname,
		CASE WHEN v_ratio IS NOT NULL THEN pg_catalog.format('o.m%s', v_ratio) || ', ' END,
		pg_catalog.format(
$v$o.objective / NULLIF((
           SELECT ob.value
             FROM tuner.trial dt
             JOIN tuner.observation ob ON ob.trial_id = dt.id AND ob.metric_id = %s
            WHERE dt.study_id = %s AND dt.state = 'complete'
              AND (dt.source = 'default' OR dt.config = %L::jsonb)
            ORDER BY dt.number LIMIT 1), 0)$v$, v_objective, s.id, COALESCE(v_default::text, 'null')),
		v_cols, v_objective, v_aggs, v_outcomes, s.id);
	EXECUTE v_sql;

	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', v_qname,
		pg_catalog.format('Trials of tuner study %s (%s %s), one row per trial; made by tuner.create_view',
						  pg_catalog.to_jsonb(s.name), s.direction, pg_catalog.to_jsonb(s.objective)));
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.best_so_far IS %L', v_qname,
		'Best objective value, in the study''s direction, of the trials up to this trial number that tuner.best may choose: complete, every outcome constraint met');
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.ratio_to_default IS %L', v_qname,
		CASE WHEN v_ratio IS NOT NULL THEN 'The trial''s own ratio_to_default metric (measured paired with the default), else objective / objective of the default configuration''s trial'
			 ELSE 'objective / objective of the default configuration''s trial' END);
	FOR i IN 1 .. pg_catalog.array_length(v_comments, 1) / 2
	LOOP
		EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', v_qname,
								  v_comments[2 * i - 1], v_comments[2 * i]);
	END LOOP;

	-- The grants the view had: its owner granted them, so can again.
	FOR v_grants IN
		SELECT a.grantee, a.privilege_type, a.is_grantable
		  FROM pg_catalog.aclexplode(v_acl) a
		 WHERE a.grantee <> v_owner
	LOOP
		EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', v_grants.privilege_type, v_qname,
			CASE v_grants.grantee WHEN 0 THEN 'PUBLIC'
				 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(v_grants.grantee)) END,
			CASE WHEN v_grants.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
	END LOOP;
END;
$$;

-- Trigger: a trial finished (complete, failed or interrupted, however it
-- got there: report, fail, a runner, a worker, a restart, copy_trials).
-- NOTIFY tuner_trials with {"study_id", "trial", "number", "state"}, and
-- with tuner.notify = 'full' also "study" (its name), "value" (the
-- objective, null unless complete), "feasible" (whether tuner.best may
-- choose the trial: complete with every outcome constraint met) and
-- "best" (whether it is now tuner.best's trial; null in a study with
-- several objectives, which has no single best).
CREATE OR REPLACE FUNCTION tuner._notify_trial()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_mode text := tuner._notify_mode();
	v_payload jsonb;
	v_feasible bool;
	s tuner.study;
BEGIN
	IF v_mode = 'off' THEN
		RETURN NULL;
	END IF;
	v_payload := pg_catalog.jsonb_build_object(
		'study_id', NEW.study_id, 'trial', NEW.id, 'number', NEW.number, 'state', NEW.state);
	IF v_mode = 'full' THEN
		SELECT * INTO s FROM tuner.study x WHERE x.id = NEW.study_id;
		SELECT o.feasible INTO v_feasible
		  FROM tuner._trial_outcomes(s.id) o WHERE o.trial = NEW.id;
		v_payload := v_payload || pg_catalog.jsonb_build_object(
			-- a payload holds at most 8000 bytes
			'study', pg_catalog.left(s.name, 1000),
			'value', (SELECT ob.value FROM tuner.observation ob
						JOIN tuner.metric m ON m.id = ob.metric_id
					   WHERE ob.trial_id = NEW.id AND m.study_id = s.id
						 AND m.name = s.objective),
			'feasible', COALESCE(v_feasible, false),
			'best', CASE WHEN NOT tuner._is_multiobjective(s.id) THEN
						COALESCE(v_feasible AND (SELECT b.trial = NEW.id FROM tuner._best_trial(s.id) b), false)
					END);
	END IF;
	PERFORM pg_catalog.pg_notify('tuner_trials', v_payload::text);
	RETURN NULL;
END;
$$;

-- The views tuner.create_view made before keep their old best_so_far (the
-- best of every complete trial) until rebuilt, which an update script may
-- not do (a view made here would become a member of the extension): name
-- them (a WARNING: an extension script runs with client_min_messages =
-- warning).
DO $$
DECLARE
	v_views text;
BEGIN
	SELECT pg_catalog.string_agg(pg_catalog.format('%I.%I', v.view_schema, v.view_name), ', '
								 ORDER BY v.view_schema, v.view_name)
	  INTO v_views
	  FROM tuner.study_view v;
	IF v_views IS NOT NULL THEN
		RAISE WARNING 'views of tuner.create_view keep the best_so_far of 0.2.0 until rebuilt: %', v_views
			USING DETAIL = 'best_so_far now counts only the trials tuner.best may choose (complete, every outcome constraint met).',
				  HINT = 'Run tuner.create_view(study, view_name) again as each view''s owner, or add a metric or parameter to the study.';
	END IF;
END
$$;

-- copy_trials' filter {"best": n} takes the n best of the trials best()
-- may choose: it ranked every complete trial, so a trial that broke a
-- constraint was copied as one of "the best".  0.1.0's body otherwise.
-- Import the complete trials of another study, with every metric they
-- measured, as complete trials (source copied) of to_study.  Parameters
-- are matched by name: a missing one takes to_study's default, an extra
-- one is dropped, and a trial with a value outside to_study's space (or a
-- missing parameter without default, or no value of to_study's
-- objective) is skipped.  A trial copied before is not copied again.
-- filter: {"numbers": [..]} (trial numbers), {"sources": [..]}, {"best":
-- n} (the n best by from_study's direction, among the trials best() may
-- choose: a trial that broke an outcome constraint is not among them).  Returns {"copied",
-- "skipped", "reasons": {reason: count}, "defaulted": [parameters],
-- "dropped": [parameters]}.
CREATE OR REPLACE FUNCTION tuner.copy_trials(from_study text, to_study text,
								  filter jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	f tuner.study;
	s tuner.study;
	t tuner.trial;
	c record;
	k text;
	v_numbers int[];
	v_sources text[];
	v_best int;
	v_number int;
	v_trial bigint;
	v_copied int := 0;
	v_reasons jsonb := '{}';
	v_defaulted text[] := '{}';
	v_dropped text[] := '{}';
	v_reason text;
BEGIN
	f := tuner._find_study(from_study);
	s := tuner._find_study(to_study);
	PERFORM tuner._not_null(filter, 'filter');
	IF f.id = s.id THEN
		RAISE EXCEPTION 'cannot copy the trials of study "%" into itself', s.name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.jsonb_typeof(filter) <> 'object' THEN
		RAISE EXCEPTION 'filter must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use {}, {"numbers": [1, 2]}, {"sources": ["model"]} or {"best": 10}.';
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(filter)
	LOOP
		IF k NOT IN ('numbers', 'sources', 'best') THEN
			RAISE EXCEPTION 'unknown filter key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known keys: numbers, sources, best.';
		END IF;
	END LOOP;
	IF filter ? 'numbers' THEN
		IF pg_catalog.jsonb_typeof(filter -> 'numbers') <> 'array' THEN
			RAISE EXCEPTION 'filter "numbers" must be an array of trial numbers'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		v_numbers := ARRAY(SELECT tuner._json_int(e, 'filter "numbers"', 1, 2147483647)
							 FROM pg_catalog.jsonb_array_elements(filter -> 'numbers') e);
	END IF;
	IF filter ? 'sources' THEN
		IF pg_catalog.jsonb_typeof(filter -> 'sources') <> 'array'
		   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(filter -> 'sources') e
					   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
			RAISE EXCEPTION 'filter "sources" must be an array of strings'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Sources are default, design, model, random, manual and copied.';
		END IF;
		v_sources := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(filter -> 'sources'));
	END IF;
	IF filter ? 'best' THEN
		v_best := tuner._json_int(filter -> 'best', 'filter "best"', 1, 2147483647);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;

	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	FOR t IN
		SELECT x.* FROM tuner.trial x
		  LEFT JOIN tuner.observation ob ON ob.trial_id = x.id
			   AND ob.metric_id = (SELECT m.id FROM tuner.metric m
									WHERE m.study_id = f.id AND m.name = f.objective)
		 WHERE x.study_id = f.id AND x.state = 'complete'
		   AND (v_numbers IS NULL OR x.number = ANY (v_numbers))
		   AND (v_sources IS NULL OR x.source = ANY (v_sources))
		   AND (v_best IS NULL
				OR x.id IN (SELECT o.trial FROM tuner._trial_outcomes(f.id) o WHERE o.feasible))
		 ORDER BY CASE WHEN v_best IS NULL THEN 0
					   WHEN f.direction = 'minimize' THEN ob.value ELSE -ob.value END NULLS LAST,
				  x.number
		 LIMIT v_best
	LOOP
		v_reason := NULL;
		c := tuner._complete_config(s.id, t.config);
		IF c.problem IS NOT NULL THEN
			v_reason := c.problem[1];
		ELSIF NOT EXISTS (SELECT 1 FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
						   WHERE ob.trial_id = t.id AND m.name = s.objective) THEN
			v_reason := 'no_objective';
		ELSIF EXISTS (SELECT 1 FROM tuner.trial x
					   WHERE x.study_id = s.id AND x.source = 'copied'
						 AND x.details -> 'copied_from' -> 'trial' = pg_catalog.to_jsonb(t.id)) THEN
			v_reason := 'already_copied';
		END IF;
		IF v_reason IS NOT NULL THEN
			v_reasons := v_reasons || pg_catalog.jsonb_build_object(v_reason,
				COALESCE((v_reasons ->> v_reason)::int, 0) + 1);
			CONTINUE;
		END IF;
		v_defaulted := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_defaulted || c.defaulted) u ORDER BY u);
		v_dropped := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_dropped || c.dropped) u ORDER BY u);

		SELECT COALESCE(pg_catalog.max(x.number), 0) + 1 INTO v_number
		  FROM tuner.trial x WHERE x.study_id = s.id;
		-- metrics this study does not know yet are recorded, as report does
		INSERT INTO tuner.metric (study_id, name, role)
		SELECT s.id, m.name, 'recorded'
		  FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
		 WHERE ob.trial_id = t.id
		 ORDER BY m.name
		ON CONFLICT (study_id, name) DO NOTHING;
		-- running first, so that the observations are there when it completes
		INSERT INTO tuner.trial (study_id, number, config, state, source, created_at,
								 started_at, details)
		VALUES (s.id, v_number, c.config, 'running', 'copied', pg_catalog.now(), t.started_at,
				pg_catalog.jsonb_build_object('copied_from', pg_catalog.jsonb_build_object(
					'study', f.name, 'trial', t.id, 'number', t.number)))
		RETURNING id INTO v_trial;
		INSERT INTO tuner.observation (trial_id, metric_id, value, reported_at)
		SELECT v_trial, mt.id, ob.value, ob.reported_at
		  FROM tuner.observation ob
		  JOIN tuner.metric m ON m.id = ob.metric_id
		  JOIN tuner.metric mt ON mt.study_id = s.id AND mt.name = m.name
		 WHERE ob.trial_id = t.id;
		UPDATE tuner.trial SET state = 'complete', finished_at = t.finished_at
		 WHERE id = v_trial;
		v_copied := v_copied + 1;
	END LOOP;
	RETURN pg_catalog.jsonb_build_object(
		'copied', v_copied,
		'skipped', (SELECT COALESCE(pg_catalog.sum(e.value::int), 0) FROM pg_catalog.jsonb_each(v_reasons) e),
		'reasons', v_reasons, 'defaulted', v_defaulted, 'dropped', v_dropped);
END;
$$;
