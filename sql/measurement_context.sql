-- measurement_context: every trial a runner runs records how busy the
-- machine was meanwhile (issue 29): its details' "context", and the
-- disturbed flag against the study's max_disturbance.  The runners are
-- /bin/sh scripts whose load the test controls: one leaves the machine
-- alone, one starts a CPU hog per CPU in a session of its own that
-- outlives the runner (so the runner never waits for it: other
-- processes, to the measurement) for the length of the run.
\set SHOW_CONTEXT never

-- The error of recording a context for trial t (its id as N).
CREATE FUNCTION tuner_pg_temp_try(t bigint) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM tuner._record_context(t, '{"elapsed_s": 1}');
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END;
$$;

SELECT tuner.register_runner('mc_quiet', '/bin/sh', ARRAY['-c', 'cat']);
SELECT tuner.register_runner('mc_hog', '/bin/sh', ARRAY['-c',
	'for i in $(seq "$(nproc)"); do setsid timeout 3.5 sh -c "while :; do :; done" </dev/null >/dev/null 2>&1 & done; sleep 2.5; cat']);
SELECT tuner.create_study('mc_quiet', 'x', runner => 'mc_quiet', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('mc_quiet', 'x', 'float', 0, 1);
SELECT tuner.step('mc_quiet') ->> 'state' AS state;
-- what a context holds: the run's length, the runner's CPU time, the
-- machine's CPUs and the shares of other processes, steal and the
-- busiest disk, the load average
SELECT (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(details -> 'context') k
		 WHERE k NOT IN ('io_busy_share', 'io_device')) AS keys,
	   (details #>> '{context,elapsed_s}')::float8 > 0 AS elapsed,
	   (details #>> '{context,cpus}')::int >= 1 AS cpus,
	   (details #>> '{context,others_cpu_share}')::float8 BETWEEN 0 AND 1 AS others,
	   (details #>> '{context,steal_share}')::float8 BETWEEN 0 AND 1 AS steal,
	   disturbed IS NOT NULL AS judged
  FROM tuner.trials WHERE study = 'mc_quiet';

-- Other processes on every CPU for the whole run: disturbed.
SELECT tuner.create_study('mc_hog', 'x', runner => 'mc_hog',
						  settings => '{"seed": 1, "max_disturbance": 0.25}') > 0 AS created;
SELECT tuner.add_parameter('mc_hog', 'x', 'float', 0, 1);
SELECT tuner.step('mc_hog') ->> 'state' AS state;
SELECT state, disturbed, (details #>> '{context,others_cpu_share}')::float8 > 0.25 AS others_over
  FROM tuner.trials WHERE study = 'mc_hog';
-- with retry_disturbed it runs again (within max_retries)
UPDATE tuner.study SET settings = settings || '{"retry_disturbed": true}' WHERE name = 'mc_hog';
SELECT tuner.step('mc_hog') ->> 'state' AS state;
SELECT number, state, disturbed, retry_of IS NOT NULL AS is_retry FROM tuner.trials WHERE study = 'mc_hog' ORDER BY number;

-- Recording a context: the agent's way (its own measurement), checked.
SELECT tuner.create_study('mc_agent', 'x', settings => '{"seed": 1, "max_disturbance": 0.5}') > 0 AS created;
SELECT tuner.add_parameter('mc_agent', 'x', 'float', 0, 1);
SELECT trial AS t1 FROM tuner.agent_claim('mc_agent', 'mc-agent-1') \gset
SELECT count(*) AS reported FROM tuner.report_progress(:t1, 1, '{"x": 0.4}');
SELECT f ->> 'state' AS state, f ->> 'recorded' AS recorded
  FROM tuner.agent_finish(:t1, 'mc-agent-1', 0, 'exited with exit code 0', '{"x": 0.5}', '', 1.5,
						  NULL, NULL, '{"elapsed_s": 1.5, "runner_cpu_s": 1.2, "cpus": 4, "others_cpu_share": 0.75, "steal_share": 0.01, "io_busy_share": 0.2, "io_device": "nvme0n1", "load1": 5.1}') f;
SELECT details -> 'context' AS context, disturbed FROM tuner.trials WHERE trial = :t1;
SELECT trial AS t2 FROM tuner.agent_claim('mc_agent', 'mc-agent-1') \gset
SELECT count(*) AS reported FROM tuner.report_progress(:t2, 1, '{"x": 0.3}');
SELECT f ->> 'state' AS state
  FROM tuner.agent_finish(:t2, 'mc-agent-1', 0, 'exited with exit code 0', '{"x": 0.25}', '', 1.5,
						  NULL, NULL, '{"elapsed_s": 1.5, "others_cpu_share": 0.1}') f;
SELECT number, disturbed FROM tuner.trials WHERE study = 'mc_agent' ORDER BY number;
-- the study's count of disturbed trials, and the convergence plot draws
-- the disturbed one (trial 1) in orange
SELECT disturbed FROM tuner.studies WHERE name = 'mc_agent';
SELECT svg LIKE '%fill="#ff7f0e"><title>trial 1: 0.5 (disturbed)</title>%' AS trial1_orange,
	   svg LIKE '%trial 2: 0.25</title>%' AS trial2_plain
  FROM tuner.plot('mc_agent', 'convergence') svg;
-- and so does the progress plot: trial 1's curve orange, trial 2's blue
SELECT svg LIKE '%<title>trial 1 (disturbed): 0.4 at step 1</title>%' AS trial1_disturbed,
	   svg LIKE '%>disturbed<%' AS in_legend,
	   svg LIKE '%<title>trial 2: 0.3 at step 1</title>%' AS trial2_plain
  FROM tuner.plot('mc_agent', 'progress') svg;
-- an agent that measures nothing (the 9-argument form, or NULL)
SELECT trial AS t3 FROM tuner.agent_claim('mc_agent', 'mc-agent-1') \gset
SELECT f ->> 'state' AS state FROM tuner.agent_finish(:t3, 'mc-agent-1', 0, 'exited with exit code 0', '{"x": 0.75}', '', 1.5, NULL, NULL) f;
SELECT details ? 'context' AS has_context, disturbed FROM tuner.trials WHERE trial = :t3;

-- Bad input.
SELECT trial AS t4 FROM tuner.agent_claim('mc_agent', 'mc-agent-1') \gset
SELECT tuner.agent_finish(:t4, 'mc-agent-1', 0, 'ok', '{"x": 0.5}', '', 1, NULL, NULL, '{"cpu_temp": 80}');
SELECT tuner.agent_finish(:t4, 'mc-agent-1', 0, 'ok', '{"x": 0.5}', '', 1, NULL, NULL, '{"others_cpu_share": 1.5}');
SELECT tuner.agent_finish(:t4, 'mc-agent-1', 0, 'ok', '{"x": 0.5}', '', 1, NULL, NULL, '{"others_cpu_share": "high"}');
SELECT tuner.agent_finish(:t4, 'mc-agent-1', 0, 'ok', '{"x": 0.5}', '', 1, NULL, NULL, '[0.5]');
SELECT tuner.agent_finish(:t4, 'mc-agent-1', 0, 'ok', '{"x": 0.5}', '', 1, NULL, NULL, '{"io_device": 7}');
SELECT state FROM tuner.trials WHERE trial = :t4;	-- still running: nothing was recorded
SELECT regexp_replace(tuner_pg_temp_try(:t4), '\d+', 'N', 'g') AS running_trial;
SELECT tuner._record_context(-1, '{"elapsed_s": 1}');
SELECT tuner._record_context(NULL, '{"elapsed_s": 1}');
SELECT tuner.create_study('mc_bad', 'x', settings => '{"max_disturbance": 0}');
SELECT tuner.create_study('mc_bad', 'x', settings => '{"max_disturbance": 1.5}');
SELECT tuner.create_study('mc_bad', 'x', settings => '{"max_disturbance": "0.3"}');
SELECT tuner.create_study('mc_bad', 'x', settings => '{"retry_disturbed": "yes"}');
UPDATE tuner.study SET settings = settings || '{"max_disturbance": -1}' WHERE name = 'mc_agent';

SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'mc\_%' ORDER BY name;
SELECT tuner.drop_runner('mc_quiet');
SELECT tuner.drop_runner('mc_hog');
DROP FUNCTION tuner_pg_temp_try(bigint);
