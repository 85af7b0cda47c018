-------------------------------------------------------------------------------
-- tuner.run, tuner.stop and the workers change jobs through the fixed
-- statements of bookkeeping_writes.sql; what a new job may be (a study
-- with a runner, the right to run programs, trials and parallel in
-- range) is checked by the job_guard trigger, whichever statement
-- inserts it.
-------------------------------------------------------------------------------

-- tuner.run: check the study, reconcile, and insert the job row (the
-- trigger checks the counts); returns the job id.  Its workers are
-- launched by tuner.run (C).
CREATE OR REPLACE FUNCTION tuner._run_prepare(study text, trials int, parallel int)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._study_with_runner($1);
	PERFORM tuner._not_null(trials, 'trials');
	PERFORM tuner._not_null(parallel, 'parallel');
	PERFORM tuner._reconcile();
	RETURN tuner._job_insert(s.id, trials, parallel);
END;
$$;

-- Ask the background workers of a study to stop.  Each one interrupts its
-- running trial (reason "stopped", its runner is killed) within about a
-- second and exits.  Returns the number of jobs asked to stop.
CREATE OR REPLACE FUNCTION tuner.stop(study text)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	RETURN tuner._job_request_stop(s.id);
END;
$$;

-- Worker: claim the next trial of a job (suggest it and record the
-- worker), or NULL when the job is done or asked to stop.
CREATE OR REPLACE FUNCTION tuner._claim_trial(job bigint, worker text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	j tuner.job;
	v_study text;
	v_trial bigint;
BEGIN
	SELECT * INTO j FROM tuner.job WHERE id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND OR j.state <> 'running' OR j.stop_requested OR j.claimed >= j.trials THEN
		RETURN NULL;
	END IF;
	PERFORM tuner._job_count_claim(j.id);
	SELECT name INTO v_study FROM tuner.study WHERE id = j.study_id;
	v_trial := (tuner.suggest_next(v_study) ->> 'trial')::bigint;
	UPDATE tuner.trial
	   SET worker = $2, worker_pid = pg_catalog.pg_backend_pid(), job_id = j.id
	 WHERE id = v_trial;
	RETURN v_trial;
END;
$$;

-- Worker: one worker of a job has finished (error: why it ended early).
-- The last one marks the job finished, stopped or failed.
CREATE OR REPLACE FUNCTION tuner._job_worker_done(job bigint, error text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
	PERFORM tuner._job_count_worker_done($1, $2);
END;
$$;
