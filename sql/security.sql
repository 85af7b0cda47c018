-- security: who may see and change a study (row-level security,
-- tuner.grant_study / revoke_study, the groups tuner_user and
-- tuner_reader) and who may make the server run programs
-- (pg_execute_server_program), each rule tried by a role without the
-- right.  Roles regress_tuner_sec_*, dropped at the end.
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message (numbers as N) if it fails.
CREATE FUNCTION public.regress_tuner_try(statement text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE statement;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN 'ok, ' || n || ' rows';
EXCEPTION WHEN OTHERS THEN
	-- ids depend on the tests before this one
	RETURN SQLSTATE || ': ' || pg_catalog.regexp_replace(SQLERRM, '\d+', 'N', 'g');
END;
$$;

-- The schema's invariants: every table holding study data has row-level
-- security (the catalog tables shared by every study excepted), every view
-- of the extension is security_invoker, no function is SECURITY DEFINER.
SELECT c.relname AS without_rls
  FROM pg_class c
 WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'r'
   AND NOT c.relrowsecurity
 ORDER BY 1;
SELECT c.relname AS view_not_invoker
  FROM pg_class c
 WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'v'
   AND NOT COALESCE(c.reloptions @> '{security_invoker=true}', false)
 ORDER BY 1;
SELECT count(*) AS security_definer
  FROM pg_proc p WHERE p.pronamespace = 'tuner'::regnamespace AND p.prosecdef;
SELECT rolname, rolcanlogin FROM pg_roles
 WHERE rolname IN ('tuner_user', 'tuner_reader') ORDER BY 1;

CREATE ROLE regress_tuner_sec_owner LOGIN IN ROLE tuner_user;	-- owns a study
CREATE ROLE regress_tuner_sec_other LOGIN IN ROLE tuner_user;	-- granted nothing
CREATE ROLE regress_tuner_sec_viewer LOGIN IN ROLE tuner_user;	-- granted read
CREATE ROLE regress_tuner_sec_writer LOGIN IN ROLE tuner_user;	-- granted write
CREATE ROLE regress_tuner_sec_bi LOGIN IN ROLE tuner_reader;	-- reads every study
CREATE ROLE regress_tuner_sec_runner LOGIN IN ROLE tuner_user, pg_execute_server_program;
CREATE ROLE regress_tuner_sec_outsider LOGIN;					-- not even tuner_user
-- EXECUTE on the functions that run programs, so that the refusals below
-- come from tuner's own check, not the function's ACL.
GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
	tuner.run(text, int, int), tuner.step(text)
	TO regress_tuner_sec_owner, regress_tuner_sec_runner;
CREATE SCHEMA regress_tuner_sec AUTHORIZATION regress_tuner_sec_owner;

-- A role outside tuner_user reaches nothing.
SET ROLE regress_tuner_sec_outsider;
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_x', 'y')$$);
SELECT regress_tuner_try($$SELECT count(*) FROM tuner.study$$);
RESET ROLE;

-- The owner: a study with two finished trials and a view.
SET ROLE regress_tuner_sec_owner;
SELECT tuner.create_study('sec_a', 'y', 'minimize', '{"seed": 1, "n_initial": 2}') > 0 AS created;
SELECT tuner.add_parameter('sec_a', 'x', 'float', 0, 1);
SELECT tuner.report((tuner.suggest_next('sec_a') ->> 'trial')::bigint, '{"y": 1.5}');
SELECT tuner.report((tuner.suggest_next('sec_a') ->> 'trial')::bigint, '{"y": 0.5}');
SELECT tuner.create_view('sec_a', 'regress_tuner_sec.sec_a');
SELECT study, count(*) AS trials, min(value) AS best FROM tuner.trials GROUP BY study;
SELECT name, owner FROM tuner.studies;
-- It may not make the server run anything.
SELECT regress_tuner_try($$SELECT tuner.register_runner('regress_tuner_sec_r', '/bin/true')$$);
SELECT regress_tuner_try($$SELECT tuner.run('sec_a', 1)$$);
SELECT regress_tuner_try($$SELECT tuner.step('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_b', 'y', runner => 'regress_tuner_sec_r')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_b', 'y', preset => 'rocksdb')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_b', 'y', preset => 'fastquery')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_b', 'y', settings => '{"runner": {"duration_s": 1}}')$$);
SELECT regress_tuner_try($$UPDATE tuner.study SET settings = '{"runner": {"db_bench": "/bin/sh"}}' WHERE name = 'sec_a'$$);
SELECT regress_tuner_try($$INSERT INTO tuner.runner (name, program) VALUES ('regress_tuner_sec_r', '/bin/sh')$$);
SELECT count(*) AS studies_b FROM tuner.study WHERE name = 'sec_b';
-- Nor take the owner column, nor make a study in another's name.
SELECT regress_tuner_try($$UPDATE tuner.study SET owner = 'regress_tuner_sec_other' WHERE name = 'sec_a'$$);
SELECT regress_tuner_try($$INSERT INTO tuner.study (name, objective, direction, seed, owner) VALUES ('sec_c', 'y', 'minimize', 1, 'regress_tuner_sec_other')$$);
-- Grants: read to the viewer, write to the writer; their errors.
SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_viewer');
SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_writer', 'read');
SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_writer', 'write');	-- replaces read
SELECT grantee, privilege, owner FROM tuner.study_grant ORDER BY grantee;
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_viewer', 'admin')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_nobody', 'read')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', NULL, 'read')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_viewer', NULL)$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_nope', 'regress_tuner_sec_viewer')$$);
SELECT regress_tuner_try($$SELECT tuner.revoke_study('sec_a', NULL)$$);
GRANT USAGE ON SCHEMA regress_tuner_sec TO regress_tuner_sec_other, regress_tuner_sec_viewer;
GRANT SELECT ON regress_tuner_sec.sec_a TO regress_tuner_sec_viewer;
RESET ROLE;

