/*
 * pruning.sql
 *	  Intermediate results and early stopping: report_progress, should_stop
 *	  and prune, with the rules of src/core/pruning.c.
 */

-- The most steps one trial may report (a flood fails nothing else).
CREATE OR REPLACE FUNCTION tuner._max_progress_steps()
RETURNS int
LANGUAGE sql IMMUTABLE
AS 'SELECT 10000';

-- Check a study's "pruning" setting; NULL passes.
CREATE OR REPLACE FUNCTION tuner._check_pruning(pruning jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v_rule text;
BEGIN
	IF pruning IS NULL THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(pruning) <> 'object' THEN
		RAISE EXCEPTION 'setting pruning must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning),
				  HINT = 'For example {"rule": "median", "warmup_steps": 10, "min_trials": 5}.';
	END IF;
	v_rule := pruning ->> 'rule';
	IF v_rule IS NULL OR v_rule NOT IN ('median', 'halving', 'model') THEN
		RAISE EXCEPTION 'setting pruning needs a rule: median, halving or model'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', COALESCE(pruning -> 'rule', 'null'::jsonb));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(pruning)
	LOOP
		IF k NOT IN ('rule', 'min_trials', 'warmup_steps', 'min_step', 'reduction', 'threshold', 'value')
		   OR (v_rule = 'median' AND k IN ('min_step', 'reduction', 'threshold'))
		   OR (v_rule = 'halving' AND k IN ('warmup_steps', 'threshold', 'value'))
		   OR (v_rule = 'model' AND k IN ('min_step', 'reduction', 'value')) THEN
			RAISE EXCEPTION 'unknown key "%" in setting pruning for rule %', k, v_rule
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = CASE v_rule WHEN 'median' THEN 'The median rule takes warmup_steps, min_trials and value.'
							 WHEN 'model' THEN 'The model rule takes threshold, warmup_steps and min_trials.'
							 ELSE 'Successive halving takes min_step, reduction and min_trials.' END;
		END IF;
	END LOOP;
	IF pruning ? 'min_trials' THEN
		-- the model rule's regression needs 3 trials to have an error left
		PERFORM tuner._json_int(pruning -> 'min_trials', 'pruning min_trials',
								CASE v_rule WHEN 'model' THEN 3 ELSE 1 END, 100000);
	END IF;
	IF pruning ? 'threshold' AND (pg_catalog.jsonb_typeof(pruning -> 'threshold') <> 'number'
								  OR (pruning ->> 'threshold')::float8 <= 0
								  OR (pruning ->> 'threshold')::float8 >= 1) THEN
		RAISE EXCEPTION 'pruning threshold must be a number above 0 and below 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'threshold'),
				  HINT = 'It is the probability of ending better than the best complete trial below which a trial stops, e.g. 0.05.';
	END IF;
	IF pruning ? 'value' AND (pruning -> 'value') NOT IN ('"best"', '"latest"') THEN
		RAISE EXCEPTION 'pruning value must be "best" or "latest"'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'value'),
				  HINT = 'best: the trial''s best value so far (the default); latest: its value at its latest step, for a runner that reports an estimate of its final value so far.';
	END IF;
	IF pruning ? 'warmup_steps' AND (pg_catalog.jsonb_typeof(pruning -> 'warmup_steps') <> 'number'
									 OR (pruning ->> 'warmup_steps')::float8 < 0) THEN
		RAISE EXCEPTION 'pruning warmup_steps must be a number, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'warmup_steps');
	END IF;
	IF pruning ? 'min_step' AND (pg_catalog.jsonb_typeof(pruning -> 'min_step') <> 'number'
								 OR (pruning ->> 'min_step')::float8 <= 0) THEN
		RAISE EXCEPTION 'pruning min_step must be a number above 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'min_step');
	END IF;
	IF pruning ? 'reduction' AND (pg_catalog.jsonb_typeof(pruning -> 'reduction') <> 'number'
								  OR (pruning ->> 'reduction')::float8 <= 1
								  OR (pruning ->> 'reduction')::float8 > 100) THEN
		RAISE EXCEPTION 'pruning reduction must be a number above 1 and at most 100'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'reduction');
	END IF;
