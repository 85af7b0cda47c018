-------------------------------------------------------------------------------
-- Abandoned ask/tell trials end, and tuner.progress says who is silent
-- (issue 26, item 8).
--
-- A plain suggest_next trial of a study without lease_s holds no lease
-- (an ask/tell client may run a trial for hours without heartbeats), so
-- nothing ever ended one whose client went away: tuner.progress listed it
-- forever, with alive = false like a crashed worker's, and its
-- configuration counted as running in every later suggestion.  The study
-- setting abandon_after_s (seconds, no default: never) now ends such a
-- trial: reap marks a running trial without a lease whose last sign of
-- life (its start, or its last heartbeat) is older than that interrupted,
-- error "abandoned", and queues its retry as it does for an expired
-- lease.  tuner.progress leaves out what reap would end, shows alive NULL
-- for a trial no server process runs (there is no process to ask), and
-- gains last_seen and silent_for (the time since the last sign of life),
-- so a silent trial stands out with or without the setting.  Its
-- best_value is tuner.best's (src/sql/best.sql).
-------------------------------------------------------------------------------

-- The check of one setting that is a number of seconds: a JSON number
-- above 0 (or at least 0 with zero_ok) and at most high; hint, when not
-- NULL, goes with the error for a value that is not a number.
CREATE FUNCTION tuner._check_seconds_setting(settings jsonb, name text,
											 zero_ok bool, high int,
											 hint text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v float8;
BEGIN
	IF NOT settings ? name THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(settings -> name) IS DISTINCT FROM 'number' THEN
		IF hint IS NULL THEN
			RAISE EXCEPTION 'setting % must be a number of seconds', name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> name);
		END IF;
		RAISE EXCEPTION 'setting % must be a number of seconds', name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> name),
				  HINT = hint;
	END IF;
	v := (settings -> name)::float8;
	IF v < 0 OR (v = 0 AND NOT zero_ok) OR v > high THEN
		RAISE EXCEPTION 'setting % must be between 0 and % seconds', name, high
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> name);
	END IF;
END;
$$;

-- Check the settings that control how trials are run: trial_timeout_s,
-- kill_grace_s (seconds, numbers), the lease and retry settings lease_s,
-- max_retries and abandon_after_s, and runner (an object passed to the
-- runner as "_settings").  create_study and every change of a study's
-- settings (tuner._check_changed_settings) call it.
CREATE OR REPLACE FUNCTION tuner._check_run_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	PERFORM tuner._check_seconds_setting(settings, 'trial_timeout_s', false, 1000000);
	PERFORM tuner._check_seconds_setting(settings, 'kill_grace_s', true, 3600);
	-- Leases and retries (tuner.heartbeat, tuner.reap).
	PERFORM tuner._check_seconds_setting(settings, 'lease_s', false, 1000000,
		'A running trial not renewed by tuner.heartbeat() for this long is interrupted; the default is 300.');
	PERFORM tuner._check_seconds_setting(settings, 'abandon_after_s', false, 1000000,
		'A running trial without a lease that shows no sign of life for this long is interrupted by tuner.reap(); without the setting it runs until reported.');
	IF settings ? 'max_retries' THEN
		PERFORM tuner._json_int(settings -> 'max_retries', 'setting max_retries', 0, 100);
	END IF;
	-- How busy the machine may be during a trial (measurement_context.sql).
	IF settings ? 'max_disturbance' AND (pg_catalog.jsonb_typeof(settings -> 'max_disturbance') IS DISTINCT FROM 'number'
		OR (settings ->> 'max_disturbance')::float8 <= 0 OR (settings ->> 'max_disturbance')::float8 > 1) THEN
		RAISE EXCEPTION 'setting max_disturbance must be a number above 0 and at most 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'max_disturbance'),
				  HINT = 'It is the share of the machine''s CPU other processes may use while a trial runs before the trial counts as disturbed; the default is 0.25.';
	END IF;
	-- Early stopping (pruning.sql).
	PERFORM tuner._check_pruning(settings -> 'pruning');
	IF settings ? 'retry_disturbed' AND pg_catalog.jsonb_typeof(settings -> 'retry_disturbed') IS DISTINCT FROM 'boolean' THEN
		RAISE EXCEPTION 'setting retry_disturbed must be true or false'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'retry_disturbed');
	END IF;
	IF settings ? 'runner' AND pg_catalog.jsonb_typeof(settings -> 'runner') IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'setting runner must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'runner'),
				  HINT = 'It holds the runner''s own settings, for example {"runner": {"duration": 30}}; name the runner with create_study(runner => ...) or tuner.set_runner().';
	END IF;
END;
$$;

-- The last sign of life of a running trial: its last heartbeat, else its
-- start (else its creation).
CREATE FUNCTION tuner._last_seen(t tuner.trial)
RETURNS timestamptz
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(GREATEST(t.heartbeat_at, t.started_at), t.created_at);
$$;

