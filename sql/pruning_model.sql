-- pruning_model: the model pruning rule (issue 30): stop a running trial
-- when the Bayesian regression of the complete trials' final values on
-- their values at the same step gives it a probability below threshold
-- of ending better than the best complete trial (src/core/pruning.c).
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message (ids as N) if it fails.
CREATE FUNCTION pg_temp.pm_try(statement text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
	EXECUTE statement;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, '\d+', 'N', 'g');
END;
$$;

-- A trial of study whose curve of metric is sign * (final + a / s) at
-- steps 1..5; reported (final value sign * final) when complete.
CREATE FUNCTION pg_temp.pm_curve(study text, metric text, sign float8, final float8,
								 a float8, complete bool)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	t bigint := (tuner.suggest_next(study) ->> 'trial')::bigint;
BEGIN
	FOR s IN 1 .. 5 LOOP
		PERFORM tuner.report_progress(t, s, jsonb_build_object(metric, sign * (final + a / s)));
	END LOOP;
	IF complete THEN
		PERFORM tuner.report(t, jsonb_build_object(metric, sign * final));
	END IF;
	RETURN t;
END;
$$;

-- Six complete trials (minimize) ending at 1..6, their curves falling by
-- 4 to 6 from step 1 to the end: the best final value is 1.
SELECT tuner.create_study('pm_min', 'loss', 'minimize',
	'{"seed": 1, "pruning": {"rule": "model", "threshold": 0.05, "warmup_steps": 2, "min_trials": 4}}') > 0 AS created;
SELECT tuner.add_parameter('pm_min', 'x', 'float', 0, 1);
SELECT count(pg_temp.pm_curve('pm_min', 'loss', 1, k, 4 + k % 3, true)) AS complete
  FROM generate_series(1, 3) k;
-- with 3 complete trials (fewer than min_trials 4) the rule abstains, even
-- for a hopeless curve
SELECT (tuner.suggest_next('pm_min') ->> 'trial')::bigint AS early \gset
SELECT tuner.report_progress(:early, 3, '{"loss": 50}');
SELECT tuner._prune_model_probability(:early, 3) IS NULL AS abstains, tuner.should_stop(:early) AS stop;
SELECT tuner.prune(:early, 'cleared');
SELECT count(pg_temp.pm_curve('pm_min', 'loss', 1, k, 4 + k % 3, true)) AS complete
  FROM generate_series(4, 6) k;
-- a bad curve: before the warm-up it goes on, after it it stops
SELECT (tuner.suggest_next('pm_min') ->> 'trial')::bigint AS bad \gset
SELECT tuner.report_progress(:bad, 1, '{"loss": 100}');
SELECT tuner.should_stop(:bad) AS stop_at_1;
SELECT tuner.report_progress(:bad, 2, '{"loss": 12}');
SELECT round(tuner._prune_model_probability(:bad, 2)::numeric, 4) AS p_bad, tuner.should_stop(:bad) AS stop_at_2;
-- a curve as good as the best one's goes on
SELECT (tuner.suggest_next('pm_min') ->> 'trial')::bigint AS good \gset
SELECT tuner.report_progress(:good, 2, '{"loss": 3.6}');
SELECT round(tuner._prune_model_probability(:good, 2)::numeric, 4) AS p_good, tuner.should_stop(:good) AS stop_good;
-- ... and so does one a little worse than it (3 at step 3, where the best
-- had 2.67 and the second best 4)
SELECT tuner.report_progress(:good, 3, '{"loss": 3}');
SELECT round(tuner._prune_model_probability(:good, 3)::numeric, 4) AS p_close, tuner.should_stop(:good) AS stop_close;
-- one between the second and third best curves (4 and 4.33 at step 3)
-- stops: these curves say it ends near 2.8, well short of 1
SELECT (tuner.suggest_next('pm_min') ->> 'trial')::bigint AS middling \gset
SELECT tuner.report_progress(:middling, 3, '{"loss": 4.2}');
SELECT round(tuner._prune_model_probability(:middling, 3)::numeric, 4) AS p_middling, tuner.should_stop(:middling) AS stop_middling;
-- past the steps the complete trials reached there is nothing to compare
SELECT tuner.report_progress(:bad, 7, '{"loss": 1000}');
SELECT tuner._prune_model_probability(:bad, 7) IS NULL AS abstains, tuner.should_stop(:bad) AS stop_at_7;
SELECT tuner.prune(:bad, 'unlikely to beat the best');
SELECT number, state, error FROM tuner.trials WHERE trial = :bad;

-- What the optimizer observes of a pruned trial.  "early" stopped at
-- step 3 with 50: the end the six complete trials' values at step 3
-- forecast, checked against PostgreSQL's own least squares (regr_*) and
-- the prediction interval's scale times the t quantile of the normal's
-- one sigma at 4 df (scipy.stats.t.ppf(stats.norm.cdf(1), 4)).  "bad"
-- stopped at step 7, past every complete trial: its last value, 1000,
-- with the spread of the finals 1..6 (their standard deviation).
CREATE TEMP TABLE pm_ref AS
SELECT regr_intercept(final, partial) + regr_slope(final, partial) * 50 AS value,
	   sqrt((regr_syy(final, partial) - regr_sxy(final, partial) ^ 2 / regr_sxx(final, partial)) / (count(*) - 2)
			* (1 + 1.0 / count(*) + (50 - avg(partial)) ^ 2 / regr_sxx(final, partial)))
	   * 1.1416266290132666 AS std_error
  FROM (SELECT k AS final, k + (4 + k % 3) / 3.0 AS partial FROM generate_series(1, 6) k) c;