END;
$$;

-- The pruning rules (src/core/pruning.c).
CREATE OR REPLACE FUNCTION tuner._prune_decision(rule text, others float8[], value float8,
									  maximize bool, min_trials int,
									  reduction float8)
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_prune_decision'
LANGUAGE C IMMUTABLE;

-- The model rule's data at a step: of trials (complete ones), those with
-- an observation of the metric that reported it at or past step, each
-- one's last value at or before step (partial) and its observation
-- (final), in id order; empty arrays when none.
CREATE OR REPLACE FUNCTION tuner._forecast_pairs(trials bigint[], metric_id bigint, step float8,
									  OUT partial float8[], OUT final float8[])
LANGUAGE sql STABLE
AS $$
	SELECT COALESCE(pg_catalog.array_agg(x.v ORDER BY c.id), '{}'),
		   COALESCE(pg_catalog.array_agg(ob.value ORDER BY c.id), '{}')
	  FROM tuner.trial c
	  JOIN tuner.metric m ON m.id = $2
	  JOIN tuner.observation ob ON ob.trial_id = c.id AND ob.metric_id = $2
	  CROSS JOIN LATERAL (
		SELECT (p.metrics ->> m.name)::float8 AS v
		  FROM tuner.trial_progress p
		 WHERE p.trial_id = c.id AND p.step <= $3
		   AND pg_catalog.jsonb_typeof(p.metrics -> m.name) = 'number'
		 ORDER BY p.step DESC LIMIT 1) x
	 WHERE c.id = ANY ($1)
	   AND EXISTS (SELECT 1 FROM tuner.trial_progress q
					WHERE q.trial_id = c.id AND q.step >= $3)
$$;

-- What the optimizer observes of a trial pruned where its value was
-- last_value (src/core/pruning.h): its final value as the model rule
-- forecasts it from the complete trials' values at that step (partial)
-- and their final values (final), once 3 of them got that far, with the
-- forecast's spread as its standard error; before that last_value, with
-- the spread of the study's final values (finals) as its standard error
-- (NULL with fewer than 2).
CREATE OR REPLACE FUNCTION tuner._pruned_observation(partial float8[], final float8[],
										  last_value float8, finals float8[],
										  OUT value float8, OUT std_error float8)
AS 'MODULE_PATHNAME', 'tuner_pruned_observation_sql'
LANGUAGE C IMMUTABLE;

-- The pruned trials among observed (by position k), as the optimizer
-- observes them (tuner._pruned_observation): each trial's last value of
-- the objective and its step, and the pairs the model rule would use
-- there (tuner._forecast_pairs) from the complete search trials among
-- observed.  Only the trials a suggestion saw count, so that its replay
-- sees the same.
CREATE OR REPLACE FUNCTION tuner._pruned_observations(objective_metric bigint, observed bigint[])
RETURNS TABLE (k int, value float8, std_error float8)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_name text;
	v_complete bigint[];
	v_finals float8[];
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.trial t
					WHERE t.id = ANY ($2) AND t.state = 'pruned') THEN
		RETURN;
	END IF;
	SELECT m.name INTO v_name FROM tuner.metric m WHERE m.id = $1;
	SELECT pg_catalog.array_agg(c.id ORDER BY c.id),
		   COALESCE(pg_catalog.array_agg(ob.value ORDER BY c.id), '{}')
	  INTO v_complete, v_finals
	  FROM tuner.trial c
	  JOIN tuner.observation ob ON ob.trial_id = c.id AND ob.metric_id = $1
	 WHERE c.id = ANY ($2) AND c.state = 'complete' AND c.confirms IS NULL;
	RETURN QUERY
	SELECT l.k, f.value, f.std_error
	  FROM (SELECT o.k::int AS k, x.step, x.v
			  FROM pg_catalog.unnest($2) WITH ORDINALITY AS o(id, k)
			  JOIN tuner.trial t ON t.id = o.id AND t.state = 'pruned'
			  CROSS JOIN LATERAL (
				SELECT p.step, (p.metrics ->> v_name)::float8 AS v
				  FROM tuner.trial_progress p
				 WHERE p.trial_id = t.id AND pg_catalog.jsonb_typeof(p.metrics -> v_name) = 'number'
				 ORDER BY p.step DESC LIMIT 1) x) l
	  CROSS JOIN LATERAL tuner._forecast_pairs(v_complete, $1, l.step) d
	  CROSS JOIN LATERAL tuner._pruned_observation(d.partial, d.final, l.v, v_finals) f
	 ORDER BY l.k;
