-- runner_program_safety.sql
--	  Runner programs must be safe to exec: the server runs them as its own
--	  OS user, so no one else may be able to change the file, a directory
--	  on its path (up to /), or a symbolic link leading to it
--	  (src/exec/program_safety.c has the rule).  Checked when a runner's
--	  program is registered or changed (this trigger), and again by the
--	  server right before every exec (src/pg/runner_exec.c).

-- Raise an error unless the server may exec program, resolved as a worker
-- would (a bare name: PostgreSQL's bindir, then the server's PATH).  A
-- program not found passes: it is checked again before every run.
CREATE FUNCTION tuner._check_program_safe(program text)
RETURNS void
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_check_program_safe';

-- It tells about the server's file system: only for roles that may make
-- the server run programs.
REVOKE ALL ON FUNCTION tuner._check_program_safe(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tuner._check_program_safe(text) TO pg_execute_server_program;

-- BEFORE INSERT OR UPDATE OF program on tuner.runner.  A role that may
-- not run programs is refused by the table's policies anyway (after this
-- trigger), and learns nothing about the file system here.
CREATE FUNCTION tuner._runner_program_safe()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
BEGIN
	IF tuner._may_run_programs() THEN
		PERFORM tuner._check_program_safe(NEW.program);
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER runner_program_safe
	BEFORE INSERT OR UPDATE OF program ON tuner.runner
	FOR EACH ROW EXECUTE FUNCTION tuner._runner_program_safe();
