/*
 * confirm.sql
 *	  Confirmation runs: a configuration measured again against the study's
 *	  baseline, and the confirmed ratio with its interval.
 */

-- A retry of an interrupted confirmation run stays in its pair.
CREATE OR REPLACE FUNCTION tuner._queue_retries(trials bigint[])
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_old tuner.trial;
	v_max int;
	v_number int;
	n int := 0;
	i bigint;
BEGIN
	FOREACH i IN ARRAY COALESCE($1, '{}')
	LOOP
		SELECT * INTO v_old FROM tuner.trial WHERE id = i;
		SELECT COALESCE((s.settings ->> 'max_retries')::int, 1) INTO v_max
		  FROM tuner.study s WHERE s.id = v_old.study_id
		   FOR NO KEY UPDATE;	-- numbers are given out under this lock
		IF tuner._retry_depth(i) < v_max THEN
			SELECT pg_catalog.max(t.number) + 1 INTO v_number
			  FROM tuner.trial t WHERE t.study_id = v_old.study_id;
			INSERT INTO tuner.trial (study_id, number, config, state, source, seed, retry_of,
									 confirms, confirm_pair)
			VALUES (v_old.study_id, v_number, v_old.config, 'queued', v_old.source,
					v_old.seed, v_old.id, v_old.confirms, v_old.confirm_pair);
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END;
$$;

-- The t interval and test of a mean (src/core/mean_interval.c).
CREATE OR REPLACE FUNCTION tuner._mean_interval(x float8[], level float8,
									 OUT n int, OUT mean float8, OUT sd float8,
									 OUT low float8, OUT high float8,
									 OUT p_value float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_mean_interval_sql'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Trigger: a confirmation run names a trial of its own study.
CREATE OR REPLACE FUNCTION tuner._trial_confirms_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.confirms IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM tuner.trial t
		 WHERE t.id = NEW.confirms AND t.study_id = NEW.study_id) THEN
		RAISE EXCEPTION 'trial % is not a trial of the same study', NEW.confirms
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Queue confirmation runs with tuner.confirm().';
	END IF;
	IF (NEW.confirms IS NULL) <> (NEW.confirm_pair IS NULL)
	   OR (NEW.confirms IS NOT NULL) <> (NEW.source IN ('confirm', 'baseline')) THEN
		RAISE EXCEPTION 'a confirmation run names the trial it confirms and its pair, and only a confirmation run does'
			USING ERRCODE = 'check_violation',
				  HINT = 'Queue confirmation runs with tuner.confirm().';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_confirms_guard
	BEFORE INSERT OR UPDATE OF confirms, confirm_pair, source ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_confirms_guard();

