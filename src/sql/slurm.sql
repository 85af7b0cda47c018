/*
 * slurm.sql
 *	  The Slurm executor (issue 31): a study with the setting
 *	  executor 'slurm' runs each trial of tuner.run as one Slurm batch job
 *	  whose one process is tuner-agent --trial ID (claim that trial,
 *	  heartbeats, report: tuner.agent_claim_trial, workers.sql).  The
 *	  background worker of tuner.run submits the job with sbatch (argv, no
 *	  shell: tuner._slurm_command), waits for it, reconciles the trial with
 *	  what Slurm says of the job (a job cancelled, timed out or lost with
 *	  its node fails its trial with Slurm's reason), cancels it on
 *	  tuner.stop (scancel) and records the job's accounting (sacct) in the
 *	  trial's details.slurm.  docs/operations.md, "Trials as Slurm jobs".
 */

-- The names of the "slurm" settings object, in the order of the hint.
CREATE OR REPLACE FUNCTION tuner._slurm_setting_names()
RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
SELECT ARRAY['partition', 'account', 'qos', 'constraint', 'time_limit_s', 'nodes',
			 'ntasks', 'ntasks_parameter', 'cpus_per_task', 'mem_mb', 'exclusive',
			 'output_dir', 'mpi', 'requeue']::text[];
$$;

-- Check the settings executor and slurm (tuner._check_run_settings).
-- Every value becomes one sbatch argument of a fixed option, never shell
-- text: names are Slurm names ([A-Za-z0-9_.-]), a constraint is Slurm's
-- feature expression, numbers are integers in range, output_dir is an
-- absolute path of plain characters.
CREATE OR REPLACE FUNCTION tuner._check_executor_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_slurm jsonb := settings -> 'slurm';
	k text;
	v jsonb;
