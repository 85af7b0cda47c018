-- runner: the runner registry, tuner.step with real programs (/bin/echo,
-- /bin/cat, /bin/sh, /bin/sleep), the runner protocol (success, a crash
-- with stderr, a timeout, garbage, NaN, missing objective, non-numeric
-- metrics, "_" extras), and the errors of register_runner, set_runner,
-- run, step, stop and the privilege checks.
\set SHOW_CONTEXT never

-- Registering runners.
SELECT tuner.register_runner('echo', '/bin/echo', ARRAY['{"value": 2.5, "aux": null, "_note": "hi"}']);
SELECT tuner.register_runner('cat', '/bin/cat', settings => '{"duration": 3, "mode": "fast"}');
SELECT tuner.register_runner('crash', '/bin/sh', ARRAY['-c', 'cat >/dev/null; echo "disk on fire" >&2; exit 3']);
SELECT tuner.register_runner('sleep', 'sleep', ARRAY['30']);	-- bare name: bindir, then PATH
SELECT tuner.register_runner('missing', '/nonexistent/runner');
SELECT tuner.register_runner('unknown_name', 'tuner_no_such_runner');
SELECT tuner.register_runner('garbage', '/bin/echo', ARRAY['hello world']);
SELECT tuner.register_runner('nan', '/bin/echo', ARRAY['{"value": NaN}']);
SELECT tuner.register_runner('nan_string', '/bin/echo', ARRAY['{"value": "Infinity"}']);
SELECT tuner.register_runner('no_objective', '/bin/echo', ARRAY['{"other": 1}']);
SELECT tuner.register_runner('null_objective', '/bin/echo', ARRAY['{"value": null}']);
SELECT tuner.register_runner('string_metric', '/bin/echo', ARRAY['{"value": 1, "mode": "fast"}']);
SELECT tuner.register_runner('array', '/bin/echo', ARRAY['[1, 2]']);
SELECT tuner.register_runner('silent', '/bin/true');
SELECT tuner.register_runner('huge', '/bin/echo', ARRAY['{"value": 1e400}']);
SELECT name, program, args, settings FROM tuner.runner ORDER BY name;

-- Errors of register_runner.
SELECT tuner.register_runner('echo', '/bin/echo');
SELECT tuner.register_runner(NULL, '/bin/echo');
SELECT tuner.register_runner('x', NULL);
SELECT tuner.register_runner('x', '/bin/echo', NULL);
SELECT tuner.register_runner('x', '/bin/echo', settings => NULL);
SELECT tuner.register_runner(' ', '/bin/echo');
SELECT tuner.register_runner('x', '');
SELECT tuner.register_runner('x', 'bin/echo');
SELECT tuner.register_runner('x', './echo');
SELECT tuner.register_runner('x', '/bin/echo', ARRAY['a', NULL]);
SELECT tuner.register_runner('x', '/bin/echo', ARRAY[['a'], ['b']]);
SELECT tuner.register_runner('x', '/bin/echo', settings => '[1]');
SELECT count(*) AS runners FROM tuner.runner;

-- Studies with a runner; create_study(runner => ..., preset => ...).
SELECT tuner.create_study('e', 'value', 'maximize', '{"seed": 1}', runner => 'echo') > 0 AS created;
SELECT tuner.create_study('c', 'x', 'minimize', '{"seed": 2, "runner": {"duration": 7}}', runner => 'cat') > 0 AS created;
SELECT tuner.create_study('f', 'value', 'maximize', '{"seed": 3, "trial_timeout_s": 0.5, "kill_grace_s": 0}') > 0 AS created;
SELECT tuner.create_study('norunner', 'value') > 0 AS created;
SELECT name, runner FROM tuner.studies ORDER BY name;
SELECT tuner.create_study('x', 'value', runner => 'nope');
SELECT tuner.create_study('x', preset => 'mysql');
SELECT tuner.create_study('x');
SELECT tuner.create_study('x', 'value', settings => '{"trial_timeout_s": "10"}');
SELECT tuner.create_study('x', 'value', settings => '{"trial_timeout_s": 0}');
SELECT tuner.create_study('x', 'value', settings => '{"kill_grace_s": -1}');
SELECT tuner.create_study('x', 'value', settings => '{"runner": "fast"}');
SELECT tuner.create_study('x', 'value', settings => '{"runer": {}}');
SELECT tuner.add_parameter(s, 'x', 'float', 0, 1) FROM unnest(ARRAY['e', 'c', 'f', 'norunner']) s;

