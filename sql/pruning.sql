-- pruning: intermediate results (report_progress), the pruning rules
-- (should_stop: median, successive halving) and stopping a trial early
-- (prune), driven from SQL as Optuna's report / should_prune (issue 30).
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message (ids as N) if it fails.
CREATE FUNCTION pg_temp.pr_try(statement text)
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

-- Five complete trials whose curve ends at 1..5 (minimize): at step s a
-- trial's value is final + 10 / s.
SELECT tuner.create_study('pr_median', 'loss', 'minimize',
	'{"seed": 1, "pruning": {"rule": "median", "warmup_steps": 2, "min_trials": 3}}') > 0 AS created;
SELECT tuner.add_parameter('pr_median', 'x', 'float', 0, 1);
DO $$
DECLARE
	t bigint;
BEGIN
	FOR k IN 1 .. 5 LOOP
		t := (tuner.suggest_next('pr_median') ->> 'trial')::bigint;
		FOR s IN 1 .. 5 LOOP
			PERFORM tuner.report_progress(t, s, jsonb_build_object('loss', k + 10.0 / s, 'ops', s * 100));
			IF k = 1 AND s = 3 THEN
				-- nothing to compare with yet (no complete trial)
				ASSERT NOT tuner.should_stop(t);
			END IF;
		END LOOP;
		PERFORM tuner.report(t, jsonb_build_object('loss', k + 2.0));
	END LOOP;
END;
$$;
SELECT count(*) AS steps, min(step), max(step) FROM tuner.trial_progress p
  JOIN tuner.trial t ON t.id = p.trial_id JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'pr_median';
-- a sixth trial, worse than the median (3 + 10/s) from step 1: before the
-- warm-up it goes on, after it stops
SELECT (tuner.suggest_next('pr_median') ->> 'trial')::bigint AS t6 \gset
SELECT tuner.report_progress(:t6, 1, '{"loss": 20}');
SELECT tuner.should_stop(:t6) AS stop_at_1;
SELECT tuner.report_progress(:t6, 2, '{"loss": 9.5}');
SELECT tuner.should_stop(:t6) AS stop_at_2;
SELECT tuner.report_progress(:t6, 2.5, '{"loss": 7.5, "ops": null}');
SELECT tuner.should_stop(:t6) AS stop_at_2_5;
-- ... a seventh, better than the median, goes on
SELECT (tuner.suggest_next('pr_median') ->> 'trial')::bigint AS t7 \gset
SELECT tuner.report_progress(:t7, 3, '{"loss": 4}');
SELECT tuner.should_stop(:t7) AS stop_7;
-- ... until it reports 6 at step 4, above the median there (5.5): its best
-- so far (4) keeps it going; judged by its latest value (a runner that
-- reports its estimate of the end so far), it stops
SELECT tuner.report_progress(:t7, 4, '{"loss": 6}');
SELECT tuner.should_stop(:t7) AS stop_7_best;
UPDATE tuner.study SET settings = settings || '{"pruning": {"rule": "median", "warmup_steps": 2, "min_trials": 3, "value": "latest"}}'
 WHERE name = 'pr_median';
SELECT tuner.should_stop(:t7) AS stop_7_latest;
UPDATE tuner.study SET settings = settings || '{"pruning": {"rule": "median", "warmup_steps": 2, "min_trials": 3, "value": "best"}}'
 WHERE name = 'pr_median';
SELECT tuner.should_stop(:t7) AS stop_7_best_again;
-- pruned: its last value is its observation, the model learns from it,
-- no "best" counts it
SELECT tuner.prune(:t6, 'worse than the median');
SELECT number, state, value, error, metrics FROM tuner.trials WHERE trial = :t6;
SELECT tuner.should_stop(:t6) AS pruned_stops;
SELECT value AS best FROM tuner.best('pr_median');
SELECT (tuner.suggest_next('pr_median') ->> 'trial')::bigint AS t8 \gset
SELECT t.number, t.state FROM tuner.trial t
 WHERE t.id IN (SELECT unnest(g.observed) FROM tuner.suggestion g WHERE g.trial_id = :t8)
 ORDER BY t.number;
-- a pruned trial is finished: no report, progress or second prune
SELECT pg_temp.pr_try(format($$SELECT tuner.report(%s, '{"loss": 1}')$$, :t6));
SELECT pg_temp.pr_try(format($$SELECT tuner.report_progress(%s, 3, '{"loss": 1}')$$, :t6));
SELECT pg_temp.pr_try(format($$SELECT tuner.prune(%s)$$, :t6));
SELECT pg_temp.pr_try(format($$UPDATE tuner.trial SET state = 'running' WHERE id = %s$$, :t6));
-- the progress plot: a curve per trial, the pruned one dashed and ending
-- in a cross where it was stopped, the running one (a single point) grey
SELECT (length(s) - length(replace(s, '<polyline', ''))) / length('<polyline') AS curves,
	   (length(s) - length(replace(s, 'stroke-dasharray="6 4"', ''))) / length('stroke-dasharray="6 4"') AS dashed,
	   s LIKE '%<title>trial 6 (pruned): 7.5 at step 2.5</title>%' AS pruned_marked,
	   s LIKE '%<title>trial 7: 6 at step 4</title>%' AS running_point,
	   s LIKE '%>complete<%' AND s LIKE '%>pruned<%' AND s LIKE '%>running or failed<%' AS legend
  FROM (SELECT tuner.plot('pr_median', 'progress') AS s) q;