SELECT o.k, abs(o.value - r.value) < 1e-9 AS forecast_value, abs(o.std_error - r.std_error) < 1e-9 AS forecast_std_error
  FROM tuner._pruned_observations((SELECT m.id FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
								    WHERE s.name = 'pm_min' AND m.name = 'loss'),
								  ARRAY[:good, :early, :bad] || ARRAY(
									SELECT t.id FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
									 WHERE s.name = 'pm_min' AND t.state = 'complete' ORDER BY t.id)) o, pm_ref r
 WHERE o.k = 2;
SELECT o.k, o.value, round(o.std_error::numeric, 6) AS std_error,
	   round(stddev(f.v)::numeric, 6) AS finals_spread
  FROM tuner._pruned_observations((SELECT m.id FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
								    WHERE s.name = 'pm_min' AND m.name = 'loss'),
								  ARRAY[:good, :early, :bad] || ARRAY(
									SELECT t.id FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
									 WHERE s.name = 'pm_min' AND t.state = 'complete' ORDER BY t.id)) o, generate_series(1, 6) f(v)
 WHERE o.k = 3 GROUP BY o.k, o.value, o.std_error;
-- only the trials passed count (a suggestion's, for its replay): alone,
-- "bad" has no complete trial to learn from, and no spread is known
SELECT * FROM tuner._pruned_observations((SELECT m.id FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
										   WHERE s.name = 'pm_min' AND m.name = 'loss'), ARRAY[:bad]);
-- ... and the next suggestion's data holds them, by trial order
SELECT tuner.prune(:good);
SELECT tuner.prune(:middling);
SELECT (tuner.suggest_next('pm_min') ->> 'trial')::bigint AS next \gset
SELECT t.number, t.state, round(d.y_observed[o.k]::numeric, 6) AS y,
	   round(d.y_std_error[o.k]::numeric, 6) AS std_error
  FROM tuner.suggestion g
  CROSS JOIN LATERAL tuner._suggestion_data((SELECT x.study_id FROM tuner.trial x WHERE x.id = g.trial_id), g) d
  CROSS JOIN LATERAL unnest(g.observed) WITH ORDINALITY o(id, k)
  JOIN tuner.trial t ON t.id = o.id
 WHERE g.trial_id = :next ORDER BY t.number;

-- The same study maximizing -loss: the same probabilities and decisions.
SELECT tuner.create_study('pm_max', 'score', 'maximize',
	'{"seed": 1, "pruning": {"rule": "model", "warmup_steps": 2, "min_trials": 4}}') > 0 AS created;
SELECT tuner.add_parameter('pm_max', 'x', 'float', 0, 1);
SELECT count(pg_temp.pm_curve('pm_max', 'score', -1, k, 4 + k % 3, true)) AS complete
  FROM generate_series(1, 6) k;
SELECT (tuner.suggest_next('pm_max') ->> 'trial')::bigint AS bad \gset
SELECT tuner.report_progress(:bad, 2, '{"score": -12}');
SELECT round(tuner._prune_model_probability(:bad, 2)::numeric, 4) AS p_bad, tuner.should_stop(:bad) AS stop_bad;
SELECT (tuner.suggest_next('pm_max') ->> 'trial')::bigint AS good \gset
SELECT tuner.report_progress(:good, 2, '{"score": -3.6}');
SELECT round(tuner._prune_model_probability(:good, 2)::numeric, 4) AS p_good, tuner.should_stop(:good) AS stop_good;
-- a trial whose curve is better than every complete one's is sure to go on
SELECT tuner.report_progress(:good, 3, '{"score": -1}');
SELECT round(tuner._prune_model_probability(:good, 3)::numeric, 4) AS p_best, tuner.should_stop(:good) AS stop_best;

-- Bad settings.
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "model", "threshold": 0}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "model", "threshold": 1}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "model", "threshold": "low"}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "model", "min_trials": 2}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "model", "reduction": 3}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "median", "threshold": 0.1}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "halving", "threshold": 0.1}}');
SELECT tuner.create_study('pm_bad', 'y', settings => '{"pruning": {"rule": "gp"}}');
-- the C function refuses what it cannot use
SELECT tuner._prune_model_probability('{1, 2, 3}', '{1, 2}', 1, 1, false, 3);
SELECT tuner._prune_model_probability('{1, 2, 3}', '{1, NaN, 2}', 1, 1, false, 3);
SELECT tuner._prune_model_probability('{1, 2, 3}', '{1, 2, 3}', 'Infinity', 1, false, 3);
SELECT tuner._prune_model_probability('{1, 2, 3}', '{1, 2, 3}', 1, NULL, false, 3);
SELECT tuner._prune_model_probability('{1, 2, 3}', '{1, 2, 3}', 1, 1, false, 0);
SELECT tuner._prune_model_probability('{1, 2}', '{1, 2}', 1, 1, false, 1) IS NULL AS abstains;
SELECT * FROM tuner._pruned_observation('{1, 2, 3}', '{1, 2}', 1, '{}');
SELECT * FROM tuner._pruned_observation('{1, 2, 3}', '{1, 2, 3}', 'NaN', '{}');
SELECT * FROM tuner._pruned_observation('{1, 2, 3}', '{1, 2, 3}', 1, '{1, Infinity}');
SELECT * FROM tuner._pruned_observation('{1, 2, 3}', '{1, 2, 3}', 1, NULL);
SELECT * FROM tuner._pruned_observation('{}', '{}', 4, '{}');

SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'pm\_%' ORDER BY name;