-- set_runner and drop_runner.
SELECT tuner.set_runner('norunner', 'nope');
SELECT tuner.set_runner('nope', 'echo');
SELECT tuner.set_runner('norunner', 'echo');
SELECT tuner.set_runner('norunner', NULL);
SELECT tuner.drop_runner('echo');
SELECT tuner.drop_runner('nope');
SELECT tuner.register_runner('spare', '/bin/true');
SELECT tuner.drop_runner('spare');

-- tuner.step: a complete trial.  Null metrics are skipped, "_" keys go to
-- details, the worker is "step".
SELECT tuner.step('e') - 'trial' AS step;
SELECT number, state, value, metrics, error, worker, details - 'elapsed_s' - 'context' AS details
  FROM tuner.trials WHERE study = 'e';
SELECT (details ->> 'elapsed_s')::float8 >= 0 AS has_elapsed FROM tuner.trials WHERE study = 'e';

-- The configuration arrives on stdin with "_settings" (the runner's merged
-- with the study's) and "_trial"; /bin/cat prints it back.
SELECT tuner.step('c') ->> 'state' AS state;
SELECT state, value = (params ->> 'x')::float8 AS value_is_x,
	   details -> '_settings' AS settings,
	   (details -> '_trial') - 'id' AS trial
  FROM tuner.trials WHERE study = 'c';

-- Failures: each gives a failed trial with its reason, and the study goes on.
SELECT tuner.set_runner('f', 'crash');
SELECT tuner.step('f') - 'trial' AS step;
SELECT tuner.set_runner('f', 'sleep');
SELECT tuner.step('f') - 'trial' AS step;
SELECT (details ->> 'elapsed_s')::float8 BETWEEN 0.4 AND 5 AS killed_in_time
  FROM tuner.trials WHERE study = 'f' AND number = 2;
SELECT tuner.set_runner('f', 'missing');
SELECT tuner.step('f') - 'trial' AS step;
SELECT tuner.set_runner('f', 'unknown_name');
SELECT tuner.step('f') ->> 'state' AS state;
SELECT tuner.set_runner('f', 'garbage');
SELECT tuner.step('f') - 'trial' AS step;
SELECT tuner.set_runner('f', 'nan');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'nan_string');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'no_objective');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'null_objective');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'string_metric');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'array');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'silent');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT tuner.set_runner('f', 'huge');
SELECT tuner.step('f') ->> 'error' AS error;
SELECT number, state, left(error, 60) AS error, left(details ->> 'exit', 30) AS exit
  FROM tuner.trials WHERE study = 'f' ORDER BY number;
SELECT tuner.set_runner('f', 'echo');
SELECT tuner.step('f') ->> 'state' AS state;
SELECT state, count(*) FROM tuner.trials WHERE study = 'f' GROUP BY state ORDER BY state;
-- Nothing is left running, and nothing shows in tuner.progress.
SELECT count(*) AS running FROM tuner.progress;

-- A step is part of the caller's transaction: rolled back, it leaves no trial.
BEGIN;
SELECT tuner.step('e') ->> 'state' AS state;
ROLLBACK;
SELECT count(*) AS trials FROM tuner.trials WHERE study = 'e';

-- Errors of step, run and stop.
SELECT tuner.step('norunner');
SELECT tuner.step('nope');
SELECT tuner.step(NULL);
SELECT tuner.run('norunner', 1);
SELECT tuner.run('nope', 1);
SELECT tuner.run('e', 0);
SELECT tuner.run('e', NULL);
SELECT tuner.run('e', 1, 0);
SELECT tuner.run('e', 1, 65);
SELECT tuner.stop('nope');
SELECT tuner.stop('e');
SELECT tuner.create_study('empty', 'value', runner => 'echo') > 0 AS created;
SELECT tuner.step('empty');
SELECT tuner.run('empty', 1);

