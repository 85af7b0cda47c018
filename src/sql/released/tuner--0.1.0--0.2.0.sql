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

-- The failure model has a linear trend, stored with it (issue 10).
--
-- Systems fail past a threshold of a resource, so failing regions reach
-- the edges of the box; the failure model now fits a linear trend of its
-- 0/1 outcome before its GP, so that a failure predicts failures beyond
-- it towards the edge (src/core/feasibility.h).  The model relation
-- keeps the trend (tuner.model.trend_intercept and trend_slopes, for
-- kind feasibility) and the probability's calibration (below), and
-- tuner._suggest_point returns them and tuner.suggest_next stores them.
-- Outcome constraints' models have neither (NULL).
-- tuner.predict_feasibility rebuilds each stored model in C
-- (tuner._feasibility_predict), so that it answers as the acquisition's
-- model: with the trend's uncertainty, the calibration and the kernel's
-- categorical metric.  suggest_next and predict_feasibility below are
-- 0.1.0's with those changes only.

ALTER TABLE tuner.model ADD COLUMN trend_intercept float8,
						ADD COLUMN trend_slopes float8[];
COMMENT ON COLUMN tuner.model.trend_intercept IS
	'Feasibility model: intercept of the linear trend of the standardized outcome, fitted before the GP (NULL: none)';
COMMENT ON COLUMN tuner.model.trend_slopes IS
	'Feasibility model: the trend''s slope per parameter on the unit cube, the trend being trend_intercept + sum(slope * (u - 0.5)); 0 for categorical parameters (NULL: none)';

-- The failure model's probability is calibrated on its leave-one-out
-- predictions (src/core/feasibility_calibration.h): P(runs) =
-- Phi((calibration_threshold - mu) / sqrt(calibration_spread^2 + var +
-- noise)) in the standardized outcome's units.  NULL: not calibrated (an
-- outcome constraint's model, or a calibration that failed numerically).
ALTER TABLE tuner.model ADD COLUMN calibration_threshold float8,
						ADD COLUMN calibration_spread float8;
COMMENT ON COLUMN tuner.model.calibration_threshold IS
	'Feasibility model: the standardized outcome above which a configuration is predicted to fail, fitted to the model''s leave-one-out predictions (NULL: not calibrated; then bound is the threshold)';
COMMENT ON COLUMN tuner.model.calibration_spread IS
	'Feasibility model: the sd added to the prediction''s by the same calibration (standardized units; NULL: not calibrated)';

