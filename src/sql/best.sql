/*
 * best.sql
 *	  The best trial and the recommendation: only complete trials that met
 *	  every outcome constraint count.
 */

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
-- and every pruned trial predicts best.  With noisy trials the best single
-- observation (tuner.best) is biased upwards, the winner's curse; the
-- posterior mean pools each trial with its neighbours.  The fit takes
-- every complete trial, a trial that broke a constraint too (its objective
-- was measured like any other), but such a trial is never recommended.
-- Nor is a pruned trial, but the fit sees it as the optimizer does
-- (tuner._pruned_observations: the end its partial curve forecasts, the
-- forecast's spread its noise): a pruning study completes fewer trials,
-- and those survived a decision on the same noisy seconds their final
-- values include, so without their stopped neighbours the model has less
-- to pool them with.  With few trials in many dimensions the likelihood
-- can explain any data without noise (the fit interpolates and the mean
-- is the observation), so a known measurement noise (noise_sd, or the
-- study's setting of that name) is a floor on the fitted noise.  A trial's
-- standard error (its report's _std_error), or for a disturbed trial
-- without one half the spread of the values, is that trial's extra noise,
-- as in GP-EI.  Below three trials to fit there is no model to ask:
-- best's trial, predicted NULL.
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
	v_se float8[];
	v_disturbed bool[];
	v_objective bigint;
	f record;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._require_one_objective(s, 'tuner.recommend');
	IF v_noise_sd IS NOT NULL THEN
		PERFORM tuner._check_noise_sd(pg_catalog.to_jsonb(v_noise_sd), 'noise_sd');
	ELSIF s.settings ? 'noise_sd' THEN
		v_noise_sd := (s.settings ->> 'noise_sd')::float8;
	END IF;
	sp := tuner._space(s.id);
	SELECT m.id INTO v_objective FROM tuner.metric m WHERE m.study_id = s.id AND m.name = s.objective;
	WITH p AS (
		SELECT position, name, kind, choices
		  FROM tuner.parameter WHERE study_id = s.id AND enabled
	), native AS (
		SELECT t.id, t.number, ob.value, ob.std_error, t.disturbed,
			   pg_catalog.array_agg(CASE p.kind
					WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
					WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
					ELSE (t.config -> p.name)::float8 END ORDER BY p.position) AS x
		  FROM tuner.trial t
		  JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = v_objective
		 CROSS JOIN p
		 WHERE t.study_id = s.id AND t.state IN ('complete', 'pruned')
		 GROUP BY t.id, t.number, ob.value, ob.std_error, t.disturbed
	)
	SELECT pg_catalog.array_agg(n.id ORDER BY n.number),
		   pg_catalog.array_agg(n.x ORDER BY n.number),
		   pg_catalog.array_agg(n.value ORDER BY n.number),
		   pg_catalog.array_agg(n.std_error ORDER BY n.number),
		   pg_catalog.array_agg(COALESCE(n.disturbed, false) ORDER BY n.number)
	  INTO v_ids, v_x, v_y, v_se, v_disturbed
	  FROM native n;

	FOR f IN SELECT * FROM tuner._pruned_observations(v_objective, v_ids)
	LOOP
		v_y[f.k] := f.value;
		v_se[f.k] := f.std_error;
	END LOOP;

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
	-- each trial's known noise, as GP-EI has it: its standard error, or
	-- for a disturbed trial without one half the spread of the values
	-- (src/core/suggest.h, SUGGEST_DISTURBED_NOISE)
	IF EXISTS (SELECT 1 FROM ROWS FROM (pg_catalog.unnest(v_se), pg_catalog.unnest(v_disturbed)) u(se, dist)
				WHERE u.se IS NOT NULL OR u.dist) THEN
		v_options := v_options || pg_catalog.jsonb_build_object('std_error',
			(SELECT pg_catalog.jsonb_agg(CASE WHEN u.se IS NULL AND u.dist AND v_spread > 0
											 THEN 0.5 * v_spread ELSE u.se END ORDER BY u.k)
			   FROM ROWS FROM (pg_catalog.unnest(v_se), pg_catalog.unnest(v_disturbed))
					WITH ORDINALITY AS u(se, dist, k)));
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
CREATE OR REPLACE FUNCTION tuner._trial_outcomes(study_id bigint)
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
CREATE OR REPLACE FUNCTION tuner._best_trial(study_id bigint)
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