-- Privileges: a role without pg_execute_server_program.
CREATE ROLE regress_tuner_user LOGIN;
GRANT USAGE ON SCHEMA tuner TO regress_tuner_user;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA tuner TO regress_tuner_user;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA tuner TO regress_tuner_user;
-- Row-level security: the studies are the superuser's; grant them.
SELECT tuner.grant_study('e', 'regress_tuner_user', 'write'),
	tuner.grant_study('norunner', 'regress_tuner_user', 'write');
SET ROLE regress_tuner_user;
-- EXECUTE is revoked from PUBLIC.
SELECT tuner.register_runner('mine', '/bin/echo');
SELECT tuner.step('e');
SELECT tuner.run('e', 1);
RESET ROLE;
GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
	tuner.step(text), tuner.run(text, int, int) TO regress_tuner_user;
SET ROLE regress_tuner_user;
-- With EXECUTE, the C check still needs pg_execute_server_program.
SELECT tuner.register_runner('mine', '/bin/echo');
SELECT tuner.step('e');
SELECT tuner.run('e', 1);
DO $$
BEGIN
	PERFORM tuner.step('e');
EXCEPTION WHEN insufficient_privilege THEN
	RAISE NOTICE 'step: insufficient_privilege (%)', SQLSTATE;
END;
$$;
-- Reading and stopping need no privilege.
SELECT count(*) >= 0 AS can_read FROM tuner.progress;
SELECT tuner.stop('e');
RESET ROLE;
GRANT pg_execute_server_program TO regress_tuner_user;
SET ROLE regress_tuner_user;
SELECT tuner.register_runner('mine', '/bin/echo', ARRAY['{"value": 1}']);
SELECT tuner.set_runner('norunner', 'mine');
SELECT tuner.step('norunner') ->> 'state' AS state;
SELECT owner FROM tuner.runner WHERE name = 'mine';
RESET ROLE;
SELECT tuner.set_runner('norunner', NULL);
SELECT tuner.drop_runner('mine');
SELECT tuner.revoke_study('e', 'regress_tuner_user'),
	tuner.revoke_study('norunner', 'regress_tuner_user');
REVOKE ALL ON ALL TABLES IN SCHEMA tuner FROM regress_tuner_user;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA tuner FROM regress_tuner_user;
REVOKE ALL ON SCHEMA tuner FROM regress_tuner_user;
REVOKE ALL ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
	tuner.step(text), tuner.run(text, int, int) FROM regress_tuner_user;
DROP ROLE regress_tuner_user;

-- Restart reconciliation: a running trial of a process that no longer
-- exists is interrupted ("worker exited"); one from before the server
-- started says "server restarted"; manual trials are left alone.
SELECT (tuner.suggest_next('e') ->> 'trial')::bigint AS manual \gset
SELECT (tuner.suggest_next('e') ->> 'trial')::bigint AS dead \gset
SELECT (tuner.suggest_next('e') ->> 'trial')::bigint AS old \gset
SELECT (tuner.suggest_next('e') ->> 'trial')::bigint AS live \gset
UPDATE tuner.trial SET worker = 'gone', worker_pid = 0 WHERE id = :dead;
UPDATE tuner.trial SET worker = 'old', worker_pid = pg_backend_pid(),
	   started_at = pg_postmaster_start_time() - interval '1 hour' WHERE id = :old;
UPDATE tuner.trial SET worker = 'me', worker_pid = pg_backend_pid() WHERE id = :live;
SELECT tuner._reconcile() AS marked;
SELECT worker, state, error FROM tuner.trials
 WHERE trial IN (:manual, :dead, :old, :live) ORDER BY number;
SELECT tuner._reconcile() AS marked_again;

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('c', 'e', 'empty', 'f', 'norunner') ORDER BY name;
SELECT tuner.drop_runner(name) FROM tuner.runner
 WHERE name IN ('array', 'cat', 'crash', 'echo', 'garbage', 'huge', 'missing', 'nan', 'nan_string', 'no_objective', 'null_objective', 'silent', 'sleep', 'string_metric', 'unknown_name') ORDER BY name;
