/*
 * workers.sql
 *	  Running trials: tuner.run's background workers, tuner.step, tuner-agent's
 *	  claims, leases, heartbeats and reaping of trials the infrastructure
 *	  lost.
 */

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise, queue their
-- retries and cancel their Slurm jobs (tuner._slurm_cancel_lost).  A trial counts as run by the server when it records
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
	-- their Slurm jobs, which no worker watches any more (slurm.sql)
	PERFORM tuner._slurm_cancel_lost(v_ids);
	-- jobs started before the restart (bookkeeping_writes.sql)
	PERFORM tuner._job_mark_interrupted();
	RETURN n;
END;
$$;

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

-- Start background workers that run trials of a study: trials in all,
-- at most parallel at a time.  Returns at once with the number of workers
-- started; they begin when the calling transaction commits.
-- tuner.progress shows what they do, tuner.stop() stops them.
CREATE OR REPLACE FUNCTION tuner.run(study text, trials int, parallel int DEFAULT 1)
RETURNS int
AS 'MODULE_PATHNAME', 'tuner_run'
LANGUAGE C;

REVOKE ALL ON FUNCTION tuner.run(text, int, int) FROM PUBLIC;

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

-- Worker: is the job asked to stop (or gone)?
CREATE OR REPLACE FUNCTION tuner._job_stop_requested(job bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT COALESCE((SELECT j.stop_requested OR j.state <> 'running'
				   FROM tuner.job j WHERE j.id = $1), true);
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

-- tuner.step: suggest a trial of a study with a runner and record the
-- calling session as its worker.
CREATE OR REPLACE FUNCTION tuner._step_begin(study text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_trial bigint;
BEGIN
	s := tuner._study_with_runner($1);
	IF tuner._study_executor(s.id) = 'slurm' THEN
		RAISE EXCEPTION 'study "%" runs its trials as Slurm jobs (setting executor)', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Run them with tuner.run(), which submits them, or set executor to "local".';
	END IF;
	v_trial := (tuner.suggest_next(s.name) ->> 'trial')::bigint;
	UPDATE tuner.trial
	   SET worker = 'step', worker_pid = pg_catalog.pg_backend_pid()
	 WHERE id = v_trial;
	RETURN v_trial;
END;
$$;

-- What running a trial needs, wherever it runs (a background worker, an
-- agent): the study, the trial's number, the registered runner, its argv
-- (NULLs without one), the JSON written to its stdin (the configuration,
-- "_settings": the runner's registered settings overridden by the
-- study's settings->'runner'; "_trial") and the study's timeouts and
-- lease.  NULLs for no trial.
CREATE OR REPLACE FUNCTION tuner._trial_run_input(trial bigint,
									OUT study text, OUT number int,
									OUT runner text, OUT program text,
									OUT args text[], OUT input text,
									OUT timeout_s float8, OUT grace_s float8,
									OUT lease_s float8)
LANGUAGE sql STABLE
AS $$
SELECT s.name, t.number, r.name, r.program, r.args,
	   (t.config || pg_catalog.jsonb_build_object(
			'_settings', COALESCE(r.settings, '{}') || COALESCE(s.settings -> 'runner', '{}'),
			'_trial', pg_catalog.jsonb_build_object('study', s.name, 'id', t.id,
													'number', t.number)))::text,
	   COALESCE((s.settings ->> 'trial_timeout_s')::float8, 600),
	   COALESCE((s.settings ->> 'kill_grace_s')::float8, 5),
	   tuner._lease_s(s.id)
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN tuner.runner r ON r.name = s.runner
 WHERE t.id = $1;
$$;

-- What a background worker runs for a trial (tuner._trial_run_input);
-- the trial must have a registered runner.
CREATE OR REPLACE FUNCTION tuner._trial_launch(trial bigint,
									OUT study text, OUT number int,
									OUT runner text, OUT program text,
									OUT args text[], OUT input text,
									OUT timeout_s float8, OUT grace_s float8)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	SELECT l.study, l.number, l.runner, l.program, l.args, l.input, l.timeout_s, l.grace_s
	  INTO study, number, runner, program, args, input, timeout_s, grace_s
	  FROM tuner._trial_run_input($1) l;
	IF runner IS NULL THEN
		RAISE EXCEPTION 'trial % has no runner', $1
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
END;
$$;

-- Record what a runner did: the protocol's parser.  exit_code is the
-- runner's exit status (NULL when a signal ended it or it never started),
-- exit_text describes it, stdout and stderr_tail are its output.  When
-- forced_state is set ('failed' or 'interrupted': timeout, stop, cancel)
-- the output is not parsed and forced_reason becomes the error.  Failures
-- of the protocol (invalid JSON, missing objective, a non-numeric metric)
-- mark the trial failed with the reason; nothing raises.  The output's
-- "_std_error" goes to report with the metrics (a bad one fails the trial
-- as a bad metric does); its other "_" keys go to the trial's details.
-- Returns {"trial", "number", "state", "value", "error"}.
CREATE OR REPLACE FUNCTION tuner._finish_trial(trial bigint, exit_code int, exit_text text,
									stdout text, stderr_tail text,
									elapsed_s float8, forced_state text,
									forced_reason text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	t tuner.trial;
	s tuner.study;
	v_details jsonb;
	v_out jsonb;
	v_metrics jsonb := '{}';
	v_extras jsonb := '{}';
	v_reason text;
	v_state text;
	v_snippet text;
	k text;
	v jsonb;
BEGIN
	SELECT * INTO t FROM tuner.trial WHERE id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT * INTO s FROM tuner.study WHERE id = t.study_id;
	v_details := pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
		'exit', exit_text,
		'exit_code', exit_code,
		'elapsed_s', pg_catalog.round(elapsed_s::numeric, 3),
		'stderr', NULLIF(stderr_tail, '')));
	IF t.state <> 'running' THEN
		-- Someone else finished it (tuner.fail, reconciliation): keep theirs.
		UPDATE tuner.trial SET details = COALESCE(details, '{}') || v_details WHERE id = t.id;
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'number', t.number,
											 'state', t.state, 'value', NULL, 'error', t.error);
	END IF;

	v_snippet := pg_catalog.left(pg_catalog.btrim(pg_catalog.regexp_replace(COALESCE(stdout, ''), '\s+', ' ', 'g')), 200);
	IF forced_state IS NOT NULL THEN
		v_state := forced_state;
		v_reason := forced_reason;
	ELSIF exit_code IS DISTINCT FROM 0 THEN
		v_reason := 'runner ' || COALESCE(exit_text, 'failed');
	ELSIF pg_catalog.btrim(COALESCE(stdout, '')) = '' THEN
		v_reason := 'runner printed nothing on stdout (expected one JSON object of metrics)';
	ELSE
		BEGIN
			v_out := stdout::jsonb;
		EXCEPTION WHEN others THEN
			v_reason := pg_catalog.format('runner output is not valid JSON (%s): %s', SQLERRM, v_snippet);
			IF stdout ~* '(^|[^a-z"])(nan|-?inf(inity)?)([^a-z"]|$)' THEN
				v_reason := v_reason || ' (NaN and Infinity are not JSON numbers; print null for a metric without a value)';
			END IF;
		END;
		IF v_reason IS NULL AND pg_catalog.jsonb_typeof(v_out) <> 'object' THEN
			v_reason := pg_catalog.format('runner output must be one JSON object of metrics, not a JSON %s: %s',
										  pg_catalog.jsonb_typeof(v_out), v_snippet);
		END IF;
		IF v_reason IS NULL THEN
			FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(v_out) e ORDER BY e.key
			LOOP
				IF k = '_std_error' THEN
					-- the values' standard errors go with them to report,
					-- less those of metrics printed as null
					IF pg_catalog.jsonb_typeof(v) = 'object' THEN
						SELECT COALESCE(pg_catalog.jsonb_object_agg(e.key, e.value), '{}') INTO v
						  FROM pg_catalog.jsonb_each(v) e
						 WHERE pg_catalog.jsonb_typeof(v_out -> e.key) IS DISTINCT FROM 'null';
					END IF;
					v_metrics := v_metrics || pg_catalog.jsonb_build_object(k, v);
				ELSIF pg_catalog.left(k, 1) = '_' THEN
					v_extras := v_extras || pg_catalog.jsonb_build_object(k, v);
				ELSIF pg_catalog.jsonb_typeof(v) = 'null' THEN
					CONTINUE;		-- a metric without a value this time
				ELSIF pg_catalog.jsonb_typeof(v) = 'number' THEN
					v_metrics := v_metrics || pg_catalog.jsonb_build_object(k, v);
				ELSIF pg_catalog.jsonb_typeof(v) = 'string'
					  AND pg_catalog.lower(v #>> '{}') IN ('nan', 'infinity', '+infinity', '-infinity', 'inf', '+inf', '-inf') THEN
					v_reason := pg_catalog.format('metric "%s" is not a finite number: %s', k, v);
					EXIT;
				ELSE
					v_reason := pg_catalog.format('metric "%s" must be a number or null, not a JSON %s: %s',
												  k, pg_catalog.jsonb_typeof(v), pg_catalog.left(v::text, 100));
					EXIT;
				END IF;
			END LOOP;
		END IF;
		IF v_reason IS NULL AND NOT v_metrics ? s.objective THEN
			v_reason := pg_catalog.format('runner output has no value for the objective "%s": %s',
										  s.objective, v_snippet);
		END IF;
		IF v_reason IS NULL THEN
			BEGIN
				PERFORM tuner.report(t.id, v_metrics);
			EXCEPTION WHEN others THEN
				v_reason := 'runner metrics were rejected: ' || SQLERRM;
			END;
		END IF;
	END IF;

	IF pg_catalog.jsonb_typeof(v_extras) = 'object' AND v_extras <> '{}' THEN
		v_details := v_details || v_extras;
	END IF;
	IF v_reason IS NULL THEN
		UPDATE tuner.trial SET details = v_details WHERE id = t.id;
		v_state := 'complete';
	ELSE
		v_state := COALESCE(v_state, 'failed');
		IF forced_state IS NULL AND COALESCE(stderr_tail, '') <> '' THEN
			v_reason := v_reason || E'\n' || pg_catalog.rtrim(stderr_tail, E' \t\r\n');
		END IF;
		UPDATE tuner.trial
		   SET state = v_state, error = v_reason, details = v_details,
			   finished_at = pg_catalog.now()
		 WHERE id = t.id;
	END IF;
	RETURN pg_catalog.jsonb_build_object(
		'trial', t.id, 'number', t.number, 'state', v_state,
		'value', (v_metrics -> s.objective), 'error', v_reason);
END;
$$;

-- Run one trial of a study synchronously in this session: suggest, run
-- the runner, record what it measured, all in the caller's transaction.
-- Returns {"trial", "number", "state", "value", "error"}.  For schedulers
-- such as pg_cron.
CREATE OR REPLACE FUNCTION tuner.step(study text)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'tuner_step'
LANGUAGE C;

REVOKE ALL ON FUNCTION tuner.step(text) FROM PUBLIC;

-- The lease length of a study, in seconds.
CREATE OR REPLACE FUNCTION tuner._lease_s(study_id bigint)
RETURNS float8
LANGUAGE sql STABLE
AS $$
SELECT COALESCE((SELECT (s.settings ->> 'lease_s')::float8
				   FROM tuner.study s WHERE s.id = $1), 300);
$$;

-- Trigger: a running trial takes its lease, however it got there
-- (suggest_next, a queued trial handed out, a direct INSERT), when someone
-- is there to renew it: a named worker (suggest_next(study, worker), the
-- background workers, tuner.step), or any client once the study sets
-- lease_s.  A plain ask/tell trial of a study without lease_s has no lease
-- until its first heartbeat: a client that never heartbeats may run a
-- trial for hours, and reaping it would throw its report away.
CREATE OR REPLACE FUNCTION tuner._trial_take_lease()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.state = 'running'
	   AND (TG_OP = 'INSERT' OR OLD.state <> 'running'
			OR (NEW.worker IS NOT NULL AND NEW.worker IS DISTINCT FROM OLD.worker)) THEN
		IF NEW.worker IS NOT NULL
		   OR (SELECT s.settings ? 'lease_s' FROM tuner.study s WHERE s.id = NEW.study_id) THEN
			NEW.heartbeat_at := pg_catalog.clock_timestamp();
			NEW.lease_expires_at := NEW.heartbeat_at
				+ pg_catalog.make_interval(secs => tuner._lease_s(NEW.study_id));
		ELSE
			NEW.heartbeat_at := NULL;
			NEW.lease_expires_at := NULL;
		END IF;
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_take_lease BEFORE INSERT OR UPDATE OF state, worker ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_take_lease();

-- How many retries lead to a trial (0 for an original).
CREATE OR REPLACE FUNCTION tuner._retry_depth(trial bigint)
RETURNS int
LANGUAGE sql STABLE
AS $$
WITH RECURSIVE chain(id, retry_of, depth) AS (
	SELECT t.id, t.retry_of, 0 FROM tuner.trial t WHERE t.id = $1
	UNION ALL
	SELECT t.id, t.retry_of, c.depth + 1
	  FROM chain c JOIN tuner.trial t ON t.id = c.retry_of
	 WHERE c.depth < 1000
)
SELECT pg_catalog.max(depth) FROM chain;
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

-- tuner.progress's reap: nothing where the reader may not write (a read-only
-- transaction, a standby, a role that only reads the trials).
CREATE OR REPLACE FUNCTION tuner._reap_if_writable()
RETURNS int
LANGUAGE plpgsql
AS $$
BEGIN
	IF pg_catalog.current_setting('transaction_read_only') = 'on'
	   OR NOT pg_catalog.has_table_privilege('tuner.trial', 'UPDATE')
	   OR NOT pg_catalog.has_table_privilege('tuner.trial', 'INSERT')
	   -- (tuner_user has UPDATE on the study's columns but owner)
	   OR NOT pg_catalog.has_any_column_privilege('tuner.study', 'UPDATE') THEN
		RETURN 0;
	END IF;
	RETURN tuner.reap();
END;
$$;

-- Reap the study of a trial (nothing for a NULL or unknown trial: the
-- caller raises that error).
CREATE OR REPLACE FUNCTION tuner._reap_of_trial(trial bigint)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study text;
BEGIN
	SELECT s.name INTO v_study
	  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
	 WHERE t.id = $1;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	RETURN tuner.reap(v_study);
END;
$$;

-- Worker: renew the lease of the trial a background worker's runner runs
-- (nothing once the trial is no longer running: its outcome is recorded
-- by whoever ended it).
CREATE OR REPLACE FUNCTION tuner._worker_heartbeat(trial bigint)
RETURNS void
LANGUAGE sql
AS $$
UPDATE tuner.trial t
   SET heartbeat_at = n.now,
	   lease_expires_at = n.now + pg_catalog.make_interval(secs => tuner._lease_s(t.study_id))
  FROM (SELECT pg_catalog.clock_timestamp() AS now) n
 WHERE t.id = $1 AND t.state = 'running';
$$;

-------------------------------------------------------------------------------
-- Remote runner agents (issue 8): tuner-agent (src/agent/) runs trials of a
-- study on another host with a runner program it has there.  It claims a
-- trial with tuner.agent_claim, runs the runner with the protocol of the
-- background workers (the same JSON on stdin, the same timeout rules),
-- renews the lease with tuner.heartbeat while it runs, and records what
-- the runner printed with tuner.agent_finish, which parses it exactly as
-- the background workers' outcomes are parsed (tuner._finish_trial).
-- Agent trials carry no worker_pid: a lost connection does not end them;
-- their lease does (tuner.reap), and then a late outcome is refused.
-------------------------------------------------------------------------------

-- The worker name rule of suggest_next(study, worker).
CREATE OR REPLACE FUNCTION tuner._check_worker_name(worker text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	PERFORM tuner._not_null($1, 'worker');
	IF pg_catalog.btrim($1) = '' OR pg_catalog.length($1) > 200 THEN
		RAISE EXCEPTION 'worker must be a name of 1 to 200 characters, not blank'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s characters.', pg_catalog.length($1)),
				  HINT = 'Name the client asking, for example its host and process id.';
	END IF;
END;
$$;

-- An agent's claim: fail a trial whose configuration is no longer a
-- point of the study's space (tuner._runner_input_problem) with the
-- reason, so that it never reaches a runner.  True when it was failed.
CREATE OR REPLACE FUNCTION tuner._fail_unrunnable(trial bigint)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	v_problem text := tuner._runner_input_problem($1);
BEGIN
	IF v_problem IS NULL THEN
		RETURN false;
	END IF;
	PERFORM tuner._finish_trial($1, NULL, v_problem, '', '', 0, 'failed', v_problem);
	RETURN true;
END;
$$;

-- Claim a trial of a study for an agent (worker: a name that identifies
-- one agent process).  Idempotent like suggest_next(study, worker): while
-- the worker holds a running trial of the study it gets that trial back
-- (lease renewed).  Otherwise it takes the first queued trial (enqueued
-- configurations, retries of reaped trials) that no other claim is taking
-- (FOR NO KEY UPDATE SKIP LOCKED, without the study's lock, so agents do
-- not wait on each other's suggestions), and only when there is none asks
-- for a new suggestion (which sees every running and queued trial as
-- pending).  Returns what running the trial needs: the runner's stdin (the
-- configuration with "_settings" and "_trial", as background workers
-- write it; "_settings" are the study's registered runner's settings, if
-- it has one, overridden by settings->'runner'), the study's
-- trial_timeout_s and kill_grace_s, and its lease_s.
--
-- 0.3.0: the agent's runner is exec'd right after this, so a trial whose
-- configuration is no longer a point of the study's space
-- (tuner._runner_input_problem) is failed here, with the reason, and the
-- next one is claimed; its configuration never reaches the agent.
CREATE OR REPLACE FUNCTION tuner.agent_claim(study text, worker text,
								  OUT trial bigint, OUT number int,
								  OUT input text, OUT timeout_s float8,
								  OUT grace_s float8, OUT lease_s float8)
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	t tuner.trial;
	p_study text := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	PERFORM tuner._check_worker_name(p_worker);
	s := tuner._find_study(p_study);
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	PERFORM tuner.reap(s.name);
	LOOP
		SELECT * INTO t FROM tuner.trial x
		 WHERE x.study_id = s.id AND x.state = 'running' AND x.worker = p_worker
		 ORDER BY x.number LIMIT 1
		   FOR NO KEY UPDATE;
		IF FOUND THEN
			PERFORM tuner._worker_heartbeat(t.id);
		ELSE
			SELECT * INTO t FROM tuner.trial x
			 WHERE x.study_id = s.id AND x.state = 'queued'
			 ORDER BY x.number LIMIT 1
			   FOR NO KEY UPDATE SKIP LOCKED;
			IF FOUND THEN
				UPDATE tuner.trial x
				   SET state = 'running', started_at = pg_catalog.now(), worker = p_worker
				 WHERE x.id = t.id;
			ELSE
				t.id := (tuner.suggest_next(s.name, p_worker) ->> 'trial')::bigint;
			END IF;
		END IF;
		EXIT WHEN NOT tuner._fail_unrunnable(t.id);
	END LOOP;
	SELECT t.id, l.number, l.input, l.timeout_s, l.grace_s, l.lease_s
	  INTO trial, number, input, timeout_s, grace_s, lease_s
	  FROM tuner._trial_run_input(t.id) l;
END;
$$;

-- Claim one trial by its id for an agent (tuner-agent --trial ID; a
-- Slurm job's agent, slurm.sql): a queued trial is taken (running, this
-- worker, its lease); a running trial must already be this worker's (the
-- Slurm executor records its job's name, slurm-JOBID, when it submits the
-- job; a repeated claim after a lost answer gets it back), and its lease is
-- renewed.  The caller must be able to write the trial (row-level
-- security: the same rights as tuner.agent_claim).  The configuration is
-- checked again (tuner._runner_input_problem): a trial whose configuration
-- is no longer a point of the study's space is failed with the reason,
-- and the answer has no input (NULL) for the agent to run.  Returns tuner.agent_claim's columns and the
-- registered runner's program and arguments (NULL without one), which
-- the agent runs when it is given no --runner-path.
CREATE OR REPLACE FUNCTION tuner.agent_claim_trial(id bigint, worker text,
								  OUT trial bigint, OUT number int,
								  OUT input text, OUT timeout_s float8,
								  OUT grace_s float8, OUT lease_s float8,
								  OUT program text, OUT args text[])
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
#variable_conflict use_column
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	PERFORM tuner._check_worker_name(p_worker);
	PERFORM tuner._reap_of_trial(p_trial);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object',
				  HINT = 'Pass the id of a queued trial, or of one submitted to this worker.';
	END IF;
	IF t.state = 'queued' THEN
		UPDATE tuner.trial x
		   SET state = 'running', started_at = pg_catalog.now(), worker = p_worker
		 WHERE x.id = t.id;
	ELSIF t.state = 'running' AND t.worker = p_worker THEN
		PERFORM tuner._worker_heartbeat(t.id);
	ELSE
		RAISE EXCEPTION 'trial % cannot be claimed by worker "%"', p_trial, p_worker
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN t.state = 'running'
							   THEN pg_catalog.format('It is running, held by worker "%s".', t.worker)
							   ELSE pg_catalog.format('It is %s.', t.state) END,
				  HINT = 'An agent claims a queued trial, or the running trial submitted to it.';
	END IF;
	IF tuner._fail_unrunnable(t.id) THEN
		trial := t.id;
		number := t.number;
		RETURN;
	END IF;
	SELECT t.id, l.number, l.input, l.timeout_s, l.grace_s, l.lease_s, l.program, l.args
	  INTO trial, number, input, timeout_s, grace_s, lease_s, program, args
	  FROM tuner._trial_run_input(t.id) l;
END;
$$;

-- Record what an agent's runner did (arguments as tuner._finish_trial:
-- the exit code, NULL when a signal ended it or it never started; a text
-- for the exit; stdout; the tail of stderr; the run time; forced_state
-- 'failed' or 'interrupted' with forced_reason when the agent stopped the
-- runner).  Only the worker holding the trial may finish it.  Reaps the
-- trial's study first: a trial whose lease expired is interrupted (and
-- retried) and the outcome is not recorded.  Returns _finish_trial's
-- summary with "recorded": true, or, for a trial no longer running (reaped,
-- or recorded by an earlier attempt whose answer was lost with the
-- connection), {"trial", "number", "state", "error", "recorded": false}
-- and changes nothing.
CREATE OR REPLACE FUNCTION tuner.agent_finish(trial bigint, worker text, exit_code int,
								   exit_text text, stdout text,
								   stderr_tail text, elapsed_s float8,
								   forced_state text DEFAULT NULL,
								   forced_reason text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	PERFORM tuner._check_worker_name(p_worker);
	IF forced_state IS NOT NULL AND forced_state NOT IN ('failed', 'interrupted') THEN
		RAISE EXCEPTION 'forced_state must be failed or interrupted'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got "%s".', forced_state),
				  HINT = 'Pass NULL to record the outcome from the runner''s output.';
	END IF;
	IF elapsed_s IS NOT NULL AND (elapsed_s = 'NaN' OR elapsed_s < 0 OR elapsed_s = 'Infinity') THEN
		RAISE EXCEPTION 'elapsed_s must be a finite number of seconds, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', elapsed_s);
	END IF;
	PERFORM tuner._reap_of_trial(p_trial);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object',
				  HINT = 'Pass the trial id that tuner.agent_claim() returned.';
	END IF;
	IF t.worker IS DISTINCT FROM p_worker THEN
		RAISE EXCEPTION 'trial % is not held by worker "%"', p_trial, p_worker
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN t.worker IS NULL THEN 'It has no worker.'
							   ELSE pg_catalog.format('Its worker is "%s".', t.worker) END,
				  HINT = 'An agent finishes only the trials tuner.agent_claim() gave it.';
	END IF;
	IF t.state <> 'running' THEN
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'number', t.number,
											 'state', t.state, 'error', t.error,
											 'recorded', false);
	END IF;
	RETURN tuner._finish_trial(p_trial, exit_code, exit_text, stdout, stderr_tail,
							   elapsed_s, forced_state, forced_reason)
		   || '{"recorded": true}';
