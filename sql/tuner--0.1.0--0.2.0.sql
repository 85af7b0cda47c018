/*
 * tuner--0.1.0--0.2.0.sql
 *	  Update from 0.1.0, the first released version (sql/tuner--0.1.0.sql,
 *	  which never changes again), to 0.2.0.  CREATE EXTENSION tuner runs
 *	  0.1.0's script and then this one, so fresh installs and updated ones
 *	  are the same; tests/upgrade.sh checks that, and that a 0.1.0
 *	  database keeps every row through ALTER EXTENSION tuner UPDATE.
 *	  Changes after 0.1.0 go here, at the end, each under a header saying
 *	  why.
 */

-- complain if script is sourced in psql, rather than through ALTER EXTENSION
\echo Use "ALTER EXTENSION tuner UPDATE TO '0.2.0'" to load this file. \quit

-------------------------------------------------------------------------------
-- Crashed trials are found by tuner.reap() and retried.
--
-- In 0.1.0 a trial whose server process died without cleanup (a killed
-- background worker, a crash, an immediate shutdown) was marked
-- interrupted only when someone next called tuner.suggest_next or
-- tuner.run, and was never retried; a trial whose lease expired was
-- reaped by tuner.reap() and retried.  Both are trials the
-- infrastructure lost, so both are now found by tuner.reap() (and hence
-- by a pg_cron schedule of it, by report, heartbeat and suggest_next) and
-- retried alike, up to the study's max_retries (default 1), with the
-- lineage in retry_of.
-------------------------------------------------------------------------------

-- Running trials with a server process, so that the check for them costs
-- an index probe: reap() runs it on every report and heartbeat.
CREATE INDEX trial_worker_running_idx ON tuner.trial (worker_pid)
	WHERE state = 'running' AND worker_pid IS NOT NULL;

-- Queue one retry of each of the given interrupted trials (same
-- configuration, retry_of = the trial) while its lineage has fewer than
-- its study's max_retries retries.  Returns how many it queued.
CREATE FUNCTION tuner._queue_retries(trials bigint[])
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_old tuner.trial;
	v_max int;
	v_number int;
	n int := 0;
	i bigint;
BEGIN
	FOREACH i IN ARRAY COALESCE($1, '{}')
	LOOP
		SELECT * INTO v_old FROM tuner.trial WHERE id = i;
		SELECT COALESCE((s.settings ->> 'max_retries')::int, 1) INTO v_max
		  FROM tuner.study s WHERE s.id = v_old.study_id
		   FOR NO KEY UPDATE;	-- numbers are given out under this lock
		IF tuner._retry_depth(i) < v_max THEN
			SELECT pg_catalog.max(t.number) + 1 INTO v_number
			  FROM tuner.trial t WHERE t.study_id = v_old.study_id;
			INSERT INTO tuner.trial (study_id, number, config, state, source, seed, retry_of)
			VALUES (v_old.study_id, v_number, v_old.config, 'queued', v_old.source,
					v_old.seed, v_old.id);
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END;
$$;

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise, and queue their
-- retries.  A trial counts as run by the server when it records
-- worker_pid (tuner.run workers and tuner.step); trials of a live process
-- (same pid, started no later than the trial) are never touched.  Jobs
-- left running by an earlier server lifetime are marked as well.
-- Returns how many trials it marked.
CREATE OR REPLACE FUNCTION tuner._reconcile()
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	n int := 0;
	v_restart timestamptz;
	v_ids bigint[];
BEGIN
	-- The common case, nothing running on the server, costs two probes.
	IF NOT EXISTS (SELECT 1 FROM tuner.trial WHERE state = 'running' AND worker_pid IS NOT NULL)
	   AND NOT EXISTS (SELECT 1 FROM tuner.job WHERE state = 'running') THEN
		RETURN 0;
	END IF;
	-- pg_stat_activity is cached per transaction: look at it afresh.
	PERFORM pg_catalog.pg_stat_clear_snapshot();
	-- When the server last (re)started: a crash restart keeps the
	-- postmaster's start time but starts a new checkpointer.
	v_restart := GREATEST(pg_catalog.pg_postmaster_start_time(),
						  (SELECT pg_catalog.min(a.backend_start)
							 FROM pg_catalog.pg_stat_activity a
							WHERE a.backend_type = 'checkpointer'));
	WITH gone AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted',
			   finished_at = pg_catalog.now(),
			   error = CASE WHEN t.started_at < v_restart
						   THEN 'server restarted' ELSE 'worker exited' END
		 WHERE t.state = 'running' AND t.worker_pid IS NOT NULL
		   AND NOT EXISTS (
				SELECT 1 FROM pg_catalog.pg_stat_activity a
				 WHERE a.pid = t.worker_pid
				   AND (a.backend_start IS NULL OR t.started_at IS NULL
						OR a.backend_start <= t.started_at))
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(g.id ORDER BY g.id) INTO v_ids FROM gone g;
	n := COALESCE(pg_catalog.cardinality(v_ids), 0);
	PERFORM tuner._queue_retries(v_ids);
	UPDATE tuner.job
	   SET state = 'interrupted', finished_at = pg_catalog.now(),
		   error = COALESCE(error, 'server restarted')
	 WHERE state = 'running' AND created_at < v_restart;
	RETURN n;
