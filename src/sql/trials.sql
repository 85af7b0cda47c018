/*
 * trials.sql
 *	  Trials: reporting and failing them, queueing configurations, copying
 *	  history between studies, and the guards on what may change in a trial.
 */

-- The trial row of an id, locked, or the error for a NULL, unknown or
-- finished trial.
CREATE OR REPLACE FUNCTION tuner._open_trial(trial bigint)
RETURNS tuner.trial
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	SELECT * INTO t FROM tuner.trial WHERE tuner.trial.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial(p_trial);
	END IF;
	IF t.state NOT IN ('running', 'queued') THEN
		RAISE EXCEPTION 'trial % is already %', p_trial, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('It is trial number %s of study "%s".', t.number,
											 (SELECT s.name FROM tuner.study s WHERE s.id = t.study_id)),
				  HINT = 'A trial is reported or failed once; ask tuner.suggest_next() for a new one.';
	END IF;
	RETURN t;
END;
$$;

-------------------------------------------------------------------------------
-- The study setting strict_metrics: report refuses a metric name the
-- study does not declare.
--
-- report keeps every metric it is given, and a name it has not seen
-- becomes a new "recorded" metric.  A typo in a constraint's or an
-- auxiliary metric's name was then stored quietly under the wrong name,
-- and the constraint went unreported.  With strict_metrics true, every
-- name must be declared (tuner.add_metric, or the objective); a runner's
-- output goes through report too, so a runner's extra metrics must be
-- declared as well.  The body is 0.1.0's otherwise.
-------------------------------------------------------------------------------

-- The standard errors of a report (its reserved key "_std_error"):
-- {"metric": se, ...} for metrics among names (those the report gives a
-- value), each a finite number >= 0 or null (none).  Returns the object
-- without the nulls ('{}' for a NULL or JSON null std_errors).
CREATE OR REPLACE FUNCTION tuner._check_std_errors(std_errors jsonb, names text[])
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	r jsonb := '{}';
	k text;
	v jsonb;
	x float8;
BEGIN
	IF std_errors IS NULL OR pg_catalog.jsonb_typeof(std_errors) = 'null' THEN
		RETURN r;
	END IF;
	IF pg_catalog.jsonb_typeof(std_errors) <> 'object' THEN
		RAISE EXCEPTION '_std_error must be a JSON object of metric names and standard errors'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(std_errors),
											 pg_catalog.left(std_errors::text, 100)),
				  HINT = 'Pass for example {"latency": 12.5, "_std_error": {"latency": 0.4}}.';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(std_errors) e ORDER BY e.key
	LOOP
		IF NOT k = ANY (names) THEN
			RAISE EXCEPTION '_std_error names metric "%", which the report has no value of', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('The report''s metrics are %s.',
						(SELECT pg_catalog.string_agg(pg_catalog.format('"%s"', n), ', ' ORDER BY n)
						   FROM pg_catalog.unnest(names) n)),
					  HINT = 'A standard error belongs to a metric value of the same report.';
		END IF;
		IF pg_catalog.jsonb_typeof(v) = 'null' THEN
			CONTINUE;
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			RAISE EXCEPTION 'the standard error of metric "%" must be a finite number >= 0', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(v),
												 pg_catalog.left(v::text, 100)),
					  HINT = 'Use null for a value whose standard error is not known.';
		END IF;
		BEGIN
			x := v::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			RAISE EXCEPTION 'the standard error of metric "%" is out of range for double precision', k
				USING ERRCODE = 'numeric_value_out_of_range';
		END;
		IF x < 0 THEN
			RAISE EXCEPTION 'the standard error of metric "%" must not be negative', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
		r := r || pg_catalog.jsonb_build_object(k, x);
	END LOOP;
	RETURN r;
END;
$$;