-- Trial ids of sec_a, for the direct calls and writes below.
SELECT min(t.id) AS trial_a FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'sec_a' \gset
SELECT id AS study_a FROM tuner.study WHERE name = 'sec_a' \gset

-- A role granted nothing sees nothing, changes nothing, and cannot grant
-- itself in: every study table answers as if the study did not exist.
SET ROLE regress_tuner_sec_other;
SELECT (SELECT count(*) FROM tuner.study) AS study,
	   (SELECT count(*) FROM tuner.parameter) AS parameter,
	   (SELECT count(*) FROM tuner.metric) AS metric,
	   (SELECT count(*) FROM tuner.trial) AS trial,
	   (SELECT count(*) FROM tuner.observation) AS observation,
	   (SELECT count(*) FROM tuner.suggestion) AS suggestion,
	   (SELECT count(*) FROM tuner.model) AS model,
	   (SELECT count(*) FROM tuner.study_view) AS study_view,
	   (SELECT count(*) FROM tuner.study_grant) AS study_grant,
	   (SELECT count(*) FROM tuner.trials) AS trials,
	   (SELECT count(*) FROM tuner.studies) AS studies;
SELECT regress_tuner_try($$SELECT tuner.best('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.suggest_next('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.drop_study('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_other', 'write')$$);
SELECT regress_tuner_try(pg_catalog.format('SELECT tuner.report(%s, %L)', :trial_a, '{"y": 0}'));
SELECT regress_tuner_try($$UPDATE tuner.trial SET error = 'x'$$);
SELECT regress_tuner_try($$DELETE FROM tuner.observation$$);
SELECT regress_tuner_try($$UPDATE tuner.study SET objective = 'z'$$);
SELECT regress_tuner_try(pg_catalog.format(
	'INSERT INTO tuner.study_grant (study_id, grantee, privilege, owner) VALUES (%s, %L, %L, %L)',
	:study_a, 'regress_tuner_sec_other', 'write', 'regress_tuner_sec_other'));
SELECT regress_tuner_try(pg_catalog.format('SELECT tuner._grant_insert(%s, %L, %L)',
	:study_a, 'regress_tuner_sec_other', 'write'));	-- grant_study's own statement
SELECT regress_tuner_try($$SELECT count(*) FROM regress_tuner_sec.sec_a$$);	-- no SELECT on the view
-- Its own study is its own.
SELECT tuner.create_study('sec_other', 'y') > 0 AS created;
SELECT name, owner FROM tuner.studies;
RESET ROLE;

SET ROLE regress_tuner_sec_other;
SELECT regress_tuner_try(pg_catalog.format(
	'INSERT INTO tuner.trial (study_id, number, config, source) VALUES (%s, 99, %L, %L)',
	:study_a, '{"x": 0.5}', 'manual'));
SELECT regress_tuner_try(pg_catalog.format(
	'INSERT INTO tuner.observation (trial_id, metric_id, value) SELECT %s, 1, 0', :trial_a));
RESET ROLE;

-- A read grant: sees the study, its trials and its view; changes nothing.
SET ROLE regress_tuner_sec_viewer;
SELECT name FROM tuner.studies;
SELECT study, count(*) AS trials FROM tuner.trials GROUP BY study;
SELECT (SELECT count(*) FROM tuner.observation) AS observation,
	   (SELECT count(*) FROM tuner.suggestion) AS suggestion;
SELECT count(*) AS view_rows FROM regress_tuner_sec.sec_a;
SELECT value AS best FROM tuner.best('sec_a');
SELECT regress_tuner_try($$SELECT tuner.suggest_next('sec_a')$$);
SELECT regress_tuner_try(pg_catalog.format('SELECT tuner.report(%s, %L)', :trial_a, '{"y": 0}'));
SELECT regress_tuner_try(pg_catalog.format('SELECT tuner.fail(%s)', :trial_a));
SELECT regress_tuner_try($$SELECT tuner.add_metric('sec_a', 'extra')$$);
SELECT regress_tuner_try($$SELECT tuner.drop_study('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_viewer', 'write')$$);
SELECT regress_tuner_try($$SELECT tuner.revoke_study('sec_a', 'regress_tuner_sec_writer')$$);
SELECT regress_tuner_try($$UPDATE tuner.trial SET error = 'x'$$);
SELECT regress_tuner_try($$DELETE FROM tuner.observation$$);
SELECT regress_tuner_try(pg_catalog.format(
	'INSERT INTO tuner.trial (study_id, number, config, source) VALUES (%s, 99, %L, %L)',
	:study_a, '{"x": 0.5}', 'manual'));
SELECT count(*) AS running FROM tuner.progress;	-- reads, reaps nothing
-- nor grant itself more (the trigger names the study's real owner)
SELECT regress_tuner_try(pg_catalog.format(
	'INSERT INTO tuner.study_grant (study_id, grantee, privilege, owner) VALUES (%s, %L, %L, %L)',
	:study_a, 'regress_tuner_sec_viewer', 'write', 'regress_tuner_sec_viewer'));
SELECT regress_tuner_try(pg_catalog.format('SELECT tuner._grant_insert(%s, %L, %L)',
	:study_a, 'regress_tuner_sec_viewer', 'write'));
SELECT count(*) AS trials_with_error FROM tuner.trial WHERE error IS NOT NULL;
RESET ROLE;

-- tuner_reader (BI tools): every study, read only.
SET ROLE regress_tuner_sec_bi;
-- (the studies of earlier tests too: only this test's are shown)
SELECT name, owner FROM tuner.studies WHERE name LIKE 'sec\_%' ORDER BY name;
SELECT study, count(*) AS trials FROM tuner.trials
 WHERE study LIKE 'sec\_%' GROUP BY study ORDER BY study;
SELECT count(*) AS observations FROM tuner.observation o
  JOIN tuner.trial t ON t.id = o.trial_id
  JOIN tuner.study s ON s.id = t.study_id WHERE s.name LIKE 'sec\_%';
SELECT count(*) AS running FROM tuner.progress WHERE study LIKE 'sec\_%';
SELECT regress_tuner_try($$SELECT tuner.suggest_next('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_bi', 'y')$$);
SELECT regress_tuner_try($$UPDATE tuner.trial SET error = 'x'$$);
SELECT regress_tuner_try($$DELETE FROM tuner.study$$);
RESET ROLE;

-- A write grant: suggests, reports, adds metrics; neither drops, grants,
-- nor chooses a runner.
SET ROLE regress_tuner_sec_writer;
SELECT tuner.report((tuner.suggest_next('sec_a') ->> 'trial')::bigint, '{"y": 0.25}');
SELECT tuner.add_metric('sec_a', 'extra') > 0 AS added;
SELECT study, count(*) AS trials, min(value) AS best FROM tuner.trials GROUP BY study;
SELECT regress_tuner_try($$SELECT tuner.drop_study('sec_a')$$);
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_other', 'read')$$);
SELECT regress_tuner_try($$SELECT tuner.set_runner('sec_a', 'regress_tuner_sec_r')$$);
SELECT regress_tuner_try($$UPDATE tuner.study SET owner = 'regress_tuner_sec_writer'$$);
RESET ROLE;

-- Revoking: the writer sees nothing any more; revoking again finds nothing.
SET ROLE regress_tuner_sec_owner;
SELECT tuner.revoke_study('sec_a', 'regress_tuner_sec_writer') AS revoked;
SELECT tuner.revoke_study('sec_a', 'regress_tuner_sec_writer') AS revoked_again;
RESET ROLE;
SET ROLE regress_tuner_sec_writer;
SELECT count(*) AS studies FROM tuner.studies;
SELECT regress_tuner_try($$SELECT tuner.suggest_next('sec_a')$$);
RESET ROLE;

-- A role with pg_execute_server_program registers a runner and runs it on
-- its own study; an unprivileged owner cannot choose that runner.
SET ROLE regress_tuner_sec_runner;
SELECT tuner.register_runner('regress_tuner_sec_r', '/bin/echo', ARRAY['{"y": 2}']);
SELECT tuner.create_study('sec_run', 'y', runner => 'regress_tuner_sec_r') > 0 AS created;
SELECT tuner.add_parameter('sec_run', 'x', 'float', 0, 1);
SELECT tuner.step('sec_run') - 'trial' AS step;
SELECT regress_tuner_try($$SELECT tuner.run('sec_a', 1)$$);	-- not its study
RESET ROLE;
SET ROLE regress_tuner_sec_owner;
SELECT regress_tuner_try($$SELECT tuner.set_runner('sec_a', 'regress_tuner_sec_r')$$);
SELECT regress_tuner_try($$SELECT tuner.drop_runner('regress_tuner_sec_r')$$);
SELECT regress_tuner_try($$DELETE FROM tuner.runner$$);
SELECT regress_tuner_try($$UPDATE tuner.runner SET program = '/bin/sh'$$);
SELECT name, program FROM tuner.runner WHERE name = 'regress_tuner_sec_r';
RESET ROLE;
-- The privilege is looked at again at every run: revoked, the next step
-- is refused (tests/t/ checks the same for a background worker).
REVOKE pg_execute_server_program FROM regress_tuner_sec_runner;
SET ROLE regress_tuner_sec_runner;
SELECT regress_tuner_try($$SELECT tuner.step('sec_run')$$);
SELECT regress_tuner_try($$SELECT tuner.set_runner('sec_run', NULL)$$);	-- no runner needs no privilege
SELECT regress_tuner_try($$SELECT tuner.set_runner('sec_run', 'regress_tuner_sec_r')$$);
SELECT count(*) AS trials FROM tuner.trial;
RESET ROLE;

-- Operators of the caller's own schema change nothing: an "=" that is
-- always true would make every study the caller's if the policies' role
-- check were parsed with its search_path, and a "?" that is always false
-- would let runner settings past the trigger.
CREATE SCHEMA regress_tuner_sec_evil AUTHORIZATION regress_tuner_sec_other;
SET ROLE regress_tuner_sec_other;
CREATE FUNCTION regress_tuner_sec_evil.yes(name, name) RETURNS bool
	LANGUAGE sql IMMUTABLE RETURN true;
CREATE OPERATOR regress_tuner_sec_evil.= (LEFTARG = name, RIGHTARG = name,
	FUNCTION = regress_tuner_sec_evil.yes);
CREATE FUNCTION regress_tuner_sec_evil.no(jsonb, text) RETURNS bool
	LANGUAGE sql IMMUTABLE RETURN false;
CREATE OPERATOR regress_tuner_sec_evil.? (LEFTARG = jsonb, RIGHTARG = text,
	FUNCTION = regress_tuner_sec_evil.no);
SET search_path = regress_tuner_sec_evil, pg_catalog, public;
SELECT 'a'::name = 'b'::name AS hijacked_equal, '{"runner": 1}'::jsonb ? 'runner' AS hijacked_exists;
SELECT name FROM tuner.studies ORDER BY name;
SELECT count(*) AS trials FROM tuner.trial;
SELECT regress_tuner_try($$SELECT tuner.grant_study('sec_a', 'regress_tuner_sec_other', 'write')$$);
SELECT regress_tuner_try($$SELECT tuner.create_study('sec_evil', 'y', settings => '{"runner": {"db_bench": "/bin/sh"}}')$$);
RESET search_path;
RESET ROLE;
DROP SCHEMA regress_tuner_sec_evil CASCADE;

-- tuner.progress reaps as a tuner_user too (expired leases of its own
-- studies).
SET ROLE regress_tuner_sec_owner;
SELECT tuner.create_study('sec_lease', 'y', settings => '{"lease_s": 0.01}') > 0 AS created;
SELECT tuner.add_parameter('sec_lease', 'x', 'float', 0, 1);
SELECT tuner.suggest_next('sec_lease', 'w1') IS NOT NULL AS suggested;
SELECT pg_sleep(0.2);
SELECT count(*) AS running FROM tuner.progress;
SELECT number, state, error FROM tuner.trials WHERE study = 'sec_lease' ORDER BY number;
RESET ROLE;

-- Clean up (as superuser, who sees every study).
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('sec_a', 'sec_other', 'sec_run', 'sec_lease') ORDER BY name;
SELECT tuner.drop_runner('regress_tuner_sec_r');
DROP SCHEMA regress_tuner_sec CASCADE;
DROP FUNCTION public.regress_tuner_try(text);
DROP OWNED BY regress_tuner_sec_owner, regress_tuner_sec_other,
	regress_tuner_sec_viewer, regress_tuner_sec_writer, regress_tuner_sec_bi,
	regress_tuner_sec_runner, regress_tuner_sec_outsider;
DROP ROLE regress_tuner_sec_owner, regress_tuner_sec_other,
	regress_tuner_sec_viewer, regress_tuner_sec_writer, regress_tuner_sec_bi,
	regress_tuner_sec_runner, regress_tuner_sec_outsider;
SELECT count(*) AS grants_left FROM tuner.study_grant;
