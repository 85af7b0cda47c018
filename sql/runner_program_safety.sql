-- runner_program_safety: a runner's program must be safe to exec (issue
-- 25).  The server runs it as its own OS user (postgres), so a program
-- that someone else could change, through its file, a directory on its
-- path or a symbolic link leading to it, is refused when registered and
-- when run (tuner.step here; the background workers in
-- tests/t/021_program_safety.pl).  The files are set up by psql's \! as
-- the client's user, root in scripts/test-all.sh (chown needs it).
\set SHOW_CONTEXT never
\! rm -rf /tmp/tuner_regress_safety && mkdir -m 0755 /tmp/tuner_regress_safety
\! cd /tmp/tuner_regress_safety && mkdir -m 0755 safe open sticky nobody grp grp0 swap && chmod 0777 open && chmod 1777 sticky && chown nobody nobody && chgrp nogroup grp && chgrp root grp0 && chmod 0775 grp grp0
\! cd /tmp/tuner_regress_safety && for d in safe open sticky nobody grp grp0 swap; do printf '#!/bin/sh\ncat >/dev/null\necho "{\\"y\\": 1}"\n' > $d/run.sh && chmod 0755 $d/run.sh; done
\! cd /tmp/tuner_regress_safety && printf '#!/bin/sh\ntouch /tmp/tuner_regress_safety/swapped-in-script-ran\necho "{\\"y\\": 0}"\n' > evil.sh && chmod 0755 evil.sh && chown nobody evil.sh
\! cd /tmp/tuner_regress_safety && ln -s nobody/run.sh link.sh && ln -s ../nobody/run.sh safe/rel.sh && ln -s /tmp/tuner_regress_safety/safe/run.sh good_link.sh && echo text > plain.txt && chmod 0644 plain.txt

-- A statement's SQLSTATE and message if it fails.
CREATE FUNCTION public.regress_tuner_safety_try(statement text)
RETURNS text
LANGUAGE plpgsql
AS $$
BEGIN
	EXECUTE statement;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END;
$$;

CREATE ROLE regress_tuner_safety_runner LOGIN IN ROLE tuner_user, pg_execute_server_program;
CREATE ROLE regress_tuner_safety_user LOGIN IN ROLE tuner_user;
GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
	tuner.drop_runner(text), tuner.step(text)
	TO regress_tuner_safety_runner, regress_tuner_safety_user;

SET ROLE regress_tuner_safety_runner;
-- Refused: the whole error once, then SQLSTATE and message.
SELECT tuner.register_runner('safety_open', '/tmp/tuner_regress_safety/open/run.sh');
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_nobody', '/tmp/tuner_regress_safety/nobody/run.sh')$$) AS owned_by_nobody;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_link', '/tmp/tuner_regress_safety/link.sh')$$) AS link_to_nobody;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_rel', '/tmp/tuner_regress_safety/safe/rel.sh')$$) AS relative_link;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_grp', '/tmp/tuner_regress_safety/grp/run.sh')$$) AS group_writable;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_evil', '/tmp/tuner_regress_safety/evil.sh')$$) AS file_of_nobody;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_dir', '/tmp/tuner_regress_safety/safe')$$) AS directory;
SELECT regress_tuner_safety_try($$SELECT tuner.register_runner('safety_plain', '/tmp/tuner_regress_safety/plain.txt')$$) AS not_executable;
SELECT tuner.register_runner('safety_plain', '/tmp/tuner_regress_safety/plain.txt');
SELECT count(*) AS registered FROM tuner.runner WHERE owner = current_user;

-- Accepted: owned by root and writable by it only; a sticky directory of
-- root (like /tmp); group root may write; a link between safe places;
-- bare names (PostgreSQL's bindir, then PATH); a program not installed
-- yet (checked again when it runs).
SELECT tuner.register_runner('safety_safe', '/tmp/tuner_regress_safety/safe/run.sh');
SELECT tuner.register_runner('safety_sticky', '/tmp/tuner_regress_safety/sticky/run.sh');
SELECT tuner.register_runner('safety_grp0', '/tmp/tuner_regress_safety/grp0/run.sh');
SELECT tuner.register_runner('safety_good_link', '/tmp/tuner_regress_safety/good_link.sh');
SELECT tuner.register_runner('safety_sleep', 'sleep');
SELECT tuner.register_runner('safety_later', '/tmp/tuner_regress_safety/later/run.sh');
SELECT tuner.register_runner('safety_later_name', 'tuner_regress_no_such_program');
SELECT name FROM tuner.runner WHERE owner = current_user ORDER BY 1;

-- A registered program is not changed in place (drop and register
-- again); a superuser's change is checked too.
SELECT regress_tuner_safety_try($$UPDATE tuner.runner SET program = '/tmp/tuner_regress_safety/open/run.sh' WHERE name = 'safety_safe'$$) AS update_program;
RESET ROLE;
SELECT regress_tuner_safety_try($$UPDATE tuner.runner SET program = '/tmp/tuner_regress_safety/open/run.sh' WHERE name = 'safety_safe'$$) AS update_program;
SELECT program FROM tuner.runner WHERE name = 'safety_safe';

-- Without pg_execute_server_program: the check tells nothing about the
-- file system, and the table's policies refuse the row.
SET ROLE regress_tuner_safety_user;
SELECT regress_tuner_safety_try($$SELECT tuner._check_program_safe('/tmp/tuner_regress_safety/open/run.sh')$$) AS direct_check;
SELECT regress_tuner_safety_try($$INSERT INTO tuner.runner (name, program) VALUES ('x', '/tmp/tuner_regress_safety/open/run.sh')$$) AS direct_insert;
RESET ROLE;

-- Registered safely, then its directory given to another user before
-- the run: tuner.step fails the trial with the reason, and the script
-- swapped in never runs.
SET ROLE regress_tuner_safety_runner;
SELECT tuner.register_runner('safety_swap', '/tmp/tuner_regress_safety/swap/run.sh');
SELECT tuner.create_study('regress_safety', 'y', 'minimize', '{"seed": 1}', runner => 'safety_swap') > 0 AS created;
SELECT tuner.add_parameter('regress_safety', 'x', 'float', 0, 1);
SELECT tuner.step('regress_safety') ->> 'state' AS safe_step;
\! cd /tmp/tuner_regress_safety && chown nobody swap && cp evil.sh swap/run.sh
SELECT tuner.step('regress_safety') - 'trial' AS swapped_step;
SELECT number, state, error FROM tuner.trials WHERE study = 'regress_safety' ORDER BY number;
\! test -e /tmp/tuner_regress_safety/swapped-in-script-ran && echo 'the swapped-in script ran' || echo 'the swapped-in script never ran'

-- Clean up.
SELECT tuner.drop_study('regress_safety');
SELECT count(tuner.drop_runner(name)) AS dropped FROM tuner.runner WHERE owner = current_user;
RESET ROLE;
DROP FUNCTION public.regress_tuner_safety_try(text);
REVOKE EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb),
	tuner.drop_runner(text), tuner.step(text)
	FROM regress_tuner_safety_runner, regress_tuner_safety_user;
DROP ROLE regress_tuner_safety_runner, regress_tuner_safety_user;
\! rm -rf /tmp/tuner_regress_safety