-- Record the metrics a trial measured and mark it complete.  The study's
-- objective must be among them; every metric is kept.  The reserved key
-- "_std_error" ({"metric": se, ...}, tuner._check_std_errors) gives the
-- standard errors of some of the values; GP-EI reads them as each value's
-- known noise.
CREATE OR REPLACE FUNCTION tuner.report(trial bigint, metrics jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	t tuner.trial;
	s tuner.study;
	k text;
	v jsonb;
	v_value float8;
	v_metric bigint;
	v_values float8[] := '{}';
	v_names text[] := '{}';
	v_se jsonb;
	i int;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._not_null($2, 'metrics');
	-- A trial whose lease expired is interrupted, not reported.
	PERFORM tuner._reap_of_trial($1);
	t := tuner._open_trial($1);
	SELECT * INTO s FROM tuner.study WHERE id = t.study_id;

	IF pg_catalog.jsonb_typeof($2) <> 'object' THEN
		RAISE EXCEPTION 'metrics must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof($2)),
				  HINT = pg_catalog.format('Pass {"metric": value, ...}, for example {"%s": 1.5}.', s.objective);
	END IF;
	IF NOT $2 ? s.objective THEN
		RAISE EXCEPTION 'metrics must include the objective "%"', s.objective
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no objective value should be marked with tuner.fail().';
	END IF;
	-- a multi-objective study: every objective
	SELECT o.name INTO k FROM tuner._objectives(s.id) o
	 WHERE NOT $2 ? o.name ORDER BY o.ordinal LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'metrics must include every objective; "%" is missing', k
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no value of an objective should be marked with tuner.fail().';
	END IF;

	FOR k, v IN SELECT key, value FROM pg_catalog.jsonb_each($2) ORDER BY key
	LOOP
		IF k = '_std_error' THEN
			CONTINUE;		-- not a metric: the standard errors, below
		END IF;
		IF k = '' THEN
			RAISE EXCEPTION 'metric names must not be empty'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			IF pg_catalog.jsonb_typeof(v) = 'string'
			   AND pg_catalog.lower(v #>> '{}') IN ('nan', 'infinity', '+infinity', '-infinity', 'inf', '+inf', '-inf') THEN
				RAISE EXCEPTION 'metric "%" must be a finite number', k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'Mark a trial that measured nothing valid with tuner.fail().';
			END IF;
			RAISE EXCEPTION 'metric "%" must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(v), v);
		END IF;
		BEGIN
			v_value := v::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			RAISE EXCEPTION 'metric "%" is out of range for double precision', k
				USING ERRCODE = 'numeric_value_out_of_range';
		END;
		v_names := v_names || k;
		v_values := v_values || v_value;
	END LOOP;
	v_se := tuner._check_std_errors($2 -> '_std_error', v_names);

	-- strict_metrics: a name the study does not declare is a typo, not a
	-- new metric.
	IF COALESCE((s.settings ->> 'strict_metrics')::bool, false) THEN
		SELECT n INTO k FROM pg_catalog.unnest(v_names) AS n
		 WHERE NOT EXISTS (SELECT 1 FROM tuner.metric m
							WHERE m.study_id = s.id AND m.name = n)
		 ORDER BY n LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'metric "%" is not declared in study "%"', k, s.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('The study''s metrics are %s; its setting strict_metrics refuses others.',
						(SELECT pg_catalog.string_agg(pg_catalog.format('"%s"', m.name), ', ' ORDER BY m.name)
						   FROM tuner.metric m WHERE m.study_id = s.id)),
					  HINT = 'Correct the name, or declare the metric with tuner.add_metric() first.';
		END IF;
	END IF;

	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		INSERT INTO tuner.metric (study_id, name, role)
		VALUES (s.id, v_names[i], 'recorded')
		ON CONFLICT (study_id, name) DO NOTHING;
		SELECT id INTO v_metric FROM tuner.metric
		 WHERE study_id = s.id AND name = v_names[i];
		INSERT INTO tuner.observation (trial_id, metric_id, value, std_error)
		VALUES (t.id, v_metric, v_values[i], (v_se ->> v_names[i])::float8);
	END LOOP;

	UPDATE tuner.trial SET state = 'complete', finished_at = pg_catalog.now()
	 WHERE id = t.id;
END;
$$;

-- Mark a running trial as failed, with the reason.  Failed configurations
-- are never suggested again.
CREATE OR REPLACE FUNCTION tuner.fail(trial bigint, reason text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
BEGIN
	t := tuner._open_trial($1);
	UPDATE tuner.trial SET state = 'failed', error = $2,
		   finished_at = pg_catalog.now()
	 WHERE id = t.id;
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

CREATE TRIGGER trial_finished_notify AFTER UPDATE OF state ON tuner.trial
	FOR EACH ROW
	WHEN (OLD.state IS DISTINCT FROM NEW.state
		  AND NEW.state IN ('complete', 'failed', 'interrupted'))
	EXECUTE FUNCTION tuner._notify_trial();

CREATE TRIGGER trial_inserted_notify AFTER INSERT ON tuner.trial
	FOR EACH ROW
	WHEN (NEW.state IN ('complete', 'failed', 'interrupted'))
	EXECUTE FUNCTION tuner._notify_trial();

-- Queue a configuration to be tried next: suggest_next hands queued
-- configurations out first, in the order they were queued.  Values are
-- checked like the study's own suggestions; missing parameters take their
-- defaults.  Returns the trial id (state queued, source manual).
CREATE OR REPLACE FUNCTION tuner.enqueue(study text, params jsonb)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	c record;
	v_number int;
	v_trial bigint;
BEGIN
	s := tuner._find_study(study);
	PERFORM tuner._not_null(params, 'params');
	IF pg_catalog.jsonb_typeof(params) <> 'object' THEN
		RAISE EXCEPTION 'params must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(params)),
				  HINT = 'Pass {"parameter": value, ...}.';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	-- the same lock as suggest_next: trial numbers are max + 1
	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	c := tuner._complete_config(s.id, params);
	IF pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'parameter "%" is not in study "%"', c.dropped[1], s.name
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	IF c.problem IS NOT NULL THEN
		RAISE EXCEPTION '%', c.problem[2]
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = CASE c.problem[1] WHEN 'missing_parameter' THEN 'Give it a value.'
							  ELSE 'Give a value the parameter''s kind, bounds or choices allow.' END;
	END IF;
	SELECT COALESCE(pg_catalog.max(t.number), 0) + 1 INTO v_number
	  FROM tuner.trial t WHERE t.study_id = s.id;
	INSERT INTO tuner.trial (study_id, number, config, state, source)
	VALUES (s.id, v_number, c.config, 'queued', 'manual')
	RETURNING id INTO v_trial;
	RETURN v_trial;
END;
$$;

-- copy_trials' filter, checked: the trial numbers, sources and number of
-- best trials to copy (each NULL when the filter does not say).
CREATE OR REPLACE FUNCTION tuner._copy_filter(filter jsonb,
										OUT numbers int[], OUT sources text[], OUT best int)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	k text;
BEGIN
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
		numbers := ARRAY(SELECT tuner._json_int(e, 'filter "numbers"', 1, 2147483647)
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
		sources := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(filter -> 'sources'));
	END IF;
	IF filter ? 'best' THEN
		best := tuner._json_int(filter -> 'best', 'filter "best"', 1, 2147483647);
	END IF;
END;
$$;

-- Why copy_trials skips trial t of another study rather than copy it into
-- study s (NULL: it copies it): the first problem of its configuration in
-- s's space (problems, from tuner._complete_config), no value of s's
-- objective, or a copy of it already in s.
CREATE OR REPLACE FUNCTION tuner._copy_skip_reason(s tuner.study, t tuner.trial, problems text[])
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
	IF problems IS NOT NULL THEN
		RETURN problems[1];
	ELSIF NOT EXISTS (SELECT 1 FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
					   WHERE ob.trial_id = t.id AND m.name = s.objective) THEN
		RETURN 'no_objective';
	ELSIF EXISTS (SELECT 1 FROM tuner.trial x
				   WHERE x.study_id = s.id AND x.source = 'copied'
					 AND x.details -> 'copied_from' -> 'trial' = pg_catalog.to_jsonb(t.id)) THEN
		RETURN 'already_copied';
	END IF;
	RETURN NULL;
END;
$$;

-- Copy trial t of study f into study s as its next trial, with new_config
-- (t's configuration completed for s's space): a complete trial of source
-- copied with every metric t measured, with its standard error (a metric
-- s does not know yet is recorded, as report does) and a note of where it
-- came from.
CREATE OR REPLACE FUNCTION tuner._copy_trial(f tuner.study, s tuner.study, t tuner.trial, new_config jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	v_number int;
	v_trial bigint;
BEGIN
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
	VALUES (s.id, v_number, new_config, 'running', 'copied', pg_catalog.now(), t.started_at,
			pg_catalog.jsonb_build_object('copied_from', pg_catalog.jsonb_build_object(
				'study', f.name, 'trial', t.id, 'number', t.number)))
	RETURNING id INTO v_trial;
	INSERT INTO tuner.observation (trial_id, metric_id, value, reported_at, std_error)
	SELECT v_trial, mt.id, ob.value, ob.reported_at, ob.std_error
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	  JOIN tuner.metric mt ON mt.study_id = s.id AND mt.name = m.name
	 WHERE ob.trial_id = t.id;
	UPDATE tuner.trial SET state = 'complete', finished_at = t.finished_at
	 WHERE id = v_trial;
END;
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
	v_numbers int[];
	v_sources text[];
	v_best int;
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
	SELECT x.numbers, x.sources, x.best INTO v_numbers, v_sources, v_best
	  FROM tuner._copy_filter(filter) x;
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
		c := tuner._complete_config(s.id, t.config);
		v_reason := tuner._copy_skip_reason(s, t, c.problem);
		IF v_reason IS NOT NULL THEN
			v_reasons := v_reasons || pg_catalog.jsonb_build_object(v_reason,
				COALESCE((v_reasons ->> v_reason)::int, 0) + 1);
			CONTINUE;
		END IF;
		v_defaulted := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_defaulted || c.defaulted) u ORDER BY u);
		v_dropped := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_dropped || c.dropped) u ORDER BY u);

		PERFORM tuner._copy_trial(f, s, t, c.config);
		v_copied := v_copied + 1;
	END LOOP;
	RETURN pg_catalog.jsonb_build_object(
		'copied', v_copied,
		'skipped', (SELECT COALESCE(pg_catalog.sum(e.value::int), 0) FROM pg_catalog.jsonb_each(v_reasons) e),
		'reasons', v_reasons, 'defaulted', v_defaulted, 'dropped', v_dropped);
