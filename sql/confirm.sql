-- confirm: confirmation runs of a configuration against the baseline and
-- their interval (issue 29).  The pairs below are made to have the ratios
-- 1.12, 1.05, 0.98, 1.20, 1.09, whose log mean, 95 % t interval and
-- p-value SciPy gives (tests/unit/test_mean_interval.c): ratio
-- exp(0.0820830790) = 1.08555, interval [exp(-0.0112724), exp(0.1754386)]
-- = [0.98879, 1.19177], p = 0.0711165.
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message (numbers as N: trial ids
-- depend on what ran before) if it fails.
CREATE FUNCTION pg_temp.cf_try(statement text)
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

-- A plain objective: the baseline is the default configuration, run in
-- ABBA order against the configuration.
SELECT tuner.create_study('cf_plain', 'y', 'maximize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('cf_plain', 'x', 'float', 0, 1, default_value => '0.5');
SELECT tuner.report((tuner.suggest_next('cf_plain') ->> 'trial')::bigint, '{"y": 10}');	-- the default
SELECT tuner.report((tuner.suggest_next('cf_plain') ->> 'trial')::bigint, '{"y": 14}');
SELECT tuner.report((tuner.suggest_next('cf_plain') ->> 'trial')::bigint, '{"y": 9}');
SELECT tuner.confirm('cf_plain', tuner.trial_id('cf_plain', 2), pairs => 5) AS queued;
SELECT number, state, source, confirm_pair, config = (SELECT config FROM tuner.trial WHERE id = tuner.trial_id('cf_plain', 1)) AS is_default
  FROM tuner.trial WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'cf_plain') AND confirms IS NOT NULL
 ORDER BY number;
-- nothing ran yet
SELECT number, pairs, ratio, verdict, pending, lost FROM tuner.confirmation('cf_plain');
-- run them in queue order (suggest_next hands out queued trials first):
-- baseline b_i, configuration b_i * ratio_i
CREATE TEMP TABLE cf_ratio (pair int, ratio float8, base float8);
INSERT INTO cf_ratio VALUES (1, 1.12, 100), (2, 1.05, 90), (3, 0.98, 110), (4, 1.20, 95), (5, 1.09, 105);
DO $$
DECLARE
	j jsonb;
	t tuner.trial;
	v float8;
BEGIN
	FOR k IN 1 .. 10 LOOP
		j := tuner.suggest_next('cf_plain');
		SELECT * INTO t FROM tuner.trial WHERE id = (j ->> 'trial')::bigint;
		SELECT CASE WHEN t.source = 'baseline' THEN base ELSE base * ratio END INTO v
		  FROM cf_ratio WHERE pair = t.confirm_pair;
		PERFORM tuner.report(t.id, jsonb_build_object('y', v));
	END LOOP;
END;
$$;
SELECT number, pairs, round(ratio::numeric, 5) AS ratio, round(ratio_low::numeric, 5) AS low,
	   round(ratio_high::numeric, 5) AS high, round(p_value::numeric, 7) AS p,
	   round(change_pct::numeric, 2) AS change_pct, round(change_low_pct::numeric, 2) AS low_pct,
	   round(change_high_pct::numeric, 2) AS high_pct, verdict, pending, lost, unusable
  FROM tuner.confirmation('cf_plain');
-- the same against SciPy's figures, to 1e-9
SELECT abs(ln(ratio) - 0.08208307903878458) < 1e-12 AS mean_ok,
	   abs(ln(ratio_low) - (-0.011272398068191511)) < 1e-9 AS low_ok,
	   abs(ln(ratio_high) - 0.17543855614576065) < 1e-9 AS high_ok,
	   abs(p_value - 0.07111653652071598) < 1e-9 AS p_ok
  FROM tuner.confirmation('cf_plain');
-- five more pairs of a clear improvement (confirming again adds pairs);
-- a minimize study reads the same ratios the other way round
SELECT tuner.confirm('cf_plain', tuner.trial_id('cf_plain', 2), pairs => 5) AS queued;
TRUNCATE cf_ratio;
INSERT INTO cf_ratio VALUES (6, 1.15, 100), (7, 1.18, 90), (8, 1.16, 110), (9, 1.21, 95), (10, 1.13, 105);
DO $$
DECLARE
	j jsonb;
	t tuner.trial;
	v float8;
BEGIN
	FOR k IN 1 .. 10 LOOP
		j := tuner.suggest_next('cf_plain');
		SELECT * INTO t FROM tuner.trial WHERE id = (j ->> 'trial')::bigint;
		SELECT CASE WHEN t.source = 'baseline' THEN base ELSE base * ratio END INTO v
		  FROM cf_ratio WHERE pair = t.confirm_pair;
		PERFORM tuner.report(t.id, jsonb_build_object('y', v));
	END LOOP;
END;
$$;
SELECT pairs, round(ratio::numeric, 4) AS ratio, round(ratio_low::numeric, 4) AS low,
	   round(ratio_high::numeric, 4) AS high, p_value < 0.01 AS significant, verdict
  FROM tuner.confirmation('cf_plain');
UPDATE tuner.study SET direction = 'minimize' WHERE name = 'cf_plain';
SELECT verdict FROM tuner.confirmation('cf_plain');
UPDATE tuner.study SET direction = 'maximize' WHERE name = 'cf_plain';
-- the confirmation runs are trials the model learns from, as repeats
SELECT source, count(*) FROM tuner.trial
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'cf_plain') AND state = 'complete'
 GROUP BY source ORDER BY source;
SELECT (tuner.suggest_next('cf_plain') ->> 'trial') IS NOT NULL AS suggests_after;