END;
$$;

-- Record an intermediate result of a running trial: a step greater than
-- its last one (seconds, operations, a phase index) and its metrics (an
-- object of finite numbers; null for a metric without a value this
-- time).  Readers of the study see it in tuner.trial_progress, and
-- listeners on tuner_trials get {"trial", "step"}.
CREATE OR REPLACE FUNCTION tuner.report_progress(trial bigint, step float8, metrics jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	v_last float8;
	v_count int;
	k text;
	v jsonb;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._not_null(step, 'step');
	PERFORM tuner._not_null(metrics, 'metrics');
	IF step = 'NaN' OR step < 0 OR step = 'Infinity' THEN
		RAISE EXCEPTION 'step must be a finite number, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', step);
	END IF;
	IF pg_catalog.jsonb_typeof(metrics) <> 'object' THEN
		RAISE EXCEPTION 'metrics must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(metrics)),
				  HINT = 'Pass {"metric": value, ...}.';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(metrics) e
	LOOP
		IF pg_catalog.jsonb_typeof(v) NOT IN ('number', 'null') THEN
			RAISE EXCEPTION 'metric "%" must be a number or null', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
	END LOOP;
	t := tuner._open_trial($1);
	SELECT pg_catalog.max(p.step), pg_catalog.count(*) INTO v_last, v_count
	  FROM tuner.trial_progress p WHERE p.trial_id = t.id;
	IF v_last IS NOT NULL AND step <= v_last THEN
		RAISE EXCEPTION 'step % of trial % is not after its last step %', step, t.id, v_last
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Steps only increase: seconds, operations or a phase index.';
	END IF;
	IF v_count >= tuner._max_progress_steps() THEN
		RAISE EXCEPTION 'trial % has reported % steps, the most a trial may', t.id, v_count
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'Report progress less often.';
	END IF;
	PERFORM tuner._progress_insert(t.id, step, metrics);
	PERFORM pg_catalog.pg_notify('tuner_trials',
		pg_catalog.jsonb_build_object('trial', t.id, 'step', step)::text);
END;
$$;

-- The model rule (src/core/pruning.c).
CREATE OR REPLACE FUNCTION tuner._prune_model_probability(partial float8[], final float8[],
											   value float8, incumbent float8,
											   maximize bool, min_trials int)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_prune_model_probability'
LANGUAGE C IMMUTABLE;

-- The model rule's probability that a running trial, at its step step,
-- ends better than the best complete trial of its study; NULL when the
-- rule abstains: no value at that step, or fewer complete trials than
-- min_trials (at least 3) that got that far with a final value
-- (tuner._forecast_pairs).
CREATE OR REPLACE FUNCTION tuner._prune_model_probability(trial bigint, step float8)
RETURNS float8
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v_metric bigint;
	v_value float8;
	v_partial float8[];
	v_final float8[];
	v_incumbent float8;
	v_max bool;