END;
$$;

-- Trigger: a trial keeps its identity and its confirmation; its context
-- and disturbed flag agree; a finished one (complete, failed, interrupted,
-- pruned) never changes; a running one keeps its configuration and never
-- goes back to queued.
CREATE OR REPLACE FUNCTION tuner._trial_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.id <> OLD.id OR NEW.study_id <> OLD.study_id OR NEW.number <> OLD.number THEN
		RAISE EXCEPTION 'the identity of trial % cannot change', OLD.id
			USING ERRCODE = 'integrity_constraint_violation',
				  HINT = 'A trial keeps its id, study and number.';
	END IF;
	-- What tuner records about a run (confirm.sql, measurement_context.sql)
	-- is set as tuner sets it, by any route (a superuser repairs rows).
	IF NOT tuner._is_superuser() THEN
		IF (NEW.confirms, NEW.confirm_pair) IS DISTINCT FROM (OLD.confirms, OLD.confirm_pair) THEN
			RAISE EXCEPTION 'the confirmation of trial % cannot change', OLD.id
				USING ERRCODE = 'insufficient_privilege',
					  HINT = 'tuner.confirm() sets which trial and pair a confirmation run belongs to when it queues it.';
		END IF;
		IF (NEW.details -> 'context') IS DISTINCT FROM (OLD.details -> 'context')
		   OR NEW.disturbed IS DISTINCT FROM OLD.disturbed THEN
			IF NEW.details -> 'context' IS NOT NULL THEN
				PERFORM tuner._check_context(NEW.details -> 'context');
			END IF;
			IF NEW.disturbed IS DISTINCT FROM tuner._is_disturbed(NEW.details -> 'context', NEW.study_id) THEN
				RAISE EXCEPTION 'trial % is disturbed only as its context and the study''s max_disturbance say', OLD.id
					USING ERRCODE = 'check_violation',
						  HINT = 'The worker, tuner.step and tuner-agent record a trial''s context.';
			END IF;
		END IF;
	END IF;
	IF OLD.state IN ('complete', 'failed', 'interrupted', 'pruned') THEN
		IF NEW.state IS DISTINCT FROM OLD.state
		   OR NEW.config IS DISTINCT FROM OLD.config
		   OR NEW.source IS DISTINCT FROM OLD.source
		   OR NEW.error IS DISTINCT FROM OLD.error
		   OR NEW.seed IS DISTINCT FROM OLD.seed
		   OR NEW.created_at IS DISTINCT FROM OLD.created_at
		   OR NEW.started_at IS DISTINCT FROM OLD.started_at
		   OR NEW.finished_at IS DISTINCT FROM OLD.finished_at THEN
			RAISE EXCEPTION 'trial % is % and cannot change', OLD.id, OLD.state
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('It is trial number %s of study "%s".', OLD.number,
												 (SELECT s.name FROM tuner.study s WHERE s.id = OLD.study_id)),
					  HINT = 'A finished trial is immutable; ask tuner.suggest_next() for a new one.';
		END IF;
		RETURN NEW;
	END IF;
	IF NEW.config IS DISTINCT FROM OLD.config AND OLD.state <> 'queued' THEN
		RAISE EXCEPTION 'the configuration of running trial % cannot change', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report or fail the trial, and ask tuner.suggest_next() for a new configuration.';
	END IF;
	IF OLD.state = 'running' AND NEW.state = 'queued' THEN
		RAISE EXCEPTION 'running trial % cannot go back to queued', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'A running trial ends as complete, failed, interrupted or pruned.';
	END IF;
	IF NEW.state = 'complete' AND NOT EXISTS (
			SELECT 1 FROM tuner.observation o
			  JOIN tuner.metric m ON m.id = o.metric_id
			  JOIN tuner.study s ON s.id = m.study_id AND m.name = s.objective
			 WHERE o.trial_id = NEW.id) THEN
		RAISE EXCEPTION 'trial % cannot be complete without a value of its objective', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Use tuner.report(), which records the metrics and completes the trial.';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_guard BEFORE UPDATE ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_guard();