END;
$$;

-- Mark the running trials that the infrastructure lost as interrupted, of
-- one study or (NULL) of all, and queue their retries: those whose lease
-- expired ("lease expired"; trials locked by a report or heartbeat in
-- progress are left to it) and, of every study, those whose server
-- process is gone (tuner._reconcile).  Returns how many trials it
-- interrupted.
CREATE OR REPLACE FUNCTION tuner.reap(study text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study_id bigint;
	v_ids bigint[];
	n int;
BEGIN
	IF $1 IS NOT NULL THEN
		v_study_id := (tuner._find_study($1)).id;
	END IF;
	n := tuner._reconcile();
	WITH expired AS (
		SELECT t.id FROM tuner.trial t
		 WHERE t.state = 'running'
		   AND t.lease_expires_at < pg_catalog.clock_timestamp()
		   AND (v_study_id IS NULL OR t.study_id = v_study_id)
		 ORDER BY t.id
		   FOR NO KEY UPDATE SKIP LOCKED
	), reaped AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted', error = 'lease expired',
			   finished_at = pg_catalog.clock_timestamp()
		  FROM expired e
		 WHERE t.id = e.id AND t.state = 'running'
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(r.id ORDER BY r.id) INTO v_ids FROM reaped r;
	PERFORM tuner._queue_retries(v_ids);
	RETURN n + COALESCE(pg_catalog.cardinality(v_ids), 0);
END;
$$;

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
CREATE FUNCTION tuner._notify_mode()
RETURNS text
LANGUAGE C STABLE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'tuner_notify_mode';

-- Trigger: a trial finished (complete, failed or interrupted, however it
-- got there: report, fail, a runner, a worker, a restart, copy_trials).
-- NOTIFY tuner_trials with {"study_id", "trial", "number", "state"}, and
-- with tuner.notify = 'full' also "study" (its name) and "value" (the
-- objective, null unless complete).
CREATE OR REPLACE FUNCTION tuner._notify_trial()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_mode text := tuner._notify_mode();
	v_payload jsonb;
	s tuner.study;
BEGIN
	IF v_mode = 'off' THEN
		RETURN NULL;
	END IF;
	v_payload := pg_catalog.jsonb_build_object(
		'study_id', NEW.study_id, 'trial', NEW.id, 'number', NEW.number, 'state', NEW.state);
	IF v_mode = 'full' THEN
		SELECT * INTO s FROM tuner.study x WHERE x.id = NEW.study_id;
		v_payload := v_payload || pg_catalog.jsonb_build_object(
			-- a payload holds at most 8000 bytes
			'study', pg_catalog.left(s.name, 1000),
			'value', (SELECT ob.value FROM tuner.observation ob
						JOIN tuner.metric m ON m.id = ob.metric_id
					   WHERE ob.trial_id = NEW.id AND m.study_id = s.id
						 AND m.name = s.objective));
	END IF;
	PERFORM pg_catalog.pg_notify('tuner_trials', v_payload::text);
	RETURN NULL;
END;
$$;

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
CREATE FUNCTION tuner._host_cpus()
RETURNS int
LANGUAGE C VOLATILE PARALLEL SAFE
AS 'MODULE_PATHNAME', 'tuner_host_cpus';

-- Check the runner settings tuner_fastquery_runner understands, so that a
-- typo fails when the study is created and not in every trial.
CREATE OR REPLACE FUNCTION tuner._check_fastquery_runner_settings(runner jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v jsonb;
BEGIN
	IF pg_catalog.jsonb_typeof(runner) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'setting runner must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR k, v IN SELECT * FROM pg_catalog.jsonb_each(runner)
	LOOP
		CASE k
			WHEN 'particles' THEN
				PERFORM tuner._json_int(v, 'runner setting particles', 1000, 2147483647);
			WHEN 'random_queries' THEN
				PERFORM tuner._json_int(v, 'runner setting random_queries', 0, 1000);
			WHEN 'query_seed' THEN
				PERFORM tuner._json_int(v, 'runner setting query_seed', 0, 2147483647);
			WHEN 'timeout_s' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'number' OR (v #>> '{}')::float8 <= 0 THEN
					RAISE EXCEPTION 'runner setting timeout_s must be a positive number'
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'cold', 'paired' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'boolean' THEN
					RAISE EXCEPTION 'runner setting % must be true or false', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'repeats' THEN
				PERFORM tuner._json_int(v, 'runner setting repeats', 1, 16);
			WHEN 'max_ranks' THEN
				PERFORM tuner._json_int(v, 'runner setting max_ranks', 1, 64);
			WHEN 'data_dir', 'program' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR left(v #>> '{}', 1) <> '/' THEN
					RAISE EXCEPTION 'runner setting % must be an absolute path', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'queries', 'mpiexec' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR v #>> '{}' = '' THEN
					RAISE EXCEPTION 'runner setting % must be a non-empty string', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			ELSE
				RAISE EXCEPTION 'unknown runner setting "%" for the fastquery preset', k
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Known: particles, data_dir, timeout_s, queries, random_queries, query_seed, cold, paired, repeats, max_ranks, program, mpiexec.';
		END CASE;
	END LOOP;
END;
$$;

-- The study settings of the preset under the caller's ("runner" merges by
-- key).  2^24 particles (470 MB of data) is the benchmark's size; tests
-- pass 2^20.  The runner's own timeout is below the worker's, so that the
-- runner kills mpiexec's tree itself and says which step ran too long;
-- the worker's timeout stays as the backstop.  Five initial trials: the
-- default and four space-filling points, then the model.  The objectives
-- speedup_vs_default and total_s_default exist only in paired runs: they
-- turn paired on, and paired off with them is an error rather than trials
-- that all fail.  Pairing doubles a trial's runs and repeats multiplies
-- them; the timeouts stay the caller's to raise (they depend on the size
-- and the machine).  max_ranks defaults to this host's processors (the
-- background workers run trials here; an agent elsewhere passes its own).
CREATE OR REPLACE FUNCTION tuner._fastquery_preset_settings(p_settings jsonb,
												 p_objective text DEFAULT 'total_s')
RETURNS jsonb
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	base jsonb := '{"n_initial": 5, "trial_timeout_s": 900,
					"runner": {"particles": 16777216, "timeout_s": 840}}';
