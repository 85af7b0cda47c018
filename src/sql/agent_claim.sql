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
	v_problem text;
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
		v_problem := tuner._runner_input_problem(t.id);
		EXIT WHEN v_problem IS NULL;
		PERFORM tuner._finish_trial(t.id, NULL, v_problem, '', '', 0, 'failed', v_problem);
	END LOOP;
	SELECT x.id, x.number,
		   (x.config || pg_catalog.jsonb_build_object(
				'_settings', COALESCE(r.settings, '{}') || COALESCE(s.settings -> 'runner', '{}'),
				'_trial', pg_catalog.jsonb_build_object('study', s.name, 'id', x.id,
														'number', x.number)))::text,
		   COALESCE((s.settings ->> 'trial_timeout_s')::float8, 600),
		   COALESCE((s.settings ->> 'kill_grace_s')::float8, 5),
		   tuner._lease_s(s.id)
	  INTO trial, number, input, timeout_s, grace_s, lease_s
	  FROM tuner.trial x
	  LEFT JOIN tuner.runner r ON r.name = s.runner
	 WHERE x.id = t.id;
END;
$$;