-- Observations are written once: never changed, removed only with their
-- trial, study or metric, and never added to a failed or interrupted
-- trial (see above for why complete trials accept inserts).
CREATE OR REPLACE FUNCTION tuner._observation_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_state text;
	v_trial bigint := CASE TG_OP WHEN 'INSERT' THEN NEW.trial_id ELSE OLD.trial_id END;
BEGIN
	SELECT state INTO v_state FROM tuner.trial WHERE id = v_trial;
	IF TG_OP = 'DELETE' THEN
		IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM tuner.metric WHERE id = OLD.metric_id) THEN
			RETURN OLD;		-- the trial, study or metric is being deleted
		END IF;
		IF v_state IN ('running', 'queued') THEN
			RETURN OLD;
		END IF;
	ELSIF TG_OP = 'INSERT' AND (v_state IN ('running', 'queued', 'complete') OR NOT FOUND) THEN
		RETURN NEW;			-- an unknown trial is the foreign key's error
	END IF;
	RAISE EXCEPTION 'the observations of trial % cannot change: it is %', v_trial, v_state
		USING ERRCODE = 'object_not_in_prerequisite_state',
			  HINT = 'Metrics are recorded once, by tuner.report() while the trial runs.';
END;
$$;

CREATE TRIGGER observation_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.observation
	FOR EACH ROW EXECUTE FUNCTION tuner._observation_guard();