BEGIN
	base := pg_catalog.jsonb_set(base, '{runner,max_ranks}',
								 pg_catalog.to_jsonb(LEAST(tuner._host_cpus(), 64)));
	IF p_settings ? 'runner' THEN
		PERFORM tuner._check_fastquery_runner_settings(p_settings -> 'runner');
	END IF;
	IF p_objective IN ('speedup_vs_default', 'total_s_default') THEN
		IF p_settings -> 'runner' -> 'paired' = 'false' THEN
			RAISE EXCEPTION 'objective % needs runner setting paired', p_objective
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = 'The runner reports it only when it runs the default configuration beside each trial.',
					  HINT = 'Leave paired out (the objective turns it on) or set it to true.';
		END IF;
		base := pg_catalog.jsonb_set(base, '{runner,paired}', 'true');
	END IF;
	RETURN base || p_settings ||
		pg_catalog.jsonb_build_object('runner',
			(base -> 'runner') || COALESCE(p_settings -> 'runner', '{}'));
END;
$$;

-- Parameters and metrics of the preset.  Defaults are tuner_fastquery's
-- and ROMIO's own (one rank, one thread, 64 bins, contiguous data,
-- collective I/O, ROMIO's automatic data sieving and collective buffering,
-- its 16 MiB collective buffer, one aggregator), so trial 1 measures the
-- untuned program.  Left out: striping_factor and striping_unit.  On this
-- machine's ext4 ROMIO uses its generic UFS driver, which drops
-- striping_factor from the file's info (reported "honored": false by
-- tuner_fastquery) and keeps striping_unit without acting on it; tuning
-- them here would present noise as a parameter.  A Lustre deployment would
-- add them.  cb_nodes comes with cb_config_list "*:*" from the runner
-- (ROMIO's default allows one aggregator per host) and is at most ranks.
-- ranks and cb_nodes go up to the runner setting max_ranks (the trial
-- host's processors): MPICH's ranks busy-wait, so a rank without a core
-- of its own slows every rank down (measured at 2^20 particles on 2
-- cores: query_s 0.62/0.36/3.67/3.32 s for 1/2/3/4 ranks), and such
-- configurations would only cost the study trials.  With max_ranks 1
-- both are left out (every trial runs one rank).
-- The HDF5 alignment is a choice of three values because every value
-- needs its own cached data file.
CREATE OR REPLACE FUNCTION tuner._apply_fastquery_preset(p_study_id bigint, p_study text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	toggle text[] := '{automatic,enable,disable}';
	v_max_ranks int := COALESCE((SELECT (s.settings -> 'runner' ->> 'max_ranks')::int
								   FROM tuner.study s WHERE s.id = p_study_id), 4);
	v_no_ranks text[] := CASE WHEN v_max_ranks = 1 THEN '{ranks,cb_nodes}' ELSE '{}' END;
BEGIN
	PERFORM tuner.add_parameter($2, 'bins', 'int', low => 8, high => 512,
								default_value => '64', log_scale => true);
	PERFORM tuner.add_parameter($2, 'layout', 'categorical', choices => '{contiguous,chunked}',
								default_value => 'contiguous');
	PERFORM tuner.add_parameter($2, 'io', 'categorical', choices => '{collective,independent}',
								default_value => 'collective');
	PERFORM tuner.add_parameter($2, 'romio_ds_read', 'categorical', choices => toggle,
								default_value => 'automatic');
	PERFORM tuner.add_parameter($2, 'romio_cb_read', 'categorical', choices => toggle,
								default_value => 'automatic');
	PERFORM tuner.add_parameter($2, 'romio_cb_write', 'categorical', choices => toggle,
								default_value => 'automatic');
	PERFORM tuner.add_parameter($2, 'cb_buffer_size', 'int', low => 65536, high => 67108864,
								default_value => '16777216', log_scale => true);
	IF v_max_ranks > 1 THEN
		PERFORM tuner.add_parameter($2, 'ranks', 'int', low => 1, high => v_max_ranks,
									default_value => '1', log_scale => v_max_ranks >= 16);
		PERFORM tuner.add_parameter($2, 'cb_nodes', 'int', low => 1, high => v_max_ranks,
									default_value => '1', log_scale => v_max_ranks >= 16);
	END IF;
	PERFORM tuner.add_parameter($2, 'threads', 'int', low => 1, high => 4, default_value => '1');
	PERFORM tuner.add_parameter($2, 'overlap', 'bool', default_value => 'false');
	PERFORM tuner.add_parameter($2, 'align', 'categorical', choices => '{0,65536,1048576}',
								default_value => '0');
	-- ROMIO clamps cb_nodes to the number of ranks: a larger value would
	-- measure the clamped configuration under another name.
	IF v_max_ranks > 1 THEN
		PERFORM tuner.add_constraint($2, 'cb_nodes <= ranks', 'preset');
	END IF;

	-- The build's parts for the multi-task model, each with the parameters
	-- that act on it (our reading of the program: reads go through the
	-- data layout and ROMIO's read path, indexing through bins and
	-- parallelism, writes through ROMIO's write path and the alignment).
	INSERT INTO tuner.metric (study_id, name, role, direction, unit, cluster)
	VALUES
		($1, 'read_s', 'auxiliary', 'minimize', 's',
		 '{layout,io,romio_ds_read,romio_cb_read,cb_buffer_size,cb_nodes,ranks}'),
		($1, 'index_s', 'auxiliary', 'minimize', 's',
		 '{bins,threads,ranks,overlap}'),
		($1, 'write_s', 'auxiliary', 'minimize', 's',
		 '{bins,io,romio_cb_write,cb_buffer_size,cb_nodes,align}')
	-- one of them may be the study's objective: keep its role
	ON CONFLICT (study_id, name) DO UPDATE
		SET unit = EXCLUDED.unit, cluster = EXCLUDED.cluster;
	UPDATE tuner.metric m
	   SET cluster = (SELECT pg_catalog.array_agg(c ORDER BY o) FROM pg_catalog.unnest(m.cluster)
						WITH ORDINALITY u(c, o) WHERE c <> ALL (v_no_ranks))
	 WHERE m.study_id = $1 AND m.cluster IS NOT NULL AND m.cluster && v_no_ranks;
	UPDATE tuner.metric m SET unit = CASE m.name WHEN 'speedup_vs_default' THEN 'ratio' ELSE 's' END
	 WHERE m.study_id = $1 AND m.role = 'objective' AND m.name IN ('total_s', 'total_s_default', 'speedup_vs_default');
	UPDATE tuner.metric m SET cluster_source = 'preset'
	 WHERE m.study_id = $1 AND m.cluster IS NOT NULL;
END;
$$;
