/*
 * measurement_context.sql
 *	  How busy the machine was while a trial ran, and whether that makes the
 *	  trial disturbed.
 */

-- The keys of a context and the range of each number.
CREATE OR REPLACE FUNCTION tuner._check_context(context jsonb)
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
CREATE OR REPLACE FUNCTION tuner._is_disturbed(context jsonb, study_id bigint)
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
CREATE OR REPLACE FUNCTION tuner._record_context(trial bigint, context jsonb)
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
