-- The Slurm executor (issue 31): the settings executor and slurm, checked
-- value by value; the sbatch arguments and batch script a trial's job gets
-- (nothing of a user's reaches a shell); tuner.agent_claim_trial, the claim
-- by id of tuner-agent --trial; the parsers of sacct's fields.
-- tests/slurm/test_executor.sh runs real jobs on the local test cluster.
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 9800, false) IS NOT NULL AS restarted;

-- Bad settings.
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"executor": "pbs"}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"executor": 1}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": []}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"wrap": "rm -rf /"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"partition": "a b"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"partition": "-x"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"account": "$(id)"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"constraint": "a;b"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"time_limit_s": 0}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"nodes": 1.5}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"ntasks": "4"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"mem_mb": -1}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"exclusive": "yes"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"output_dir": "out"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"output_dir": "/tmp/../etc"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"output_dir": "/tmp/a b"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"ntasks": 2, "ntasks_parameter": "ranks"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"mpi": "openmpi; id"}}');
SELECT tuner.create_study('slurm_bad', 'y', settings => '{"slurm": {"requeue": 1}}');
SELECT count(*) AS none FROM tuner.study WHERE name = 'slurm_bad';

-- A Slurm study; its settings may change like any other.
SELECT tuner.register_runner('slurm_runner', '/bin/true', '{--flag, "two words"}', '{}');
SELECT tuner.create_study('slurm', 'y', 'minimize',
       '{"seed": 5, "executor": "slurm",
         "slurm": {"partition": "batch", "account": "perf", "qos": "high", "constraint": "ssd&avx2",
                   "time_limit_s": 61, "nodes": 2, "ntasks_parameter": "ranks",
                   "cpus_per_task": 2, "mem_mb": 512, "exclusive": true, "output_dir": "/var/tmp/jobs",
                   "mpi": "pmi2", "requeue": false}}',
       runner => 'slurm_runner') > 0 AS created;
SELECT tuner.add_parameter('slurm', 'x', 'float', 0, 1);
SELECT tuner.add_parameter('slurm', 'ranks', 'int', 1, 16);
SELECT tuner._study_executor(id) FROM tuner.study WHERE name = 'slurm';
SELECT tuner.create_study('slurm_local', 'y') > 0 AS created;
SELECT tuner._study_executor(id) AS default_executor FROM tuner.study WHERE name = 'slurm_local';
UPDATE tuner.study SET settings = settings || '{"slurm": {"qos": "a|b"}}' WHERE name = 'slurm_local';

-- The job of a trial: one argument per setting, ranks as its task count,
-- the time limit in whole minutes (rounded up).
SELECT tuner.enqueue('slurm', '{"x": 0.5, "ranks": 4}') AS t1 \gset
SELECT a AS sbatch_arg FROM pg_catalog.unnest(tuner._slurm_sbatch_args(:t1)) a;
-- The script names only the agent, the trial and the conninfo, quoted.
SET tuner.agent_path = '/opt/it''s here/tuner-agent';
SET tuner.slurm_conninfo = 'host=/run/pg dbname=''a b''';
SELECT tuner._slurm_script(:t1) AS script;
RESET tuner.agent_path;
RESET tuner.slurm_conninfo;
SELECT tuner._slurm_conninfo() ~ '^host=''[^'']+'' port=[0-9]+ dbname=''[^'']+'' user=''[^'']+''$' AS default_conninfo;
SELECT tuner._slurm_agent_path() ~ '/tuner-agent$' AS agent_in_bindir;
-- Only the four Slurm commands run.
SELECT * FROM tuner._slurm_command('sh', '{-c, id}');
SELECT * FROM tuner._slurm_command(NULL, '{}');

-- tuner.step does not run a Slurm study.
SELECT tuner.step('slurm');

-- tuner.agent_claim_trial: a queued trial is taken; the same worker gets it
-- back, another is refused; the registered runner comes with it.
SELECT * FROM tuner.agent_claim_trial(NULL, 'w');
SELECT * FROM tuner.agent_claim_trial(:t1, NULL);
SELECT * FROM tuner.agent_claim_trial(:t1, ' ');
SELECT * FROM tuner.agent_claim_trial(-1, 'w');
SELECT trial = :t1 AS same, number, (input::jsonb - '_trial') AS input, timeout_s, grace_s, lease_s, program, args
  FROM tuner.agent_claim_trial(:t1, 'slurm-1');
SELECT state, worker FROM tuner.trial WHERE id = :t1;
SELECT trial = :t1 AS again FROM tuner.agent_claim_trial(:t1, 'slurm-1');
SELECT * FROM tuner.agent_claim_trial(:t1, 'slurm-2');
SELECT (tuner.agent_finish(:t1, 'slurm-1', 0, 'exited with exit code 0', '{"y": 1}', '', 1)) ->> 'state' AS finished;
SELECT * FROM tuner.agent_claim_trial(:t1, 'slurm-1');
-- A configuration no longer in the space fails the trial at the claim.
SELECT tuner.enqueue('slurm', '{"x": 0.25, "ranks": 8}') AS t2 \gset
UPDATE tuner.parameter SET high = 6 WHERE name = 'ranks'
   AND study_id = (SELECT id FROM tuner.study WHERE name = 'slurm');
SELECT trial = :t2 AS same, input IS NULL AS no_input FROM tuner.agent_claim_trial(:t2, 'slurm-3');
SELECT state, error FROM tuner.trial WHERE id = :t2;
-- A heartbeat of a trial that ended says so (SQLSTATE 55000, which a Slurm
-- job's agent stops on); it raised another error for any trial that had
-- not lost its lease, rolling back the reap it had done.
SELECT tuner.heartbeat(:t1);
\echo :LAST_ERROR_SQLSTATE
SELECT tuner.heartbeat(:t2);
\echo :LAST_ERROR_SQLSTATE

-- sacct's durations and sizes.
SELECT tuner._slurm_seconds('1-02:03:04.5') AS days, tuner._slurm_seconds('05:06.007') AS minutes,
       tuner._slurm_seconds('00:00:07') AS hours, tuner._slurm_seconds('') AS empty,
       tuner._slurm_seconds('INVALID') AS invalid;
SELECT tuner._slurm_kib('1.5G') AS g, tuner._slurm_kib('512K') AS k, tuner._slurm_kib('3M') AS m,
       tuner._slurm_kib('2048') AS bytes, tuner._slurm_kib('') AS empty;
SELECT s, tuner._slurm_state_final(s) FROM unnest('{PENDING,RUNNING,COMPLETING,COMPLETED,CANCELLED,TIMEOUT,NODE_FAIL,PREEMPTED}'::text[]) s;

SELECT tuner.drop_study(name) FROM tuner.study WHERE name IN ('slurm', 'slurm_local') ORDER BY name;
SELECT tuner.drop_runner('slurm_runner');