-- Queue confirmation runs of a trial's configuration (default: the one
-- tuner.recommend picks): pairs of them, each paired with the baseline
-- (see above; paired NULL: as the study's runner setting "paired" says).
-- Returns how many trials it queued; tuner.run(study, that number), step
-- or agents run them, and tuner.confirmation reports the result.
CREATE OR REPLACE FUNCTION tuner.confirm(study text, trial bigint DEFAULT NULL,
							  pairs int DEFAULT 5, paired bool DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	t tuner.trial;
	sp record;
	c record;
	v_paired bool;
	v_baseline jsonb;
	v_number int;
	v_target bigint := $2;
	v_first_pair int;
	v_earlier_plain bool;
	n int := 0;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(pairs, 'pairs');
	IF pairs < 2 OR pairs > 100 THEN
		RAISE EXCEPTION 'pairs must be between 2 and 100'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pairs),
				  HINT = 'An interval needs at least 2 pairs; 3 to 10 are usual.';
	END IF;
	IF tuner._is_multiobjective(s.id) THEN
		RAISE EXCEPTION 'study "%" has several objectives, which a confirmation cannot compare', s.name
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Confirm a study with one objective.';
	END IF;
	-- the same lock as suggest_next and enqueue: trial numbers are max + 1
	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	IF v_target IS NULL THEN
		SELECT r.trial INTO v_target FROM tuner.recommend(s.name) r;
		IF v_target IS NULL THEN
			RAISE EXCEPTION 'study "%" has no complete trial to confirm', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'Report trials first, or pass the trial to confirm.';
		END IF;
	END IF;
	SELECT * INTO t FROM tuner.trial x WHERE x.id = v_target;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial(v_target);
	END IF;
	IF t.study_id <> s.id THEN
		RAISE EXCEPTION 'trial % is not a trial of study "%"', v_target, s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'tuner.trial_id(study, number) gives the id of a trial number.';
	END IF;
	-- a confirmation run (recommend may pick one) stands for the trial it
	-- confirms; a baseline run measures the baseline, nothing to confirm
	IF t.source = 'confirm' THEN
		SELECT * INTO t FROM tuner.trial x WHERE x.id = t.confirms;
	ELSIF t.source = 'baseline' THEN
		RAISE EXCEPTION 'trial % is a baseline run of a confirmation', t.id
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Confirm the study''s default trial to compare the baseline with itself.';
	END IF;
	IF t.state <> 'complete' THEN
		RAISE EXCEPTION 'trial % is %, not complete', t.id, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Confirm a trial that ran to the end.';
	END IF;
	-- the configuration as the study's space has it now (select_top or
	-- add_parameter may have changed the space since)
	c := tuner._complete_config(s.id, t.config);
	IF c.problem IS NOT NULL OR pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'the configuration of trial % no longer fits study "%"', t.id, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = COALESCE(c.problem[2],
									pg_catalog.format('Parameter "%s" is no longer in the study.', c.dropped[1]));
	END IF;
	v_paired := COALESCE(paired, (s.settings #>> '{runner,paired}')::bool, false);
	IF NOT v_paired THEN
		-- the baseline: the study's default configuration, as measured by
		-- its default trial, or as its parameters' defaults give it
		SELECT x.config INTO v_baseline FROM tuner.trial x
		 WHERE x.study_id = s.id AND x.source = 'default' ORDER BY x.number LIMIT 1;
		IF v_baseline IS NULL THEN
			sp := tuner._space(s.id);
			IF sp.all_defaults THEN
				v_baseline := sp.default_config;
			END IF;
		END IF;
		IF v_baseline IS NULL THEN
			RAISE EXCEPTION 'study "%" has no baseline configuration to confirm against', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = 'Not every parameter has a default, and no trial measured the default configuration.',
					  HINT = 'Give every parameter a default (tuner.add_parameter''s default_value), or pass paired => true when each trial''s objective is already a ratio to a baseline.';
		END IF;
		v_baseline := (tuner._complete_config(s.id, v_baseline)).config;
	END IF;
	-- confirming again adds pairs to the earlier ones, of the same kind
	SELECT COALESCE(pg_catalog.max(x.confirm_pair), 0),
		   pg_catalog.bool_or(x.source = 'baseline')
	  INTO v_first_pair, v_earlier_plain
	  FROM tuner.trial x WHERE x.study_id = s.id AND x.confirms = t.id;
	IF v_earlier_plain IS NOT NULL AND v_earlier_plain = v_paired THEN
		RAISE EXCEPTION 'trial % was confirmed % before', t.id,
			  CASE WHEN v_earlier_plain THEN 'against baseline runs' ELSE 'paired' END
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = pg_catalog.format('Pass paired => %s to add pairs of the same kind.',
										 CASE WHEN v_earlier_plain THEN 'false' ELSE 'true' END);
	END IF;
	SELECT COALESCE(pg_catalog.max(x.number), 0) INTO v_number
	  FROM tuner.trial x WHERE x.study_id = s.id;
	FOR i IN v_first_pair + 1 .. v_first_pair + pairs
	LOOP
		-- ABBA: odd pairs run the baseline first, even pairs second
		IF NOT v_paired AND i % 2 = 1 THEN
			v_number := v_number + 1;
			INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
			VALUES (s.id, v_number, v_baseline, 'queued', 'baseline', t.id, i);
		END IF;
		v_number := v_number + 1;
		INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
		VALUES (s.id, v_number, c.config, 'queued', 'confirm', t.id, i);
		IF NOT v_paired AND i % 2 = 0 THEN
			v_number := v_number + 1;
			INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
			VALUES (s.id, v_number, v_baseline, 'queued', 'baseline', t.id, i);
		END IF;
		n := n + CASE WHEN v_paired THEN 1 ELSE 2 END;
	END LOOP;
	RETURN n;
END;
$$;

-- Per confirmed trial: its complete pairs, their geometric mean ratio
-- (configuration / baseline) with the 95 % t interval on the log ratios,
-- the p-value against no change, the change in percent with its interval,
-- and the verdict in the study's direction: 'improvement' or
-- 'regression' when the interval excludes no change, 'no change shown'
-- when it does not, 'too few pairs' below 2.  Runs still queued or
-- running count as pending, failed and interrupted ones as lost (a retry
-- of an interrupted run takes its place); disturbed counts the pairs with
-- a run during which the machine was busy (measurement_context.sql).  A ratio needs positive values:
-- a pair with a value <= 0 is counted as unusable.
CREATE OR REPLACE FUNCTION tuner.confirmation(study text)
RETURNS TABLE (trial bigint, number int, pairs int, ratio float8,
			   ratio_low float8, ratio_high float8, p_value float8,
			   change_pct float8, change_low_pct float8,
			   change_high_pct float8, verdict text, pending int, lost int,
			   unusable int, disturbed int)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v record;
	mi record;
	v_logs float8[];
BEGIN
	s := tuner._find_study($1);
	FOR v IN
		SELECT t.id, t.number FROM tuner.trial t
		 WHERE t.id IN (SELECT x.confirms FROM tuner.trial x WHERE x.study_id = s.id)
		 ORDER BY t.number
	LOOP
		trial := v.id;
		number := v.number;
		WITH runs AS (
			SELECT x.source, x.state, x.confirm_pair AS pair, o.value
			  FROM tuner.trial x
			  LEFT JOIN tuner._trial_outcomes(s.id) o ON o.trial = x.id
			 WHERE x.study_id = s.id AND x.confirms = v.id
		), per_pair AS (
			SELECT r.pair,
				   pg_catalog.max(r.value) FILTER (WHERE r.source = 'confirm' AND r.state = 'complete') AS a,
				   pg_catalog.max(r.value) FILTER (WHERE r.source = 'baseline' AND r.state = 'complete') AS b,
				   pg_catalog.bool_or(r.source = 'baseline') AS plain
			  FROM runs r GROUP BY r.pair
		)
		SELECT pg_catalog.array_agg(pg_catalog.ln(CASE WHEN p.plain THEN p.a / p.b ELSE p.a END) ORDER BY p.pair)
				   FILTER (WHERE p.a > 0 AND (NOT p.plain OR p.b > 0)),
			   pg_catalog.count(*) FILTER (WHERE p.a IS NOT NULL AND (NOT p.plain OR p.b IS NOT NULL)
											AND NOT (p.a > 0 AND (NOT p.plain OR p.b > 0)))::int
		  INTO v_logs, unusable
		  FROM per_pair p;
		SELECT pg_catalog.count(*) FILTER (WHERE x.state IN ('queued', 'running'))::int,
			   pg_catalog.count(*) FILTER (WHERE x.state IN ('failed', 'interrupted'))::int,
			   pg_catalog.count(DISTINCT x.confirm_pair) FILTER (WHERE x.state = 'complete' AND x.disturbed)::int
		  INTO pending, lost, disturbed
		  FROM tuner.trial x WHERE x.study_id = s.id AND x.confirms = v.id;
		pairs := COALESCE(pg_catalog.cardinality(v_logs), 0);
		ratio := NULL; ratio_low := NULL; ratio_high := NULL; p_value := NULL;
		change_pct := NULL; change_low_pct := NULL; change_high_pct := NULL;
		IF pairs = 1 THEN
			ratio := pg_catalog.exp(v_logs[1]);
			change_pct := 100 * (ratio - 1);
		ELSIF pairs >= 2 THEN
			mi := tuner._mean_interval(v_logs, 0.95);
			ratio := pg_catalog.exp(mi.mean);
			ratio_low := pg_catalog.exp(mi.low);
			ratio_high := pg_catalog.exp(mi.high);
			p_value := mi.p_value;
			change_pct := 100 * (ratio - 1);
			change_low_pct := 100 * (ratio_low - 1);
			change_high_pct := 100 * (ratio_high - 1);
		END IF;
		verdict := CASE
			WHEN pairs < 2 THEN 'too few pairs'
			WHEN ratio_low <= 1 AND ratio_high >= 1 THEN 'no change shown'
			WHEN (ratio > 1) = (s.direction = 'maximize') THEN 'improvement'
			ELSE 'regression' END;
		RETURN NEXT;
	END LOOP;
END;
$$;
