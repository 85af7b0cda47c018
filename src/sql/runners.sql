/*
 * runners.sql
 *	  Runners: the programs that run trials, who may register them, and the
 *	  checks on the program and its settings.
 */

-------------------------------------------------------------------------------
-- Internal helpers
-------------------------------------------------------------------------------

-- The runner row of a name, or the error for a NULL or unknown runner.
CREATE OR REPLACE FUNCTION tuner._find_runner(runner text)
RETURNS tuner.runner
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	r tuner.runner;
	p_runner text := $1;
BEGIN
	PERFORM tuner._not_null(p_runner, 'runner');
	SELECT * INTO r FROM tuner.runner WHERE tuner.runner.name = p_runner;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'runner "%" does not exist', p_runner
			USING ERRCODE = 'undefined_object',
				  HINT = 'Register it with tuner.register_runner(); tuner.runner lists the registered runners.';
	END IF;
	RETURN r;
END;
$$;

-------------------------------------------------------------------------------
-- Running trials: runners, background workers, tuner.step
--
-- A runner is a program.  The server writes the trial's configuration as
-- one JSON object to its stdin and reads one JSON object of metrics from
-- its stdout (README.md, "Writing a runner").  Only roles with the
-- privileges of pg_execute_server_program (or superusers) may register or
-- run one; the C functions check it, and EXECUTE on every function that
-- runs a program is revoked from PUBLIC.
-------------------------------------------------------------------------------

-- Raise insufficient_privilege unless the current role has the privileges
-- of pg_execute_server_program.  action names what was attempted.
CREATE OR REPLACE FUNCTION tuner._check_program_privilege(action text)
RETURNS void
AS 'MODULE_PATHNAME', 'tuner_check_program_privilege'
LANGUAGE C STRICT;

