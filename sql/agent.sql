-- Remote runner agents (issue 8): tuner.agent_claim hands an agent a trial
-- (idempotent per worker, queued trials first, SKIP LOCKED) with the
-- runner's stdin as the background workers write it; tuner.agent_finish
-- records the runner's output with the workers' parser, only for the
-- worker that holds the trial, and refuses (records nothing) once the
-- trial's lease expired.  tests/agent.sh runs real agents.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 9500, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('agent', 'y', 'minimize',
       '{"seed": 11, "lease_s": 60, "trial_timeout_s": 7, "kill_grace_s": 2, "runner": {"scale": 3}}') > 0 AS created;
SELECT tuner.add_parameter('agent', 'x', 'float', 0, 10);

-- Bad input.
SELECT * FROM tuner.agent_claim(NULL, 'a');
SELECT * FROM tuner.agent_claim('agent', NULL);
SELECT * FROM tuner.agent_claim('agent', '  ');
SELECT * FROM tuner.agent_claim('agent', repeat('w', 201));
SELECT * FROM tuner.agent_claim('no such study', 'a');
SELECT tuner.create_study('agent_empty', 'y') > 0 AS created;
SELECT * FROM tuner.agent_claim('agent_empty', 'a');

-- A claim gives the runner's stdin (configuration, "_settings" from the
-- study's settings->'runner' without a registered runner, "_trial"), the
-- timeouts and the lease; asking again gives the same trial.
SELECT trial AS a1, input AS a1_input FROM tuner.agent_claim('agent', 'a') \gset
SELECT number, (input::jsonb - 'x') AS input_rest, input::jsonb ? 'x' AS has_x,
       timeout_s, grace_s, lease_s
  FROM tuner.agent_claim('agent', 'a');
SELECT trial = :a1 AS same_trial, input = :'a1_input' AS same_input
  FROM tuner.agent_claim('agent', 'a');
SELECT number, state, worker, worker_pid IS NULL AS no_pid,
       lease_expires_at - heartbeat_at AS lease
  FROM tuner.trial WHERE id = :a1;
-- Another worker gets another trial.
SELECT trial AS b1 FROM tuner.agent_claim('agent', 'b') \gset
SELECT :b1 <> :a1 AS different,
       (SELECT config FROM tuner.trial WHERE id = :b1)
    <> (SELECT config FROM tuner.trial WHERE id = :a1) AS different_config;

-- A queued trial is claimed before any new suggestion.
SELECT tuner.enqueue('agent', '{"x": 4.5}') AS q1 \gset
SELECT trial = :q1 AS queued_first, input::jsonb -> 'x' AS x
  FROM tuner.agent_claim('agent', 'c');
SELECT state, worker, source FROM tuner.trial WHERE id = :q1;

-- A registered runner's settings reach "_settings", overridden by the
-- study's settings->'runner'.
SELECT tuner.register_runner('agent_runner', '/bin/true', '{}', '{"scale": 1, "mode": "fast"}');
SELECT tuner.set_runner('agent', 'agent_runner');
SELECT input::jsonb -> '_settings' AS settings FROM tuner.agent_claim('agent', 'd');

-- agent_finish: bad input.
SELECT tuner.agent_finish(NULL, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', 0.1);
SELECT tuner.agent_finish(:a1, NULL, 0, 'exited with exit code 0', '{"y": 1}', '', 0.1);
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', 0.1, 'complete', 'no');
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', 'NaN');
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', -1);
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', 'Infinity');
SELECT tuner.agent_finish(1, 'a', 0, 'exited with exit code 0', '{"y": 1}', '', 0.1);
-- Only the worker holding the trial may finish it.
SELECT tuner.agent_finish(:a1, 'b', 0, 'exited with exit code 0', '{"y": 1}', '', 0.1);

-- The runner's output is parsed as the background workers' is.
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 1.5, "z": 2, "_note": "hi"}', '', 0.25);
SELECT state, value, metrics, details FROM tuner.trials WHERE trial = :a1;
-- A second finish (a retry after a lost answer) records nothing.
SELECT tuner.agent_finish(:a1, 'a', 0, 'exited with exit code 0', '{"y": 9}', '', 0.5);
SELECT value FROM tuner.trials WHERE trial = :a1;
-- Non-zero exit: failed with the stderr tail; garbage and non-finite output:
-- failed with the reason; a forced outcome (timeout) is taken as given.
SELECT tuner.agent_finish(:b1, 'b', 3, 'exited with exit code 3', '', 'boom', 0.1);
SELECT trial AS b2 FROM tuner.agent_claim('agent', 'b') \gset
SELECT tuner.agent_finish(:b2, 'b', 0, 'exited with exit code 0', 'not json', '', 0.1) ->> 'error';
SELECT trial AS b3 FROM tuner.agent_claim('agent', 'b') \gset
SELECT tuner.agent_finish(:b3, 'b', 0, 'exited with exit code 0', '{"y": NaN}', '', 0.1) ->> 'error';
SELECT trial AS b4 FROM tuner.agent_claim('agent', 'b') \gset
SELECT tuner.agent_finish(:b4, 'b', 0, 'exited with exit code 0', '{"y": "Infinity"}', '', 0.1) ->> 'error';
SELECT trial AS b5 FROM tuner.agent_claim('agent', 'b') \gset
SELECT tuner.agent_finish(:b5, 'b', NULL, 'was terminated by signal 9: Killed', '', '', 7.1,
       'failed', 'runner timed out after 7 s (trial_timeout_s); its process group was killed') ->> 'state';
SELECT number, state, error FROM tuner.trials WHERE study = 'agent' AND worker = 'b' ORDER BY number;

-- A trial whose lease expired is reaped (interrupted, retried) and a late
-- outcome is refused without recording anything.
SELECT tuner.create_study('agent_short', 'y', 'minimize', '{"seed": 12, "lease_s": 0.2}') > 0 AS created;
SELECT tuner.add_parameter('agent_short', 'x', 'float', 0, 10);
SELECT trial AS s1 FROM tuner.agent_claim('agent_short', 'slow') \gset
SELECT pg_sleep(0.3);
SELECT tuner.agent_finish(:s1, 'slow', 0, 'exited with exit code 0', '{"y": 1}', '', 0.3) - 'trial' AS late;
SELECT state, error, metrics FROM tuner.trials WHERE trial = :s1;
-- Its retry (same configuration, retry_of) is the next claim.
SELECT trial AS s2 FROM tuner.agent_claim('agent_short', 'fast') \gset
SELECT retry_of = :s1 AS retries, params = (SELECT params FROM tuner.trials WHERE trial = :s1) AS same_config,
       state, worker
  FROM tuner.trials WHERE trial = :s2;
-- An agent's heartbeat renews its trial's lease.
SELECT lease_expires_at AS before FROM tuner.trial WHERE id = :q1 \gset
SELECT pg_sleep(0.05);
SELECT tuner.heartbeat(:q1) > :'before'::timestamptz AS renewed;

SELECT tuner.set_runner('agent', NULL);
SELECT tuner.drop_runner('agent_runner');

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('agent', 'agent_empty', 'agent_short') ORDER BY name;
