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
CREATE FUNCTION tuner.trial_id(study text, number int)
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
CREATE FUNCTION tuner._no_such_trial(trial bigint)
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
				  DETAIL = CASE WHEN t.error = 'lease expired'
							   THEN 'Its lease expired before this heartbeat.' END,
				  HINT = 'Only a running trial takes heartbeats; ask tuner.suggest_next() for a trial to run.';
	END IF;
	PERFORM tuner._worker_heartbeat(p_trial);
	SELECT lease_expires_at INTO t.lease_expires_at FROM tuner.trial WHERE id = p_trial;
	RETURN t.lease_expires_at;
END;
$$;