BEGIN
	SELECT x.* INTO s FROM tuner.study x JOIN tuner.trial t ON t.study_id = x.id WHERE t.id = $1;
	v_max := s.direction = 'maximize';
	SELECT m.id INTO v_metric FROM tuner.metric m WHERE m.study_id = s.id AND m.name = s.objective;
	SELECT (p.metrics ->> s.objective)::float8 INTO v_value
	  FROM tuner.trial_progress p
	 WHERE p.trial_id = $1 AND p.step <= $2
	   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
	 ORDER BY p.step DESC LIMIT 1;
	SELECT CASE WHEN v_max THEN pg_catalog.max(o.value) ELSE pg_catalog.min(o.value) END
	  INTO v_incumbent
	  FROM tuner.trial c JOIN tuner.observation o ON o.trial_id = c.id AND o.metric_id = v_metric
	 WHERE c.study_id = s.id AND c.state = 'complete' AND c.id <> $1 AND c.confirms IS NULL;
	IF v_value IS NULL OR v_incumbent IS NULL THEN
		RETURN NULL;
	END IF;
	SELECT fp.partial, fp.final INTO v_partial, v_final
	  FROM tuner._forecast_pairs(ARRAY(SELECT c.id FROM tuner.trial c
										WHERE c.study_id = s.id AND c.state = 'complete'
										  AND c.id <> $1 AND c.confirms IS NULL),
								 v_metric, $2) fp;
	RETURN tuner._prune_model_probability(v_partial, v_final, v_value, v_incumbent, v_max,
										  COALESCE((s.settings -> 'pruning' ->> 'min_trials')::int, 5));
END;
$$;