SELECT tuner.plot('pr_median', 'progress', '{"metric": "ops", "log_y": true, "title": "ops"}') LIKE '%<title>trial 5: 500 at step 5</title>%' AS other_metric;
SELECT pg_temp.pr_try($$SELECT tuner.plot('pr_median', 'progress', '{"parameter": "x"}')$$);
SELECT tuner.add_metric('pr_median', 'quiet') > 0 AS added;
SELECT pg_temp.pr_try($$SELECT tuner.plot('pr_median', 'progress', '{"metric": "quiet"}')$$);
SELECT pg_temp.pr_try($$SELECT tuner._plot_progress('{t,x}', '{1}', '{1}', '{1}', '{0}', false, 720, 480)$$);
SELECT pg_temp.pr_try($$SELECT tuner._plot_progress('{t,x,y}', '{1,1}', '{2,1}', '{1,1}', '{0,0}', false, 720, 480)$$);
SELECT pg_temp.pr_try($$SELECT tuner._plot_progress('{t,x,y}', '{1}', '{1}', '{0}', '{0}', true, 720, 480)$$);
SELECT pg_temp.pr_try($$SELECT tuner._plot_progress('{t,x,y}', '{1}', '{1}', '{1}', '{7}', false, 720, 480)$$);

-- Successive halving: rungs 1, 2, 4, ...; at each the best half goes on.
SELECT tuner.create_study('pr_halving', 'score', 'maximize',
	'{"seed": 2, "pruning": {"rule": "halving", "min_step": 1, "reduction": 2, "min_trials": 4}}') > 0 AS created;
SELECT tuner.add_parameter('pr_halving', 'x', 'float', 0, 1);
CREATE TEMP TABLE pr_t (k int, trial bigint);
INSERT INTO pr_t SELECT k, (tuner.suggest_next('pr_halving') ->> 'trial')::bigint FROM generate_series(1, 4) k;
SELECT tuner.report_progress(trial, 1, jsonb_build_object('score', k)) FROM pr_t ORDER BY k;
-- at rung 1 the 4 trials score 1..4: the best 2 (3, 4) go on
SELECT k, tuner.should_stop(trial) AS stop FROM pr_t ORDER BY k;
SELECT tuner.report_progress(trial, 1.5, jsonb_build_object('score', k)) FROM pr_t ORDER BY k;
-- still rung 1 (below 2)
SELECT k, tuner.should_stop(trial) AS stop FROM pr_t ORDER BY k;
-- at rung 2 only trials 3 and 4 report: 2 trials, fewer than min_trials
SELECT tuner.report_progress(trial, 2, jsonb_build_object('score', 10 - k)) FROM pr_t WHERE k >= 3 ORDER BY k;
SELECT k, tuner.should_stop(trial) AS stop FROM pr_t WHERE k >= 3 ORDER BY k;

