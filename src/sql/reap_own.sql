-------------------------------------------------------------------------------
-- A non-superuser's tuner.reap() reconciles its own jobs and trials after
-- a crash restart (issue 25 a).
--
-- tuner._reconcile took the time of the last (re)start from
-- pg_stat_activity: the later of the postmaster's start and the
-- checkpointer's.  pg_stat_activity hides backend_type and backend_start
-- of other roles' processes (the checkpointer's too) from a role without
-- pg_read_all_stats, so for a tuner_user a crash restart went unseen: its
-- reap left the job of a crashed tuner.run 'running' and called the
-- crashed trial's error 'worker exited'; only a superuser's reap fixed
-- them.  The same hiding made a server process of another role that
-- reused a trial's pid look older than the trial, so its trial was kept
-- running.  Both times now come from the library (src/pg/
-- server_lifetime.c), which reads them for every process and returns
-- only times.  What a caller changes is unchanged: its UPDATEs still go
-- through row-level security, so a role reconciles the jobs and trials of
-- the studies it may write and no other.
-------------------------------------------------------------------------------

-- When the server last started or restarted after a crash (the later of
-- the postmaster's start and the checkpointer's), whoever asks.
CREATE FUNCTION tuner._server_started_at()
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_server_started_at';

-- When the live server process with this pid started; NULL when there is
-- none.  Whoever asks: pg_stat_activity hides it for other roles.
CREATE FUNCTION tuner._backend_started_at(pid int)
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_backend_started_at';

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise, and queue their
-- retries.  A trial counts as run by the server when it records
-- worker_pid (tuner.run workers and tuner.step); trials of a live process
-- (same pid, started no later than the trial) are never touched.  Jobs
-- left running by an earlier server lifetime are marked as well.  Only
-- rows the caller may write change (row-level security).  Returns how
-- many trials it marked.
CREATE OR REPLACE FUNCTION tuner._reconcile()
RETURNS int
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
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
	-- The backend status snapshot is cached per transaction: take it afresh.
	PERFORM pg_catalog.pg_stat_clear_snapshot();
	v_restart := tuner._server_started_at();
	WITH gone AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted',
			   finished_at = pg_catalog.now(),
			   error = CASE WHEN t.started_at < v_restart
						   THEN 'server restarted' ELSE 'worker exited' END
		 WHERE t.state = 'running' AND t.worker_pid IS NOT NULL
		   AND NOT COALESCE(tuner._backend_started_at(t.worker_pid)
							<= COALESCE(t.started_at, 'infinity'), false)
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(g.id ORDER BY g.id) INTO v_ids FROM gone g;
	n := COALESCE(pg_catalog.cardinality(v_ids), 0);
	PERFORM tuner._queue_retries(v_ids);
	-- jobs started before the restart (bookkeeping_writes.sql)
	PERFORM tuner._job_mark_interrupted();
	RETURN n;
END;
$$;