-- Renew the lease of a running trial; returns when it now expires.
CREATE OR REPLACE FUNCTION tuner.heartbeat(trial bigint)
RETURNS timestamptz
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	PERFORM tuner._reap_of_trial(p_trial);
	SELECT * INTO t FROM tuner.trial WHERE tuner.trial.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial(p_trial);
	END IF;
	IF t.state <> 'running' THEN
		RAISE EXCEPTION 'trial % is % and has no lease to renew', p_trial, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  -- (never NULL: a NULL option makes RAISE fail with another
				  -- error, which rolled back the reap above and left a trial of
				  -- a crashed server running under its agent)
				  DETAIL = CASE WHEN t.error = 'lease expired'
							   THEN 'Its lease expired before this heartbeat.'
							   WHEN t.error IS NOT NULL
							   THEN pg_catalog.format('It ended: %s', t.error)
							   ELSE pg_catalog.format('It is %s.', t.state) END,
				  HINT = 'Only a running trial takes heartbeats; ask tuner.suggest_next() for a trial to run.';
	END IF;
	PERFORM tuner._worker_heartbeat(p_trial);
	SELECT lease_expires_at INTO t.lease_expires_at FROM tuner.trial WHERE id = p_trial;
	RETURN t.lease_expires_at;
END;
$$;