-- Without a rule nothing is stopped; progress is still recorded.
SELECT tuner.create_study('pr_off', 'y', settings => '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('pr_off', 'x', 'float', 0, 1);
SELECT (tuner.suggest_next('pr_off') ->> 'trial')::bigint AS t_off \gset
SELECT tuner.report_progress(:t_off, 0, '{"y": -1000}');
SELECT tuner.should_stop(:t_off) AS stop;

-- Bad input.
SELECT tuner.report_progress(:t_off, 'NaN', '{"y": 1}');
SELECT tuner.report_progress(:t_off, -1, '{"y": 1}');
SELECT tuner.report_progress(:t_off, 'Infinity', '{"y": 1}');
SELECT pg_temp.pr_try(format($$SELECT tuner.report_progress(%s, 0, '{"y": 1}')$$, :t_off));	-- not after its last step
SELECT tuner.report_progress(:t_off, 1, '[1]');
SELECT tuner.report_progress(:t_off, 1, '{"y": "fast"}');
SELECT tuner.report_progress(:t_off, NULL, '{"y": 1}');
SELECT tuner.report_progress(:t_off, 1, NULL);
SELECT tuner.report_progress(NULL, 1, '{"y": 1}');
SELECT tuner.report_progress(-1, 1, '{"y": 1}');
SELECT tuner.should_stop(-1);
SELECT tuner.should_stop(NULL);
SELECT tuner.prune(-1);
SELECT tuner.prune(NULL);
-- a flood is refused past the limit, and the trial goes on
DO $$
DECLARE
	t bigint := (SELECT max(t.id) FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'pr_off');
BEGIN
	FOR s IN 2 .. tuner._max_progress_steps() LOOP
		PERFORM tuner.report_progress(t, s, '{"y": 0}');
	END LOOP;
END;
$$;
SELECT pg_temp.pr_try(format($$SELECT tuner.report_progress(%s, 1e9, '{"y": 0}')$$, :t_off));
SELECT state FROM tuner.trials WHERE trial = :t_off;
-- a role's direct writes are refused; its readers see its progress
CREATE ROLE regress_tuner_pr LOGIN IN ROLE tuner_user;
SET ROLE regress_tuner_pr;
SELECT tuner.create_study('pr_role', 'y', settings => '{"seed": 4}') > 0 AS created;
SELECT tuner.add_parameter('pr_role', 'x', 'float', 0, 1);
SELECT (tuner.suggest_next('pr_role') ->> 'trial')::bigint AS t_role \gset
SELECT tuner.report_progress(:t_role, 1, '{"y": 2}');
SELECT pg_temp.pr_try(format($$INSERT INTO tuner.trial_progress (trial_id, step, metrics) VALUES (%s, 2, '{}')$$, :t_role));
SELECT pg_temp.pr_try(format($$UPDATE tuner.trial_progress SET metrics = '{"y": -1}' WHERE trial_id = %s$$, :t_role));
SELECT pg_temp.pr_try($$SELECT tuner._progress_insert(tuner.trial_id('pr_off', 1), 1e10, '{}')$$);
SELECT count(*) AS progress_seen FROM tuner.trial_progress;
RESET ROLE;
SELECT tuner.drop_study('pr_role');
DROP ROLE regress_tuner_pr;
-- A confirmation run (tuner.confirm) is never stopped, however low its
-- curve, and the rule compares a trial with the search's trials only: the
-- two runs of the recommended configuration below, low all along, neither
-- stop nor lower the median (2) a search trial is held to.
SELECT tuner.create_study('pr_confirm', 'ratio', 'maximize',
	'{"seed": 5, "pruning": {"rule": "median", "min_trials": 3}}') > 0 AS created;
SELECT tuner.add_parameter('pr_confirm', 'x', 'float', 0, 1, default_value => '0.5');
DO $$
DECLARE
	t bigint;
BEGIN
	FOR k IN 1 .. 3 LOOP
		t := (tuner.suggest_next('pr_confirm') ->> 'trial')::bigint;
		PERFORM tuner.report_progress(t, 1, jsonb_build_object('ratio', k));
		PERFORM tuner.report_progress(t, 2, jsonb_build_object('ratio', k));
		PERFORM tuner.report(t, jsonb_build_object('ratio', k));
	END LOOP;
END;
$$;
SELECT tuner.confirm('pr_confirm', tuner.trial_id('pr_confirm', 3), pairs => 2, paired => true) AS queued;
CREATE TEMP TABLE pr_c (k int, trial bigint);
INSERT INTO pr_c SELECT k, (tuner.suggest_next('pr_confirm') ->> 'trial')::bigint FROM generate_series(1, 2) k;
SELECT tuner.report_progress(trial, 1, '{"ratio": 0.1}') FROM pr_c ORDER BY k;
SELECT k, t.source, tuner.should_stop(c.trial) AS stop FROM pr_c c JOIN tuner.trial t ON t.id = c.trial ORDER BY k;
SELECT tuner.report_progress(trial, 2, '{"ratio": 0.1}') FROM pr_c ORDER BY k;
SELECT tuner.report(trial, '{"ratio": 0.1}') FROM pr_c ORDER BY k;
SELECT number, pairs, verdict, lost FROM tuner.confirmation('pr_confirm');
-- a search trial at 1.5 at step 1: below the search's median 2 (with the
-- confirmation runs' 0.1s counted it would be above their median 1)
SELECT (tuner.suggest_next('pr_confirm') ->> 'trial')::bigint AS t_s \gset
SELECT source FROM tuner.trial WHERE id = :t_s;
SELECT tuner.report_progress(:t_s, 1, '{"ratio": 1.5}');
SELECT tuner.should_stop(:t_s) AS stop_search;
-- settings
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": "median"}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "hyperband"}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"warmup_steps": 1}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "median", "reduction": 2}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "halving", "reduction": 1}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "halving", "min_step": 0}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "median", "min_trials": 0}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "median", "warmup_steps": -1}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "median", "value": "last"}}');
SELECT tuner.create_study('pr_bad', 'y', settings => '{"pruning": {"rule": "model", "value": "latest"}}');
UPDATE tuner.study SET settings = settings || '{"pruning": {"rule": "median", "min_trials": "many"}}' WHERE name = 'pr_off';
SELECT tuner._prune_decision('fast', '{}', 1, true, 1, NULL);
SELECT tuner._prune_decision('median', '{1, NaN}', 1, true, 1, NULL);

SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'pr\_%' ORDER BY name;