-- Is a running trial abandoned: without a lease, of a study that sets
-- abandon_after_s, and silent for longer than that (on the clock now,
-- hence volatile)?
CREATE FUNCTION tuner._is_abandoned(t tuner.trial, settings jsonb)
RETURNS bool
LANGUAGE sql VOLATILE
AS $$
SELECT t.state = 'running' AND t.lease_expires_at IS NULL
   AND COALESCE(pg_catalog.clock_timestamp() - tuner._last_seen(t)
				> pg_catalog.make_interval(secs => (settings ->> 'abandon_after_s')::float8), false);
$$;

-- Mark the running trials that the infrastructure lost as interrupted, of
-- one study or (NULL) of all, and queue their retries: those whose lease
-- expired ("lease expired"), those without a lease silent for longer than
-- their study's abandon_after_s ("abandoned"; trials locked by a report
-- or heartbeat in progress are left to it) and, of every study, those
-- whose server process is gone (tuner._reconcile).  Returns how many
-- trials it interrupted.
CREATE OR REPLACE FUNCTION tuner.reap(study text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study_id bigint;
	v_ids bigint[];
	v_abandoned bigint[];
	n int;
BEGIN
	IF $1 IS NOT NULL THEN
		v_study_id := (tuner._find_study($1)).id;
	END IF;
	n := tuner._reconcile();
	WITH expired AS (
		SELECT t.id FROM tuner.trial t
		 WHERE t.state = 'running'
		   AND t.lease_expires_at < pg_catalog.clock_timestamp()
		   AND (v_study_id IS NULL OR t.study_id = v_study_id)
		 ORDER BY t.id
		   FOR NO KEY UPDATE SKIP LOCKED
	), reaped AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted', error = 'lease expired',
			   finished_at = pg_catalog.clock_timestamp()
		  FROM expired e
		 WHERE t.id = e.id AND t.state = 'running'
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(r.id ORDER BY r.id) INTO v_ids FROM reaped r;
	WITH silent AS (
		SELECT t.id FROM tuner.trial t
		  JOIN tuner.study s ON s.id = t.study_id
		 WHERE t.state = 'running' AND t.lease_expires_at IS NULL
		   AND s.settings ? 'abandon_after_s'
		   AND tuner._is_abandoned(t, s.settings)
		   AND (v_study_id IS NULL OR t.study_id = v_study_id)
		 ORDER BY t.id
		   FOR NO KEY UPDATE OF t SKIP LOCKED
	), reaped AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted', error = 'abandoned',
			   finished_at = pg_catalog.clock_timestamp()
		  FROM silent e
		 WHERE t.id = e.id AND t.state = 'running' AND t.lease_expires_at IS NULL
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(r.id ORDER BY r.id) INTO v_abandoned FROM reaped r;
	v_ids := COALESCE(v_ids, '{}') || COALESCE(v_abandoned, '{}');
	PERFORM tuner._queue_retries(v_ids);
	RETURN n + pg_catalog.cardinality(v_ids);
END;
$$;

-- What is running now: one row per running trial that can still finish,
-- with how long it has run, when it last showed a sign of life and the
-- study's best value (tuner.best's).  It reaps first (reap's changes are
-- not in the view's snapshot, so what reap ends is also left out by the
-- filter: an expired lease, an abandoned trial).
CREATE OR REPLACE VIEW tuner.progress WITH (security_invoker = true) AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.worker,
	   t.worker_pid AS pid,
	   t.job_id AS job,
	   t.config AS params,
	   t.started_at,
	   pg_catalog.now() - t.started_at AS elapsed,
	   CASE WHEN t.worker_pid IS NOT NULL THEN
			EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
					 WHERE a.pid = t.worker_pid) END AS alive,
	   (SELECT pg_catalog.count(*) FROM tuner.trial c
		 WHERE c.study_id = s.id AND c.state = 'complete') AS complete,
	   (SELECT b.value FROM tuner._best_trial(s.id) b) AS best_value,
	   t.heartbeat_at,
	   t.lease_expires_at,
	   tuner._last_seen(t) AS last_seen,
	   pg_catalog.clock_timestamp() - tuner._last_seen(t) AS silent_for
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
 WHERE t.state = 'running'
   AND (SELECT tuner._reap_if_writable()) IS NOT NULL
   AND (t.lease_expires_at IS NULL OR t.lease_expires_at >= pg_catalog.clock_timestamp())
   AND NOT tuner._is_abandoned(t, s.settings);

COMMENT ON VIEW tuner.progress IS
	'Running trials that can still finish: study, worker, elapsed time, the last sign of life and the study''s best value (tuner.best''s)';
COMMENT ON COLUMN tuner.progress.alive IS
	'Whether the server process running the trial still exists; NULL for a trial no server process runs (ask/tell, a remote agent)';
COMMENT ON COLUMN tuner.progress.last_seen IS
	'The trial''s last sign of life: its last heartbeat, else its start';
COMMENT ON COLUMN tuner.progress.silent_for IS
	'Time since last_seen; a trial without a lease silent for longer than its study''s abandon_after_s is reaped as abandoned';