-- Register a runner program.  program is an absolute path, or a bare name
-- looked up in PostgreSQL's bindir (pg_config --bindir) and then the
-- server's PATH when a trial runs.  args are passed as they are (no
-- shell); settings reach the runner as "_settings" (the study's
-- settings->'runner' override them).
CREATE OR REPLACE FUNCTION tuner.register_runner(name text, program text,
									  args text[] DEFAULT '{}',
									  settings jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	p_name text := $1;
	p_program text := $2;
	p_args text[] := $3;
	p_settings jsonb := $4;
BEGIN
	PERFORM tuner._check_program_privilege('register a runner');
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_program, 'program');
	PERFORM tuner._not_null(p_args, 'args');
	PERFORM tuner._not_null(p_settings, 'settings');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'runner name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.btrim(p_program) = '' THEN
		RAISE EXCEPTION 'runner program must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p_program LIKE '%/%' AND p_program NOT LIKE '/%' THEN
		RAISE EXCEPTION 'runner program "%" must be an absolute path or a bare program name', p_program
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'A bare name is looked up in PostgreSQL''s bindir, then in the server''s PATH.';
	END IF;
	IF pg_catalog.strpos(p_program, pg_catalog.chr(10)) > 0 THEN
		RAISE EXCEPTION 'runner program must not contain a newline'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.cardinality(p_args) > 0 AND pg_catalog.array_ndims(p_args) <> 1 THEN
		RAISE EXCEPTION 'runner args must be a one-dimensional array'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.array_position(p_args, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'runner args must not contain NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  DETAIL = pg_catalog.format('Argument %s is NULL.', pg_catalog.array_position(p_args, NULL));
	END IF;
	IF pg_catalog.jsonb_typeof(p_settings) <> 'object' THEN
		RAISE EXCEPTION 'runner settings must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(p_settings));
	END IF;
	BEGIN
		INSERT INTO tuner.runner (name, program, args, settings)
		VALUES (p_name, p_program, p_args, p_settings);
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'runner "%" already exists', p_name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Drop it first with tuner.drop_runner(), or choose another name.';
	END;
END;
$$;

-- The functions that make the server run programs.  They also check the
-- privileges of pg_execute_server_program in C; a superuser may GRANT
-- EXECUTE on them to such roles.
REVOKE ALL ON FUNCTION tuner.register_runner(text, text, text[], jsonb) FROM PUBLIC;

-- Drop a runner that no study uses.
CREATE OR REPLACE FUNCTION tuner.drop_runner(name text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	r tuner.runner;
	v_study text;
BEGIN
	PERFORM tuner._check_program_privilege('drop a runner');
	r := tuner._find_runner($1);
	SELECT s.name INTO v_study FROM tuner.study s WHERE s.runner = r.name
	 ORDER BY s.name LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'runner "%" is used by study "%"', r.name, v_study
			USING ERRCODE = 'dependent_objects_still_exist',
				  HINT = 'Give the study another runner with tuner.set_runner(), or drop the study.';
	END IF;
	DELETE FROM tuner.runner WHERE tuner.runner.name = r.name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'permission denied to drop runner "%"', r.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Only its owner %s may drop it.', pg_catalog.quote_ident(r.owner));
	END IF;
END;
$$;

-- Choose the runner of a study (NULL: none).
CREATE OR REPLACE FUNCTION tuner.set_runner(study text, runner text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	r tuner.runner;
BEGIN
	s := tuner._find_study($1);
	IF $2 IS NOT NULL THEN
		r := tuner._find_runner($2);
	END IF;
	UPDATE tuner.study SET runner = r.name WHERE id = s.id;
END;
$$;

-- The study of a name that has a runner, or the errors.
CREATE OR REPLACE FUNCTION tuner._study_with_runner(study text)
RETURNS tuner.study
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	IF s.runner IS NULL THEN
		RAISE EXCEPTION 'study "%" has no runner', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Register a runner with tuner.register_runner() and choose it with tuner.set_runner().';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	RETURN s;
END;
$$;

-- Trigger: choosing a study's runner, or changing the settings passed to
-- it, decides what the server runs; that needs pg_execute_server_program
-- whatever the route (create_study, set_runner, set_algorithm, UPDATE).
CREATE OR REPLACE FUNCTION tuner._study_runner_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF NEW.runner IS NOT NULL OR NEW.settings ? 'runner' THEN
			PERFORM tuner._check_program_privilege('create a study that runs programs');
		END IF;
	ELSIF (NEW.runner IS NOT NULL AND NEW.runner IS DISTINCT FROM OLD.runner)
		  OR (NEW.settings -> 'runner') IS DISTINCT FROM (OLD.settings -> 'runner') THEN
		PERFORM tuner._check_program_privilege('choose the runner of a study or its settings');
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER study_runner_guard BEFORE INSERT OR UPDATE ON tuner.study
	FOR EACH ROW EXECUTE FUNCTION tuner._study_runner_guard();

-------------------------------------------------------------------------------
-- Notifications no longer broadcast what row-level security protects.
--
-- In 0.1.0 every NOTIFY tuner_trials payload carried the study's name and
-- the trial's objective value, and any role may LISTEN, so a role that
-- cannot see a study still read its results.  The payload now carries
-- ids and the state (a listener reads the rest from tuner.trials, where
-- row-level security applies) unless a superuser sets tuner.notify to
-- 'full' (the 0.1.0 payload: for a database with one tenant) or 'off'.
-------------------------------------------------------------------------------

-- tuner.notify's value (private, full or off), validated by the library.
CREATE OR REPLACE FUNCTION tuner._notify_mode()
RETURNS text
LANGUAGE C STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'tuner_notify_mode';

-------------------------------------------------------------------------------
-- The fastquery preset no longer offers more MPI ranks than the host has
-- processors.
--
-- 0.1.0 let ranks and cb_nodes go to 4 on any machine.  MPICH's ranks
-- busy-wait for messages, so on a 2-core host 3 and 4 ranks made a trial
-- 5-10x slower than 1 or 2: trials a study could only lose, and hours of a
-- benchmark.  The runner setting max_ranks (default: the database host's
-- processors, at most 64) bounds both parameters, and tuner_fastquery_runner
-- refuses a trial with more ranks than it.
-------------------------------------------------------------------------------

-- Processors online on the database host (sysconf(_SC_NPROCESSORS_ONLN)).
CREATE OR REPLACE FUNCTION tuner._host_cpus()
RETURNS int
LANGUAGE C VOLATILE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'tuner_host_cpus';

-------------------------------------------------------------------------------
-- Runner input is validated where it is written and again before exec.
--
-- A runner receives a trial's configuration on stdin and runs as the
-- server's OS user, so a configuration must be a point of the study's
-- space however the trial row was written: only the study's parameters,
-- each within its kind, bounds and choices, the missing ones at their
-- defaults and the inactive ones (conditions) reset, as tuner.enqueue
-- makes it (tuner._complete_config).  The trigger refuses anything else
-- with enqueue's errors; the background worker and tuner.step ask
-- tuner._runner_input_problem right before exec and fail the trial with
-- its answer, in case the space changed after the trial was queued.
-- Finished trials are history (pg_restore, copy_trials) and not checked.
-------------------------------------------------------------------------------

-- Why a runnable trial's configuration must not reach its runner, or NULL.
CREATE OR REPLACE FUNCTION tuner._runner_input_problem(trial bigint)
RETURNS text
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	t tuner.trial;
	c record;
BEGIN
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1;
	IF NOT FOUND THEN
		RETURN pg_catalog.format('trial %s does not exist', $1);
	END IF;
	c := tuner._complete_config(t.study_id, t.config);
	IF pg_catalog.cardinality(c.dropped) > 0 THEN
		RETURN pg_catalog.format('runner input refused: parameter %s is not in the study',
								 pg_catalog.to_jsonb(c.dropped[1]));
	END IF;
	IF c.problem IS NOT NULL THEN
		RETURN 'runner input refused: ' || c.problem[2];
	END IF;
	RETURN NULL;
END;
$$;

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
CREATE OR REPLACE FUNCTION tuner._check_program_safe(program text)
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
CREATE OR REPLACE FUNCTION tuner._runner_program_safe()
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