-------------------------------------------------------------------------------
-- Trial ids and trial numbers, told apart.
--
-- A trial has an id (unique in the database, what suggest_next returns and
-- every function taking a trial expects) and a number (its place in its
-- study, what progress and the views show first).  Passing a number where
-- an id is expected is an easy mistake, and "trial 7 does not exist" did
-- not say which was meant; with another study's trial 7 present, the call
-- even acted on that trial if the caller could write it.  tuner.trial_id
-- finds the id of a study's trial number, and the error for an unknown id
-- says "trial id" and names the trial with that number when there is one.
-------------------------------------------------------------------------------

-- The id of trial number "number" of a study.
CREATE OR REPLACE FUNCTION tuner.trial_id(study text, number int)
RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v_id bigint;
	v_last int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'number');
	SELECT t.id INTO v_id FROM tuner.trial t WHERE t.study_id = s.id AND t.number = $2;
	IF NOT FOUND THEN
		SELECT pg_catalog.max(t.number) INTO v_last FROM tuner.trial t WHERE t.study_id = s.id;
		RAISE EXCEPTION 'study "%" has no trial number %', s.name, $2
			USING ERRCODE = 'undefined_object',
				  DETAIL = CASE WHEN v_last IS NULL THEN 'It has no trials yet.'
								ELSE pg_catalog.format('Its trials are numbered 1 to %s.', v_last) END;
	END IF;
	RETURN v_id;
END;
$$;

-- The error for a trial id that matches no trial the caller can see.
CREATE OR REPLACE FUNCTION tuner._no_such_trial(trial bigint)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_study text;
	v_id bigint;
	v_hint text := 'Pass the trial''s id, as tuner.suggest_next() returns it in "trial"; tuner.trial_id(study, number) gives the id of a trial number.';
BEGIN
	-- a trial of that number, in a study the caller can see
	SELECT s.name, t.id INTO v_study, v_id
	  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
	 WHERE t.number = $1 AND $1 <= 2147483647
	 ORDER BY t.id DESC LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'trial id % does not exist', $1
			USING ERRCODE = 'undefined_object',
				  DETAIL = pg_catalog.format('Trial number %s of study "%s" has id %s.', $1, v_study, v_id),
				  HINT = v_hint;
	END IF;
	RAISE EXCEPTION 'trial id % does not exist', $1
		USING ERRCODE = 'undefined_object',
			  HINT = v_hint;
END;
$$;