BEGIN
	IF settings ? 'executor' AND (pg_catalog.jsonb_typeof(settings -> 'executor') IS DISTINCT FROM 'string'
		OR settings ->> 'executor' NOT IN ('local', 'slurm')) THEN
		RAISE EXCEPTION 'setting executor must be "local" or "slurm"'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'executor'),
				  HINT = '"local" (the default) runs trials in the server''s background workers; "slurm" submits each trial of tuner.run as a Slurm job.';
	END IF;
	IF v_slurm IS NULL THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(v_slurm) <> 'object' THEN
		RAISE EXCEPTION 'setting slurm must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', v_slurm),
				  HINT = 'For example {"slurm": {"partition": "batch", "time_limit_s": 600}}.';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(v_slurm) e ORDER BY e.key
	LOOP
		IF NOT k = ANY (tuner._slurm_setting_names()) THEN
			RAISE EXCEPTION 'setting slurm has no option "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'The options are ' || pg_catalog.array_to_string(tuner._slurm_setting_names(), ', ')
						  || '; other sbatch options are not accepted.';
		END IF;
		IF k IN ('partition', 'account', 'qos', 'ntasks_parameter') THEN
			IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'string'
			   OR (v #>> '{}') !~ '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$' THEN
				RAISE EXCEPTION 'setting slurm.% must be a name of 1 to 64 letters, digits, "_", "." or "-"', k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
		ELSIF k = 'constraint' THEN
			IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'string'
			   OR (v #>> '{}') !~ '^[A-Za-z0-9_][A-Za-z0-9_.&|,:*()\[\]-]*$' OR pg_catalog.length(v #>> '{}') > 200 THEN
				RAISE EXCEPTION 'setting slurm.constraint must be a Slurm feature expression'
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'Features (letters, digits, "_", ".", "-") joined by &, |, comma, with * counts, () and [].';
			END IF;
		ELSIF k = 'time_limit_s' THEN
			PERFORM tuner._json_int(v, 'setting slurm.time_limit_s', 1, 31536000);
		ELSIF k IN ('nodes', 'cpus_per_task') THEN
			PERFORM tuner._json_int(v, 'setting slurm.' || k, 1, 100000);
		ELSIF k = 'ntasks' THEN
			PERFORM tuner._json_int(v, 'setting slurm.ntasks', 1, 10000000);
		ELSIF k = 'mem_mb' THEN
			PERFORM tuner._json_int(v, 'setting slurm.mem_mb', 1, 1073741824);
		ELSIF k IN ('exclusive', 'requeue') THEN
			IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'boolean' THEN
				RAISE EXCEPTION 'setting slurm.% must be true or false', k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
		ELSIF k = 'mpi' THEN
			IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'string' OR (v #>> '{}') NOT IN ('pmi2', 'pmix', 'none') THEN
				RAISE EXCEPTION 'setting slurm.mpi must be "pmi2", "pmix" or "none"'
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'It becomes the job''s SLURM_MPI_TYPE, the MPI plugin of the runner''s srun (srun --mpi=list shows the cluster''s).';
			END IF;
		ELSIF k = 'output_dir' THEN
			IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'string'
			   OR (v #>> '{}') !~ '^/[A-Za-z0-9_./-]*$' OR pg_catalog.length(v #>> '{}') > 1000
			   OR (v #>> '{}') ~ '(^|/)\.\.(/|$)' THEN
				RAISE EXCEPTION 'setting slurm.output_dir must be an absolute path of letters, digits, "_", ".", "-" and "/"'
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'Each job writes its output to DIR/tuner-JOBID.out; without the setting it goes to /dev/null.';
			END IF;
		END IF;
	END LOOP;
	IF v_slurm ? 'ntasks' AND v_slurm ? 'ntasks_parameter' THEN
		RAISE EXCEPTION 'setting slurm takes ntasks or ntasks_parameter, not both'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'ntasks_parameter names the parameter whose value in each trial is the job''s task count.';
	END IF;
END;
$$;

-- The executor of a study: 'local' or 'slurm'.
CREATE OR REPLACE FUNCTION tuner._study_executor(study_id bigint)
RETURNS text
LANGUAGE sql STABLE
AS $$
SELECT COALESCE((SELECT s.settings ->> 'executor' FROM tuner.study s WHERE s.id = $1), 'local');
$$;

-- Run a Slurm client command (sbatch, squeue, sacct or scancel; looked up
-- as a runner's bare program name: PostgreSQL's bindir, then the server's
-- PATH) with args (no shell) and input on its stdin, at most 60 s.  The
-- setting tuner.slurm_conf, when set, becomes its SLURM_CONF.  Needs the
-- privileges of pg_execute_server_program.  exit_code is NULL when it
-- could not run or a signal ended it; stderr then says why.
CREATE OR REPLACE FUNCTION tuner._slurm_command(command text, args text[], input text DEFAULT '',
									 OUT exit_code int, OUT stdout text, OUT stderr text)
LANGUAGE C
AS 'MODULE_PATHNAME', 'tuner_slurm_command';

-- The tuner-agent a job runs: the setting tuner.agent_path, else
-- tuner-agent in PostgreSQL's bindir (where make install-agent puts it).
CREATE OR REPLACE FUNCTION tuner._slurm_agent_path()
RETURNS text
LANGUAGE C STABLE
AS 'MODULE_PATHNAME', 'tuner_slurm_agent_path';

-- A value in a libpq conninfo string or a POSIX shell word: single-quoted.
CREATE OR REPLACE FUNCTION tuner._conninfo_quote(value text)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
SELECT '''' || pg_catalog.replace(pg_catalog.replace($1, '\', '\\'), '''', '\''') || '''';
$$;

CREATE OR REPLACE FUNCTION tuner._shell_quote(value text)
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
SELECT '''' || pg_catalog.replace($1, '''', '''"''"''') || '''';
$$;

-- How a job's agent connects: the setting tuner.slurm_conninfo, else this
-- server's first Unix socket directory and port, this database and the
-- current role (peer authentication as the server's OS user, which is
-- the identity the jobs run as).
CREATE OR REPLACE FUNCTION tuner._slurm_conninfo()
RETURNS text
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(NULLIF(pg_catalog.current_setting('tuner.slurm_conninfo', true), ''),
				pg_catalog.concat_ws(' ',
					'host=' || tuner._conninfo_quote(NULLIF(pg_catalog.btrim(pg_catalog.split_part(
						pg_catalog.current_setting('unix_socket_directories'), ',', 1)), '')),
					'port=' || pg_catalog.current_setting('port'),
					'dbname=' || tuner._conninfo_quote(pg_catalog.current_database()),
					'user=' || tuner._conninfo_quote(current_user::text)));
$$;

-- The sbatch arguments of a trial's job (before the script on stdin).
CREATE OR REPLACE FUNCTION tuner._slurm_sbatch_args(trial bigint)
RETURNS text[]
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	t tuner.trial;
	v jsonb;
	a text[];
	v_ntasks jsonb;
BEGIN
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1;
	SELECT COALESCE(s.settings -> 'slurm', '{}') INTO v FROM tuner.study s WHERE s.id = t.study_id;
	a := ARRAY['--parsable', '--job-name=tuner-trial-' || t.id, '--chdir=/tmp',
			   '--output=' || COALESCE((v ->> 'output_dir') || '/tuner-%j.out', '/dev/null'),
			   '--nodes=' || COALESCE(v ->> 'nodes', '1')];
	IF v ? 'ntasks_parameter' THEN
		v_ntasks := t.config -> (v ->> 'ntasks_parameter');
		IF v_ntasks IS NULL THEN
			RAISE EXCEPTION 'trial % has no value for parameter "%" (setting slurm.ntasks_parameter)',
				t.id, v ->> 'ntasks_parameter'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		a := a || ('--ntasks=' || tuner._json_int(v_ntasks, 'the task count (parameter '
												   || (v ->> 'ntasks_parameter') || ')', 1, 10000000));
	ELSE
		a := a || ('--ntasks=' || COALESCE(v ->> 'ntasks', '1'));
	END IF;
	IF v ? 'time_limit_s' THEN
		-- Slurm counts time limits in whole minutes
		a := a || ('--time=' || pg_catalog.ceil((v ->> 'time_limit_s')::numeric / 60));
	END IF;
	IF v ? 'partition' THEN a := a || ('--partition=' || (v ->> 'partition')); END IF;
	IF v ? 'account' THEN a := a || ('--account=' || (v ->> 'account')); END IF;
	IF v ? 'qos' THEN a := a || ('--qos=' || (v ->> 'qos')); END IF;
	IF v ? 'constraint' THEN a := a || ('--constraint=' || (v ->> 'constraint')); END IF;
	IF v ? 'cpus_per_task' THEN a := a || ('--cpus-per-task=' || (v ->> 'cpus_per_task')); END IF;
	IF v ? 'mem_mb' THEN a := a || ('--mem=' || (v ->> 'mem_mb') || 'M'); END IF;
	IF (v ->> 'exclusive')::bool THEN a := a || '--exclusive'::text; END IF;
	-- a job its node's failure (or preemption) ends: run it again, or fail
	-- the trial with Slurm's reason; without the setting, the cluster's
	-- JobRequeue decides
	IF v ? 'requeue' THEN
		a := a || CASE WHEN (v ->> 'requeue')::bool THEN '--requeue' ELSE '--no-requeue' END;
	END IF;
	RETURN a;
END;
$$;

-- The batch script of a trial's job: exec tuner-agent for that trial
-- (its worker name: slurm-JOBID), after exporting SLURM_MPI_TYPE when the
-- study sets slurm.mpi (the MPI plugin of an srun the runner starts its
-- ranks with).  Only quoted words of tuner's own.
CREATE OR REPLACE FUNCTION tuner._slurm_script(trial bigint)
RETURNS text
LANGUAGE sql STABLE
AS $$
SELECT E'#!/bin/sh\n# tuner trial ' || $1 || E' (tuner.agent_claim_trial)\n'
	   || COALESCE((SELECT 'export SLURM_MPI_TYPE=' || tuner._shell_quote(s.settings -> 'slurm' ->> 'mpi') || E'\n'
					  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
					 WHERE t.id = $1 AND s.settings -> 'slurm' ? 'mpi'), '')
	   || 'exec ' || tuner._shell_quote(tuner._slurm_agent_path())
	   || ' --trial ' || $1 || ' --worker "slurm-$SLURM_JOB_ID" --leave-on-signal --dsn '
	   || tuner._shell_quote(tuner._slurm_conninfo()) || E'\n';
$$;

-- Worker: submit a claimed trial as a Slurm job.  Returns the job id,
-- recorded as the trial's worker (slurm-JOBID, which its agent claims it
-- as); or NULL when sbatch failed, and then the trial is failed with
-- sbatch's message.
CREATE OR REPLACE FUNCTION tuner._slurm_submit(trial bigint)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	r record;
	v_job bigint;
	v_reason text;
BEGIN
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND OR t.state <> 'running' THEN
		RETURN NULL;
	END IF;
	v_reason := tuner._runner_input_problem(t.id);
	IF v_reason IS NULL THEN
		BEGIN
			r := tuner._slurm_command('sbatch', tuner._slurm_sbatch_args(t.id), tuner._slurm_script(t.id));
			-- --parsable: "JOBID" or "JOBID;CLUSTER"
			IF r.exit_code = 0 AND pg_catalog.split_part(pg_catalog.btrim(r.stdout, E' \t\r\n'), ';', 1) ~ '^[0-9]{1,18}$' THEN
				v_job := pg_catalog.split_part(pg_catalog.btrim(r.stdout, E' \t\r\n'), ';', 1)::bigint;
			ELSE
				v_reason := 'sbatch failed: ' || COALESCE(NULLIF(pg_catalog.btrim(r.stderr, E' \t\r\n'), ''),
													  pg_catalog.btrim(r.stdout, E' \t\r\n'), 'no output');
			END IF;
		EXCEPTION WHEN invalid_parameter_value THEN
			v_reason := SQLERRM;
		END;
	END IF;
	IF v_job IS NULL THEN
		PERFORM tuner._finish_trial(t.id, NULL, v_reason, '', '', 0, 'failed', v_reason);
		RETURN NULL;
	END IF;
	UPDATE tuner.trial x
	   SET worker = 'slurm-' || v_job,
		   details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('slurm',
					 pg_catalog.jsonb_build_object('job_id', v_job, 'state', 'PENDING'))
	 WHERE x.id = t.id;
	RETURN v_job;
END;
$$;

-- Seconds of a Slurm duration ([DD-][HH:]MM:SS[.mmm]), NULL for none.
CREATE OR REPLACE FUNCTION tuner._slurm_seconds(value text)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	d float8 := 0;
	rest text := value;
	parts text[];
	s float8 := 0;
	i int;
BEGIN
	IF value IS NULL OR value !~ '^([0-9]+-)?([0-9]+:){0,2}[0-9]+(\.[0-9]+)?$' THEN
		RETURN NULL;
	END IF;
	IF rest ~ '-' THEN
		d := pg_catalog.split_part(rest, '-', 1)::float8;
		rest := pg_catalog.split_part(rest, '-', 2);
	END IF;
	parts := pg_catalog.string_to_array(rest, ':');
	FOR i IN 1 .. pg_catalog.cardinality(parts) LOOP
		s := s * 60 + parts[i]::float8;
	END LOOP;
	RETURN d * 86400 + s;
END;
$$;

-- Kibibytes of a Slurm memory size (1234K, 12M, 1.5G), NULL for none.
CREATE OR REPLACE FUNCTION tuner._slurm_kib(value text)
RETURNS float8
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE WHEN $1 ~ '^[0-9]+(\.[0-9]+)?[KMGT]?$' THEN
	pg_catalog.substring($1, '^[0-9.]+')::float8
	* CASE pg_catalog.substring($1, '[KMGT]$')
		WHEN 'M' THEN 1024 WHEN 'G' THEN 1048576 WHEN 'T' THEN 1073741824
		WHEN 'K' THEN 1 ELSE 1.0 / 1024 END
END;
$$;

-- The state of a Slurm job (PENDING, RUNNING, COMPLETED, CANCELLED,
-- TIMEOUT, NODE_FAIL, ...) and Slurm's reason: from the controller
-- (squeue), else from the accounting (sacct); NULLs when neither knows it.
CREATE OR REPLACE FUNCTION tuner._slurm_job_state(job bigint, OUT state text, OUT reason text)
LANGUAGE plpgsql
AS $$
DECLARE
	r record;
	v_line text;
BEGIN
	r := tuner._slurm_command('squeue', ARRAY['--noheader', '--states=all', '--jobs=' || job,
											   '--format=%T|%r']);
	v_line := pg_catalog.split_part(pg_catalog.btrim(COALESCE(r.stdout, ''), E' \n'), E'\n', 1);
	IF r.exit_code = 0 AND v_line ~ '^[A-Z_]+\|' THEN
		state := pg_catalog.split_part(v_line, '|', 1);
		reason := NULLIF(pg_catalog.split_part(v_line, '|', 2), 'None');
		RETURN;
	END IF;
	r := tuner._slurm_command('sacct', ARRAY['--noheader', '--parsable2', '--allocations',
											  '--jobs=' || job, '--format=State,Reason']);
	v_line := pg_catalog.split_part(pg_catalog.btrim(COALESCE(r.stdout, ''), E' \n'), E'\n', 1);
	IF r.exit_code = 0 AND v_line ~ '^[A-Z_]+' THEN
		-- "CANCELLED by 0": the state is the first word
		state := pg_catalog.split_part(pg_catalog.split_part(v_line, '|', 1), ' ', 1);
		reason := NULLIF(pg_catalog.split_part(v_line, '|', 2), 'None');
	END IF;
END;
$$;

-- Is a job state one a job does not leave?
CREATE OR REPLACE FUNCTION tuner._slurm_state_final(state text)
RETURNS bool
LANGUAGE sql IMMUTABLE
AS $$
SELECT $1 IN ('COMPLETED', 'FAILED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED',
			  'OUT_OF_MEMORY', 'BOOT_FAIL', 'DEADLINE', 'REVOKED', 'SPECIAL_EXIT');
$$;

-- A finished job's accounting from sacct: {"job_id", "state", "reason",
-- "exit_code", "nodes", "submit", "start", "end", "queue_wait_s",
-- "elapsed_s", "cpu_s", "max_rss_kib"} of its last run (MaxRSS: the
-- largest of its steps', sampled by Slurm, absent when no sample was
-- taken), and for a job Slurm requeued (its node failed, it was
-- preempted) "requeues": its earlier runs, each {"state", "nodes",
-- "start", "end"}, oldest first.
CREATE OR REPLACE FUNCTION tuner._slurm_accounting(job bigint)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	r record;
	v_line text;
	f text[];
	v_acct jsonb := pg_catalog.jsonb_build_object('job_id', job);
	v_rss float8;
	v_runs jsonb := '[]';
BEGIN
	-- --duplicates: every run of a requeued job, in order (else only the last)
	r := tuner._slurm_command('sacct', ARRAY['--noheader', '--parsable2', '--duplicates', '--jobs=' || job,
		'--format=JobIDRaw,State,Reason,ExitCode,NodeList,Submit,Start,End,ElapsedRaw,TotalCPU,MaxRSS']);
	IF r.exit_code IS DISTINCT FROM 0 THEN
		RETURN v_acct || pg_catalog.jsonb_build_object('sacct_error', pg_catalog.btrim(r.stderr, E' \t\r\n'));
	END IF;
	FOREACH v_line IN ARRAY pg_catalog.string_to_array(pg_catalog.btrim(r.stdout, E' \n'), E'\n')
	LOOP
		f := pg_catalog.string_to_array(v_line, '|');
		CONTINUE WHEN pg_catalog.cardinality(f) < 11;
		IF f[1] = job::text THEN
			IF v_acct ? 'state' THEN
				-- a later run of the job: the one before was requeued
				v_runs := v_runs || pg_catalog.jsonb_build_array(pg_catalog.jsonb_strip_nulls(
					pg_catalog.jsonb_build_object('state', v_acct -> 'state', 'nodes', v_acct -> 'nodes',
												  'start', v_acct -> 'start', 'end', v_acct -> 'end')));
				v_acct := pg_catalog.jsonb_build_object('job_id', job);
				v_rss := NULL;
			END IF;
			v_acct := v_acct || pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
				'state', pg_catalog.split_part(f[2], ' ', 1),
				'reason', NULLIF(NULLIF(f[3], 'None'), ''),
				'exit_code', NULLIF(f[4], ''),
				'nodes', NULLIF(f[5], ''),
				'submit', NULLIF(f[6], 'Unknown'),
				'start', NULLIF(f[7], 'Unknown'),
				'end', NULLIF(f[8], 'Unknown'),
				'queue_wait_s', CASE WHEN f[6] ~ '^[0-9]{4}-' AND f[7] ~ '^[0-9]{4}-'
									THEN pg_catalog.date_part('epoch', f[7]::timestamp - f[6]::timestamp) END,
				'elapsed_s', NULLIF(f[9], '')::float8,
				'cpu_s', tuner._slurm_seconds(f[10])));
		END IF;
		v_rss := GREATEST(v_rss, tuner._slurm_kib(NULLIF(f[11], '')));
	END LOOP;
	IF v_rss IS NOT NULL THEN
		v_acct := v_acct || pg_catalog.jsonb_build_object('max_rss_kib', pg_catalog.round(v_rss::numeric));
	END IF;
	IF pg_catalog.jsonb_array_length(v_runs) > 0 THEN
		v_acct := v_acct || pg_catalog.jsonb_build_object('requeues', v_runs);
	END IF;
	RETURN v_acct;
END;
$$;

-- Worker: once a second while a trial's job is outstanding.  Reads the
-- job's state first, then the trial's (an agent records its outcome
-- before its job ends, so a job that ended under a running trial lost
-- its agent).  A pending job's trial has its lease renewed here (its
-- agent does not run yet); a running one's is the agent's.  A job that
-- ended under a running trial fails the trial with Slurm's state and
-- reason.  While the job is outstanding, details.slurm holds its id and
-- state (PENDING, RUNNING; tuner.progress shows them).  Once the trial
-- is over and the job too, and sacct has the job's final state (or 30 s
-- after the trial ended), the job's accounting goes into the trial's
-- details.slurm and 'done' is returned; else 'wait'.  A job still there
-- a minute after its trial ended is cancelled.
-- The trial's study is reaped first: a running job whose agent is lost
-- (hung, stopped: no heartbeat for a lease) has its trial interrupted
-- ("lease expired", retried as any such trial) and is cancelled at once.
CREATE OR REPLACE FUNCTION tuner._slurm_poll(trial bigint, job bigint)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	j record;
	t tuner.trial;
	v_reason text;
	v_acct jsonb;