END;
$$;

-- tuner-agent's outcome with the context it measured (the 9-argument
-- form stays for agents that measure none).
CREATE OR REPLACE FUNCTION tuner.agent_finish(trial bigint, worker text, exit_code int,
								   exit_text text, stdout text,
								   stderr_tail text, elapsed_s float8,
								   forced_state text, forced_reason text,
								   context jsonb)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	v_result jsonb;
BEGIN
	-- (a context _record_context refuses undoes the outcome too: one call)
	v_result := tuner.agent_finish($1, $2, $3, $4, $5, $6, $7, $8, $9);
	IF context IS NOT NULL AND (v_result ->> 'recorded')::bool THEN
		PERFORM tuner._record_context($1, context);
	END IF;
	RETURN v_result;
END;
$$;

-------------------------------------------------------------------------------
-- A job is its starter's.
--
-- tuner.run inserts a job row and its background workers, running as the
-- role that called it, claim trials until the job's count is reached.  A
-- write grantee of the study could UPDATE that row (trials 2 -> 1,000,000,
-- or claimed back to 0) and the starter's workers kept going.  Now only
-- the starter (a member of its owner role) or a superuser changes a job's
-- counts; anyone who may write the study may still stop it, as tuner.stop
-- does, and end it, as tuner.reap does after a crash.  Who started it and
-- for which study never change, and a new row names its own starter.
-- A new job is checked as tuner.run checks it (the right to run programs,
-- a study with a runner and parameters, trials and parallel in range),
-- whichever statement inserts it.
-------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION tuner._job_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_superuser bool := tuner._is_superuser();
	v_study text;
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF NEW.owner <> current_user AND NOT v_superuser THEN
			RAISE EXCEPTION 'a job must name its starter as owner'
				USING ERRCODE = 'insufficient_privilege',
					  DETAIL = pg_catalog.format('The job names %s, the current role is %s.',
												 pg_catalog.quote_ident(NEW.owner), pg_catalog.quote_ident(current_user)),
					  HINT = 'Start jobs with tuner.run().';
		END IF;
		IF NEW.trials < 1 THEN
			RAISE EXCEPTION 'trials must be at least 1'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', NEW.trials);
		END IF;
		IF NEW.parallel < 1 OR NEW.parallel > 64 THEN
			RAISE EXCEPTION 'parallel must be between 1 and 64'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', NEW.parallel);
		END IF;
		-- what tuner.run may start: a job runs the study's runner (a
		-- superuser restoring a dump may insert the jobs of any study)
		IF NOT v_superuser THEN
			PERFORM tuner._check_program_privilege('run a runner');
			SELECT s.name INTO v_study FROM tuner.study s WHERE s.id = NEW.study_id;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'study % does not exist', NEW.study_id
					USING ERRCODE = 'undefined_object';
			END IF;
			PERFORM tuner._study_with_runner(v_study);
		END IF;
		RETURN NEW;
	END IF;
	IF v_superuser THEN
		RETURN NEW;
	END IF;
	IF NEW.id <> OLD.id OR NEW.study_id <> OLD.study_id OR NEW.owner <> OLD.owner
	   OR NEW.created_at <> OLD.created_at THEN
		RAISE EXCEPTION 'the identity of job % cannot change', OLD.id
			USING ERRCODE = 'integrity_constraint_violation',
				  HINT = 'A job keeps its id, study, starter and start time.';
	END IF;
	IF tuner._has_role(OLD.owner) THEN
		RETURN NEW;
	END IF;
	-- Others may only stop the job or record that it ended.
	IF NEW.trials <> OLD.trials OR NEW.parallel <> OLD.parallel
	   OR NEW.launched <> OLD.launched OR NEW.claimed <> OLD.claimed
	   OR NEW.workers_done <> OLD.workers_done
	   OR (OLD.stop_requested AND NOT NEW.stop_requested)
	   OR (NEW.state IS DISTINCT FROM OLD.state AND OLD.state <> 'running')
	   OR (NEW.error IS DISTINCT FROM OLD.error AND OLD.error IS NOT NULL)
	   OR (NEW.finished_at IS DISTINCT FROM OLD.finished_at AND OLD.finished_at IS NOT NULL) THEN
		RAISE EXCEPTION 'permission denied to change job % of role %', OLD.id, OLD.owner
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Only the role that started a job (or a superuser) changes its counts; others may stop it.',
				  HINT = 'Stop it with tuner.stop(study) and start a job of your own with tuner.run().';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER job_guard BEFORE INSERT OR UPDATE ON tuner.job
	FOR EACH ROW EXECUTE FUNCTION tuner._job_guard();

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
CREATE OR REPLACE FUNCTION tuner._server_started_at()
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_server_started_at';

-- When the live server process with this pid started; NULL when there is
-- none.  Whoever asks: pg_stat_activity hides it for other roles.
CREATE OR REPLACE FUNCTION tuner._backend_started_at(pid int)
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_backend_started_at';

-- The last sign of life of a running trial: its last heartbeat, else its
-- start (else its creation).
CREATE OR REPLACE FUNCTION tuner._last_seen(t tuner.trial)
RETURNS timestamptz
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(GREATEST(t.heartbeat_at, t.started_at), t.created_at);
$$;

-- Is a running trial abandoned: without a lease, of a study that sets
-- abandon_after_s, and silent for longer than that (on the clock now,
-- hence volatile)?
CREATE OR REPLACE FUNCTION tuner._is_abandoned(t tuner.trial, settings jsonb)
RETURNS bool
LANGUAGE sql VOLATILE
AS $$
SELECT t.state = 'running' AND t.lease_expires_at IS NULL
   AND COALESCE(pg_catalog.clock_timestamp() - tuner._last_seen(t)
				> pg_catalog.make_interval(secs => (settings ->> 'abandon_after_s')::float8), false);
$$;
