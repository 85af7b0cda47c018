-------------------------------------------------------------------------------
-- How busy the machine was while each trial ran (issue 29).
--
-- On a busy machine one trial's measurement can be off by a third, and
-- nothing in a trial said so.  Whoever runs a runner (a background worker,
-- tuner.step, tuner-agent) now measures, over the run, the CPU time of the
-- runner's processes and of everything else on the machine, the CPU
-- stolen by a hypervisor, the busiest disk's busy time and the load
-- average (src/exec/measure_context.c), and records them in the trial's
-- details as "context".  A trial during which other processes used more
-- than the study setting max_disturbance of the machine's CPU (default
-- 0.25) is marked disturbed; with the setting retry_disturbed it is run
-- again (as an interrupted trial is, within max_retries).
-------------------------------------------------------------------------------

ALTER TABLE tuner.trial ADD COLUMN disturbed bool;
COMMENT ON COLUMN tuner.trial.disturbed IS
	'Other processes used more than the study''s max_disturbance of the machine''s CPU while it ran (NULL: not measured)';

-- The keys of a context and the range of each number.
CREATE FUNCTION tuner._check_context(context jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v jsonb;
	x float8;
	v_max float8;
BEGIN
	IF pg_catalog.jsonb_typeof(context) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'a trial''s context must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', COALESCE(context::text, 'NULL'));
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(context) e
	LOOP
		IF k = 'io_device' THEN
			IF pg_catalog.jsonb_typeof(v) <> 'string' OR pg_catalog.length(v #>> '{}') > 31 THEN
				RAISE EXCEPTION 'context key io_device must be a device name'
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
			CONTINUE;
		END IF;
		v_max := CASE k WHEN 'elapsed_s' THEN 1e9 WHEN 'runner_cpu_s' THEN 1e12
					   WHEN 'cpus' THEN 1e6 WHEN 'load1' THEN 1e6
					   WHEN 'others_cpu_share' THEN 1 WHEN 'steal_share' THEN 1
					   WHEN 'io_busy_share' THEN 1 END;
		IF v_max IS NULL THEN
			RAISE EXCEPTION 'unknown context key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known: elapsed_s, runner_cpu_s, cpus, others_cpu_share, steal_share, io_busy_share, io_device, load1.';
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			RAISE EXCEPTION 'context key % must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
		x := (v #>> '{}')::float8;
		IF x < 0 OR x > v_max THEN
			RAISE EXCEPTION 'context key % must be between 0 and %', k, v_max
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
	END LOOP;
END;
$$;

-- Was a run with this context disturbed, by the study's max_disturbance?
-- NULL when other processes' CPU was not measured.  The one definition,
-- for _record_context and the trial guard.
CREATE FUNCTION tuner._is_disturbed(context jsonb, study_id bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT ($1 ->> 'others_cpu_share')::float8
	   > COALESCE((SELECT (s.settings ->> 'max_disturbance')::float8
					 FROM tuner.study s WHERE s.id = $2), 0.25);
$$;

-- Record the context of a finished trial (as the worker, step and
-- tuner-agent do right after its outcome): into its details, its
-- disturbed flag, and a retry when the study asks for one.  Returns
-- whether the trial was disturbed (NULL: other processes' CPU unknown).
CREATE FUNCTION tuner._record_context(trial bigint, context jsonb)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_disturbed bool;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._check_context(context);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial($1);
	END IF;
	IF t.state IN ('queued', 'running') THEN
		RAISE EXCEPTION 'trial % is %: its context is recorded when it has finished', t.id, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	v_disturbed := tuner._is_disturbed(context, s.id);
	UPDATE tuner.trial x
	   SET details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('context', context),
		   disturbed = v_disturbed
	 WHERE x.id = t.id;
	IF v_disturbed AND t.state = 'complete'
	   AND COALESCE((s.settings ->> 'retry_disturbed')::bool, false) THEN
		PERFORM tuner._queue_retries(ARRAY[t.id]);
	END IF;
	RETURN v_disturbed;
END;
$$;

-- tuner-agent's outcome with the context it measured (the 9-argument
-- form stays for agents that measure none).
CREATE FUNCTION tuner.agent_finish(trial bigint, worker text, exit_code int,
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

-- The trials view with the confirmation and context columns.
CREATE OR REPLACE VIEW tuner.trials WITH (security_invoker = true) AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.state,
	   t.config AS params,
	   o.value,
	   COALESCE(o.metrics, '{}'::jsonb) AS metrics,
	   t.source,
	   t.predicted_mean,
	   t.predicted_sd,
	   t.acquisition,
	   t.seed,
	   t.worker,
	   t.error,
	   t.created_at,
	   t.started_at,
	   t.finished_at,
	   t.details,
	   tuner._trial_meets_constraints(t.id) AS constraints_met,
	   t.retry_of,
	   t.heartbeat_at,
	   t.lease_expires_at,
	   t.confirms,
	   t.confirm_pair,
	   t.disturbed
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;