-- Would the study's pruning rule stop this running trial now?  false
-- without a rule, before its warm-up, or without enough finished trials
-- to compare with; see the header for the rules.
CREATE OR REPLACE FUNCTION tuner.should_stop(trial bigint)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_rule jsonb;
	v_step float8;
	v_value float8;
	v_rung float8;
	v_others float8[];
	v_max bool;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial($1);
	END IF;
	IF t.state <> 'running' THEN
		RETURN t.state = 'pruned';
	END IF;
	-- A confirmation run (tuner.confirm: source confirm or baseline)
	-- measures a chosen configuration, not a candidate: stopping it would
	-- lose its pair, so no rule stops it, and the rules compare a trial
	-- with the search's trials only.
	IF t.confirms IS NOT NULL THEN
		RETURN false;
	END IF;
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	v_rule := s.settings -> 'pruning';
	IF v_rule IS NULL THEN
		RETURN false;
	END IF;
	v_max := s.direction = 'maximize';
	SELECT pg_catalog.max(p.step) INTO v_step
	  FROM tuner.trial_progress p
	 WHERE p.trial_id = t.id AND p.metrics ? s.objective
	   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number';
	IF v_step IS NULL THEN
		RETURN false;
	END IF;
	IF v_rule ->> 'rule' = 'model' THEN
		IF v_step < COALESCE((v_rule ->> 'warmup_steps')::float8, 0) THEN
			RETURN false;
		END IF;
		-- (NULL when the rule abstains)
		RETURN COALESCE(tuner._prune_model_probability(t.id, v_step)
						< COALESCE((v_rule ->> 'threshold')::float8, 0.05), false);
	ELSIF v_rule ->> 'rule' = 'median' THEN
		IF v_step < COALESCE((v_rule ->> 'warmup_steps')::float8, 0) THEN
			RETURN false;
		END IF;
		-- the trial's best so far, or its latest value (a running estimate
		-- of its end: its best would be its luckiest early estimate); the
		-- complete trials' last value at or before its step, of those that
		-- got that far
		IF v_rule ->> 'value' = 'latest' THEN
			SELECT (p.metrics ->> s.objective)::float8 INTO v_value
			  FROM tuner.trial_progress p
			 WHERE p.trial_id = t.id AND p.step = v_step;
		ELSE
			SELECT CASE WHEN v_max THEN pg_catalog.max(x.v) ELSE pg_catalog.min(x.v) END INTO v_value
			  FROM (SELECT (p.metrics ->> s.objective)::float8 AS v
					  FROM tuner.trial_progress p
					 WHERE p.trial_id = t.id AND p.step <= v_step
					   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number') x;
		END IF;
		SELECT pg_catalog.array_agg(o.v) INTO v_others
		  FROM tuner.trial c
		  CROSS JOIN LATERAL (
			SELECT (p.metrics ->> s.objective)::float8 AS v
			  FROM tuner.trial_progress p
			 WHERE p.trial_id = c.id AND p.step <= v_step
			   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
			 ORDER BY p.step DESC LIMIT 1) o
		 WHERE c.study_id = s.id AND c.state = 'complete' AND c.id <> t.id AND c.confirms IS NULL
		   AND EXISTS (SELECT 1 FROM tuner.trial_progress q
						WHERE q.trial_id = c.id AND q.step >= v_step);
	ELSE
		v_rung := tuner._prune_rung(v_step, COALESCE((v_rule ->> 'min_step')::float8, 1),
									COALESCE((v_rule ->> 'reduction')::float8, 3));
		IF v_rung < 0 THEN
			RETURN false;
		END IF;
		-- each trial's first value at or past the rung
		SELECT (p.metrics ->> s.objective)::float8 INTO v_value
		  FROM tuner.trial_progress p
		 WHERE p.trial_id = t.id AND p.step >= v_rung
		   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
		 ORDER BY p.step LIMIT 1;
		SELECT pg_catalog.array_agg(o.v) INTO v_others
		  FROM tuner.trial c
		  CROSS JOIN LATERAL (
			SELECT (p.metrics ->> s.objective)::float8 AS v
			  FROM tuner.trial_progress p
			 WHERE p.trial_id = c.id AND p.step >= v_rung
			   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
			 ORDER BY p.step LIMIT 1) o
		 WHERE c.study_id = s.id AND c.state IN ('running', 'complete', 'pruned')
		   AND c.id <> t.id AND c.confirms IS NULL;
	END IF;
	RETURN tuner._prune_decision(v_rule ->> 'rule', COALESCE(v_others, '{}'), v_value, v_max,
								 COALESCE((v_rule ->> 'min_trials')::int, 5),
								 (v_rule ->> 'reduction')::float8);
END;
$$;

-- The rung of a step (src/core/pruning.c), -1 below the first.
CREATE OR REPLACE FUNCTION tuner._prune_rung(step float8, min_step float8, reduction float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_prune_rung_sql'
LANGUAGE C IMMUTABLE STRICT;

-- Stop a running trial early: state 'pruned', the reason as its error,
-- and its last reported values as its observations (the optimizer learns
-- from the objective's as tuner._pruned_observations says); without one,
-- nothing is observed.
CREATE OR REPLACE FUNCTION tuner.prune(trial bigint, reason text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_last jsonb;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	t := tuner._open_trial($1);
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	SELECT p.metrics INTO v_last
	  FROM tuner.trial_progress p
	 WHERE p.trial_id = t.id AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
	 ORDER BY p.step DESC LIMIT 1;
	-- (observations are accepted while the trial runs)
	IF v_last IS NOT NULL THEN
		INSERT INTO tuner.observation (trial_id, metric_id, value)
		SELECT t.id, m.id, (v_last ->> m.name)::float8
		  FROM tuner.metric m
		 WHERE m.study_id = s.id AND pg_catalog.jsonb_typeof(v_last -> m.name) = 'number';
	END IF;
	UPDATE tuner.trial x
	   SET state = 'pruned', finished_at = pg_catalog.now(),
		   error = COALESCE(reason, 'pruned'), lease_expires_at = NULL
	 WHERE x.id = t.id;
END;
$$;