-- A paired objective (a ratio to the default measured in each trial):
-- each pair is one run; the default configuration against itself is the
-- control, whose interval contains 1.
SELECT tuner.create_study('cf_paired', 'ratio', 'maximize', '{"seed": 6}') > 0 AS created;
SELECT tuner.add_parameter('cf_paired', 'x', 'float', 0, 1, default_value => '0.5');
SELECT tuner.report((tuner.suggest_next('cf_paired') ->> 'trial')::bigint, '{"ratio": 1.01}');
SELECT tuner.report((tuner.suggest_next('cf_paired') ->> 'trial')::bigint, '{"ratio": 1.30}');
SELECT tuner.confirm('cf_paired', tuner.trial_id('cf_paired', 1), pairs => 4, paired => true) AS queued;
SELECT tuner.report((tuner.suggest_next('cf_paired') ->> 'trial')::bigint, jsonb_build_object('ratio', r))
  FROM unnest(ARRAY[1.03, 0.97, 1.02, 0.99]) WITH ORDINALITY AS u(r, k) ORDER BY k;
SELECT number, pairs, round(ratio::numeric, 4) AS ratio, ratio_low < 1 AND ratio_high > 1 AS contains_1, verdict
  FROM tuner.confirmation('cf_paired');
-- the default pick is tuner.recommend's trial; an interrupted run's
-- retry stays in its pair
SELECT r.trial = tuner.trial_id('cf_paired', 2) AS recommends_2 FROM tuner.recommend('cf_paired') r;
SELECT tuner.confirm('cf_paired', pairs => 2, paired => true) AS queued;
SELECT tuner.suggest_next('cf_paired') ->> 'trial' IS NOT NULL AS taken;
UPDATE tuner.trial SET lease_expires_at = now() - interval '1 s'
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'cf_paired') AND state = 'running';
SELECT tuner.reap('cf_paired') AS reaped;
SELECT number, state, source, confirm_pair, retry_of IS NOT NULL AS is_retry
  FROM tuner.trial WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'cf_paired')
   AND confirms = tuner.trial_id('cf_paired', 2) ORDER BY number;
SELECT number, pairs, verdict, pending, lost FROM tuner.confirmation('cf_paired') ORDER BY number;

-- Bad input.
SELECT tuner.confirm(NULL);
SELECT tuner.confirm('cf_nope');
SELECT tuner.confirm('cf_plain', pairs => 1);
SELECT tuner.confirm('cf_plain', pairs => 101);
SELECT tuner.confirm('cf_plain', pairs => NULL);
SELECT tuner.confirm('cf_plain', -1);
SELECT pg_temp.cf_try($$SELECT tuner.confirm('cf_plain', tuner.trial_id('cf_paired', 1))$$);
SELECT pg_temp.cf_try($$SELECT tuner.confirm('cf_plain', tuner.trial_id('cf_plain', 2), paired => true)$$);	-- earlier pairs had baselines
SELECT pg_temp.cf_try($$SELECT tuner.confirm('cf_plain', (SELECT min(id) FROM tuner.trial WHERE source = 'baseline'
								   AND study_id = (SELECT id FROM tuner.study WHERE name = 'cf_plain')))$$);
SELECT tuner.confirmation('cf_nope');
SELECT tuner.confirmation(NULL);
-- a trial that is not complete
SELECT tuner.create_study('cf_bad', 'y', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('cf_bad', 'x', 'float', 0, 1);
SELECT tuner.confirm('cf_bad');
SELECT tuner.fail((tuner.suggest_next('cf_bad') ->> 'trial')::bigint, 'broken');
SELECT pg_temp.cf_try($$SELECT tuner.confirm('cf_bad', tuner.trial_id('cf_bad', 1))$$);
-- no default: nothing to compare a plain objective with
SELECT tuner.report((tuner.suggest_next('cf_bad') ->> 'trial')::bigint, '{"y": 3}');
SELECT tuner.confirm('cf_bad', tuner.trial_id('cf_bad', 2));
-- direct writes get the same checks
SELECT tuner.enqueue('cf_bad', '{"x": 0.5}') AS manual \gset
SELECT pg_temp.cf_try(format($$UPDATE tuner.trial SET confirms = tuner.trial_id('cf_plain', 2), confirm_pair = 1, source = 'confirm' WHERE id = %s$$, :manual));
UPDATE tuner.trial SET confirms = tuner.trial_id('cf_bad', 2) WHERE id = :manual;
-- values that are not positive make no ratio
SELECT tuner.create_study('cf_neg', 'y', 'minimize', '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('cf_neg', 'x', 'float', 0, 1, default_value => '0.5');
SELECT tuner.report((tuner.suggest_next('cf_neg') ->> 'trial')::bigint, '{"y": -1}');
SELECT tuner.report((tuner.suggest_next('cf_neg') ->> 'trial')::bigint, '{"y": -2}');
SELECT tuner.confirm('cf_neg', tuner.trial_id('cf_neg', 2), pairs => 2) AS queued;
SELECT tuner.report((tuner.suggest_next('cf_neg') ->> 'trial')::bigint, '{"y": -1.5}')
  FROM generate_series(1, 4);
SELECT pairs, ratio, verdict, unusable FROM tuner.confirmation('cf_neg');
-- the statistics function itself
SELECT * FROM tuner._mean_interval('{0.1}', 0.95);
SELECT * FROM tuner._mean_interval('{0.1, NaN}', 0.95);
SELECT * FROM tuner._mean_interval('{0.1, 0.2}', 1);
SELECT * FROM tuner._mean_interval(NULL, 0.95);

SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'cf\_%' ORDER BY name;