BEGIN
	j := tuner._slurm_job_state(job);
	PERFORM tuner._reap_of_trial($1);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RETURN 'done';
	END IF;
	IF t.state = 'running' AND t.worker = 'slurm-' || job THEN
		IF j.state IS NULL OR NOT tuner._slurm_state_final(j.state) THEN
			IF j.state IS NULL OR j.state IN ('PENDING', 'CONFIGURING', 'REQUEUED', 'SUSPENDED') THEN
				PERFORM tuner._worker_heartbeat(t.id);
			END IF;
			-- what tuner.progress shows: the job's state while it is outstanding
			IF j.state IS DISTINCT FROM t.details -> 'slurm' ->> 'state' AND j.state IS NOT NULL THEN
				UPDATE tuner.trial x
				   SET details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('slurm',
								 pg_catalog.jsonb_build_object('job_id', job, 'state', j.state))
				 WHERE x.id = t.id;
			END IF;
			RETURN 'wait';
		END IF;
		v_reason := pg_catalog.format('Slurm job %s ended %s%s before its agent recorded the trial',
									  job, j.state, COALESCE(' (' || j.reason || ')', ''));
		PERFORM tuner._finish_trial(t.id, NULL, 'Slurm job ' || pg_catalog.lower(j.state), '', '',
									NULL, 'failed', v_reason);
	ELSIF j.state IS NOT NULL AND NOT tuner._slurm_state_final(j.state) THEN
		-- the job's agent recorded the trial and is ending, unless the
		-- trial's lease expired under it (its agent is lost)
		IF COALESCE(t.finished_at, pg_catalog.now()) > pg_catalog.now() - interval '60 s'
		   AND NOT (t.state = 'interrupted' AND t.error = 'lease expired' AND t.worker = 'slurm-' || job) THEN
			RETURN 'wait';
		END IF;
		PERFORM tuner._slurm_command('scancel', ARRAY[job::text]);
		-- its final state at a later poll (a job that does not end is
		-- recorded as it is two minutes after its trial)
		IF COALESCE(t.finished_at, pg_catalog.now()) > pg_catalog.now() - interval '120 s' THEN
			RETURN 'wait';
		END IF;
	END IF;
	-- The accounting database learns of a job after the controller does:
	-- right after an scancel, sacct may not know a job that was pending,
	-- or still call it PENDING.  Its record is waited for a while, then
	-- the controller's final state stands in for the one sacct lacks.
	v_acct := tuner._slurm_accounting(job);
	IF NOT COALESCE(tuner._slurm_state_final(v_acct ->> 'state'), false)
	   AND tuner._slurm_state_final(j.state) THEN
		IF COALESCE(t.finished_at, pg_catalog.now()) > pg_catalog.now() - interval '30 s' THEN
			RETURN 'wait';
		END IF;
		v_acct := v_acct || pg_catalog.jsonb_build_object('state', j.state);
	END IF;
	UPDATE tuner.trial x
	   SET details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('slurm', v_acct)
	 WHERE x.id = t.id;
	RETURN 'done';