-- P(holds) of one stored feasibility or constraint model at each row of x
-- (unit-cube points), rebuilt from its trials (train_x, unit cube; y, the
-- standardized outcome before any trend) and hyperparameters exactly as
-- tuner.suggest_next's acquisition uses it: the kernel's categorical
-- metric, the trend and its uncertainty, the calibration.
CREATE FUNCTION tuner._feasibility_predict(train_x float8[], y float8[],
										   lengthscales float8[],
										   outputscale float8, noise float8,
										   mean float8, categories int[],
										   with_trend bool, bound float8,
										   calibration_threshold float8,
										   calibration_spread float8,
										   x float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_feasibility_predict'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

DROP FUNCTION tuner._suggest_point(int[], float8[], float8[], bool[], int[], float8[], float8[], float8[], float8[], int, int, bigint, bigint, float8[], float8, float8, float8, text, float8[], int, float8[], float8[], float8[], float8[], float8[], float8[], int[], int[], float8[], int[], int[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], float8[], bool[]);

CREATE FUNCTION tuner._suggest_point(kinds int[], lows float8[], highs float8[],
									 log_scales bool[], n_choices int[],
									 x_observed float8[], y_observed float8[],
									 x_pending float8[], x_other float8[],
									 n_initial int, design_index int,
									 seed bigint, design_seed bigint,
									 warm_lengthscales float8[],
									 warm_outputscale float8,
									 warm_noise float8,
									 warm_mean float8 DEFAULT NULL,
									 algorithm text DEFAULT 'gp-ei',
									 y_aux float8[] DEFAULT NULL,
									 icm_rank int DEFAULT NULL,
									 warm_task_loadings float8[] DEFAULT NULL,
									 warm_task_variance float8[] DEFAULT NULL,
									 warm_task_noise float8[] DEFAULT NULL,
									 warm_task_mean float8[] DEFAULT NULL,
									 x_transfer float8[] DEFAULT NULL,
									 y_transfer float8[] DEFAULT NULL,
									 cluster_members int[] DEFAULT NULL,
									 cluster_metric int[] DEFAULT NULL,
									 aux_weights float8[] DEFAULT NULL,
									 warm_cluster_tasks int[] DEFAULT NULL,
									 warm_cluster_rank int[] DEFAULT NULL,
									 warm_cluster_lengthscales float8[] DEFAULT NULL,
									 warm_cluster_loadings float8[] DEFAULT NULL,
									 warm_cluster_variance float8[] DEFAULT NULL,
									 warm_cluster_noise float8[] DEFAULT NULL,
									 warm_cluster_mean float8[] DEFAULT NULL,
									 x_failed float8[] DEFAULT NULL,
									 y_constraint float8[] DEFAULT NULL,
									 constraint_bound float8[] DEFAULT NULL,
									 linear_coef float8[] DEFAULT NULL,
									 linear_rhs float8[] DEFAULT NULL,
									 linear_strict bool[] DEFAULT NULL,
									 OUT config float8[], OUT source text,
									 OUT predicted_mean float8,
									 OUT predicted_sd float8,
									 OUT acquisition float8,
									 OUT lengthscales float8[],
									 OUT outputscale float8, OUT noise float8,
									 OUT log_likelihood float8,
									 OUT mean float8,
									 OUT fit_ms float8,
									 OUT tasks_used int[],
									 OUT rank int,
									 OUT kronecker bool,
									 OUT task_loadings float8[],
									 OUT task_variance float8[],
									 OUT task_covariance float8[],
									 OUT task_correlation float8[],
									 OUT task_noise float8[],
									 OUT task_mean float8[],
									 OUT cluster_used int[],
									 OUT cluster_tasks int[],
									 OUT cluster_lengthscales float8[],
									 OUT cluster_task_covariance float8[],
									 OUT cluster_task_correlation float8[],
									 OUT cluster_task_noise float8[],
									 OUT cluster_task_mean float8[],
									 OUT cluster_log_likelihood float8[],
									 OUT cluster_kronecker int[],
									 OUT cluster_rank int[],
									 OUT cluster_task_loadings float8[],
									 OUT cluster_task_variance float8[],
									 OUT feasibility float8,
									 OUT constraint_n int[],
									 OUT constraint_lengthscales float8[],
									 OUT constraint_outputscale float8[],
									 OUT constraint_noise float8[],
									 OUT constraint_mean float8[],
									 OUT constraint_log_likelihood float8[],
									 OUT constraint_y_mean float8[],
									 OUT constraint_y_sd float8[],
									 OUT constraint_bound_std float8[],
									 OUT constraint_trend_intercept float8[],
									 OUT constraint_trend_slopes float8[],
									 OUT constraint_calibration_threshold float8[],
									 OUT constraint_calibration_spread float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_suggest_point'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION tuner.suggest_next(study text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	h record;
	w record;
	r record;
	d int;
	v_number int;
	v_seed bigint;
	v_sign float8;
	v_n_initial int;
	v_params jsonb;
	v_trial bigint;
	v_objective_id bigint;
	v_icm bool;
	v_aux_ids bigint[] := '{}';
	v_aux_names text[] := '{}';
	v_tasks text[];
	v_sources text[] := '{}';
	v_source_tasks text[] := '{}';
	v_x_transfer float8[];
	v_y_transfer float8[];
	v_algorithm text;
	v_cluster_members int[];
	v_cluster_metric int[];
	v_cluster_names text[];
	v_joint float8;
	v_aux_weights float8[];
	c int;
	wm tuner.model;
	v_wc_tasks int[] := '{}';
	v_wc_rank int[] := '{}';
	v_wc_ls float8[] := '{}';
	v_wc_w float8[] := '{}';
	v_wc_v float8[] := '{}';
	v_wc_noise float8[] := '{}';
	v_wc_mean float8[] := '{}';
	v_sapphire jsonb;
	v_queued tuner.trial;
	v_con_ids bigint[] := '{}';
	v_con_names text[] := '{}';
	v_con_signs float8[] := '{}';
	v_con_bounds float8[] := '{}';
	v_lin record;
	v_mo_ids bigint[];
	v_mo_signs float8[];
	v_mo_weights float8[];
	p_study text := $1;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	-- Trials whose server process is gone are never left running.
	PERFORM tuner._reconcile();
	-- Nor are trials whose lease expired (and their retries come first).
	PERFORM tuner.reap(p_study);
	-- Serialize concurrent suggestions for this study.
	SELECT * INTO s FROM tuner.study WHERE tuner.study.name = p_study FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		s := tuner._find_study(p_study);	-- raises the error
	END IF;

	-- Configurations queued with tuner.enqueue() come first, in order.
	-- SKIP LOCKED: a queued trial that tuner.agent_claim is taking is left
	-- to it (agents claim queued trials without the study's lock).
	SELECT * INTO v_queued FROM tuner.trial t
	 WHERE t.study_id = s.id AND t.state = 'queued' ORDER BY t.number LIMIT 1
	   FOR NO KEY UPDATE SKIP LOCKED;
	IF FOUND THEN
		UPDATE tuner.trial SET state = 'running', started_at = pg_catalog.now()
		 WHERE id = v_queued.id;
		RETURN pg_catalog.jsonb_build_object('trial', v_queued.id, 'params', v_queued.config);
	END IF;

	-- sapphire: when the exploration is complete, rank and keep the top K
	-- (this changes the space, so before reading it).
	IF s.algorithm = 'sapphire' THEN
		v_sapphire := tuner._sapphire_phase(s);
	END IF;

	sp := tuner._space(s.id);
	d := COALESCE(pg_catalog.cardinality(sp.names), 0);
	IF d = 0 THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;

	SELECT COALESCE(pg_catalog.max(number), 0) + 1 INTO v_number
	  FROM tuner.trial WHERE study_id = s.id;
	v_seed := pg_catalog.hashint8extended(v_number, s.seed);

	-- Trial 1 measures the defaults when every parameter has one.
	IF sp.all_defaults AND NOT EXISTS (
		SELECT 1 FROM tuner.trial t
		 WHERE t.study_id = s.id AND t.config = sp.default_config) THEN
		INSERT INTO tuner.trial (study_id, number, config, state, source, seed, started_at)
		VALUES (s.id, v_number, sp.default_config, 'running', 'default', v_seed, pg_catalog.now())
		RETURNING id INTO v_trial;
		RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', sp.default_config);
	END IF;

	v_sign := CASE s.direction WHEN 'maximize' THEN -1 ELSE 1 END;

	-- The history as native values (see src/core/space.h), in trial order.
	-- The objective is joined per trial by (trial, metric) key: a separate
	-- aggregate joined afterwards was planned as a nested loop over all
	-- trials for each trial (50 ms at 100 trials).
	SELECT m.id INTO v_objective_id
	  FROM tuner.metric m WHERE m.study_id = s.id AND m.name = s.objective;
	-- Several objectives: the model fits a ParEGO scalarization of them
	-- (the multi-objective section at the end of this file).
	IF tuner._is_multiobjective(s.id) THEN
		SELECT pg_catalog.array_agg(o.id ORDER BY o.ordinal),
			   pg_catalog.array_agg(o.sign ORDER BY o.ordinal)
		  INTO v_mo_ids, v_mo_signs
		  FROM tuner._objectives(s.id) o;
		IF s.algorithm NOT IN ('gp-ei', 'random') THEN
			RAISE EXCEPTION 'study "%" has % objectives, which algorithm % does not support', s.name,
				  pg_catalog.cardinality(v_mo_ids), s.algorithm
				USING ERRCODE = 'feature_not_supported',
					  HINT = pg_catalog.format('Use gp-ei (ParEGO scalarization) or random: tuner.set_algorithm(%L, ''gp-ei'').', s.name);
		END IF;
		IF s.settings ? 'transfer_from' THEN
			RAISE EXCEPTION 'study "%" has % objectives and cannot learn from earlier studies', s.name,
				  pg_catalog.cardinality(v_mo_ids)
				USING ERRCODE = 'feature_not_supported',
					  DETAIL = 'transfer_from brings one objective per earlier study.';
		END IF;
	END IF;
	-- The multi-task model learns from the declared auxiliary metrics too:
	-- one row of them per observed trial, NULL where a trial lacks one.
	IF s.algorithm IN ('icm', 'clustered-icm')
	   OR (s.algorithm = 'sapphire' AND v_sapphire ->> 'model' = 'icm' AND v_sapphire ->> 'phase' = 'model') THEN
		SELECT COALESCE(pg_catalog.array_agg(m.id ORDER BY m.id), '{}'),
			   COALESCE(pg_catalog.array_agg(m.name ORDER BY m.id), '{}')
		  INTO v_aux_ids, v_aux_names
		  FROM tuner.metric m WHERE m.study_id = s.id AND m.role = 'auxiliary';
	END IF;
	-- Earlier studies' trials join the model as tasks of their own (also
	-- under gp-ei: then the objective and theirs only).
	IF s.settings ? 'transfer_from' AND s.algorithm IN ('icm', 'gp-ei') THEN
		v_sources := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(s.settings -> 'transfer_from'));
		SELECT pg_catalog.array_agg(tr.x), pg_catalog.array_agg(tr.y)
		  INTO v_x_transfer, v_y_transfer
		  FROM tuner._transfer_rows(s.id, v_sources) tr;
		v_source_tasks := ARRAY(
			SELECT COALESCE(st.name || '.' || st.objective, o.name)
			  FROM pg_catalog.unnest(v_sources) WITH ORDINALITY AS o(name, k)
			  LEFT JOIN tuner.study st ON st.name = o.name
			 ORDER BY o.k);
	END IF;
	-- clustered-icm: one row of 0/1 per auxiliary metric with a cluster,
	-- and that metric's column among the auxiliary metrics.
	IF s.algorithm = 'clustered-icm' THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT CASE WHEN p.name = ANY (m.cluster) THEN 1 ELSE 0 END
					  FROM tuner.parameter p WHERE p.study_id = s.id AND p.enabled
					 ORDER BY p.position) ORDER BY a.k),
			   pg_catalog.array_agg((a.k - 1)::int ORDER BY a.k),
			   pg_catalog.array_agg(m.name ORDER BY a.k)
		  INTO v_cluster_members, v_cluster_metric, v_cluster_names
		  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
		  JOIN tuner.metric m ON m.id = a.id
		 WHERE m.cluster IS NOT NULL
		   AND EXISTS (SELECT 1 FROM tuner.parameter p
						WHERE p.study_id = s.id AND p.enabled AND p.name = ANY (m.cluster));
	END IF;
	v_icm := pg_catalog.cardinality(v_aux_ids) > 0 OR v_x_transfer IS NOT NULL;
	-- What the core runs: clustered-icm without clusters is icm, icm
	-- without anything to learn from besides the objective is gp-ei.
	v_algorithm := CASE
		WHEN s.algorithm = 'sapphire' THEN CASE WHEN v_icm THEN 'icm' ELSE 'gp-ei' END
		WHEN s.algorithm = 'clustered-icm' AND v_cluster_members IS NOT NULL THEN 'clustered-icm'
		WHEN v_icm THEN 'icm'
		WHEN s.algorithm IN ('icm', 'clustered-icm') THEN 'gp-ei'
		ELSE s.algorithm END;
	v_icm := v_algorithm = 'icm';
	-- icm's joint target: each auxiliary metric's signed weight, +w to
	-- minimize, -w to maximize, 0 (model only) without a direction.
	v_joint := COALESCE((s.settings ->> 'icm_joint')::float8, 0);
	IF v_icm AND s.algorithm = 'icm' AND v_joint > 0 THEN
		SELECT pg_catalog.array_agg(CASE m.direction WHEN 'minimize' THEN v_joint
									WHEN 'maximize' THEN -v_joint ELSE 0 END ORDER BY a.k)
		  INTO v_aux_weights
		  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
		  JOIN tuner.metric m ON m.id = a.id;
	END IF;
	-- Outcome constraints (issue 10): each bounded constraint metric in
	-- its <= form (a maximized one negated).
	SELECT COALESCE(pg_catalog.array_agg(m.id ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(m.name ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -1 ELSE 1 END ORDER BY m.id), '{}'),
		   COALESCE(pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -m.bound ELSE m.bound END ORDER BY m.id), '{}')
	  INTO v_con_ids, v_con_names, v_con_signs, v_con_bounds
	  FROM tuner.metric m
	 WHERE m.study_id = s.id AND m.role = 'constraint' AND m.bound IS NOT NULL;
	SELECT * INTO v_lin FROM tuner._linear_constraints(s.id);
	WITH p AS MATERIALIZED (
		SELECT position, name, kind, choices
		  FROM tuner.parameter WHERE study_id = s.id AND enabled
	), native AS MATERIALIZED (
		SELECT t.id, t.number, t.state, ob.value,
			   CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 AND t.state = 'complete' THEN ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, k)
					  LEFT JOIN tuner.observation cx
						ON cx.trial_id = t.id AND cx.metric_id = c.id
					 ORDER BY c.k) END AS cons,
			   CASE WHEN pg_catalog.cardinality(v_aux_ids) > 0 AND t.state = 'complete' THEN ARRAY(
					SELECT ax.value
					  FROM pg_catalog.unnest(v_aux_ids) WITH ORDINALITY AS a(id, k)
					  LEFT JOIN tuner.observation ax
						ON ax.trial_id = t.id AND ax.metric_id = a.id
					 ORDER BY a.k) END AS aux,
			   -- One jsonb_each per trial: the config of a study with many
			   -- parameters is stored compressed, and a t.config -> p.name
			   -- per parameter decompressed it again each time (200
			   -- parameters, 250 trials: 220 ms a suggestion, 45 ms this
			   -- way).  A subquery per trial rather than a join grouped by
			   -- trial: no sort of every (trial, parameter) pair (4000
			   -- trials: 64 ms -> 37 ms).
			   ARRAY(SELECT CASE p.kind
							WHEN 'bool' THEN CASE WHEN e.value::bool THEN 1 ELSE 0 END
							WHEN 'categorical' THEN pg_catalog.array_position(p.choices, e.value #>> '{}') - 1
							ELSE e.value::float8 END
					   FROM p LEFT JOIN pg_catalog.jsonb_each(t.config) e ON e.key = p.name
					  ORDER BY p.position) AS x
		  FROM tuner.trial t
		  LEFT JOIN tuner.observation ob
			ON ob.trial_id = t.id AND ob.metric_id = v_objective_id
			   AND t.state = 'complete'
			   -- several objectives: observed only with all of them
			   AND (v_mo_ids IS NULL
					OR (SELECT pg_catalog.count(*) FROM tuner.observation mo
						 WHERE mo.trial_id = t.id AND mo.metric_id = ANY (v_mo_ids))
					   = pg_catalog.cardinality(v_mo_ids))
		 WHERE t.study_id = s.id
	)
	SELECT pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL) AS x_observed,
		   pg_catalog.array_agg(v_sign * n.value ORDER BY n.number) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL) AS y_observed,
		   pg_catalog.array_agg(n.aux ORDER BY n.number) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL AND n.aux IS NOT NULL) AS y_aux,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS x_pending,
		   pg_catalog.array_agg(n.cons ORDER BY n.number) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL AND n.cons IS NOT NULL) AS y_constraint,
		   -- failed trials feed the feasibility model (src/core/feasibility.h)
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'failed') AS x_failed,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'interrupted'
																 OR (n.state = 'complete' AND n.value IS NULL)) AS x_other,
		   pg_catalog.count(*) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL) AS n_observed,
		   pg_catalog.count(*) FILTER (WHERE n.state = 'failed') AS n_failed,
		   -- the trials behind each array, for tuner.replay_suggestion
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state = 'complete' AND n.value IS NOT NULL) AS id_observed,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS id_pending,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('failed', 'interrupted')
																 OR (n.state = 'complete' AND n.value IS NULL)) AS id_other
	  INTO h
	  FROM native n;
	-- Several objectives: the GP sees this suggestion's random augmented
	-- Chebyshev scalarization of them, weights drawn from its seed.
	IF v_mo_ids IS NOT NULL THEN
		v_mo_weights := tuner._parego_weights(pg_catalog.cardinality(v_mo_ids), v_seed);
		IF h.id_observed IS NOT NULL THEN
			h.y_observed := tuner._parego_scalarize(
				tuner._objective_matrix(h.id_observed, v_mo_ids, v_mo_signs), v_seed);
		END IF;
	END IF;
	-- No trial has reported yet: nothing to cluster, the design comes first.
	IF v_algorithm = 'clustered-icm' AND h.y_aux IS NULL THEN
		v_algorithm := 'gp-ei';
	END IF;

	-- Warm start from the last fit of the same model over the same tasks.
	-- icm falls back to the last gp fit: its steps below ICM_MIN_TRIALS
	-- (src/core/suggest_icm.c) are GP-EI's and store gp rows, and without
	-- this each of them was fitted cold; an ICM step given a gp row (no
	-- task loadings) fits cold as before.
	v_tasks := ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END] || v_aux_names;
	IF v_x_transfer IS NOT NULL THEN
		v_tasks := v_tasks || v_source_tasks;
	END IF;
	SELECT m.id, m.lengthscales, m.outputscale, m.noise, m.mean, m.task_loadings,
		   m.task_variance, m.task_noise, m.task_mean INTO w
	  FROM tuner.model m
	 WHERE m.study_id = s.id
	   -- clustered-icm warm-starts each cluster below, not from these
	   AND ((v_algorithm = 'icm' AND m.kind = 'icm' AND m.tasks = v_tasks)
			OR (v_algorithm IN ('icm', 'gp-ei') AND m.kind = 'gp'))
	   -- the same parameters (select_top may have changed them)
	   AND m.parameters = sp.names
	 ORDER BY m.kind = 'icm' DESC, m.id DESC LIMIT 1;

	-- With earlier studies to learn from, the model starts after two trials.
	v_n_initial := COALESCE((s.settings ->> 'n_initial')::int,
							CASE WHEN v_x_transfer IS NOT NULL THEN 2 END,
							GREATEST(4, LEAST(10, d + 1)));
	-- Failed trials count towards the design's length, as they do for a
	-- tuner that records them as the worst value, but the model needs two
	-- trials that ran.  Counting only trials that ran made a study whose
	-- design hit a failing region spend 3-4 more trials on the design
	-- (bench/README.md, section 9).
	IF h.n_failed > 0 THEN
		v_n_initial := GREATEST(LEAST(v_n_initial, 2), v_n_initial - h.n_failed::int);
	END IF;
	-- sapphire explores with the space-filling design until it has ranked
	-- (also while exploration trials are still running), then models
	IF s.algorithm = 'sapphire' THEN
		v_n_initial := CASE WHEN v_sapphire ->> 'phase' = 'explore'
							THEN h.n_observed + 1 ELSE 1 END;
	END IF;

	-- A constraint metric no trial reported cannot be modelled or met.
	IF pg_catalog.cardinality(v_con_ids) > 0 AND h.n_observed >= v_n_initial THEN
		FOR c IN 1 .. pg_catalog.cardinality(v_con_ids)
		LOOP
			IF NOT EXISTS (SELECT 1 FROM tuner.observation ob
							 JOIN tuner.trial t ON t.id = ob.trial_id
							WHERE ob.metric_id = v_con_ids[c] AND t.state = 'complete') THEN
				RAISE EXCEPTION 'constraint metric "%" of study "%" was never reported', v_con_names[c], s.name
					USING ERRCODE = 'object_not_in_prerequisite_state',
						  DETAIL = pg_catalog.format('%s complete trials reported the objective, none of them "%s".',
													 h.n_observed, v_con_names[c]),
						  HINT = 'Report it with each trial''s metrics, or declare it ''auxiliary'' to drop the constraint.';
			END IF;
		END LOOP;
	END IF;

	-- clustered-icm: each cluster starts from its latest fit (same metric,
	-- same parameters), rows padded to 2 tasks and rank 2.
	IF v_algorithm = 'clustered-icm' THEN
		FOR c IN 1 .. pg_catalog.cardinality(v_cluster_metric)
		LOOP
			wm := NULL;
			SELECT * INTO wm FROM tuner.model m
			 WHERE m.study_id = s.id AND m.kind = 'cluster'
			   AND m.cluster_metric = v_cluster_names[c]
			   AND m.parameters = ARRAY(SELECT sp.names[j] FROM pg_catalog.generate_series(1, d) AS j
										 WHERE v_cluster_members[c][j] = 1 ORDER BY j)
			 ORDER BY m.id DESC LIMIT 1;
			v_wc_tasks := v_wc_tasks || COALESCE(pg_catalog.cardinality(wm.tasks), 0);
			v_wc_rank := v_wc_rank || COALESCE(wm.rank, 0);
			v_wc_ls := v_wc_ls || ARRAY[ARRAY(
				SELECT wm.lengthscales[pg_catalog.array_position(wm.parameters, sp.names[j])]
				  FROM pg_catalog.generate_series(1, d) AS j ORDER BY j)];
			v_wc_w := v_wc_w || ARRAY[ARRAY(
				SELECT u.v FROM pg_catalog.generate_series(1, 4) AS g
				  LEFT JOIN pg_catalog.unnest(wm.task_loadings) WITH ORDINALITY AS u(v, k) ON u.k = g
				 ORDER BY g)];
			v_wc_v := v_wc_v || ARRAY[ARRAY[wm.task_variance[1], wm.task_variance[2]]];
			v_wc_noise := v_wc_noise || ARRAY[ARRAY[wm.task_noise[1], wm.task_noise[2]]];
			v_wc_mean := v_wc_mean || ARRAY[ARRAY[wm.task_mean[1], wm.task_mean[2]]];
		END LOOP;
	END IF;

	r := tuner._suggest_point(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices,
							  h.x_observed, h.y_observed, h.x_pending, h.x_other,
							  v_n_initial,
							  (SELECT pg_catalog.count(*)::int FROM tuner.trial t
								WHERE t.study_id = s.id AND t.source <> 'default'),
							  v_seed, s.seed,
							  w.lengthscales, w.outputscale, w.noise, w.mean,
							  v_algorithm,
							  CASE WHEN v_algorithm IN ('icm', 'clustered-icm') THEN h.y_aux END,
							  (s.settings ->> 'icm_rank')::int,
							  w.task_loadings, w.task_variance, w.task_noise,
							  w.task_mean, v_x_transfer, v_y_transfer,
							  v_cluster_members, v_cluster_metric,
							  CASE WHEN h.y_aux IS NOT NULL THEN v_aux_weights END,
							  v_wc_tasks, v_wc_rank, v_wc_ls, v_wc_w, v_wc_v,
							  v_wc_noise, v_wc_mean,
							  h.x_failed,
							  CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 THEN h.y_constraint END,
							  CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 THEN v_con_bounds END,
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict);

	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(r.config[p.i])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(r.config[p.i])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(r.config[p.i] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(r.config[p.i])::int + 1]) END)
	  INTO v_params
	  FROM (SELECT name, kind, choices,
				   pg_catalog.row_number() OVER (ORDER BY position) AS i
			  FROM tuner.parameter WHERE study_id = s.id AND enabled) p;
	-- Disabled parameters keep their defaults; inactive ones too.
	v_params := COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
							FROM tuner.parameter p
						   WHERE p.study_id = s.id AND NOT p.enabled), '{}') || v_params;
	v_params := tuner._apply_conditions(s.id, v_params);

	BEGIN
		INSERT INTO tuner.trial (study_id, number, config, state, source,
								 predicted_mean, predicted_sd, acquisition,
								 seed, started_at)
		VALUES (s.id, v_number, v_params, 'running', r.source,
				-- (several objectives: a scalarization's, in no unit)
				CASE WHEN v_mo_ids IS NULL THEN v_sign * r.predicted_mean END,
				CASE WHEN v_mo_ids IS NULL THEN r.predicted_sd END, r.acquisition,
				v_seed, pg_catalog.now())
		RETURNING id INTO v_trial;
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'trial number % of study "%" was taken by a concurrent transaction', v_number, s.name
			USING ERRCODE = 'serialization_failure',
				  HINT = 'Retry the call; under READ COMMITTED concurrent callers wait for each other instead.';
	END;

	-- Everything the suggestion was computed from, for replay_suggestion.
	INSERT INTO tuner.suggestion (trial_id, algorithm, parameters, kinds, lows,
								  highs, log_scales, n_choices, fixed,
								  objective_metric, sign, aux_metrics,
								  aux_weights, observed, pending, other,
								  n_initial, design_index, seed, design_seed,
								  icm_rank, warm_model, cluster_members,
								  cluster_metric, warm_cluster_tasks,
								  warm_cluster_rank, warm_cluster_lengthscales,
								  warm_cluster_loadings, warm_cluster_variance,
								  warm_cluster_noise, warm_cluster_mean,
								  transfer, history_md5, objective_metrics,
								  objective_signs, scalarization_weights)
	VALUES (v_trial, v_algorithm, sp.names, sp.kinds, sp.lows, sp.highs,
			sp.log_scales, sp.n_choices,
			COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
						FROM tuner.parameter p
					   WHERE p.study_id = s.id AND NOT p.enabled), '{}'),
			v_objective_id, v_sign,
			CASE WHEN v_algorithm IN ('icm', 'clustered-icm') AND h.y_aux IS NOT NULL THEN v_aux_ids END,
			CASE WHEN h.y_aux IS NOT NULL THEN v_aux_weights END,
			COALESCE(h.id_observed, '{}'), COALESCE(h.id_pending, '{}'),
			COALESCE(h.id_other, '{}'), v_n_initial,
			(SELECT pg_catalog.count(*)::int FROM tuner.trial t
			  WHERE t.study_id = s.id AND t.source <> 'default' AND t.id <> v_trial),
			v_seed, s.seed, (s.settings ->> 'icm_rank')::int, w.id,
			v_cluster_members, v_cluster_metric, v_wc_tasks, v_wc_rank, v_wc_ls,
			v_wc_w, v_wc_v, v_wc_noise, v_wc_mean, v_x_transfer IS NOT NULL,
			tuner._history_md5(h.y_observed,
							   CASE WHEN v_algorithm IN ('icm', 'clustered-icm') THEN h.y_aux END),
			v_mo_ids, v_mo_signs, v_mo_weights);

	PERFORM tuner._widen_soft_bounds(s, v_trial);

	IF r.source = 'model' AND v_algorithm = 'clustered-icm' THEN
		-- one row per cluster that was fitted
		FOR c IN 1 .. pg_catalog.cardinality(v_cluster_metric)
		LOOP
			CONTINUE WHEN r.cluster_tasks[c] = 0;
			INSERT INTO tuner.model (study_id, trial_id, kind, n, lengthscales,
									 outputscale, noise, mean, log_likelihood,
									 tasks, rank, task_covariance,
									 task_correlation, task_noise, task_mean,
									 kronecker, fit_ms, parameters,
									 cluster_metric, task_loadings,
									 task_variance)
			SELECT s.id, v_trial, 'cluster', h.n_observed,
				   pg_catalog.array_agg(r.cluster_lengthscales[c][j] ORDER BY j),
				   r.cluster_task_covariance[c][1], r.cluster_task_noise[c][1],
				   r.cluster_task_mean[c][1], r.cluster_log_likelihood[c],
				   CASE r.cluster_tasks[c] WHEN 2 THEN ARRAY[s.objective, v_cluster_names[c]]
						ELSE ARRAY[s.objective] END,
				   r.cluster_rank[c],
				   CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_covariance[c][1], r.cluster_task_covariance[c][2]],
							  [r.cluster_task_covariance[c][3], r.cluster_task_covariance[c][4]]] END,
				   CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_correlation[c][1], r.cluster_task_correlation[c][2]],
							  [r.cluster_task_correlation[c][3], r.cluster_task_correlation[c][4]]] END,
				   ARRAY(SELECT r.cluster_task_noise[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t),
				   ARRAY(SELECT r.cluster_task_mean[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t),
				   r.cluster_kronecker[c] = 1, r.fit_ms,
				   pg_catalog.array_agg(sp.names[j] ORDER BY j),
				   v_cluster_names[c],
				   -- W (tasks x rank) from its row of 4, v from its row of 2
				   (SELECT pg_catalog.array_agg(ARRAY(
							SELECT r.cluster_task_loadings[c][(t - 1) * r.cluster_rank[c] + k]
							  FROM pg_catalog.generate_series(1, r.cluster_rank[c]) AS k
							 ORDER BY k) ORDER BY t)
					  FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t),
				   ARRAY(SELECT r.cluster_task_variance[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t)
			  FROM pg_catalog.generate_series(1, d) AS j
			 WHERE v_cluster_members[c][j] = 1;
		END LOOP;
		-- every combination of the clusters' proposals was tried: the point
		-- came from one GP over every parameter, stored as a row of kind gp
		IF NOT (1 = ANY (r.cluster_used)) THEN
			INSERT INTO tuner.model (study_id, trial_id, kind, n, lengthscales,
									 outputscale, noise, mean, log_likelihood,
									 tasks, fit_ms, parameters)
			VALUES (s.id, v_trial, 'gp', h.n_observed, r.lengthscales,
					r.outputscale, r.noise, r.mean, r.log_likelihood,
					ARRAY[s.objective], r.fit_ms, sp.names);
		END IF;
	ELSIF r.source = 'model' THEN
		-- the tasks the model kept, in its order (tasks_used is 0-based)
		SELECT pg_catalog.array_agg(v_tasks[u.k] ORDER BY u.used) INTO v_tasks
		  FROM pg_catalog.unnest(r.tasks_used) WITH ORDINALITY AS u(used, k)
		 WHERE u.used >= 0;
		INSERT INTO tuner.model (study_id, trial_id, kind, n, lengthscales,
								 outputscale, noise, mean, log_likelihood,
								 tasks, rank, task_loadings, task_variance,
								 task_covariance, task_correlation,
								 task_noise, task_mean, kronecker, fit_ms,
								 parameters)
		VALUES (s.id, v_trial, CASE WHEN r.rank IS NULL THEN 'gp' ELSE 'icm' END,
				h.n_observed, r.lengthscales, r.outputscale, r.noise, r.mean,
				r.log_likelihood,
				COALESCE(v_tasks, ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END]), r.rank,
				r.task_loadings, r.task_variance, r.task_covariance,
				r.task_correlation, r.task_noise, r.task_mean, r.kronecker,
				r.fit_ms, sp.names);
	END IF;
	-- the feasibility model and each constraint's, when fitted (issue 10)
	IF r.source = 'model' AND r.constraint_n IS NOT NULL THEN
		INSERT INTO tuner.model (study_id, trial_id, kind, n, lengthscales,
								 outputscale, noise, mean, log_likelihood,
								 tasks, parameters, outcome_mean, outcome_sd,
								 bound, constraint_metric, trend_intercept,
								 trend_slopes, calibration_threshold,
								 calibration_spread)
		SELECT s.id, v_trial, CASE WHEN c = 1 THEN 'feasibility' ELSE 'constraint' END,
			   r.constraint_n[c],
			   ARRAY(SELECT r.constraint_lengthscales[c][j]
					   FROM pg_catalog.generate_series(1, d) AS j ORDER BY j),
			   r.constraint_outputscale[c], r.constraint_noise[c],
			   r.constraint_mean[c], r.constraint_log_likelihood[c],
			   CASE WHEN c > 1 THEN ARRAY[v_con_names[c - 1]] END, sp.names,
			   r.constraint_y_mean[c], r.constraint_y_sd[c],
			   r.constraint_bound_std[c],
			   CASE WHEN c > 1 THEN v_con_names[c - 1] END,
			   CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN r.constraint_trend_intercept[c] END,
			   CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN
					ARRAY(SELECT r.constraint_trend_slopes[c][j]
							FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) END,
			   CASE WHEN r.constraint_calibration_threshold[c] <> 'NaN' THEN r.constraint_calibration_threshold[c] END,
			   CASE WHEN r.constraint_calibration_spread[c] <> 'NaN' THEN r.constraint_calibration_spread[c] END
		  FROM pg_catalog.generate_series(1, pg_catalog.cardinality(r.constraint_n)) AS c
		 WHERE r.constraint_n[c] > 0;
	END IF;

	RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', v_params);
END;
$$;

-- P(feasible) of a configuration: the product over the study's latest
-- feasibility and constraint models, each with its stored hyperparameters
-- over every trial finished so far (so trials finished after the fit
-- count too).
CREATE OR REPLACE FUNCTION tuner.predict_feasibility(study text, params jsonb)
RETURNS float8
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	mo tuner.model;
	v_x float8[];
	v_u float8[];
	v_train float8[];
	v_y float8[];
	v_objective bigint;
	v_metric tuner.metric;
	v_pred record;
	v_categories int[];
	v_p float8 := 1;
	v_last bigint;
	k text;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'params');
	IF pg_catalog.jsonb_typeof($2) <> 'object' THEN
		RAISE EXCEPTION 'params must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof($2));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys($2)
	LOOP
		IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id AND p.name = k) THEN
			RAISE EXCEPTION 'parameter "%" does not exist in study "%"', k, s.name
				USING ERRCODE = 'undefined_object';
		END IF;
	END LOOP;
	sp := tuner._space(s.id);
	SELECT pg_catalog.max(m.trial_id) INTO v_last FROM tuner.model m
	 WHERE m.study_id = s.id AND m.kind IN ('feasibility', 'constraint');
	IF v_last IS NULL THEN
		RAISE EXCEPTION 'study "%" has no feasibility or constraint model yet', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'tuner.suggest_next() fits them once the study has failed trials or bounded constraint metrics and the model chooses its trials.';
	END IF;
	-- the configuration as native values, then in the unit cube
	SELECT pg_catalog.array_agg(CASE p.kind
				WHEN 'bool' THEN CASE WHEN (v.val)::bool THEN 1 ELSE 0 END
				WHEN 'categorical' THEN pg_catalog.array_position(p.choices, v.val #>> '{}') - 1
				ELSE (v.val)::float8 END ORDER BY p.position)
	  INTO v_x
	  FROM tuner.parameter p
	 CROSS JOIN LATERAL (SELECT COALESCE($2 -> p.name, p.default_value) AS val) v
	 WHERE p.study_id = s.id AND p.enabled;
	IF pg_catalog.array_position(v_x, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'params must give every parameter without a default a value'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2);
	END IF;
	v_u := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices,
							  ARRAY[v_x]);
	-- the kernel's metric: a categorical of three or more choices is
	-- unordered (src/core/space.c, space_kernel_categories)
	v_categories := ARRAY(SELECT CASE WHEN sp.kinds[i] = 3 AND sp.n_choices[i] >= 3
									 THEN sp.n_choices[i] ELSE 0 END
							FROM pg_catalog.generate_series(1, pg_catalog.cardinality(sp.kinds)) AS i
						   ORDER BY i);
	SELECT m.id INTO v_objective FROM tuner.metric m
	 WHERE m.study_id = s.id AND m.name = s.objective;

	FOR mo IN SELECT * FROM tuner.model m
			   WHERE m.study_id = s.id AND m.trial_id = v_last
				 AND m.kind IN ('feasibility', 'constraint') ORDER BY m.id
	LOOP
		IF mo.parameters IS DISTINCT FROM sp.names THEN
			CONTINUE;	-- fitted over another set of parameters
		END IF;
		IF mo.kind = 'feasibility' THEN
			-- 1 failed, 0 ran (complete with the objective)
			WITH d AS (
				SELECT t.number, t.config, CASE t.state WHEN 'failed' THEN 1.0 ELSE 0.0 END AS y
				  FROM tuner.trial t
				 WHERE t.study_id = s.id
				   AND (t.state = 'failed'
						OR (t.state = 'complete' AND EXISTS (
							SELECT 1 FROM tuner.observation ob
							 WHERE ob.trial_id = t.id AND ob.metric_id = v_objective)))
			)
			SELECT pg_catalog.array_agg(tuner._config_native(s.id, d.config) ORDER BY d.number),
				   pg_catalog.array_agg((d.y - mo.outcome_mean) / mo.outcome_sd ORDER BY d.number)
			  INTO v_train, v_y FROM d;
		ELSE
			SELECT * INTO v_metric FROM tuner.metric m
			 WHERE m.study_id = s.id AND m.name = mo.constraint_metric;
			IF NOT FOUND OR v_metric.bound IS NULL OR v_metric.role <> 'constraint' THEN
				CONTINUE;	-- no longer a constraint
			END IF;
			SELECT pg_catalog.array_agg(tuner._config_native(s.id, t.config) ORDER BY t.number),
				   pg_catalog.array_agg((CASE v_metric.direction WHEN 'maximize' THEN -ob.value ELSE ob.value END
										 - mo.outcome_mean) / mo.outcome_sd ORDER BY t.number)
			  INTO v_train, v_y
			  FROM tuner.trial t
			  JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = v_metric.id
			 WHERE t.study_id = s.id AND t.state = 'complete'
			   AND EXISTS (SELECT 1 FROM tuner.observation o2
							WHERE o2.trial_id = t.id AND o2.metric_id = v_objective);
		END IF;
		IF v_train IS NULL THEN
			CONTINUE;
		END IF;
		v_train := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales, sp.n_choices, v_train);
		v_p := v_p * (tuner._feasibility_predict(
			v_train, v_y, mo.lengthscales, mo.outputscale, mo.noise, mo.mean,
			v_categories, mo.trend_intercept IS NOT NULL, mo.bound,
			mo.calibration_threshold, mo.calibration_spread, v_u))[1];
	END LOOP;
	RETURN v_p;
