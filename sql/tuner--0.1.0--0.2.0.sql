/*
 * tuner--0.1.0--0.2.0.sql
 *	  Update from 0.1.0, the first released version (sql/tuner--0.1.0.sql,
 *	  which never changes again), to 0.2.0.  CREATE EXTENSION tuner runs
 *	  0.1.0's script and then this one, so fresh installs and updated ones
 *	  are the same; tests/upgrade.sh checks that, and that a 0.1.0
 *	  database keeps every row through ALTER EXTENSION tuner UPDATE.
 *	  Changes after 0.1.0 go here, at the end, each under a header saying
 *	  why.
 */

-- complain if script is sourced in psql, rather than through ALTER EXTENSION
\echo Use "ALTER EXTENSION tuner UPDATE TO '0.2.0'" to load this file. \quit

-------------------------------------------------------------------------------
-- Crashed trials are found by tuner.reap() and retried.
--
-- In 0.1.0 a trial whose server process died without cleanup (a killed
-- background worker, a crash, an immediate shutdown) was marked
-- interrupted only when someone next called tuner.suggest_next or
-- tuner.run, and was never retried; a trial whose lease expired was
-- reaped by tuner.reap() and retried.  Both are trials the
-- infrastructure lost, so both are now found by tuner.reap() (and hence
-- by a pg_cron schedule of it, by report, heartbeat and suggest_next) and
-- retried alike, up to the study's max_retries (default 1), with the
-- lineage in retry_of.
-------------------------------------------------------------------------------

-- Running trials with a server process, so that the check for them costs
-- an index probe: reap() runs it on every report and heartbeat.
CREATE INDEX trial_worker_running_idx ON tuner.trial (worker_pid)
	WHERE state = 'running' AND worker_pid IS NOT NULL;

-- Queue one retry of each of the given interrupted trials (same
-- configuration, retry_of = the trial) while its lineage has fewer than
-- its study's max_retries retries.  Returns how many it queued.
CREATE FUNCTION tuner._queue_retries(trials bigint[])
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
			INSERT INTO tuner.trial (study_id, number, config, state, source, seed, retry_of)
			VALUES (v_old.study_id, v_number, v_old.config, 'queued', v_old.source,
					v_old.seed, v_old.id);
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END;
$$;

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise, and queue their
-- retries.  A trial counts as run by the server when it records
-- worker_pid (tuner.run workers and tuner.step); trials of a live process
-- (same pid, started no later than the trial) are never touched.  Jobs
-- left running by an earlier server lifetime are marked as well.
-- Returns how many trials it marked.
CREATE OR REPLACE FUNCTION tuner._reconcile()
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	n int := 0;
	v_restart timestamptz;
	v_ids bigint[];
BEGIN
	-- The common case, nothing running on the server, costs two probes.
	IF NOT EXISTS (SELECT 1 FROM tuner.trial WHERE state = 'running' AND worker_pid IS NOT NULL)
	   AND NOT EXISTS (SELECT 1 FROM tuner.job WHERE state = 'running') THEN
		RETURN 0;
	END IF;
	-- pg_stat_activity is cached per transaction: look at it afresh.
	PERFORM pg_catalog.pg_stat_clear_snapshot();
	-- When the server last (re)started: a crash restart keeps the
	-- postmaster's start time but starts a new checkpointer.
	v_restart := GREATEST(pg_catalog.pg_postmaster_start_time(),
						  (SELECT pg_catalog.min(a.backend_start)
							 FROM pg_catalog.pg_stat_activity a
							WHERE a.backend_type = 'checkpointer'));
	WITH gone AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted',
			   finished_at = pg_catalog.now(),
			   error = CASE WHEN t.started_at < v_restart
						   THEN 'server restarted' ELSE 'worker exited' END
		 WHERE t.state = 'running' AND t.worker_pid IS NOT NULL
		   AND NOT EXISTS (
				SELECT 1 FROM pg_catalog.pg_stat_activity a
				 WHERE a.pid = t.worker_pid
				   AND (a.backend_start IS NULL OR t.started_at IS NULL
						OR a.backend_start <= t.started_at))
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(g.id ORDER BY g.id) INTO v_ids FROM gone g;
	n := COALESCE(pg_catalog.cardinality(v_ids), 0);
	PERFORM tuner._queue_retries(v_ids);
	UPDATE tuner.job
	   SET state = 'interrupted', finished_at = pg_catalog.now(),
		   error = COALESCE(error, 'server restarted')
	 WHERE state = 'running' AND created_at < v_restart;
	RETURN n;
END;
$$;

-- Mark the running trials that the infrastructure lost as interrupted, of
-- one study or (NULL) of all, and queue their retries: those whose lease
-- expired ("lease expired"; trials locked by a report or heartbeat in
-- progress are left to it) and, of every study, those whose server
-- process is gone (tuner._reconcile).  Returns how many trials it
-- interrupted.
CREATE OR REPLACE FUNCTION tuner.reap(study text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study_id bigint;
	v_ids bigint[];
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
	PERFORM tuner._queue_retries(v_ids);
	RETURN n + COALESCE(pg_catalog.cardinality(v_ids), 0);
END;
$$;

-------------------------------------------------------------------------------
-- Notifications no longer broadcast what row-level security protects.
--
-- In 0.1.0 every NOTIFY tuner_trials payload carried the study's name and
-- the trial's objective value, and any role may LISTEN, so a role that
-- cannot see a study still read its results.  The payload now carries
-- ids and the state (a listener reads the rest from tuner.trials, where
-- row-level security applies) unless a superuser sets tuner.notify to
-- 'full' (the 0.1.0 payload: for a database with one tenant) or 'off'.
-------------------------------------------------------------------------------

-- tuner.notify's value (private, full or off), validated by the library.
CREATE FUNCTION tuner._notify_mode()
RETURNS text
LANGUAGE C STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'tuner_notify_mode';

-- Trigger: a trial finished (complete, failed or interrupted, however it
-- got there: report, fail, a runner, a worker, a restart, copy_trials).
-- NOTIFY tuner_trials with {"study_id", "trial", "number", "state"}, and
-- with tuner.notify = 'full' also "study" (its name) and "value" (the
-- objective, null unless complete).
CREATE OR REPLACE FUNCTION tuner._notify_trial()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_mode text := tuner._notify_mode();
	v_payload jsonb;
	s tuner.study;
BEGIN
	IF v_mode = 'off' THEN
		RETURN NULL;
	END IF;
	v_payload := pg_catalog.jsonb_build_object(
		'study_id', NEW.study_id, 'trial', NEW.id, 'number', NEW.number, 'state', NEW.state);
	IF v_mode = 'full' THEN
		SELECT * INTO s FROM tuner.study x WHERE x.id = NEW.study_id;
		v_payload := v_payload || pg_catalog.jsonb_build_object(
			-- a payload holds at most 8000 bytes
			'study', pg_catalog.left(s.name, 1000),
			'value', (SELECT ob.value FROM tuner.observation ob
						JOIN tuner.metric m ON m.id = ob.metric_id
					   WHERE ob.trial_id = NEW.id AND m.study_id = s.id
						 AND m.name = s.objective));
	END IF;
	PERFORM pg_catalog.pg_notify('tuner_trials', v_payload::text);
	RETURN NULL;
END;
$$;