END;
$$;

-- Cancel a Slurm job (scancel); a failure is a WARNING with scancel's
-- message, and false.
CREATE OR REPLACE FUNCTION tuner._slurm_scancel(job bigint)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	r record;
BEGIN
	r := tuner._slurm_command('scancel', ARRAY[job::text]);
	IF r.exit_code IS DISTINCT FROM 0 THEN
		RAISE WARNING 'scancel of Slurm job % failed: %', job, pg_catalog.btrim(r.stderr, E' \t\r\n');
		RETURN false;
	END IF;
	RETURN true;
END;
$$;

-- Worker: cancel a trial's job (scancel) and interrupt the trial with the
-- reason (tuner.stop: "stopped"), unless it is already over.
CREATE OR REPLACE FUNCTION tuner._slurm_cancel(trial bigint, job bigint, reason text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	v_state text;
BEGIN
	PERFORM tuner._slurm_scancel(job);
	SELECT x.state INTO v_state FROM tuner.trial x WHERE x.id = $1 FOR NO KEY UPDATE;
	IF v_state = 'running' THEN
		PERFORM tuner._finish_trial($1, NULL, 'Slurm job cancelled', '', '', NULL, 'interrupted',
									pg_catalog.format('%s (Slurm job %s cancelled)', reason, job));
	END IF;
END;
$$;

-- tuner._reconcile: trials it interrupted because their worker is gone (a
-- server restart, a worker killed) may still have a Slurm job that no
-- worker watches any more.  A job (the trial's worker slurm-JOBID) that
-- waits in Slurm's queue (PENDING, or REQUEUED, SUSPENDED, ...: no agent
-- of it runs) is cancelled (scancel), as it could wait there for hours
-- before its agent started only to find its trial over; the trial's
-- details.slurm gets the job's state.  A RUNNING job is left to its
-- agent, which stops at its next heartbeat (the one that reaped, maybe:
-- its error rolls the reap back, and a job cancelled under it would
-- leave the trial running until the next reap).  Only a role with the
-- privileges of pg_execute_server_program runs Slurm's commands: for any
-- other caller the jobs are left, and a job's agent finds its trial over
-- when it starts.
CREATE OR REPLACE FUNCTION tuner._slurm_cancel_lost(trials bigint[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t record;
	j record;
	v_state text;
BEGIN
	IF trials IS NULL OR pg_catalog.cardinality(trials) = 0
	   OR NOT pg_catalog.pg_has_role('pg_execute_server_program', 'USAGE') THEN
		RETURN;
	END IF;
	FOR t IN SELECT x.id, pg_catalog.substr(x.worker, 7)::bigint AS job
			   FROM tuner.trial x
			  WHERE x.id = ANY (trials) AND x.worker ~ '^slurm-[0-9]{1,18}$'
			  ORDER BY x.id
	LOOP
		j := tuner._slurm_job_state(t.job);
		v_state := j.state;
		IF j.state IS NOT NULL AND NOT tuner._slurm_state_final(j.state)
		   AND j.state NOT IN ('RUNNING', 'COMPLETING', 'STAGE_OUT', 'SIGNALING') THEN
			CONTINUE WHEN NOT tuner._slurm_scancel(t.job);
			v_state := 'CANCELLED';
		END IF;
		IF v_state IS NOT NULL AND tuner._slurm_state_final(v_state) THEN
			UPDATE tuner.trial x
			   SET details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('slurm',
							 COALESCE(x.details -> 'slurm', '{}')
							 || pg_catalog.jsonb_build_object('job_id', t.job, 'state', v_state))
			 WHERE x.id = t.id;
		END IF;
	END LOOP;
END;
$$;