END;
$$;

-------------------------------------------------------------------------------
-- A bounded constraint on a metric the study's trials do not report is
-- refused when it is declared.
--
-- Before, tuner.add_metric(study, 'p99us', role => 'constraint', bound => 5,
-- direction => 'minimize') on a study whose trials report 'p99_us' was
-- accepted, and the next suggest_next failed with "was never reported":
-- the study then stopped suggesting, so no trial could ever report the
-- metric.  Once a trial is complete its metrics are known, so a name none
-- of them reported is caught where the mistake is made.  A constraint
-- without a bound is only recorded (tuner.add_metric's comment), so it
-- may still name a metric that later trials will report.
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._metric_constraint_known()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	v_study text;
	v_complete bigint;
	v_reported text;
BEGIN
	-- by name: INSERT ... ON CONFLICT fires this before it finds the
	-- existing row, with a new id
	IF EXISTS (SELECT 1 FROM tuner.metric m
				 JOIN tuner.observation ob ON ob.metric_id = m.id
				 JOIN tuner.trial t ON t.id = ob.trial_id
				WHERE m.study_id = NEW.study_id AND m.name = NEW.name
				  AND t.state = 'complete') THEN
		RETURN NEW;
	END IF;
	SELECT count(*) INTO v_complete FROM tuner.trial t
	 WHERE t.study_id = NEW.study_id AND t.state = 'complete';
	IF v_complete = 0 THEN
		RETURN NEW;		-- nothing is known yet of what trials report
	END IF;
	SELECT s.name INTO v_study FROM tuner.study s WHERE s.id = NEW.study_id;
	SELECT string_agg(quote_ident(m.name), ', ' ORDER BY m.name) INTO v_reported
	  FROM tuner.metric m
	 WHERE m.study_id = NEW.study_id
	   AND EXISTS (SELECT 1 FROM tuner.observation ob
				     JOIN tuner.trial t ON t.id = ob.trial_id
				    WHERE ob.metric_id = m.id AND t.state = 'complete');
	RAISE EXCEPTION 'study "%" has no reported metric "%" to constrain', v_study, NEW.name
		USING ERRCODE = 'undefined_object',
			  DETAIL = format('None of its %s complete trials reported it; they reported %s.',
							  v_complete, coalesce(v_reported, 'nothing')),
			  HINT = 'Check the name, or declare the constraint without a bound until trials report the metric.';
END;
$$;

CREATE TRIGGER metric_constraint_known BEFORE INSERT OR UPDATE OF role, bound ON tuner.metric
	FOR EACH ROW WHEN (NEW.role = 'constraint' AND NEW.bound IS NOT NULL)
	EXECUTE FUNCTION tuner._metric_constraint_known();
