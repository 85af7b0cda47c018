/*
 * tuner--0.1.0.sql
 *	  Install script of the tuner extension: the study tables, the views
 *	  users and tools read, and the SQL API.  Table logic is plpgsql; every
 *	  computation is a C function over arrays (src/pg -> src/core).
 *
 *	  Locking: tuner.suggest_next locks the study row FOR NO KEY UPDATE, so
 *	  that concurrent callers of one study run one at a time and each sees
 *	  the trials the previous one created (READ COMMITTED); UNIQUE(study_id,
 *	  number) is the backstop.  tuner.report and tuner.fail lock the trial
 *	  FOR NO KEY UPDATE.  NO KEY: the foreign-key checks of concurrent
 *	  reports take KEY SHARE on the same rows and must not wait for (or
 *	  deadlock with) a suggestion.  A background worker claims a trial under
 *	  its job row (FOR NO KEY UPDATE), then the study row (suggest_next).
 *	  tuner.enqueue and tuner.copy_trials number their trials under the
 *	  same study-row lock as suggest_next.
 */

\echo Use "CREATE EXTENSION tuner" \quit

-------------------------------------------------------------------------------
-- Tables
-------------------------------------------------------------------------------

CREATE TABLE tuner.runner (
	name		text PRIMARY KEY CHECK (name <> ''),
	program		text NOT NULL CHECK (program <> ''),
	args		text[] NOT NULL DEFAULT '{}',
	settings	jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
	owner		name NOT NULL DEFAULT current_user,
	created_at	timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.runner IS
	'Programs that run trials: fixed argv (program + args) and settings passed to them as "_settings"';

CREATE TABLE tuner.study (
	id			bigserial PRIMARY KEY,
	name		text NOT NULL UNIQUE CHECK (name <> ''),
	objective	text NOT NULL CHECK (objective <> ''),
	direction	text NOT NULL CHECK (direction IN ('minimize', 'maximize')),
	algorithm	text NOT NULL DEFAULT 'gp-ei' CHECK (algorithm IN ('gp-ei', 'icm', 'clustered-icm', 'random', 'sapphire')),
	settings	jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
	seed		bigint NOT NULL,
	runner		text REFERENCES tuner.runner (name) ON UPDATE CASCADE,
	owner		name NOT NULL DEFAULT current_user,
	created_at	timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.study IS
	'A tuning study: its objective metric and direction, settings and seed';

CREATE TABLE tuner.parameter (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	position	int NOT NULL CHECK (position >= 1),
	name		text NOT NULL CHECK (name <> ''),
	kind		text NOT NULL CHECK (kind IN ('float', 'int', 'bool', 'categorical')),
	low			float8,
	high		float8,
	log_scale	bool NOT NULL DEFAULT false,
	choices		text[],
	default_value jsonb,
	enabled		bool NOT NULL DEFAULT true,
	-- active only when another (earlier) parameter's value satisfies this
	condition	text,
	condition_parameter text,
	condition_op text CHECK (condition_op IN ('=', '<>', '<', '<=', '>', '>=', 'in', 'not in')),
	condition_values jsonb CHECK (jsonb_typeof(condition_values) = 'array'),
	-- bounds the study may widen (tuner.bound_change), never past hard_*
	soft_bounds	bool NOT NULL DEFAULT false,
	hard_low	float8,
	hard_high	float8,
	CHECK ((condition IS NULL) = (condition_parameter IS NULL)
		   AND (condition IS NULL) = (condition_op IS NULL)
		   AND (condition IS NULL) = (condition_values IS NULL)),
	CHECK (condition IS NULL OR default_value IS NOT NULL),
	CHECK (hard_low IS NULL OR hard_low <= low),
	CHECK (hard_high IS NULL OR hard_high >= high),
	CHECK (NOT soft_bounds OR kind IN ('float', 'int')),
	UNIQUE (study_id, name),
	UNIQUE (study_id, position),
	CHECK (CASE WHEN kind IN ('float', 'int')
		   THEN low IS NOT NULL AND high IS NOT NULL AND low < high
				AND choices IS NULL AND (NOT log_scale OR low > 0)
		   WHEN kind = 'bool'
		   THEN low IS NULL AND high IS NULL AND choices IS NULL AND NOT log_scale
		   ELSE low IS NULL AND high IS NULL AND NOT log_scale
				AND cardinality(choices) >= 1 END)
);

COMMENT ON TABLE tuner.parameter IS
	'The search space of a study: one row per parameter, in position order';

-- What happened to a study besides its trials: the phases of the sapphire
-- pipeline, parameter selections, algorithm changes.
CREATE TABLE tuner.study_event (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	trials		int NOT NULL,
	event		text NOT NULL,
	detail		jsonb NOT NULL DEFAULT '{}',
	at			timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.study_event IS
	'Phase transitions and parameter selections of a study; trials is the number of complete trials at the time';

-- Every widening of a soft bound, with the trial whose suggestion
-- triggered it.
CREATE TABLE tuner.bound_change (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	parameter_id bigint NOT NULL REFERENCES tuner.parameter (id) ON DELETE CASCADE,
	trial_id	bigint,
	side		text NOT NULL CHECK (side IN ('low', 'high')),
	old_value	float8 NOT NULL,
	new_value	float8 NOT NULL,
	reason		text NOT NULL,
	changed_at	timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.bound_change IS
	'Soft bounds the study widened because suggestions or the incumbent kept landing next to them';

CREATE TABLE tuner.metric (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	name		text NOT NULL CHECK (name <> ''),
	role		text NOT NULL DEFAULT 'recorded'
				CHECK (role IN ('objective', 'auxiliary', 'constraint', 'recorded')),
	direction	text CHECK (direction IN ('minimize', 'maximize')),
	unit		text,
	cluster text[],
	cluster_source text CHECK (cluster_source IN ('preset', 'user', 'learned')),
	cluster_confidence float8,
	UNIQUE (study_id, name)
);

COMMENT ON COLUMN tuner.metric.cluster IS
	'Parameters that drive this metric: the cluster a clustered multi-task model tunes with it';
COMMENT ON COLUMN tuner.metric.cluster_source IS
	'Who chose the cluster: a preset, the user (tuner.set_cluster) or tuner.learn_clusters';
COMMENT ON COLUMN tuner.metric.cluster_confidence IS
	'learn_clusters'' confidence in the cluster, in [0, 1]';

COMMENT ON TABLE tuner.metric IS
	'Every metric a study measures; the objective is registered by create_study';
COMMENT ON COLUMN tuner.metric.role IS
	'objective: what is tuned; auxiliary: modelled with it by multi-task algorithms; constraint: must stay within bounds; recorded: reported by a trial, stored, not modelled';

CREATE TABLE tuner.job (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	trials		int NOT NULL CHECK (trials >= 1),
	parallel	int NOT NULL CHECK (parallel >= 1),
	launched	int NOT NULL DEFAULT 0,
	claimed		int NOT NULL DEFAULT 0,
	workers_done int NOT NULL DEFAULT 0,
	stop_requested bool NOT NULL DEFAULT false,
	state		text NOT NULL DEFAULT 'running'
				CHECK (state IN ('running', 'finished', 'stopped', 'failed', 'interrupted')),
	error		text,
	owner		name NOT NULL DEFAULT current_user,
	created_at	timestamptz NOT NULL DEFAULT now(),
	finished_at timestamptz
);

CREATE INDEX job_study_idx ON tuner.job (study_id, state);

COMMENT ON TABLE tuner.job IS
	'One tuner.run() call: how many trials its background workers run, and whether tuner.stop() asked them to stop';

CREATE TABLE tuner.trial (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	number		int NOT NULL CHECK (number >= 1),
	config		jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object'),
	state		text NOT NULL DEFAULT 'running'
				CHECK (state IN ('queued', 'running', 'complete', 'failed', 'interrupted')),
	source		text NOT NULL
				CHECK (source IN ('default', 'design', 'model', 'random', 'manual', 'copied')),
	predicted_mean float8,
	predicted_sd float8,
	acquisition float8,
	seed		bigint,
	worker		text,
	worker_pid	int,
	job_id		bigint REFERENCES tuner.job (id) ON DELETE SET NULL,
	error		text,
	details		jsonb,
	created_at	timestamptz NOT NULL DEFAULT now(),
	started_at	timestamptz,
	finished_at timestamptz,
	UNIQUE (study_id, number)
);

CREATE INDEX trial_study_state_idx ON tuner.trial (study_id, state);
CREATE INDEX trial_running_idx ON tuner.trial (worker_pid) WHERE state = 'running';
CREATE INDEX trial_job_idx ON tuner.trial (job_id);

COMMENT ON TABLE tuner.trial IS
	'One configuration tried (or being tried): who suggested it, what the model predicted, its state';
COMMENT ON COLUMN tuner.trial.predicted_mean IS
	'Posterior mean of the objective at this configuration, in the objective''s units';
COMMENT ON COLUMN tuner.trial.acquisition IS
	'Log expected improvement (standardized units) when the model chose this trial';
COMMENT ON COLUMN tuner.trial.seed IS
	'Seed of the suggestion that produced this trial';
COMMENT ON COLUMN tuner.trial.worker_pid IS
	'Process id of the server process running this trial (background worker or tuner.step session)';
COMMENT ON COLUMN tuner.trial.details IS
	'What the runner left besides metrics: its exit, elapsed time, stderr tail and every "_" key it printed';

CREATE TABLE tuner.observation (
	trial_id	bigint NOT NULL REFERENCES tuner.trial (id) ON DELETE CASCADE,
	metric_id	bigint NOT NULL REFERENCES tuner.metric (id) ON DELETE CASCADE,
	value		float8 NOT NULL
				CHECK (value <> 'NaN' AND value > '-Infinity' AND value < 'Infinity'),
	reported_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (trial_id, metric_id)
);

CREATE INDEX observation_metric_idx ON tuner.observation (metric_id);

COMMENT ON TABLE tuner.observation IS
	'Every metric value every trial reported (long format)';

CREATE TABLE tuner.model (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	trial_id	bigint REFERENCES tuner.trial (id) ON DELETE CASCADE,
	kind		text NOT NULL DEFAULT 'gp' CHECK (kind IN ('gp', 'icm', 'cluster')),
	n			int NOT NULL,
	lengthscales float8[] NOT NULL,
	outputscale float8 NOT NULL,
	noise		float8 NOT NULL,
	mean		float8,
	log_likelihood float8,
	tasks		text[],
	rank		int,
	task_loadings float8[],
	task_variance float8[],
	task_covariance float8[],
	task_correlation float8[],
	task_noise	float8[],
	task_mean	float8[],
	kronecker	bool,
	fit_ms		float8,
	parameters	text[],
	cluster_metric text,
	fitted_at	timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX model_study_idx ON tuner.model (study_id, id);

COMMENT ON TABLE tuner.model IS
	'What each fit learned: hyperparameters in the unit cube, each task (metric) standardized';
COMMENT ON COLUMN tuner.model.lengthscales IS
	'One per parameter, in parameter order, shared by every task of the model';
COMMENT ON COLUMN tuner.model.outputscale IS
	'Signal variance of the objective (B[1][1] for an ICM model)';
COMMENT ON COLUMN tuner.model.noise IS
	'Noise variance of the objective';
COMMENT ON COLUMN tuner.model.tasks IS
	'Metrics the model learned from, the objective first; task i of the task_* arrays is tasks[i]';
COMMENT ON COLUMN tuner.model.task_loadings IS
	'ICM: W (tasks x rank) of the task covariance B = W W^T + diag(task_variance)';
COMMENT ON COLUMN tuner.model.task_covariance IS
	'ICM: B (tasks x tasks), in standardized units';
COMMENT ON COLUMN tuner.model.task_correlation IS
	'ICM: the correlation matrix of B; see tuner.task_correlation()';
COMMENT ON COLUMN tuner.model.kronecker IS
	'ICM: true when every trial reported every task and the Kronecker-structured solve was used';
COMMENT ON COLUMN tuner.model.fit_ms IS
	'Wall time of the hyperparameter fit in milliseconds (clustered-icm: of all the step''s cluster fits, on each of its rows)';
COMMENT ON COLUMN tuner.model.parameters IS
	'The parameters the model spans, in the order of lengthscales (a cluster: its members)';
COMMENT ON COLUMN tuner.model.cluster_metric IS
	'kind cluster: the auxiliary metric whose cluster of parameters this model tuned with the objective';

SELECT pg_catalog.pg_extension_config_dump('tuner.runner', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.study', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.study_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.parameter', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.parameter_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.metric', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.metric_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.job', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.job_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.trial', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.trial_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.observation', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.model', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.model_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.bound_change', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.study_event', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.study_event_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.bound_change_id_seq', '');

-------------------------------------------------------------------------------
-- Views
-------------------------------------------------------------------------------

CREATE VIEW tuner.trials AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.state,
	   t.config AS params,
	   o.value,
	   COALESCE(o.metrics, '{}'::jsonb) AS metrics,
	   t.source,
	   t.predicted_mean,
	   t.predicted_sd,
	   t.acquisition,
	   t.seed,
	   t.worker,
	   t.error,
	   t.created_at,
	   t.started_at,
	   t.finished_at,
	   t.details
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;

COMMENT ON VIEW tuner.trials IS
	'One row per trial: its parameters, objective value and every reported metric';

CREATE VIEW tuner.studies AS
SELECT s.id,
	   s.name,
	   s.objective,
	   s.direction,
	   s.seed,
	   s.settings,
	   (SELECT pg_catalog.count(*) FROM tuner.parameter p
		 WHERE p.study_id = s.id) AS parameters,
	   (SELECT pg_catalog.count(*) FROM tuner.trial t
		 WHERE t.study_id = s.id) AS trials,
	   (SELECT pg_catalog.count(*) FROM tuner.trial t
		 WHERE t.study_id = s.id AND t.state = 'complete') AS complete,
	   (SELECT CASE s.direction WHEN 'minimize' THEN pg_catalog.min(ob.value)
			   ELSE pg_catalog.max(ob.value) END
		  FROM tuner.trial t
		  JOIN tuner.observation ob ON ob.trial_id = t.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE t.study_id = s.id AND t.state = 'complete') AS best_value,
	   s.owner,
	   s.created_at,
	   s.runner,
	   s.algorithm
  FROM tuner.study s;

CREATE VIEW tuner.clusters AS
SELECT s.name AS study,
	   m.name AS metric,
	   m.cluster AS parameters,
	   m.cluster_source AS source,
	   m.cluster_confidence AS confidence
  FROM tuner.metric m
  JOIN tuner.study s ON s.id = m.study_id
 WHERE m.cluster IS NOT NULL;

COMMENT ON VIEW tuner.clusters IS
	'The parameter groups of clustered multi-task models: per auxiliary metric, its parameters and who chose them';

COMMENT ON VIEW tuner.studies IS
	'One row per study with its trial counts and best objective value';

-------------------------------------------------------------------------------
-- C functions (internal: arrays in, arrays out; see src/pg)
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._gp_fit(x float8[], y float8[], restarts int,
							  max_evals int, seed bigint, use_priors bool,
							  min_noise float8,
							  OUT lengthscales float8[], OUT outputscale float8,
							  OUT noise float8, OUT mean float8,
							  OUT log_likelihood float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_gp_fit_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._gp_predict(train_x float8[], train_y float8[],
								  lengthscales float8[], outputscale float8,
								  noise float8, mean float8, x float8[],
								  OUT mean float8[], OUT sd float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_gp_predict_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._gp_log_likelihood(train_x float8[], train_y float8[],
										 lengthscales float8[],
										 outputscale float8, noise float8,
										 mean float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_gp_log_likelihood_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

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
									 OUT constraint_bound_std float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_suggest_point'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Native configurations (rows) in the model's unit cube (src/core/space.h).
CREATE FUNCTION tuner._unit_points(kinds int[], lows float8[], highs float8[],
								   log_scales bool[], n_choices int[],
								   x float8[])
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_unit_points'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._learn_clusters(x float8[], y float8[], permutations int,
									 alpha float8, refine_rounds int, seed bigint,
									 OUT score float8[], OUT partial float8[],
									 OUT pvalue float8[], OUT adjusted float8[],
									 OUT member int[], OUT weak int[],
									 OUT n_obs int[], OUT valid int[],
									 OUT size int[], OUT confidence float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_learn_clusters_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-------------------------------------------------------------------------------
-- Internal helpers
-------------------------------------------------------------------------------

-- The runner row of a name, or the error for a NULL or unknown runner.
CREATE FUNCTION tuner._find_runner(runner text)
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

-- Check the settings that control how trials are run: trial_timeout_s,
-- kill_grace_s (seconds, numbers) and runner (an object passed to the
-- runner as "_settings").
CREATE FUNCTION tuner._check_run_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v float8;
BEGIN
	IF settings ? 'trial_timeout_s' THEN
		IF pg_catalog.jsonb_typeof(settings -> 'trial_timeout_s') IS DISTINCT FROM 'number' THEN
			RAISE EXCEPTION 'setting trial_timeout_s must be a number of seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'trial_timeout_s');
		END IF;
		v := (settings -> 'trial_timeout_s')::float8;
		IF v <= 0 OR v > 1000000 THEN
			RAISE EXCEPTION 'setting trial_timeout_s must be between 0 and 1000000 seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'trial_timeout_s');
		END IF;
	END IF;
	IF settings ? 'kill_grace_s' THEN
		IF pg_catalog.jsonb_typeof(settings -> 'kill_grace_s') IS DISTINCT FROM 'number' THEN
			RAISE EXCEPTION 'setting kill_grace_s must be a number of seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'kill_grace_s');
		END IF;
		v := (settings -> 'kill_grace_s')::float8;
		IF v < 0 OR v > 3600 THEN
			RAISE EXCEPTION 'setting kill_grace_s must be between 0 and 3600 seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'kill_grace_s');
		END IF;
	END IF;
	-- Leases and retries (tuner.heartbeat, tuner.reap).
	IF settings ? 'lease_s' THEN
		IF pg_catalog.jsonb_typeof(settings -> 'lease_s') IS DISTINCT FROM 'number' THEN
			RAISE EXCEPTION 'setting lease_s must be a number of seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'lease_s'),
					  HINT = 'A running trial not renewed by tuner.heartbeat() for this long is interrupted; the default is 300.';
		END IF;
		v := (settings -> 'lease_s')::float8;
		IF v <= 0 OR v > 1000000 THEN
			RAISE EXCEPTION 'setting lease_s must be between 0 and 1000000 seconds'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> 'lease_s');
		END IF;
	END IF;
	IF settings ? 'max_retries' THEN
		PERFORM tuner._json_int(settings -> 'max_retries', 'setting max_retries', 0, 100);
	END IF;
	IF settings ? 'runner' AND pg_catalog.jsonb_typeof(settings -> 'runner') IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'setting runner must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'runner'),
				  HINT = 'It holds the runner''s own settings, for example {"runner": {"duration": 30}}; name the runner with create_study(runner => ...) or tuner.set_runner().';
	END IF;
END;
$$;

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise.  A trial counts as run by the server when it records
-- worker_pid (tuner.run workers and tuner.step); trials of a live process
-- (same pid, started no later than the trial) are never touched.  Jobs
-- left running by an earlier server lifetime are marked as well.
-- Returns how many trials it marked.
CREATE FUNCTION tuner._reconcile()
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	n int := 0;
	v_restart timestamptz;
BEGIN
	-- pg_stat_activity is cached per transaction: look at it afresh.
	PERFORM pg_catalog.pg_stat_clear_snapshot();
	-- When the server last (re)started: a crash restart keeps the
	-- postmaster's start time but starts a new checkpointer.
	v_restart := GREATEST(pg_catalog.pg_postmaster_start_time(),
						  (SELECT pg_catalog.min(a.backend_start)
							 FROM pg_catalog.pg_stat_activity a
							WHERE a.backend_type = 'checkpointer'));
	IF EXISTS (SELECT 1 FROM tuner.trial WHERE state = 'running' AND worker_pid IS NOT NULL) THEN
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
						OR a.backend_start <= t.started_at));
		GET DIAGNOSTICS n = ROW_COUNT;
	END IF;
	UPDATE tuner.job
	   SET state = 'interrupted', finished_at = pg_catalog.now(),
		   error = COALESCE(error, 'server restarted')
	 WHERE state = 'running' AND created_at < v_restart;
	RETURN n;
END;
$$;

-- Raise the error for a NULL argument.
CREATE FUNCTION tuner._not_null(value anyelement, what text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF value IS NULL THEN
		RAISE EXCEPTION '% must not be NULL', what
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
END;
$$;

-- Check the transfer_from setting: earlier studies, by name.
CREATE FUNCTION tuner._check_transfer_from(value jsonb, study text)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_name text;
BEGIN
	IF pg_catalog.jsonb_typeof(value) <> 'array' OR pg_catalog.jsonb_array_length(value) = 0
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(value) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION 'setting transfer_from must be a non-empty array of study names'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'For example {"transfer_from": ["rocksdb_old_disk"]}.';
	END IF;
	FOR v_name IN SELECT pg_catalog.jsonb_array_elements_text(value)
	LOOP
		IF v_name = study THEN
			RAISE EXCEPTION 'study "%" cannot transfer from itself', study
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF NOT EXISTS (SELECT 1 FROM tuner.study s WHERE s.name = v_name) THEN
			RAISE EXCEPTION 'transfer_from names study "%", which does not exist', v_name
				USING ERRCODE = 'undefined_object',
					  HINT = 'tuner.studies lists the existing studies.';
		END IF;
	END LOOP;
END;
$$;

-- The weight of the auxiliary metrics in icm's joint target (the icm
-- option joint, the study setting icm_joint): a number from 0 (off) to
-- 1000, or true (1) or false (0).  what names it in errors.
CREATE FUNCTION tuner._json_joint_weight(value jsonb, what text)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v numeric;
BEGIN
	IF pg_catalog.jsonb_typeof(value) = 'boolean' THEN
		RETURN CASE WHEN value::bool THEN 1 ELSE 0 END;
	END IF;
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'number' THEN
		RAISE EXCEPTION '% must be a number or a boolean', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'The weight of the auxiliary metrics in the joint target: 0 (off) to 1000, or true for 1.';
	END IF;
	v := value::numeric;
	IF v < 0 OR v > 1000 THEN
		RAISE EXCEPTION '% must be between 0 and 1000', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value);
	END IF;
	RETURN v::float8;
END;
$$;

-- The study row of a name, or the error for a NULL or unknown study.
CREATE FUNCTION tuner._find_study(study text)
RETURNS tuner.study
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	p_study text := $1;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	SELECT * INTO s FROM tuner.study WHERE tuner.study.name = p_study;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" does not exist', p_study
			USING ERRCODE = 'undefined_object',
				  HINT = 'Create it with tuner.create_study(); tuner.studies lists the existing studies.';
	END IF;
	RETURN s;
END;
$$;

-- An integer held in a jsonb number, or the error naming what it is.
CREATE FUNCTION tuner._json_int(value jsonb, what text, lo numeric, hi numeric)
RETURNS bigint
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v numeric;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'number' THEN
		RAISE EXCEPTION '% must be an integer', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value);
	END IF;
	v := value::numeric;
	IF v <> pg_catalog.trunc(v) OR v < lo OR v > hi THEN
		RAISE EXCEPTION '% must be an integer between % and %', what, lo, hi
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value);
	END IF;
	RETURN v::bigint;
END;
$$;

-- A jsonb array of numbers as float8[] (what names it in errors).
CREATE FUNCTION tuner._jsonb_vector(value jsonb, what text)
RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	result float8[];
	bad bigint;
	bad_type text;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'array' THEN
		RAISE EXCEPTION '% must be a JSON array of numbers', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(value));
	END IF;
	IF pg_catalog.jsonb_array_length(value) = 0 THEN
		RAISE EXCEPTION '% must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_typeof(e) INTO bad, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(e, i)
	 WHERE pg_catalog.jsonb_typeof(e) <> 'number'
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must contain only numbers', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element %s is a JSON %s.', bad, bad_type);
	END IF;
	SELECT pg_catalog.array_agg(e::float8 ORDER BY i) INTO result
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(e, i);
	RETURN result;
END;
$$;

-- A jsonb array of equally long arrays of numbers as a 2-D float8[]; with
-- allow_null, JSON nulls (values not observed) become NULL elements.
CREATE FUNCTION tuner._jsonb_matrix(value jsonb, what text,
									allow_null bool DEFAULT false)
RETURNS float8[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	result float8[];
	bad bigint;
	bad_type text;
	first_len int;
	bad_len int;
	example text := CASE WHEN allow_null
		THEN 'Write one JSON array per point with one value per task, null where the task was not observed, for example [[1.0, null], [2.0, 3.0]].'
		ELSE 'Write one JSON array per point, for example [[0.1, 0.2], [0.3, 0.4]].' END;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'array' THEN
		RAISE EXCEPTION '% must be a JSON array of rows', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(value)),
				  HINT = example;
	END IF;
	IF pg_catalog.jsonb_array_length(value) = 0 THEN
		RAISE EXCEPTION '% must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_typeof(r) INTO bad, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i)
	 WHERE pg_catalog.jsonb_typeof(r) <> 'array'
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must be a JSON array of rows (two-dimensional)', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element %s is a JSON %s, not an array.', bad, bad_type),
				  HINT = example;
	END IF;
	first_len := pg_catalog.jsonb_array_length(value -> 0);
	IF first_len = 0 THEN
		RAISE EXCEPTION '% rows must not be empty', what
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT i, pg_catalog.jsonb_array_length(r) INTO bad, bad_len
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i)
	 WHERE pg_catalog.jsonb_array_length(r) <> first_len
	 ORDER BY i LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% rows must all have the same length', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Row 1 has %s elements but row %s has %s.',
											 first_len, bad, bad_len);
	END IF;
	SELECT a.i, b.k, pg_catalog.jsonb_typeof(b.e) INTO bad, bad_len, bad_type
	  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i),
		   pg_catalog.jsonb_array_elements(a.r) WITH ORDINALITY AS b(e, k)
	 WHERE pg_catalog.jsonb_typeof(b.e) <> 'number'
	   AND NOT (allow_null AND pg_catalog.jsonb_typeof(b.e) = 'null')
	 ORDER BY a.i, b.k LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION '% must contain only numbers%', what,
			  CASE WHEN allow_null THEN ' and nulls' ELSE '' END
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Row %s, column %s is a JSON %s.', bad, bad_len, bad_type);
	END IF;
	SELECT pg_catalog.array_agg(row_values ORDER BY i) INTO result
	  FROM (SELECT a.i,
				   pg_catalog.array_agg(CASE WHEN pg_catalog.jsonb_typeof(b.e) = 'null'
											 THEN NULL ELSE b.e::float8 END
										ORDER BY b.k) AS row_values
			  FROM pg_catalog.jsonb_array_elements(value) WITH ORDINALITY AS a(r, i),
				   pg_catalog.jsonb_array_elements(a.r) WITH ORDINALITY AS b(e, k)
			 GROUP BY a.i) rows;
	RETURN result;
END;
$$;

-- The checks every model jsonb passes first: not NULL, an object, and the
-- Matern-5/2 kernel if it names one; fitter names the function that
-- returns such models.
CREATE FUNCTION tuner._check_model_object(model jsonb, fitter text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF model IS NULL THEN
		RAISE EXCEPTION 'model must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = pg_catalog.format('%s returns a model; see README.md for its keys.', fitter);
	END IF;
	IF pg_catalog.jsonb_typeof(model) <> 'object' THEN
		RAISE EXCEPTION 'model must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model)),
				  HINT = pg_catalog.format('%s returns a model; see README.md for its keys.', fitter);
	END IF;
	IF model ? 'kernel' AND model -> 'kernel' IS DISTINCT FROM '"matern52"'::jsonb THEN
		RAISE EXCEPTION 'unsupported kernel %', model -> 'kernel'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The only kernel is "matern52".';
	END IF;
END;
$$;

-- The arrays and hyperparameters of a model jsonb, with its errors.
CREATE FUNCTION tuner._model_arrays(model jsonb,
									OUT x float8[], OUT y float8[],
									OUT lengthscales float8[],
									OUT outputscale float8, OUT noise float8,
									OUT mean float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
BEGIN
	PERFORM tuner._check_model_object(model, 'tuner.gp_fit()');
	FOREACH k IN ARRAY ARRAY['lengthscales', 'outputscale', 'noise', 'mean', 'x', 'y']
	LOOP
		IF NOT model ? k THEN
			RAISE EXCEPTION 'model is missing key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A model has the keys "kernel", "lengthscales", "outputscale", "noise", "mean", "x" and "y".';
		END IF;
	END LOOP;
	FOREACH k IN ARRAY ARRAY['outputscale', 'noise', 'mean']
	LOOP
		IF pg_catalog.jsonb_typeof(model -> k) <> 'number' THEN
			RAISE EXCEPTION 'model key "%" must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model -> k));
		END IF;
	END LOOP;
	outputscale := (model -> 'outputscale')::float8;
	noise := (model -> 'noise')::float8;
	mean := (model -> 'mean')::float8;
	lengthscales := tuner._jsonb_vector(model -> 'lengthscales', 'lengthscales');
	y := tuner._jsonb_vector(model -> 'y', 'y');
	x := tuner._jsonb_matrix(model -> 'x', 'x');
END;
$$;

-- The parameter arrays of the space the model searches (the enabled
-- parameters), in position order; all_defaults and default_config cover
-- every parameter.
CREATE FUNCTION tuner._space(study_id bigint,
							 OUT names text[], OUT kinds int[],
							 OUT lows float8[], OUT highs float8[],
							 OUT log_scales bool[], OUT n_choices int[],
							 OUT all_defaults bool, OUT default_config jsonb)
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(p.name ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(CASE p.kind WHEN 'float' THEN 0 WHEN 'int' THEN 1
							WHEN 'bool' THEN 2 ELSE 3 END ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(p.low, 0) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(p.high, 1) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(p.log_scale ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.array_agg(COALESCE(pg_catalog.cardinality(p.choices), 0) ORDER BY p.position) FILTER (WHERE p.enabled),
	   pg_catalog.bool_and(p.default_value IS NOT NULL),
	   pg_catalog.jsonb_object_agg(p.name, p.default_value)
  FROM tuner.parameter p
 WHERE p.study_id = $1;
$$;

-------------------------------------------------------------------------------
-- Studies and parameters
-------------------------------------------------------------------------------

-------------------------------------------------------------------------------
-- Preset "rocksdb": the RocksDB paper's Table 1 on the scaled db_bench
-- mixgraph workload of tuner_rocksdb (src/runners/rocksdb/README.md).
-------------------------------------------------------------------------------

-- Study settings of the preset.  Every trial is measured paired with the
-- default configuration (the objective is the ratio to it), 30 s per run;
-- a trial is two runs plus restoring the DB and the final compaction, so
-- 600 s is a generous timeout.  Budgets are about 10 trials (the paper's):
-- the default, two space-filling points, then the model (the generic
-- d + 1 = 11 would leave a 10-trial study without a single model trial;
-- the paper starts its models from one observation).  noise_sd is the
-- paired ratio's measured spread with the runner's default direct I/O
-- (sd 0.235 in 6 default-vs-default pairs, CV 13-22% in a second set; see
-- src/runners/rocksdb/README.md), for tuner.recommend.
CREATE FUNCTION tuner._rocksdb_preset_settings()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$
SELECT '{"n_initial": 3, "trial_timeout_s": 600, "noise_sd": 0.2, "runner": {"duration_s": 30, "paired": true}}'::jsonb;
$$;

-- Check the runner settings the preset's runner understands (see
-- src/runners/rocksdb/README.md), so that a typo fails here and not in
-- every trial.
CREATE FUNCTION tuner._check_rocksdb_runner_settings(runner jsonb)
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
			WHEN 'duration_s' THEN
				PERFORM tuner._json_int(v, 'runner setting duration_s', 1, 86400);
			WHEN 'repeats' THEN
				PERFORM tuner._json_int(v, 'runner setting repeats', 1, 16);
			WHEN 'num_keys' THEN
				PERFORM tuner._json_int(v, 'runner setting num_keys', 1000, 1000000000);
			WHEN 'seed' THEN
				PERFORM tuner._json_int(v, 'runner setting seed', 0, 2147483647);
			WHEN 'paired', 'direct_io', 'keep_db' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'boolean' THEN
					RAISE EXCEPTION 'runner setting % must be true or false', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'work_dir', 'db_bench' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR left(v #>> '{}', 1) <> '/' THEN
					RAISE EXCEPTION 'runner setting % must be an absolute path', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'default_config' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'object' THEN
					RAISE EXCEPTION 'runner setting default_config must be a JSON object'
						USING ERRCODE = 'invalid_parameter_value';
				END IF;
			ELSE
				RAISE EXCEPTION 'unknown runner setting "%" for the rocksdb preset', k
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Known: duration_s, paired, repeats, num_keys, seed, direct_io, keep_db, work_dir, db_bench, default_config.';
		END CASE;
	END LOOP;
END;
$$;

-- Parameters and metrics of the preset.  Ranges are Table 1's, scaled like
-- the workload (store, cache and write buffers about 256x smaller): the
-- write buffer spans [64 KiB (RocksDB's floor), 1.5e8 / 256].  Table 1's
-- parameters are all ordinal integers; those spanning more than a decade
-- are searched in log space.  The slowdown trigger's default is passed as
-- 20: Table 1 lists 0, which RocksDB does not read as its default.
CREATE FUNCTION tuner._apply_rocksdb_preset(p_study_id bigint, p_study text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	p record;
BEGIN
	FOR p IN SELECT * FROM (VALUES
		('max_background_compactions', 1, 16, '1', false),
		('max_background_flushes', 1, 10, '1', false),
		('write_buffer_size', 65536, 585937, '262144', true),
		('max_write_buffer_number', 1, 128, '2', true),
		('min_write_buffer_number_to_merge', 1, 32, '1', true),
		('max_bytes_for_level_multiplier', 5, 15, '10', false),
		('block_size', 256, 500000, '4096', true),
		('level0_file_num_compaction_trigger', 1, 256, '4', true),
		('level0_slowdown_writes_trigger', 1, 1024, '20', true),
		('level0_stop_writes_trigger', 1, 1024, '36', true))
		AS v(name, low, high, dflt, log_scale)
	LOOP
		PERFORM tuner.add_parameter($2, p.name, 'int', low => p.low, high => p.high,
									default_value => p.dflt, log_scale => p.log_scale);
	END LOOP;
	-- RocksDB's own orderings (its options sanitizer rewrites a
	-- configuration that breaks them, so such a trial would not measure
	-- what it says): L0 compaction <= slowdown <= stop triggers, and fewer
	-- memtables merged than may exist.
	PERFORM tuner.add_constraint($2, 'level0_file_num_compaction_trigger <= level0_slowdown_writes_trigger', 'preset');
	PERFORM tuner.add_constraint($2, 'level0_slowdown_writes_trigger <= level0_stop_writes_trigger', 'preset');
	PERFORM tuner.add_constraint($2, 'min_write_buffer_number_to_merge < max_write_buffer_number', 'preset');

	-- The auxiliary metrics of the paper, and raw throughput; each with the
	-- parameters that drive it most (our reading of RocksDB: flushes and
	-- the L0 triggers for compaction time, the LSM shape for write
	-- amplification, block size and the LSM depth for block reads).
	INSERT INTO tuner.metric (study_id, name, role, direction, unit, cluster)
	VALUES
		($1, 'ops_per_sec', 'auxiliary', 'maximize', 'ops/s',
		 '{max_write_buffer_number,max_background_flushes,level0_slowdown_writes_trigger,level0_stop_writes_trigger}'),
		($1, 'write_amp', 'auxiliary', 'minimize', NULL,
		 '{max_bytes_for_level_multiplier,level0_file_num_compaction_trigger,write_buffer_size,min_write_buffer_number_to_merge}'),
		($1, 'p99_block_read_us', 'auxiliary', 'minimize', 'us',
		 '{block_size,max_bytes_for_level_multiplier,level0_file_num_compaction_trigger}'),
		($1, 'p99_l0_l1_compaction_ms', 'auxiliary', 'minimize', 'ms',
		 '{max_background_compactions,level0_file_num_compaction_trigger,write_buffer_size,level0_slowdown_writes_trigger,level0_stop_writes_trigger}')
	-- one of them may be the study's objective: keep its role
	ON CONFLICT (study_id, name) DO UPDATE
		SET unit = EXCLUDED.unit, cluster = EXCLUDED.cluster;
	UPDATE tuner.metric m SET unit = 'ratio',
		   cluster = '{write_buffer_size,max_write_buffer_number,level0_file_num_compaction_trigger,level0_slowdown_writes_trigger,level0_stop_writes_trigger,max_background_compactions}'
	 WHERE m.study_id = $1 AND m.role = 'objective' AND m.name = 'ratio_to_default';
	UPDATE tuner.metric m SET cluster_source = 'preset'
	 WHERE m.study_id = $1 AND m.cluster IS NOT NULL;
END;
$$;

-- Create a study; its objective is registered as a metric.
CREATE FUNCTION tuner.create_study(name text, objective text DEFAULT NULL,
								   direction text DEFAULT 'maximize',
								   settings jsonb DEFAULT '{}',
								   runner text DEFAULT NULL,
								   preset text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	p_name text := $1;
	p_objective text := $2;
	p_direction text := $3;
	p_settings jsonb := $4;
	p_runner text := $5;
	p_preset text := $6;
	k text;
	v_seed bigint;
	v_id bigint;
	v_catalog jsonb;
BEGIN
	IF p_preset IS NOT NULL THEN
		IF p_preset NOT IN ('rocksdb', 'ceph', 'fastquery') THEN
			RAISE EXCEPTION 'unknown preset "%"', p_preset
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known presets: rocksdb, ceph, fastquery.';
		END IF;
		PERFORM tuner._not_null(p_settings, 'settings');
		IF pg_catalog.jsonb_typeof(p_settings) <> 'object' THEN
			RAISE EXCEPTION 'settings must be a JSON object'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
	END IF;
	-- A study with a runner (every preset has one) makes the server run
	-- programs; the ceph preset checks with its own message, the trigger
	-- study_runner_guard checks every route.
	IF (p_runner IS NOT NULL OR p_preset IS NOT NULL) AND p_preset IS DISTINCT FROM 'ceph' THEN
		PERFORM tuner._check_program_privilege('create a study that runs programs');
	END IF;
	IF p_preset = 'ceph' THEN
		-- (section "Preset ceph" at the end of this file)
		p_objective := COALESCE(p_objective, 'write_mbps');
		p_runner := COALESCE(p_runner, 'ceph');
		SELECT c.settings_out, c.catalog INTO p_settings, v_catalog
		  FROM tuner._ceph_preset_prepare(p_objective, p_settings) c;
		IF p_runner = 'ceph' AND NOT EXISTS (
			SELECT 1 FROM tuner.runner r WHERE r.name = 'ceph') THEN
			PERFORM tuner.register_runner('ceph', 'tuner_ceph');
		END IF;
	ELSIF p_preset = 'fastquery' THEN
		-- the preset's own section at the end of this file
		p_objective := COALESCE(p_objective, 'total_s');
		p_direction := CASE WHEN p_objective IN ('total_s', 'build_s', 'query_s', 'read_s', 'index_s', 'write_s', 'cpu_s', 'total_s_default')
							THEN 'minimize'
							WHEN p_objective = 'speedup_vs_default' THEN 'maximize'
							ELSE p_direction END;
		p_runner := COALESCE(p_runner, 'fastquery');
		p_settings := tuner._fastquery_preset_settings(p_settings, p_objective);
		IF p_runner = 'fastquery' AND NOT EXISTS (
			SELECT 1 FROM tuner.runner r WHERE r.name = 'fastquery') THEN
			PERFORM tuner.register_runner('fastquery', 'tuner_fastquery_runner');
		END IF;
	ELSIF p_preset = 'rocksdb' THEN
		p_objective := COALESCE(p_objective, 'ratio_to_default');
		p_runner := COALESCE(p_runner, 'rocksdb');
		-- The preset's settings, under the caller's; "runner" merges by key.
		IF p_settings ? 'runner' THEN
			PERFORM tuner._check_rocksdb_runner_settings(p_settings -> 'runner');
		END IF;
		-- (its noise_sd is the paired ratio's, meaningless for another objective)
		p_settings := (tuner._rocksdb_preset_settings()
					   - CASE WHEN p_objective <> 'ratio_to_default' THEN 'noise_sd' ELSE '' END)
			|| p_settings ||
			pg_catalog.jsonb_build_object('runner',
				(tuner._rocksdb_preset_settings() -> 'runner') ||
				COALESCE(p_settings -> 'runner', '{}'));
		IF p_runner = 'rocksdb' AND NOT EXISTS (
			SELECT 1 FROM tuner.runner r WHERE r.name = 'rocksdb') THEN
			PERFORM tuner.register_runner('rocksdb', 'tuner_rocksdb');
		END IF;
	END IF;
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_objective, 'objective');
	PERFORM tuner._not_null(p_direction, 'direction');
	PERFORM tuner._not_null(p_settings, 'settings');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'study name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.btrim(p_objective) = '' THEN
		RAISE EXCEPTION 'objective must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p_direction NOT IN ('minimize', 'maximize') THEN
		RAISE EXCEPTION 'invalid direction "%"', p_direction
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''minimize'' or ''maximize''.';
	END IF;
	IF pg_catalog.jsonb_typeof(p_settings) <> 'object' THEN
		RAISE EXCEPTION 'settings must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(p_settings));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(p_settings)
	LOOP
		IF k NOT IN ('seed', 'n_initial', 'trial_timeout_s', 'kill_grace_s', 'runner', 'icm_rank', 'icm_joint', 'transfer_from', 'bound_margin', 'bound_hits', 'noise_sd', 'lease_s', 'max_retries') THEN
			RAISE EXCEPTION 'unknown study setting "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known settings: seed, n_initial, trial_timeout_s, kill_grace_s, runner, icm_rank, icm_joint, transfer_from, bound_margin, bound_hits, noise_sd, lease_s, max_retries.';
		END IF;
	END LOOP;
	PERFORM tuner._check_run_settings(p_settings);
	IF p_runner IS NOT NULL THEN
		PERFORM tuner._find_runner(p_runner);
	END IF;
	IF p_settings ? 'n_initial' THEN
		PERFORM tuner._json_int(p_settings -> 'n_initial', 'setting n_initial', 1, 1000);
	END IF;
	IF p_settings ? 'icm_rank' THEN
		PERFORM tuner._json_int(p_settings -> 'icm_rank', 'setting icm_rank', 1, 100);
	END IF;
	IF p_settings ? 'noise_sd' THEN
		PERFORM tuner._check_noise_sd(p_settings -> 'noise_sd', 'setting noise_sd');
	END IF;
	IF p_settings ? 'bound_hits' THEN
		PERFORM tuner._json_int(p_settings -> 'bound_hits', 'setting bound_hits', 1, 1000);
	END IF;
	IF p_settings ? 'bound_margin' AND (pg_catalog.jsonb_typeof(p_settings -> 'bound_margin') <> 'number'
										OR (p_settings ->> 'bound_margin')::float8 <= 0
										OR (p_settings ->> 'bound_margin')::float8 >= 0.5) THEN
		RAISE EXCEPTION 'setting bound_margin must be a number between 0 and 0.5'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', p_settings -> 'bound_margin'),
				  HINT = 'It is the share of a parameter''s range next to a soft bound, e.g. 0.05.';
	END IF;
	IF p_settings ? 'icm_joint' THEN
		-- stored as a number (true is 1)
		p_settings := p_settings || pg_catalog.jsonb_build_object('icm_joint',
			tuner._json_joint_weight(p_settings -> 'icm_joint', 'setting icm_joint'));
	END IF;
	IF p_settings ? 'transfer_from' THEN
		PERFORM tuner._check_transfer_from(p_settings -> 'transfer_from', p_name);
	END IF;
	IF p_settings ? 'seed' THEN
		v_seed := tuner._json_int(p_settings -> 'seed', 'setting seed',
								  -9223372036854775808, 9223372036854775807);
	ELSE
		v_seed := pg_catalog.floor((pg_catalog.random() - 0.5) * 18446744073709551616.0::float8 * 0.999)::bigint;
	END IF;

	BEGIN
		INSERT INTO tuner.study (name, objective, direction, settings, seed, runner)
		VALUES (p_name, p_objective, p_direction, p_settings, v_seed, p_runner)
		RETURNING id INTO v_id;
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'study "%" already exists', p_name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Choose another name, or drop the old study with tuner.drop_study().';
	END;
	INSERT INTO tuner.metric (study_id, name, role, direction)
	VALUES (v_id, p_objective, 'objective', p_direction);
	IF p_preset = 'rocksdb' THEN
		PERFORM tuner._apply_rocksdb_preset(v_id, p_name);
	ELSIF p_preset = 'ceph' THEN
		PERFORM tuner._apply_ceph_preset(p_name, v_catalog);
	ELSIF p_preset = 'fastquery' THEN
		PERFORM tuner._apply_fastquery_preset(v_id, p_name);
	END IF;
	RETURN v_id;
END;
$$;

-- Drop a study with its parameters, trials, observations and models.
CREATE FUNCTION tuner.drop_study(study text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study(study);
	DELETE FROM tuner.study WHERE id = s.id;
	IF NOT FOUND THEN
		-- visible (granted) but not ours: row-level security kept it
		RAISE EXCEPTION 'permission denied to drop study "%"', s.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Only its owner %s may drop it.', pg_catalog.quote_ident(s.owner));
	END IF;
END;
$$;

-- Add a parameter to a study's search space (before its first trial).
-- A parameter's condition, "other op value": other is an earlier
-- parameter of the study; op is =, <>, !=, <, <=, >, >= (numbers only),
-- IN (...) or NOT IN (...); values are numbers, true/false, or labels
-- (bare or in single quotes) of a categorical.  Returned normalised.
CREATE FUNCTION tuner._parse_condition(p_study_id bigint, p_name text, p_text text,
									   OUT condition text, OUT parameter text,
									   OUT op text, OUT vals jsonb)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	m text[];
	ref tuner.parameter;
	raw text[];
	v text;
	num float8;
BEGIN
	m := pg_catalog.regexp_match($3,
		'^\s*([A-Za-z_][A-Za-z0-9_.]*)\s*(=|==|!=|<>|<=|>=|<|>|\s[Nn][Oo][Tt]\s+[Ii][Nn]\s|\s[Ii][Nn]\s)\s*(.*?)\s*$');
	IF m IS NULL OR m[3] = '' THEN
		RAISE EXCEPTION 'cannot parse the condition of parameter "%": %', $2, $3
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Write "other_parameter = value" (also <>, <, <=, >, >=) or "other_parameter IN (a, b)".';
	END IF;
	SELECT * INTO ref FROM tuner.parameter p WHERE p.study_id = $1 AND p.name = m[1];
	IF NOT FOUND THEN
		RAISE EXCEPTION 'the condition of parameter "%" refers to unknown parameter "%"', $2, m[1]
			USING ERRCODE = 'undefined_object',
				  HINT = 'Add the parameter the condition tests before the conditional one.';
	END IF;
	op := pg_catalog.lower(pg_catalog.regexp_replace(pg_catalog.btrim(m[2]), '\s+', ' ', 'g'));
	op := CASE op WHEN '==' THEN '=' WHEN '!=' THEN '<>' ELSE op END;
	IF op IN ('in', 'not in') THEN
		IF m[3] !~ '^\(.*\)$' THEN
			RAISE EXCEPTION 'the condition of parameter "%" needs a parenthesised list after %', $2, pg_catalog.upper(op)
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Write e.g. "osd_op_queue IN (wpq, mclock_scheduler)".';
		END IF;
		raw := pg_catalog.regexp_split_to_array(pg_catalog.substr(m[3], 2, pg_catalog.length(m[3]) - 2), '\s*,\s*');
	ELSE
		raw := ARRAY[m[3]];
	END IF;
	IF ref.kind IN ('bool', 'categorical') AND op IN ('<', '<=', '>', '>=') THEN
		RAISE EXCEPTION 'the condition of parameter "%" orders % parameter "%"', $2, ref.kind, ref.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use =, <>, IN or NOT IN with bool and categorical parameters.';
	END IF;
	vals := '[]';
	FOREACH v IN ARRAY raw LOOP
		v := pg_catalog.btrim(v);
		IF v ~ '^''.*''$' THEN
			v := pg_catalog.substr(v, 2, pg_catalog.length(v) - 2);
		END IF;
		IF v = '' THEN
			RAISE EXCEPTION 'the condition of parameter "%" has an empty value', $2
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF ref.kind = 'categorical' THEN
			IF pg_catalog.array_position(ref.choices, v) IS NULL THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a choice of "%"', $2, v, ref.name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The choices are %s.', ref.choices);
			END IF;
			vals := vals || pg_catalog.to_jsonb(v);
		ELSIF ref.kind = 'bool' THEN
			IF pg_catalog.lower(v) NOT IN ('true', 'false') THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a boolean', $2, v
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			vals := vals || pg_catalog.to_jsonb(pg_catalog.lower(v)::bool);
		ELSE
			BEGIN
				num := v::float8;
			EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
				RAISE EXCEPTION 'the condition of parameter "%": "%" is not a number', $2, v
					USING ERRCODE = 'invalid_parameter_value';
			END;
			IF num = 'NaN' OR num IN ('Infinity', '-Infinity') THEN
				RAISE EXCEPTION 'the condition of parameter "%" compares with a non-finite number', $2
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			vals := vals || pg_catalog.to_jsonb(num);
		END IF;
	END LOOP;
	parameter := ref.name;
	condition := pg_catalog.format('%s %s %s', ref.name, pg_catalog.upper(op),
		CASE WHEN op IN ('in', 'not in')
			 THEN '(' || (SELECT pg_catalog.string_agg(e #>> '{}', ', ') FROM pg_catalog.jsonb_array_elements(vals) e) || ')'
			 ELSE vals ->> 0 END);
END;
$$;

-- Whether a conditional parameter is active in a configuration (name ->
-- value); a parameter without condition always is.
CREATE FUNCTION tuner._condition_holds(p tuner.parameter, config jsonb)
RETURNS bool
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE
	WHEN $1.condition_parameter IS NULL THEN true
	WHEN $2 -> $1.condition_parameter IS NULL THEN false
	WHEN $1.condition_op IN ('=', 'in') THEN
		EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements($1.condition_values) e
				 WHERE CASE pg_catalog.jsonb_typeof(e) WHEN 'number'
						THEN (e)::float8 = ($2 -> $1.condition_parameter)::float8
						ELSE e = $2 -> $1.condition_parameter END)
	WHEN $1.condition_op IN ('<>', 'not in') THEN
		NOT EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements($1.condition_values) e
					 WHERE CASE pg_catalog.jsonb_typeof(e) WHEN 'number'
							THEN (e)::float8 = ($2 -> $1.condition_parameter)::float8
							ELSE e = $2 -> $1.condition_parameter END)
	WHEN $1.condition_op = '<' THEN ($2 -> $1.condition_parameter)::float8 < ($1.condition_values -> 0)::float8
	WHEN $1.condition_op = '<=' THEN ($2 -> $1.condition_parameter)::float8 <= ($1.condition_values -> 0)::float8
	WHEN $1.condition_op = '>' THEN ($2 -> $1.condition_parameter)::float8 > ($1.condition_values -> 0)::float8
	ELSE ($2 -> $1.condition_parameter)::float8 >= ($1.condition_values -> 0)::float8
END;
$$;

-- A configuration with every inactive parameter at its default, in
-- position order (so a condition sees the final value of the parameter
-- it tests).
CREATE FUNCTION tuner._apply_conditions(study_id bigint, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	c jsonb := $2;
BEGIN
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = $1 AND q.condition_parameter IS NOT NULL
			  ORDER BY q.position
	LOOP
		IF NOT tuner._condition_holds(p, c) THEN
			c := c || pg_catalog.jsonb_build_object(p.name, p.default_value);
		END IF;
	END LOOP;
	RETURN c;
END;
$$;

CREATE FUNCTION tuner.add_parameter(study text, name text, kind text,
									low float8 DEFAULT NULL,
									high float8 DEFAULT NULL,
									default_value text DEFAULT NULL,
									log_scale bool DEFAULT false,
									choices text[] DEFAULT NULL,
									condition text DEFAULT NULL,
									soft_bounds bool DEFAULT false,
									hard_low float8 DEFAULT NULL,
									hard_high float8 DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_name text := $2;
	p_kind text := $3;
	p_low float8 := $4;
	p_high float8 := $5;
	p_default text := $6;
	p_log bool := $7;
	p_choices text[] := $8;
	p_condition text := $9;
	p_soft bool := $10;
	p_hard_low float8 := $11;
	p_hard_high float8 := $12;
	v_cond_text text;
	v_cond_param text;
	v_cond_op text;
	v_cond_vals jsonb;
	v_default jsonb;
	v_num float8;
	v_position int;
	dup text;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_kind, 'kind');
	PERFORM tuner._not_null(p_log, 'log_scale');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'parameter name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p_kind NOT IN ('float', 'int', 'bool', 'categorical') THEN
		RAISE EXCEPTION 'invalid parameter kind "%"', p_kind
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use float, int, bool or categorical.';
	END IF;

	-- Lock the study so no trial appears while the space changes.
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	IF EXISTS (SELECT 1 FROM tuner.trial WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'cannot add parameter "%" to study "%" because it has trials', p_name, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Define the whole search space before the first tuner.suggest_next(), or create a new study.';
	END IF;

	IF p_kind IN ('float', 'int') THEN
		IF p_low IS NULL OR p_high IS NULL THEN
			RAISE EXCEPTION '% parameter "%" needs low and high bounds', p_kind, p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Pass low => ... and high => ....';
		END IF;
		IF p_low = 'NaN' OR p_high = 'NaN' OR p_low IN ('Infinity', '-Infinity')
		   OR p_high IN ('Infinity', '-Infinity') THEN
			RAISE EXCEPTION 'bounds of parameter "%" must be finite', p_name
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF p_low >= p_high THEN
			RAISE EXCEPTION 'low must be less than high for parameter "%"', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s and high is %s.', p_low, p_high);
		END IF;
		IF p_kind = 'int' AND (p_low <> pg_catalog.trunc(p_low) OR p_high <> pg_catalog.trunc(p_high)) THEN
			RAISE EXCEPTION 'bounds of int parameter "%" must be integers', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s and high is %s.', p_low, p_high);
		END IF;
		IF p_log AND p_low <= 0 THEN
			RAISE EXCEPTION 'log-scaled parameter "%" needs a positive low bound', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('low is %s.', p_low),
					  HINT = 'Use log_scale => false, or a low bound above zero.';
		END IF;
		IF p_choices IS NOT NULL THEN
			RAISE EXCEPTION '% parameter "%" does not take choices', p_kind, p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only categorical parameters have choices.';
		END IF;
	ELSE
		IF p_low IS NOT NULL OR p_high IS NOT NULL THEN
			RAISE EXCEPTION '% parameter "%" does not take bounds', p_kind, p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only float and int parameters have low and high.';
		END IF;
		IF p_log THEN
			RAISE EXCEPTION '% parameter "%" cannot be log-scaled', p_kind, p_name
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF p_kind = 'bool' AND p_choices IS NOT NULL THEN
			RAISE EXCEPTION 'bool parameter "%" does not take choices', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Only categorical parameters have choices.';
		END IF;
		IF p_kind = 'categorical' THEN
			IF p_choices IS NULL OR pg_catalog.cardinality(p_choices) = 0 THEN
				RAISE EXCEPTION 'categorical parameter "%" needs choices', p_name
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Pass choices => ARRAY[''a'', ''b''].';
			END IF;
			IF pg_catalog.array_ndims(p_choices) <> 1 THEN
				RAISE EXCEPTION 'choices of parameter "%" must be a one-dimensional array', p_name
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			IF pg_catalog.array_position(p_choices, NULL) IS NOT NULL THEN
				RAISE EXCEPTION 'choices of parameter "%" must not contain NULL', p_name
					USING ERRCODE = 'null_value_not_allowed';
			END IF;
			SELECT c INTO dup FROM pg_catalog.unnest(p_choices) c
			 GROUP BY c HAVING pg_catalog.count(*) > 1 ORDER BY c LIMIT 1;
			IF FOUND THEN
				RAISE EXCEPTION 'choices of parameter "%" must be distinct', p_name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('"%s" appears more than once.', dup);
			END IF;
		END IF;
	END IF;

	IF p_default IS NOT NULL THEN
		IF p_kind IN ('float', 'int') THEN
			BEGIN
				v_num := p_default::float8;
			EXCEPTION WHEN invalid_text_representation OR numeric_value_out_of_range THEN
				RAISE EXCEPTION 'default value "%" of parameter "%" is not a number', p_default, p_name
					USING ERRCODE = 'invalid_parameter_value';
			END;
			IF v_num = 'NaN' OR v_num IN ('Infinity', '-Infinity') THEN
				RAISE EXCEPTION 'default value of parameter "%" must be finite', p_name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', p_default);
			END IF;
			IF v_num < p_low OR v_num > p_high THEN
				RAISE EXCEPTION 'default value % of parameter "%" is outside its bounds', p_default, p_name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The bounds are [%s, %s].', p_low, p_high);
			END IF;
			IF p_kind = 'int' THEN
				IF v_num <> pg_catalog.trunc(v_num) THEN
					RAISE EXCEPTION 'default value % of int parameter "%" is not an integer', p_default, p_name
						USING ERRCODE = 'invalid_parameter_value';
				END IF;
				v_default := pg_catalog.to_jsonb(v_num::bigint);
			ELSE
				v_default := pg_catalog.to_jsonb(v_num);
			END IF;
		ELSIF p_kind = 'bool' THEN
			BEGIN
				v_default := pg_catalog.to_jsonb(p_default::bool);
			EXCEPTION WHEN invalid_text_representation THEN
				RAISE EXCEPTION 'default value "%" of bool parameter "%" is not a boolean', p_default, p_name
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use true or false.';
			END;
		ELSE
			IF pg_catalog.array_position(p_choices, p_default) IS NULL THEN
				RAISE EXCEPTION 'default value "%" of parameter "%" is not one of its choices', p_default, p_name
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('The choices are %s.', p_choices);
			END IF;
			v_default := pg_catalog.to_jsonb(p_default);
		END IF;
	END IF;

	PERFORM tuner._not_null(p_soft, 'soft_bounds');
	IF (p_soft OR p_hard_low IS NOT NULL OR p_hard_high IS NOT NULL)
	   AND p_kind NOT IN ('float', 'int') THEN
		RAISE EXCEPTION '% parameter "%" has no bounds to widen', p_kind, p_name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'soft_bounds, hard_low and hard_high apply to float and int parameters.';
	END IF;
	IF (p_hard_low IS NOT NULL OR p_hard_high IS NOT NULL) AND NOT p_soft THEN
		RAISE EXCEPTION 'hard limits of parameter "%" need soft_bounds => true', p_name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Hard limits say how far soft bounds may widen; without soft bounds low and high are the limits.';
	END IF;
	IF p_hard_low = 'NaN' OR p_hard_high = 'NaN'
	   OR p_hard_low IN ('Infinity', '-Infinity') OR p_hard_high IN ('Infinity', '-Infinity') THEN
		RAISE EXCEPTION 'hard limits of parameter "%" must be finite', p_name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave a hard limit NULL for none.';
	END IF;
	IF p_hard_low > p_low OR p_hard_high < p_high THEN
		RAISE EXCEPTION 'hard limits of parameter "%" must contain its bounds', p_name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('The bounds are [%s, %s], the hard limits [%s, %s].',
											 p_low, p_high, COALESCE(p_hard_low::text, 'none'),
											 COALESCE(p_hard_high::text, 'none'));
	END IF;
	IF p_kind = 'int' AND (p_hard_low <> pg_catalog.trunc(p_hard_low)
						   OR p_hard_high <> pg_catalog.trunc(p_hard_high)) THEN
		RAISE EXCEPTION 'hard limits of int parameter "%" must be integers', p_name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF p_log AND p_hard_low <= 0 THEN
		RAISE EXCEPTION 'log-scaled parameter "%" needs a positive hard_low', p_name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	IF p_condition IS NOT NULL THEN
		SELECT c.condition, c.parameter, c.op, c.vals
		  INTO v_cond_text, v_cond_param, v_cond_op, v_cond_vals
		  FROM tuner._parse_condition(s.id, p_name, p_condition) c;
		IF v_default IS NULL THEN
			RAISE EXCEPTION 'conditional parameter "%" needs a default value', p_name
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A parameter keeps its default while its condition is false: pass default_value => ....';
		END IF;
	END IF;

	SELECT COALESCE(pg_catalog.max(position), 0) + 1 INTO v_position
	  FROM tuner.parameter WHERE study_id = s.id;
	BEGIN
		INSERT INTO tuner.parameter (study_id, position, name, kind, low, high,
									 log_scale, choices, default_value,
									 condition, condition_parameter,
									 condition_op, condition_values,
									 soft_bounds, hard_low, hard_high)
		VALUES (s.id, v_position, p_name, p_kind, p_low, p_high, p_log,
				p_choices, v_default, v_cond_text, v_cond_param, v_cond_op,
				v_cond_vals, p_soft, p_hard_low, p_hard_high);
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'parameter "%" already exists in study "%"', p_name, s.name
			USING ERRCODE = 'duplicate_object';
	END;
END;
$$;

-- Tune only these parameters: the others are disabled, fixed at their
-- defaults in every suggestion and left out of the model (tuner.select_top
-- does this with a Lasso ranking).  Allowed between trials.  Returns the
-- number of parameters enabled.
CREATE FUNCTION tuner.enable_parameters(study text, parameters text[])
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_unknown text;
	v_no_default text;
	v_count int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'parameters');
	IF pg_catalog.cardinality($2) = 0 OR pg_catalog.array_position($2, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'parameters must name at least one parameter and no NULL'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'A study tunes at least one parameter.';
	END IF;
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	SELECT u.name INTO v_unknown FROM pg_catalog.unnest($2) AS u(name)
	 WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id AND p.name = u.name)
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, v_unknown
			USING ERRCODE = 'undefined_object';
	END IF;
	SELECT p.name INTO v_no_default FROM tuner.parameter p
	 WHERE p.study_id = s.id AND p.name <> ALL ($2) AND p.default_value IS NULL
	 ORDER BY p.position LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" cannot be disabled because it has no default value', v_no_default
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'A disabled parameter is fixed at its default: give it one, or keep it enabled.';
	END IF;
	UPDATE tuner.parameter p SET enabled = (p.name = ANY ($2)) WHERE p.study_id = s.id;
	SELECT pg_catalog.count(*) INTO v_count FROM tuner.parameter p
	 WHERE p.study_id = s.id AND p.enabled;
	RETURN v_count;
END;
$$;

-- The complete trials of earlier studies (sources, by name) as rows of
-- this study's space, for the multi-task model's transfer tasks: x the
-- native values of this study's parameters (a parameter the earlier trial
-- lacks takes its default here), y one column per source, NULL except the
-- trial's own source, which holds its objective to be minimised.  Trials
-- outside this space (out of bounds, unknown choices, no value and no
-- default) are left out.
CREATE FUNCTION tuner._transfer_rows(study_id bigint, sources text[],
									 OUT x float8[], OUT y float8[])
RETURNS SETOF record
LANGUAGE sql STABLE
AS $$
WITH src AS (
	SELECT st.id, st.objective, st.direction, o.k
	  FROM pg_catalog.unnest($2) WITH ORDINALITY AS o(name, k)
	  JOIN tuner.study st ON st.name = o.name AND st.id <> $1
), r AS (
	SELECT src.k, t.number,
		   CASE src.direction WHEN 'maximize' THEN -ob.value ELSE ob.value END AS v,
		   ARRAY(SELECT CASE p.kind
						WHEN 'bool' THEN
							CASE WHEN pg_catalog.jsonb_typeof(pv.v) = 'boolean'
								 THEN CASE WHEN pv.v::bool THEN 1 ELSE 0 END END
						WHEN 'categorical' THEN
							pg_catalog.array_position(p.choices, pv.v #>> '{}') - 1
						ELSE
							CASE WHEN pg_catalog.jsonb_typeof(pv.v) = 'number'
									  AND pv.v::float8 BETWEEN p.low AND p.high
									  AND (p.kind = 'float' OR pv.v::float8 = pg_catalog.round(pv.v::float8))
								 THEN pv.v::float8 END END
				   FROM tuner.parameter p
				  CROSS JOIN LATERAL (SELECT COALESCE(t.config -> p.name, p.default_value) AS v) pv
				  WHERE p.study_id = $1 AND p.enabled
				  ORDER BY p.position) AS x
	  FROM src
	  JOIN tuner.metric m ON m.study_id = src.id AND m.name = src.objective
	  JOIN tuner.trial t ON t.study_id = src.id AND t.state = 'complete'
	  JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = m.id
)
SELECT r.x,
	   ARRAY(SELECT CASE WHEN g = r.k THEN r.v END
			   FROM pg_catalog.generate_series(1, pg_catalog.cardinality($2)) AS g
			  ORDER BY g)
  FROM r
 WHERE pg_catalog.array_position(r.x, NULL) IS NULL
 ORDER BY r.k, r.number;
$$;

-------------------------------------------------------------------------------
-- Metrics and algorithms
-------------------------------------------------------------------------------

-- Declare a metric of a study, or change the role, direction or unit of one
-- already declared or reported.  Auxiliary metrics are the extra tasks of
-- the multi-task algorithms; metrics that trials report without being
-- declared are only recorded.  Returns the metric's id.
CREATE FUNCTION tuner.add_metric(study text, name text,
								 role text DEFAULT 'auxiliary',
								 direction text DEFAULT NULL,
								 unit text DEFAULT NULL,
								 bound float8 DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_name text := $2;
	p_role text := $3;
	p_direction text := $4;
	p_unit text := $5;
	p_bound float8 := $6;
	v_id bigint;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_role, 'role');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'metric name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.left(p_name, 1) = '_' THEN
		RAISE EXCEPTION 'metric name "%" starts with "_"', p_name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'Keys starting with "_" are runner extras, stored in the trial''s details, never metrics.';
	END IF;
	IF p_role NOT IN ('objective', 'auxiliary', 'constraint') THEN
		RAISE EXCEPTION 'invalid metric role "%"', p_role
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''auxiliary'' or ''constraint''; the objective is set by tuner.create_study().';
	END IF;
	IF p_direction IS NOT NULL AND p_direction NOT IN ('minimize', 'maximize') THEN
		RAISE EXCEPTION 'invalid direction "%"', p_direction
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''minimize'' or ''maximize''.';
	END IF;
	-- Another objective (multi-objective study, see the section at the
	-- end of this file) is declared with its direction.
	IF (p_role = 'objective') <> (p_name = s.objective)
	   AND NOT (p_role = 'objective' AND p_direction IS NOT NULL) THEN
		IF p_role = 'objective' THEN
			RAISE EXCEPTION 'study "%" already has the objective "%"', s.name, s.objective
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A study has one objective, chosen by tuner.create_study(); add this metric as ''auxiliary''.';
		END IF;
		RAISE EXCEPTION '"%" is the objective of study "%"', p_name, s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The objective keeps its role; choose another metric.';
	END IF;
	IF p_role = 'objective' AND p_name = s.objective
	   AND p_direction IS DISTINCT FROM s.direction AND p_direction IS NOT NULL THEN
		RAISE EXCEPTION 'the objective of study "%" is to %, not to %', s.name,
			  s.direction, p_direction
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The objective''s direction is set by tuner.create_study().';
	END IF;

	PERFORM tuner._check_metric_bound(p_name, p_role, p_direction, p_bound);

	INSERT INTO tuner.metric AS m (study_id, name, role, direction, unit, bound)
	VALUES (s.id, p_name, p_role, p_direction, p_unit, p_bound)
	ON CONFLICT (study_id, name) DO UPDATE
	   SET role = EXCLUDED.role,
		   direction = COALESCE(EXCLUDED.direction, m.direction),
		   unit = COALESCE(EXCLUDED.unit, m.unit),
		   -- a bound belongs to a constraint: other roles drop it
		   bound = CASE WHEN EXCLUDED.role = 'constraint'
						THEN COALESCE(EXCLUDED.bound, m.bound) END
	RETURNING m.id INTO v_id;
	RETURN v_id;
END;
$$;

-- Choose how a study's next trials are suggested: 'gp-ei' (a GP of the
-- objective), 'icm' (a multi-task GP of the objective and its auxiliary
-- metrics), 'clustered-icm' or 'random'.  Options: for icm and
-- clustered-icm, {"rank": k}, the rank of the learned task covariance
-- (setting icm_rank); for icm, {"joint": w}, the weight of the auxiliary
-- metrics with a direction in the target the acquisition optimises
-- (setting icm_joint; 0 = the objective alone, true = 1).  Options not
-- given keep their setting.  Applies from the next tuner.suggest_next().
CREATE FUNCTION tuner.set_algorithm(study text, algorithm text,
									options jsonb DEFAULT '{}')
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_algorithm text := $2;
	p_options jsonb := $3;
	k text;
	v_settings jsonb;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_algorithm, 'algorithm');
	PERFORM tuner._not_null(p_options, 'options');
	IF p_algorithm NOT IN ('gp-ei', 'icm', 'clustered-icm', 'random', 'sapphire') THEN
		RAISE EXCEPTION 'unknown algorithm "%"', p_algorithm
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Known algorithms: gp-ei, icm, clustered-icm, random, sapphire.';
	END IF;
	IF pg_catalog.jsonb_typeof(p_options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(p_options));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(p_options)
	LOOP
		IF NOT ((p_algorithm IN ('icm', 'clustered-icm') AND k = 'rank')
				OR (p_algorithm = 'icm' AND k = 'joint')
				OR (p_algorithm = 'sapphire' AND k IN ('explore', 'top_k', 'model'))) THEN
			RAISE EXCEPTION 'unknown option "%" for algorithm "%"', k, p_algorithm
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = CASE WHEN k = 'joint' THEN 'Option joint belongs to icm: its target combines the tasks of one multi-task model.'
							 WHEN p_algorithm = 'icm' THEN 'Known options: rank, joint.'
							 WHEN p_algorithm = 'clustered-icm' THEN 'Known options: rank.'
							 WHEN p_algorithm = 'sapphire' THEN 'Known options: explore, top_k, model.'
							 ELSE pg_catalog.format('Algorithm %s takes no options.', p_algorithm) END;
		END IF;
	END LOOP;

	v_settings := s.settings;
	IF p_options ? 'rank' THEN
		v_settings := v_settings || pg_catalog.jsonb_build_object('icm_rank',
			tuner._json_int(p_options -> 'rank', 'icm option rank', 1, 100));
	END IF;
	IF p_options ? 'joint' THEN
		v_settings := v_settings || pg_catalog.jsonb_build_object('icm_joint',
			tuner._json_joint_weight(p_options -> 'joint', 'icm option joint'));
		IF (v_settings ->> 'icm_joint')::float8 > 0 AND NOT EXISTS (
			SELECT 1 FROM tuner.metric m
			 WHERE m.study_id = s.id AND m.role = 'auxiliary'
			   AND m.direction IS NOT NULL) THEN
			RAISE NOTICE 'study "%" has no auxiliary metric with a direction', s.name
				USING DETAIL = 'Until one is declared, the joint target is the objective alone.',
					  HINT = 'Declare one with tuner.add_metric(study, name, ''auxiliary'', ''minimize'').';
		END IF;
	END IF;
	IF p_algorithm = 'sapphire' THEN
		-- the pipeline's three knobs, checked now, defaults filled in later
		-- (they depend on the number of parameters)
		v_settings := v_settings || pg_catalog.jsonb_build_object('sapphire',
			pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
				'explore', CASE WHEN p_options ? 'explore' THEN
					tuner._json_int(p_options -> 'explore', 'sapphire option explore', 5, 100000) END,
				'top_k', CASE WHEN p_options ? 'top_k' THEN
					tuner._json_int(p_options -> 'top_k', 'sapphire option top_k', 1, 100000) END,
				'model', p_options -> 'model')));
		IF p_options ? 'model' AND (pg_catalog.jsonb_typeof(p_options -> 'model') <> 'string'
									OR p_options ->> 'model' NOT IN ('gp-ei', 'icm')) THEN
			RAISE EXCEPTION 'sapphire option model must be "gp-ei" or "icm"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', p_options -> 'model');
		END IF;
		IF (v_settings #>> '{sapphire,top_k}')::int > (SELECT pg_catalog.count(*) FROM tuner.parameter p WHERE p.study_id = s.id) THEN
			RAISE EXCEPTION 'sapphire option top_k is larger than the number of parameters of study "%"', s.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('top_k is %s, the study has %s parameters.', v_settings #>> '{sapphire,top_k}',
												 (SELECT pg_catalog.count(*) FROM tuner.parameter p WHERE p.study_id = s.id)),
					  HINT = 'Add the parameters first, or choose a smaller top_k.';
		END IF;
	END IF;
	UPDATE tuner.study SET algorithm = p_algorithm, settings = v_settings
	 WHERE id = s.id;
	INSERT INTO tuner.study_event (study_id, trials, event, detail)
	VALUES (s.id, (SELECT pg_catalog.count(*) FROM tuner.trial t
					WHERE t.study_id = s.id AND t.state = 'complete'),
			'set_algorithm', pg_catalog.jsonb_build_object('algorithm', p_algorithm, 'options', p_options));
END;
$$;

-- Tune only the K parameters the Lasso ranks highest over the complete
-- trials (tuner.lasso_rank); the others are fixed at their defaults.
CREATE FUNCTION tuner.select_top(study text, k int, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, rank int, importance float8, enabled bool)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	d int;
	v_ranked jsonb;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'k');
	SELECT pg_catalog.count(*) INTO d FROM tuner.parameter p WHERE p.study_id = s.id;
	IF $2 < 1 OR $2 > d THEN
		RAISE EXCEPTION 'k must be between 1 and the number of parameters of study "%" (%)', s.name, d
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'To tune every parameter again, use tuner.enable_parameters() with all their names.';
	END IF;
	SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('parameter', r.parameter, 'rank', r.rank,
															  'importance', r.importance,
															  'entered_at', r.entered_at) ORDER BY r.rank)
	  INTO v_ranked
	  FROM tuner.lasso_rank(s.name, $3) r;
	PERFORM tuner.enable_parameters(s.name, ARRAY(
		SELECT e ->> 'parameter' FROM pg_catalog.jsonb_array_elements(v_ranked) e
		 WHERE (e ->> 'rank')::int <= $2));
	INSERT INTO tuner.study_event (study_id, trials, event, detail)
	VALUES (s.id, (SELECT pg_catalog.count(*) FROM tuner.trial t
					WHERE t.study_id = s.id AND t.state = 'complete'),
			'select_top', pg_catalog.jsonb_build_object('k', $2, 'ranking', v_ranked));
	RETURN QUERY
	SELECT e ->> 'parameter', (e ->> 'rank')::int, (e ->> 'importance')::float8,
		   (e ->> 'rank')::int <= $2
	  FROM pg_catalog.jsonb_array_elements(v_ranked) e
	 ORDER BY (e ->> 'rank')::int;
END;
$$;

-- What the study's latest multi-task model learned between its metrics:
-- one row per ordered pair of tasks, the objective first.  For
-- clustered-icm, the latest step's cluster models together (each pairs the
-- objective with its cluster's metric).
CREATE FUNCTION tuner.task_correlation(study text)
RETURNS TABLE (metric text, other_metric text, correlation float8,
			   covariance float8, model bigint, n int)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	m tuner.model;
BEGIN
	s := tuner._find_study($1);
	SELECT * INTO m FROM tuner.model
	 WHERE study_id = s.id AND kind IN ('icm', 'cluster')
	   AND task_covariance IS NOT NULL
	 ORDER BY id DESC LIMIT 1;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no multi-task model yet', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Declare auxiliary metrics with tuner.add_metric(), choose tuner.set_algorithm(study, ''icm''), and let tuner.suggest_next() fit one after the initial design.';
	END IF;
	RETURN QUERY
	SELECT u.a, u.b, u.corr, u.cov, u.id, u.n
	  FROM (SELECT DISTINCT ON (q.a, q.b) q.a, q.b, q.corr, q.cov, q.id, q.n
			  FROM (SELECT mm.tasks[i] AS a, mm.tasks[j] AS b,
						   mm.task_correlation[i][j] AS corr,
						   mm.task_covariance[i][j] AS cov, mm.id, mm.n
					  FROM tuner.model mm,
						   pg_catalog.generate_subscripts(mm.tasks, 1) AS i,
						   pg_catalog.generate_subscripts(mm.tasks, 1) AS j
					 WHERE mm.id = m.id
						OR (m.kind = 'cluster' AND mm.study_id = s.id
							AND mm.kind = 'cluster' AND mm.trial_id = m.trial_id
							AND mm.task_covariance IS NOT NULL)) q
			 ORDER BY q.a, q.b, q.id) u
	 ORDER BY u.a <> s.objective, u.a, u.b <> s.objective, u.b;
END;
$$;

-- Set by hand the parameters a clustered multi-task model tunes with an
-- auxiliary metric ('{}' clears it).
CREATE FUNCTION tuner.set_cluster(study text, metric text, parameters text[])
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	m tuner.metric;
	p_metric text := $2;
	p_parameters text[] := $3;
	v_unknown text;
	v_dup text;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_metric, 'metric');
	PERFORM tuner._not_null(p_parameters, 'parameters');
	SELECT * INTO m FROM tuner.metric
	 WHERE study_id = s.id AND name = p_metric;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no metric "%"', s.name, p_metric
			USING ERRCODE = 'undefined_object',
				  HINT = 'Declare it with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;
	IF m.role <> 'auxiliary' THEN
		RAISE EXCEPTION 'metric "%" of study "%" is %, not auxiliary', p_metric, s.name, m.role
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Clusters group parameters under auxiliary metrics; declare it with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;
	IF pg_catalog.array_position(p_parameters, NULL) IS NOT NULL THEN
		RAISE EXCEPTION 'parameters must not contain NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT u.name INTO v_unknown
	  FROM pg_catalog.unnest(p_parameters) AS u(name)
	 WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter p
						WHERE p.study_id = s.id AND p.name = u.name)
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, v_unknown
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	SELECT u.name INTO v_dup
	  FROM pg_catalog.unnest(p_parameters) AS u(name)
	 GROUP BY u.name HAVING pg_catalog.count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" is named twice', v_dup
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	UPDATE tuner.metric
	   SET cluster = CASE WHEN pg_catalog.cardinality(p_parameters) = 0 THEN NULL
						  ELSE p_parameters END,
		   cluster_source = CASE WHEN pg_catalog.cardinality(p_parameters) = 0 THEN NULL
								 ELSE 'user' END,
		   cluster_confidence = NULL
	 WHERE id = m.id;
END;
$$;

-- Find from the study's complete trials which parameters drive each
-- auxiliary metric (src/core/clusters.h: a rank quadratic correlation per
-- parameter and metric, permutation p-values, Benjamini-Hochberg, then
-- conditional passes given each metric's other members).  A parameter may
-- land in several clusters; one significant for no metric joins the
-- cluster of its strongest metric as a weak member.  With apply, each
-- metric's cluster is replaced by the learned one.
CREATE FUNCTION tuner.learn_clusters(study text, apply bool DEFAULT true,
									 options jsonb DEFAULT '{}')
RETURNS TABLE (metric text, parameters text[], confidence float8,
			   observations int, weak_parameters text[], scores jsonb)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	p_apply bool := $2;
	p_options jsonb := $3;
	opt_key text;
	v_names text[];
	v_kinds text[];
	v_choices text[];
	v_metric_ids bigint[];
	v_metric_names text[];
	v_x float8[];
	v_y float8[];
	v_n int;
	r record;
	ti int;
	d int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_apply, 'apply');
	PERFORM tuner._not_null(p_options, 'options');
	IF pg_catalog.jsonb_typeof(p_options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(p_options));
	END IF;
	FOR opt_key IN SELECT pg_catalog.jsonb_object_keys(p_options)
	LOOP
		IF opt_key NOT IN ('permutations', 'alpha', 'refine_rounds', 'seed') THEN
			RAISE EXCEPTION 'unknown learn_clusters option "%"', opt_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: permutations, alpha, refine_rounds, seed.';
		END IF;
	END LOOP;
	IF p_options ? 'alpha' AND (pg_catalog.jsonb_typeof(p_options -> 'alpha') <> 'number'
			OR (p_options ->> 'alpha')::float8 <= 0 OR (p_options ->> 'alpha')::float8 >= 1) THEN
		RAISE EXCEPTION 'learn_clusters option alpha must be a number between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', p_options -> 'alpha');
	END IF;

	SELECT pg_catalog.array_agg(p.name ORDER BY p.position),
		   pg_catalog.array_agg(p.kind ORDER BY p.position)
	  INTO v_names, v_kinds
	  FROM tuner.parameter p WHERE p.study_id = s.id;
	d := COALESCE(pg_catalog.cardinality(v_names), 0);
	IF d = 0 THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	SELECT pg_catalog.array_agg(m.id ORDER BY m.id), pg_catalog.array_agg(m.name ORDER BY m.id)
	  INTO v_metric_ids, v_metric_names
	  FROM tuner.metric m WHERE m.study_id = s.id AND m.role = 'auxiliary';
	IF v_metric_ids IS NULL THEN
		RAISE EXCEPTION 'study "%" has no auxiliary metrics', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Declare the metrics to cluster under with tuner.add_metric(study, metric, ''auxiliary'').';
	END IF;

	-- One row per complete trial: its parameter values (ranks are all the
	-- method uses, so native values serve; categoricals by their choice
	-- index) and its auxiliary metrics, NULL where it reported none.
	SELECT pg_catalog.array_agg(h.x ORDER BY h.number),
		   pg_catalog.array_agg(h.y ORDER BY h.number),
		   pg_catalog.count(*)
	  INTO v_x, v_y, v_n
	  FROM (SELECT t.number,
				   ARRAY(SELECT CASE p.kind
							WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
							WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
							ELSE (t.config -> p.name)::float8 END
						   FROM tuner.parameter p WHERE p.study_id = s.id
						  ORDER BY p.position) AS x,
				   ARRAY(SELECT ob.value
						   FROM pg_catalog.unnest(v_metric_ids) WITH ORDINALITY AS a(id, k)
						   LEFT JOIN tuner.observation ob
							 ON ob.trial_id = t.id AND ob.metric_id = a.id
						  ORDER BY a.k) AS y
			  FROM tuner.trial t
			 WHERE t.study_id = s.id AND t.state = 'complete') h;
	IF COALESCE(v_n, 0) < 4 THEN
		RAISE EXCEPTION 'study "%" has % complete trials; learning clusters needs at least 4', s.name, COALESCE(v_n, 0)
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Run more trials first; with tens of trials the clusters become reliable.';
	END IF;

	r := tuner._learn_clusters(v_x, v_y,
		CASE WHEN p_options ? 'permutations' THEN tuner._json_int(p_options -> 'permutations', 'learn_clusters option permutations', 0, 100000)::int END,
		(p_options ->> 'alpha')::float8,
		CASE WHEN p_options ? 'refine_rounds' THEN tuner._json_int(p_options -> 'refine_rounds', 'learn_clusters option refine_rounds', 0, 10)::int END,
		COALESCE(CASE WHEN p_options ? 'seed' THEN tuner._json_int(p_options -> 'seed', 'learn_clusters option seed',
																	 -9223372036854775808, 9223372036854775807) END,
				 s.seed));

	FOR ti IN 1 .. pg_catalog.cardinality(v_metric_ids)
	LOOP
		metric := v_metric_names[ti];
		observations := r.n_obs[ti];
		IF r.valid[ti] = 0 THEN
			-- too few observations or no variance: no cluster learned
			parameters := NULL;
			confidence := NULL;
			weak_parameters := NULL;
			scores := NULL;
		ELSE
			parameters := ARRAY(SELECT v_names[i] FROM pg_catalog.generate_series(1, d) i
								 WHERE r.member[i][ti] = 1 ORDER BY i);
			weak_parameters := ARRAY(SELECT v_names[i] FROM pg_catalog.generate_series(1, d) i
									  WHERE r.weak[i][ti] = 1 ORDER BY i);
			confidence := r.confidence[ti];
			SELECT pg_catalog.jsonb_object_agg(v_names[i], pg_catalog.jsonb_build_object(
						'score', r.score[i][ti], 'partial', r.partial[i][ti],
						'p_value', r.pvalue[i][ti], 'adjusted_p', r.adjusted[i][ti]))
			  INTO scores
			  FROM pg_catalog.generate_series(1, d) i;
			IF p_apply THEN
				UPDATE tuner.metric
				   SET cluster = parameters, cluster_source = 'learned',
					   cluster_confidence = confidence
				 WHERE id = v_metric_ids[ti];
			END IF;
		END IF;
		RETURN NEXT;
	END LOOP;
END;
$$;

-------------------------------------------------------------------------------
-- Trials
-------------------------------------------------------------------------------

-- Suggest the next configuration of a study and record it as a running
-- trial.  Returns {"trial": <trial id>, "params": {name: value, ...}}.
-- Dynamic bounds: a soft bound widens when the model's suggestions keep
-- landing within bound_margin (share of the range, in log space for
-- log-scaled parameters; default 0.05) of it: bound_hits (default 3) hits
-- since that side last changed, the incumbent next to it counting as one.
-- The range then doubles on that side, never past the hard limit.  Runs
-- after each suggestion, under suggest_next's lock of the study.
CREATE FUNCTION tuner._widen_soft_bounds(s tuner.study, p_trial bigint)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	p tuner.parameter;
	v_margin float8 := COALESCE((s.settings ->> 'bound_margin')::float8, 0.05);
	v_hits int := COALESCE((s.settings ->> 'bound_hits')::int, 3);
	v_best jsonb;
	v_since bigint;
	v_count int;
	v_incumbent bool;
	v_old float8;
	v_new float8;
	v_side text;
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter q
					WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled) THEN
		RETURN;
	END IF;
	-- (several objectives have no single incumbent)
	IF NOT tuner._is_multiobjective(s.id) THEN
		SELECT b.params INTO v_best FROM tuner.best(s.name) b;
	END IF;
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = s.id AND q.soft_bounds AND q.enabled
			  ORDER BY q.position
	LOOP
		FOREACH v_side IN ARRAY ARRAY['low', 'high']
		LOOP
			SELECT COALESCE(pg_catalog.max(c.trial_id), 0) INTO v_since
			  FROM tuner.bound_change c
			 WHERE c.parameter_id = p.id AND c.side = v_side;
			SELECT pg_catalog.count(*) INTO v_count
			  FROM tuner.trial t
			 WHERE t.study_id = s.id AND t.id > v_since AND t.source = 'model'
			   AND tuner._near_bound(p, (t.config ->> p.name)::float8, v_side, v_margin);
			v_incumbent := v_best IS NOT NULL
				AND tuner._near_bound(p, (v_best ->> p.name)::float8, v_side, v_margin);
			CONTINUE WHEN v_count + v_incumbent::int < v_hits;

			v_old := CASE v_side WHEN 'low' THEN p.low ELSE p.high END;
			IF p.log_scale THEN
				v_new := CASE v_side WHEN 'low' THEN p.low * p.low / p.high
							  ELSE p.high * p.high / p.low END;
			ELSE
				v_new := CASE v_side WHEN 'low' THEN 2 * p.low - p.high
							  ELSE 2 * p.high - p.low END;
			END IF;
			IF p.kind = 'int' THEN
				v_new := CASE v_side WHEN 'low' THEN pg_catalog.floor(v_new) ELSE pg_catalog.ceil(v_new) END;
				IF p.log_scale THEN
					v_new := GREATEST(v_new, 1);
				END IF;
			END IF;
			v_new := CASE v_side WHEN 'low' THEN GREATEST(v_new, COALESCE(p.hard_low, v_new))
						  ELSE LEAST(v_new, COALESCE(p.hard_high, v_new)) END;
			CONTINUE WHEN v_new = v_old;

			IF v_side = 'low' THEN
				UPDATE tuner.parameter SET low = v_new WHERE id = p.id;
				p.low := v_new;
			ELSE
				UPDATE tuner.parameter SET high = v_new WHERE id = p.id;
				p.high := v_new;
			END IF;
			INSERT INTO tuner.bound_change (study_id, parameter_id, trial_id, side,
											old_value, new_value, reason)
			VALUES (s.id, p.id, p_trial, v_side, v_old, v_new,
					pg_catalog.format('%s model suggestions%s within %s of the range of the %s bound',
									  v_count, CASE WHEN v_incumbent THEN ' and the incumbent' ELSE '' END,
									  v_margin, v_side));
		END LOOP;
	END LOOP;
END;
$$;

-- Whether a value lies within margin (share of the range, log space for
-- log-scaled parameters) of a parameter's low or high bound.
CREATE FUNCTION tuner._near_bound(p tuner.parameter, value float8, side text,
								  margin float8)
RETURNS bool
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE WHEN $2 IS NULL THEN false
			WHEN $1.log_scale AND $2 > 0 THEN
				CASE $3 WHEN 'low' THEN pg_catalog.ln($2 / $1.low) <= $4 * pg_catalog.ln($1.high / $1.low)
						ELSE pg_catalog.ln($1.high / $2) <= $4 * pg_catalog.ln($1.high / $1.low) END
			ELSE
				CASE $3 WHEN 'low' THEN $2 - $1.low <= $4 * ($1.high - $1.low)
						ELSE $1.high - $2 <= $4 * ($1.high - $1.low) END
	   END;
$$;

-- The sapphire pipeline's phase for the next suggestion, with its
-- settings: {"phase": "explore" | "model", "explore": n, "top_k": k,
-- "model": "gp-ei" | "icm"}.  The first call that finds `explore` complete
-- trials ranks the parameters (tuner.lasso_rank) and enables the top K
-- (tuner.select_top), and records both transitions in tuner.study_event.
-- Defaults: top_k 16 (the paper's) or every parameter if fewer; explore
-- max(20, 2 x parameters), at most 300 (the paper ranks from ~300).
CREATE FUNCTION tuner._sapphire_phase(s tuner.study)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	d int;
	v_complete int;
	v_conf jsonb := COALESCE(s.settings -> 'sapphire', '{}');
BEGIN
	SELECT pg_catalog.count(*) INTO d FROM tuner.parameter p WHERE p.study_id = s.id;
	v_conf := pg_catalog.jsonb_build_object(
		'explore', COALESCE((v_conf ->> 'explore')::int, LEAST(300, GREATEST(20, 2 * d))),
		'top_k', LEAST(d, COALESCE((v_conf ->> 'top_k')::int, 16)),
		'model', COALESCE(v_conf ->> 'model', 'gp-ei'));
	IF EXISTS (SELECT 1 FROM tuner.study_event e
				WHERE e.study_id = s.id AND e.event = 'sapphire_model'
				  AND e.id > COALESCE((SELECT pg_catalog.max(e2.id) FROM tuner.study_event e2
									   WHERE e2.study_id = s.id AND e2.event = 'set_algorithm'), 0)) THEN
		RETURN v_conf || '{"phase": "model"}';
	END IF;
	SELECT pg_catalog.count(*) INTO v_complete
	  FROM tuner.trial t WHERE t.study_id = s.id AND t.state = 'complete';
	IF v_complete < (v_conf ->> 'explore')::int THEN
		RETURN v_conf || '{"phase": "explore"}';
	END IF;
	PERFORM 1 FROM tuner.select_top(s.name, (v_conf ->> 'top_k')::int);
	INSERT INTO tuner.study_event (study_id, trials, event, detail)
	VALUES (s.id, v_complete, 'sapphire_model',
			v_conf || pg_catalog.jsonb_build_object('enabled', ARRAY(
				SELECT p.name FROM tuner.parameter p
				 WHERE p.study_id = s.id AND p.enabled ORDER BY p.position)));
	RETURN v_conf || '{"phase": "model"}';
END;
$$;

CREATE FUNCTION tuner.suggest_next(study text)
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
								 bound, constraint_metric)
		SELECT s.id, v_trial, CASE WHEN c = 1 THEN 'feasibility' ELSE 'constraint' END,
			   r.constraint_n[c],
			   ARRAY(SELECT r.constraint_lengthscales[c][j]
					   FROM pg_catalog.generate_series(1, d) AS j ORDER BY j),
			   r.constraint_outputscale[c], r.constraint_noise[c],
			   r.constraint_mean[c], r.constraint_log_likelihood[c],
			   CASE WHEN c > 1 THEN ARRAY[v_con_names[c - 1]] END, sp.names,
			   r.constraint_y_mean[c], r.constraint_y_sd[c],
			   r.constraint_bound_std[c],
			   CASE WHEN c > 1 THEN v_con_names[c - 1] END
		  FROM pg_catalog.generate_series(1, pg_catalog.cardinality(r.constraint_n)) AS c
		 WHERE r.constraint_n[c] > 0;
	END IF;

	RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', v_params);
END;
$$;

-- The trial row of an id, locked, or the error for a NULL, unknown or
-- finished trial.
CREATE FUNCTION tuner._open_trial(trial bigint)
RETURNS tuner.trial
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	SELECT * INTO t FROM tuner.trial WHERE tuner.trial.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object',
				  HINT = 'Pass the "trial" id that tuner.suggest_next() returned.';
	END IF;
	IF t.state NOT IN ('running', 'queued') THEN
		RAISE EXCEPTION 'trial % is already %', p_trial, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('It is trial number %s of study "%s".', t.number,
											 (SELECT s.name FROM tuner.study s WHERE s.id = t.study_id)),
				  HINT = 'A trial is reported or failed once; ask tuner.suggest_next() for a new one.';
	END IF;
	RETURN t;
END;
$$;

-- Record the metrics a trial measured and mark it complete.  The study's
-- objective must be among them; every metric is kept.
CREATE FUNCTION tuner.report(trial bigint, metrics jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	t tuner.trial;
	s tuner.study;
	k text;
	v jsonb;
	v_value float8;
	v_metric bigint;
	v_values float8[] := '{}';
	v_names text[] := '{}';
	i int;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._not_null($2, 'metrics');
	-- A trial whose lease expired is interrupted, not reported.
	PERFORM tuner._reap_of_trial($1);
	t := tuner._open_trial($1);
	SELECT * INTO s FROM tuner.study WHERE id = t.study_id;

	IF pg_catalog.jsonb_typeof($2) <> 'object' THEN
		RAISE EXCEPTION 'metrics must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof($2)),
				  HINT = pg_catalog.format('Pass {"metric": value, ...}, for example {"%s": 1.5}.', s.objective);
	END IF;
	IF NOT $2 ? s.objective THEN
		RAISE EXCEPTION 'metrics must include the objective "%"', s.objective
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no objective value should be marked with tuner.fail().';
	END IF;
	-- a multi-objective study: every objective
	SELECT o.name INTO k FROM tuner._objectives(s.id) o
	 WHERE NOT $2 ? o.name ORDER BY o.ordinal LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'metrics must include every objective; "%" is missing', k
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', $2),
				  HINT = 'A trial that produced no value of an objective should be marked with tuner.fail().';
	END IF;

	FOR k, v IN SELECT key, value FROM pg_catalog.jsonb_each($2) ORDER BY key
	LOOP
		IF k = '' THEN
			RAISE EXCEPTION 'metric names must not be empty'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			IF pg_catalog.jsonb_typeof(v) = 'string'
			   AND pg_catalog.lower(v #>> '{}') IN ('nan', 'infinity', '+infinity', '-infinity', 'inf', '+inf', '-inf') THEN
				RAISE EXCEPTION 'metric "%" must be a finite number', k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = 'Mark a trial that measured nothing valid with tuner.fail().';
			END IF;
			RAISE EXCEPTION 'metric "%" must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got a JSON %s: %s.', pg_catalog.jsonb_typeof(v), v);
		END IF;
		BEGIN
			v_value := v::float8;
		EXCEPTION WHEN numeric_value_out_of_range THEN
			RAISE EXCEPTION 'metric "%" is out of range for double precision', k
				USING ERRCODE = 'numeric_value_out_of_range';
		END;
		v_names := v_names || k;
		v_values := v_values || v_value;
	END LOOP;

	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		INSERT INTO tuner.metric (study_id, name, role)
		VALUES (s.id, v_names[i], 'recorded')
		ON CONFLICT (study_id, name) DO NOTHING;
		SELECT id INTO v_metric FROM tuner.metric
		 WHERE study_id = s.id AND name = v_names[i];
		INSERT INTO tuner.observation (trial_id, metric_id, value)
		VALUES (t.id, v_metric, v_values[i]);
	END LOOP;

	UPDATE tuner.trial SET state = 'complete', finished_at = pg_catalog.now()
	 WHERE id = t.id;
END;
$$;

-- Mark a running trial as failed, with the reason.  Failed configurations
-- are never suggested again.
CREATE FUNCTION tuner.fail(trial bigint, reason text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
BEGIN
	t := tuner._open_trial($1);
	UPDATE tuner.trial SET state = 'failed', error = $2,
		   finished_at = pg_catalog.now()
	 WHERE id = t.id;
END;
$$;

-- The best complete trial of a study in its direction (no row if none).
CREATE FUNCTION tuner.best(study text)
RETURNS TABLE (trial bigint, value float8, params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._require_one_objective(s, 'tuner.best');
	RETURN QUERY
	SELECT t.id, ob.value, t.config
	  FROM tuner.trial t
	  JOIN tuner.observation ob ON ob.trial_id = t.id
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE t.study_id = s.id AND t.state = 'complete' AND m.name = s.objective
	   -- only a trial that met every outcome constraint (issue 10)
	   AND tuner._trial_meets_constraints(t.id) IS NOT FALSE
	 ORDER BY CASE s.direction WHEN 'minimize' THEN ob.value ELSE -ob.value END,
			  t.number
	 LIMIT 1;
END;
$$;

-- A measurement noise standard deviation, in objective units.
CREATE FUNCTION tuner._check_noise_sd(value jsonb, what text)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF pg_catalog.jsonb_typeof(value) <> 'number' OR (value #>> '{}')::float8 <= 0 THEN
		RAISE EXCEPTION '% must be a positive number', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'It is the standard deviation of one measurement of the objective, in its own units.';
	END IF;
	RETURN (value #>> '{}')::float8;
END;
$$;

-- The configuration to keep: among the tried ones, the one a GP fitted
-- to every complete trial predicts best.  With noisy trials the best
-- single observation (tuner.best) is biased upwards, the winner's curse;
-- the posterior mean pools each trial with its neighbours.  But with few
-- trials in many dimensions the likelihood can explain any data without
-- noise (the fit interpolates and the mean is the observation), so a known
-- measurement noise (noise_sd, or the study's setting of that name) is a
-- floor on the fitted noise.  Below three complete trials there is no
-- model to ask: the best trial, predicted NULL.
CREATE FUNCTION tuner.recommend(study text, noise_sd float8 DEFAULT NULL)
RETURNS TABLE (trial bigint, value float8, predicted float8,
			   predicted_sd float8, params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	sp record;
	v_ids bigint[];
	v_x float8[];
	v_y float8[];
	v_model jsonb;
	v_noise_sd float8 := $2;
	v_options jsonb;
	v_spread float8;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._require_one_objective(s, 'tuner.recommend');
	IF v_noise_sd IS NOT NULL THEN
		PERFORM tuner._check_noise_sd(pg_catalog.to_jsonb(v_noise_sd), 'noise_sd');
	ELSIF s.settings ? 'noise_sd' THEN
		v_noise_sd := (s.settings ->> 'noise_sd')::float8;
	END IF;
	sp := tuner._space(s.id);
	WITH p AS (
		SELECT position, name, kind, choices
		  FROM tuner.parameter WHERE study_id = s.id AND enabled
	), native AS (
		SELECT t.id, t.number, ob.value,
			   pg_catalog.array_agg(CASE p.kind
					WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
					WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
					ELSE (t.config -> p.name)::float8 END ORDER BY p.position) AS x
		  FROM tuner.trial t
		  JOIN tuner.observation ob ON ob.trial_id = t.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 CROSS JOIN p
		 WHERE t.study_id = s.id AND t.state = 'complete'
		 GROUP BY t.id, t.number, ob.value
	)
	SELECT pg_catalog.array_agg(n.id ORDER BY n.number),
		   pg_catalog.array_agg(n.x ORDER BY n.number),
		   pg_catalog.array_agg(n.value ORDER BY n.number)
	  INTO v_ids, v_x, v_y
	  FROM native n;

	IF COALESCE(pg_catalog.cardinality(v_ids), 0) < 3 THEN
		RETURN QUERY
		SELECT b.trial, b.value, NULL::float8, NULL::float8, b.params
		  FROM tuner.best(s.name) b;
		RETURN;
	END IF;

	v_x := tuner._unit_points(sp.kinds, sp.lows, sp.highs, sp.log_scales,
							  sp.n_choices, v_x);
	v_options := pg_catalog.jsonb_build_object('seed', s.seed);
	-- The fit standardises y: the floor is the noise variance in units of
	-- y's variance, below the fit's upper bound of 2.
	SELECT pg_catalog.stddev_samp(u) INTO v_spread FROM pg_catalog.unnest(v_y) u;
	IF v_noise_sd IS NOT NULL AND v_spread > 0 THEN
		v_options := v_options || pg_catalog.jsonb_build_object('min_noise',
			LEAST(1.9, (v_noise_sd / v_spread) ^ 2));
	END IF;
	v_model := tuner.gp_fit(v_x, v_y, v_options);
	RETURN QUERY
	SELECT t.id, o.value, g.mean, g.sd, t.config
	  FROM tuner.gp_predict(v_model, v_x) WITH ORDINALITY AS g(mean, sd, k)
	  JOIN unnest(v_ids, v_y) WITH ORDINALITY AS o(id, value, k) ON o.k = g.k
	  JOIN tuner.trial t ON t.id = o.id
	 ORDER BY CASE s.direction WHEN 'minimize' THEN g.mean ELSE -g.mean END,
			  t.number
	 LIMIT 1;
END;
$$;

-------------------------------------------------------------------------------
-- Lasso: low-level fits and parameter ranking (src/core/lasso.h)
--
-- scikit-learn's conventions: minimise (1/2n) ||y - X b - b0||^2 +
-- lambda ||b||_1 with a fitted intercept, no feature scaling unless
-- {"standardize": true} (columns divided by their population sd, over all
-- rows, before any fold is cut), warm starts along the grid (lasso_cv),
-- stopping by the duality gap (tol relative to ||y - mean||^2, at most
-- max_iter sweeps per lambda), contiguous unshuffled folds.  Two solvers
-- (option "solver"): "sklearn" (the default: scikit-learn's coordinate
-- descent step for step, tol 1e-4; tuner.lasso agrees with
-- Lasso(alpha=lambda) and tuner.lasso_cv with LassoCV(cv=folds)) and
-- "fast" (a working-set homotopy with strong-rule screening, tol 1e-12:
-- the exact optimum, which scikit-learn reaches only with a tight tol; its
-- lambda is that of an exact LassoCV, which on a flat CV curve can differ
-- from LassoCV's at tol 1e-4) (tests/reference/lasso_sklearn.py).
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._lasso(x float8[], y float8[], lambda float8,
							 standardize bool, tol float8, max_iter int,
							 solver text,
							 OUT intercept float8, OUT coefficients float8[],
							 OUT n_iter int, OUT converged bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_lasso_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._lasso_cv(x float8[], y float8[], standardize bool,
								tol float8, max_iter int, n_lambdas int,
								eps float8, folds int, grid float8[],
								solver text,
								OUT lambda float8, OUT lambda_1se float8,
								OUT intercept float8,
								OUT coefficients float8[],
								OUT lambdas float8[], OUT cv_mean float8[],
								OUT cv_std float8[], OUT entered_at int[],
								OUT standardized_coefficients float8[],
								OUT scale float8[], OUT best int,
								OUT best_1se int, OUT path_nonzero int[],
								OUT n_iter int, OUT converged bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_lasso_cv_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The options of the Lasso functions, checked: known keys (allowed), types
-- and ranges; absent options are NULL (the defaults of src/core).  fn names
-- the function in errors.
CREATE FUNCTION tuner._lasso_options(options jsonb, fn text, allowed text[],
									 OUT standardize bool, OUT tol float8,
									 OUT max_iter int, OUT n_lambdas int,
									 OUT eps float8, OUT folds int,
									 OUT lambdas float8[], OUT rule text,
									 OUT solver text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	v jsonb;
BEGIN
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options)),
				  HINT = pg_catalog.format('Known options of %s: %s.', fn,
										   pg_catalog.array_to_string(allowed, ', '));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF NOT k = ANY (allowed) THEN
			RAISE EXCEPTION 'unknown % option "%"', fn, k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Known options: %s.',
											   pg_catalog.array_to_string(allowed, ', '));
		END IF;
	END LOOP;
	IF options ? 'standardize' THEN
		IF pg_catalog.jsonb_typeof(options -> 'standardize') <> 'boolean' THEN
			RAISE EXCEPTION '% option standardize must be a boolean', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'standardize');
		END IF;
		standardize := (options ->> 'standardize')::bool;
	END IF;
	FOREACH k IN ARRAY ARRAY['tol', 'eps']
	LOOP
		IF options ? k THEN
			v := options -> k;
			IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
				RAISE EXCEPTION '% option % must be a number', fn, k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
			IF (k = 'tol' AND v::numeric < 0) OR (k = 'eps' AND (v::numeric <= 0 OR v::numeric > 1)) THEN
				RAISE EXCEPTION '% option % is out of range', fn, k
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v),
						  HINT = CASE k WHEN 'tol' THEN 'tol must not be negative (default 1e-4).'
								 ELSE 'eps is lambda_min / lambda_max of the default grid: greater than 0, at most 1 (default 1e-3).' END;
			END IF;
		END IF;
	END LOOP;
	tol := (options -> 'tol')::float8;
	eps := (options -> 'eps')::float8;
	IF options ? 'max_iter' THEN
		max_iter := tuner._json_int(options -> 'max_iter', fn || ' option max_iter', 1, 100000000);
	END IF;
	IF options ? 'n_lambdas' THEN
		n_lambdas := tuner._json_int(options -> 'n_lambdas', fn || ' option n_lambdas', 1, 100000);
	END IF;
	IF options ? 'folds' THEN
		folds := tuner._json_int(options -> 'folds', fn || ' option folds', 2, 1000000);
	END IF;
	IF options ? 'lambdas' THEN
		lambdas := tuner._jsonb_vector(options -> 'lambdas', fn || ' option lambdas');
		IF EXISTS (SELECT 1 FROM pg_catalog.unnest(lambdas) l WHERE l < 0) THEN
			RAISE EXCEPTION '% option lambdas must not contain negative values', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'lambdas');
		END IF;
	END IF;
	IF options ? 'rule' THEN
		IF options -> 'rule' NOT IN ('"min"', '"1se"') THEN
			RAISE EXCEPTION '% option rule must be "min" or "1se"', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'rule'),
					  HINT = '"min" ranks at the lambda of least CV error, "1se" at the largest lambda within one standard error of it.';
		END IF;
		rule := options ->> 'rule';
	END IF;
	IF options ? 'solver' THEN
		IF options -> 'solver' NOT IN ('"fast"', '"sklearn"') THEN
			RAISE EXCEPTION '% option solver must be "fast" or "sklearn"', fn
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'solver'),
					  HINT = '"fast" converges to the exact optimum, "sklearn" reproduces scikit-learn''s coordinate descent step for step.';
		END IF;
		solver := options ->> 'solver';
	END IF;
END;
$$;

-- One Lasso fit of y (n) on the rows of x (n x p) at lambda.  Returns
-- {"intercept", "coefficients" (in the units of x, also with
-- standardize), "n_iter" (sweeps, and homotopy steps with the fast
-- solver), "converged"}.  Options: solver, standardize, tol, max_iter.
CREATE FUNCTION tuner.lasso(x float8[], y float8[], lambda float8,
							options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	o record;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	PERFORM tuner._not_null(lambda, 'lambda');
	o := tuner._lasso_options(options, 'lasso', ARRAY['solver', 'standardize', 'tol', 'max_iter']);
	r := tuner._lasso(x, y, lambda, o.standardize, o.tol, o.max_iter, o.solver);
	RETURN pg_catalog.jsonb_build_object(
		'intercept', r.intercept,
		'coefficients', pg_catalog.to_jsonb(r.coefficients),
		'n_iter', r.n_iter,
		'converged', r.converged);
END;
$$;

-- k-fold cross-validated Lasso over a grid of lambdas (descending).
-- Returns {"lambda" (least mean CV error; the first, i.e. largest, on a
-- tie), "lambda_1se" (the largest lambda whose mean is within cv_std/sqrt(folds)
-- of that minimum), "intercept" and "coefficients" (the fit on every row at
-- lambda: refit from zero with "sklearn", the full-data path's fit with
-- "fast"), "lambdas", "cv_mean" and "cv_std" (mean and sd,
-- ddof 1, of the folds' test MSE per lambda), "entered_at" (per column,
-- the 1-based position in lambdas where its coefficient first becomes
-- non-zero on the warm-started path over all rows, null if never),
-- "standardized_coefficients" (coefficients times the column's population
-- sd), "path_nonzero", "n_iter", "converged"}.  Options: solver ("sklearn"),
-- standardize, tol, max_iter, folds (5), n_lambdas (100), eps (1e-3),
-- lambdas (an explicit grid, which replaces n_lambdas and eps).
CREATE FUNCTION tuner.lasso_cv(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	o record;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	o := tuner._lasso_options(options, 'lasso_cv',
							  ARRAY['solver', 'standardize', 'tol', 'max_iter',
									'folds', 'n_lambdas', 'eps', 'lambdas']);
	r := tuner._lasso_cv(x, y, o.standardize, o.tol, o.max_iter, o.n_lambdas,
						 o.eps, o.folds, o.lambdas, o.solver);
	RETURN pg_catalog.jsonb_build_object(
		'lambda', r.lambda,
		'lambda_1se', r.lambda_1se,
		'intercept', r.intercept,
		'coefficients', pg_catalog.to_jsonb(r.coefficients),
		'lambdas', pg_catalog.to_jsonb(r.lambdas),
		'cv_mean', pg_catalog.to_jsonb(r.cv_mean),
		'cv_std', pg_catalog.to_jsonb(r.cv_std),
		'entered_at', (SELECT pg_catalog.jsonb_agg(NULLIF(e, 0) ORDER BY i)
						 FROM pg_catalog.unnest(r.entered_at) WITH ORDINALITY AS u(e, i)),
		'standardized_coefficients', pg_catalog.to_jsonb(r.standardized_coefficients),
		'path_nonzero', pg_catalog.to_jsonb(r.path_nonzero),
		'n_iter', r.n_iter,
		'converged', r.converged);
END;
$$;

-- Rank a study's parameters by their effect on the objective (Sapphire):
-- a cross-validated Lasso over its complete trials.  Features:
--   * int/float parameters: log-scale ones by ln(value); others by
--     log1p(value - least(low, 0)), i.e. log1p of the value, shifted by
--     the low bound when that bound is negative so the argument stays >= 0;
--   * bool parameters: one 0/1 column;
--   * categorical parameters: one 0/1 column per choice (one-hot);
-- a value missing from a trial's config takes the parameter's default
-- (else the low bound, false or the first choice).  The objective y is
-- log1p(value - least(min value, 0)), negated when the study minimises, so
-- a positive coefficient means larger values improve the objective.
-- Columns are standardized (lasso_cv "standardize"); a constant column is
-- left out of the fit and its parameter gets importance 0 (no variance,
-- no evidence).  importance = |standardized coefficient|, summed over the
-- levels of a categorical; coefficient is the standardized coefficient
-- (NULL for a categorical of several levels); entered_at is the 1-based
-- position on the lambda path where the parameter's first column entered
-- (NULL if never); rank orders by importance, then by entered_at (earlier
-- first), then by position.  Options: folds (5), n_lambdas, eps, tol,
-- max_iter, lambdas, rule ("min" or "1se": which lambda to rank at),
-- solver (as tuner.lasso_cv).
CREATE FUNCTION tuner.lasso_rank(study text, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, coefficient float8, importance float8,
			   rank int, entered_at int)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	o record;
	p record;
	t record;
	n int;
	folds int;
	cols int := 0;
	ymin float8;
	ys float8[];
	xrows float8[][];
	colp int[] := '{}';			-- parameter position of each column
	xmat float8[];
	val text;
	num float8;
	rowv float8[];
	kept int[] := '{}';			-- columns with variance
	r record;
	std_coef float8[];
	entered int[];
	fit jsonb;
BEGIN
	s := tuner._find_study($1);
	o := tuner._lasso_options($2, 'lasso_rank',
							  ARRAY['folds', 'n_lambdas', 'eps', 'tol',
									'max_iter', 'lambdas', 'rule', 'solver']);
	folds := COALESCE(o.folds, 5);
	SELECT pg_catalog.count(*) INTO n
	  FROM tuner.trial tr
	  JOIN tuner.observation ob ON ob.trial_id = tr.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE tr.study_id = s.id AND tr.state = 'complete';
	IF n < folds THEN
		RAISE EXCEPTION 'study "%" has % complete trials, too few to rank its parameters with %-fold cross-validation',
						s.name, n, folds
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = pg_catalog.format('Complete at least %s trials (random ones are best for ranking), or lower the option folds (at least 2).', folds);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;

	-- the objective
	SELECT LEAST(pg_catalog.min(ob.value), 0) INTO ymin
	  FROM tuner.trial tr
	  JOIN tuner.observation ob ON ob.trial_id = tr.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE tr.study_id = s.id AND tr.state = 'complete';

	-- one row of features per trial, in trial order
	FOR t IN
		SELECT tr.config, ob.value
		  FROM tuner.trial tr
		  JOIN tuner.observation ob ON ob.trial_id = tr.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE tr.study_id = s.id AND tr.state = 'complete'
		 ORDER BY tr.number
	LOOP
		rowv := '{}';
		FOR p IN SELECT * FROM tuner.parameter WHERE study_id = s.id ORDER BY position
		LOOP
			val := COALESCE(t.config ->> p.name, p.default_value #>> '{}');
			IF p.kind IN ('int', 'float') THEN
				num := COALESCE(val::float8, p.low);
				IF p.log_scale THEN
					rowv := rowv || pg_catalog.ln(GREATEST(num, p.low));
				ELSE
					rowv := rowv || pg_catalog.ln(1 + GREATEST(num - LEAST(p.low, 0), 0));
				END IF;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSIF p.kind = 'bool' THEN
				rowv := rowv || CASE WHEN COALESCE(val::bool, false) THEN 1 ELSE 0 END::float8;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSE
				rowv := rowv || ARRAY(SELECT CASE WHEN c = COALESCE(val, p.choices[1]) THEN 1 ELSE 0 END::float8
										FROM pg_catalog.unnest(p.choices) WITH ORDINALITY AS u(c, i) ORDER BY i);
				IF ys IS NULL THEN
					colp := colp || ARRAY(SELECT p.position FROM pg_catalog.generate_series(1, pg_catalog.cardinality(p.choices)));
				END IF;
			END IF;
		END LOOP;
		xrows := xrows || ARRAY[rowv];
		ys := COALESCE(ys, '{}') || (CASE s.direction WHEN 'minimize' THEN -1 ELSE 1 END
									 * pg_catalog.ln(1 + t.value - ymin));
	END LOOP;
	cols := pg_catalog.cardinality(colp);

	IF (SELECT pg_catalog.count(DISTINCT v) FROM pg_catalog.unnest(ys) v) < 2 THEN
		RAISE EXCEPTION 'the objective of study "%" has the same value in every complete trial', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Nothing can be ranked without variation in the objective.';
	END IF;

	-- columns that vary
	SELECT pg_catalog.array_agg(c ORDER BY c) INTO kept
	  FROM pg_catalog.generate_series(1, cols) c
	 WHERE (SELECT pg_catalog.count(DISTINCT xrows[i][c])
			  FROM pg_catalog.generate_series(1, n) i) > 1;

	IF kept IS NOT NULL THEN
		xmat := ARRAY(SELECT ARRAY(SELECT xrows[i][c] FROM pg_catalog.unnest(kept) WITH ORDINALITY AS k(c, j) ORDER BY j)
						FROM pg_catalog.generate_series(1, n) i ORDER BY i);
		r := tuner._lasso_cv(xmat, ys, true, o.tol, o.max_iter, o.n_lambdas,
							 o.eps, folds, o.lambdas, o.solver);
		std_coef := r.standardized_coefficients;
		entered := r.entered_at;
		IF o.rule = '1se' AND r.lambda_1se <> r.lambda THEN
			fit := pg_catalog.to_jsonb(tuner._lasso(xmat, ys, r.lambda_1se, true, o.tol, o.max_iter, o.solver));
			std_coef := ARRAY(SELECT (fit -> 'coefficients' ->> (u.i - 1)::int)::float8 * u.sd
								FROM pg_catalog.unnest(r.scale) WITH ORDINALITY AS u(sd, i) ORDER BY u.i);
		END IF;
	END IF;

	RETURN QUERY
	WITH col AS (
		SELECT colp[k.c] AS position, std_coef[k.j] AS b, NULLIF(entered[k.j], 0) AS e
		  FROM pg_catalog.unnest(kept) WITH ORDINALITY AS k(c, j)
	), agg AS (
		SELECT pr.name, pr.position, pr.kind, pr.choices,
			   pg_catalog.sum(pg_catalog.abs(col.b)) AS imp,
			   pg_catalog.min(col.e) AS e,
			   pg_catalog.sum(col.b) AS b,
			   pg_catalog.count(col.b) AS ncols
		  FROM tuner.parameter pr
		  LEFT JOIN col ON col.position = pr.position
		 WHERE pr.study_id = s.id
		 GROUP BY pr.name, pr.position, pr.kind, pr.choices
	)
	SELECT agg.name,
		   CASE WHEN agg.kind = 'categorical' AND pg_catalog.cardinality(agg.choices) > 1 THEN NULL
				ELSE COALESCE(agg.b, 0) END::float8,
		   COALESCE(agg.imp, 0)::float8,
		   (pg_catalog.row_number() OVER (ORDER BY COALESCE(agg.imp, 0) DESC,
										  agg.e ASC NULLS LAST, agg.position))::int,
		   agg.e::int
	  FROM agg
	 ORDER BY 4;
END;
$$;

-------------------------------------------------------------------------------
-- Low-level Gaussian process
-------------------------------------------------------------------------------

-- Fit a Matern-5/2 GP to rows of x (n x d) and y (n); returns the model
-- jsonb in the caller's coordinates.
CREATE FUNCTION tuner.gp_fit(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	r record;
BEGIN
	PERFORM tuner._not_null(x, 'x');
	PERFORM tuner._not_null(y, 'y');
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF k NOT IN ('restarts', 'max_evals', 'seed', 'use_priors', 'min_noise') THEN
			RAISE EXCEPTION 'unknown gp_fit option "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: restarts, max_evals, seed, use_priors, min_noise.';
		END IF;
	END LOOP;
	IF options ? 'use_priors' AND pg_catalog.jsonb_typeof(options -> 'use_priors') <> 'boolean' THEN
		RAISE EXCEPTION 'gp_fit option use_priors must be a boolean'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF options ? 'min_noise' AND pg_catalog.jsonb_typeof(options -> 'min_noise') <> 'number' THEN
		RAISE EXCEPTION 'gp_fit option min_noise must be a number'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	r := tuner._gp_fit(x, y,
		CASE WHEN options ? 'restarts' THEN tuner._json_int(options -> 'restarts', 'gp_fit option restarts', 1, 1000)::int END,
		CASE WHEN options ? 'max_evals' THEN tuner._json_int(options -> 'max_evals', 'gp_fit option max_evals', 1, 1000000)::int END,
		CASE WHEN options ? 'seed' THEN tuner._json_int(options -> 'seed', 'gp_fit option seed',
														-9223372036854775808, 9223372036854775807) END,
		(options ->> 'use_priors')::bool,
		(options -> 'min_noise')::float8);

	RETURN pg_catalog.jsonb_build_object(
		'kernel', 'matern52',
		'lengthscales', pg_catalog.to_jsonb(r.lengthscales),
		'outputscale', r.outputscale,
		'noise', r.noise,
		'mean', r.mean,
		'x', pg_catalog.to_jsonb(x),
		'y', pg_catalog.to_jsonb(y),
		'log_likelihood', r.log_likelihood);
END;
$$;

-- Posterior mean and standard deviation of the latent function at each
-- row of x (m x d), in order.
CREATE FUNCTION tuner.gp_predict(model jsonb, x float8[])
RETURNS TABLE (mean float8, sd float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
	m record;
	p record;
BEGIN
	m := tuner._model_arrays($1);
	PERFORM tuner._not_null($2, 'x');
	p := tuner._gp_predict(m.x, m.y, m.lengthscales, m.outputscale, m.noise,
						   m.mean, $2);
	RETURN QUERY
	SELECT u.mean, u.sd
	  FROM unnest(p.mean, p.sd) WITH ORDINALITY AS u(mean, sd, i)
	 ORDER BY u.i;
END;
$$;

-- Log marginal likelihood of the model's y under its hyperparameters.
CREATE FUNCTION tuner.gp_log_likelihood(model jsonb)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	m record;
BEGIN
	m := tuner._model_arrays($1);
	RETURN tuner._gp_log_likelihood(m.x, m.y, m.lengthscales, m.outputscale,
									m.noise, m.mean);
END;
$$;

-------------------------------------------------------------------------------
-- Low-level multi-task Gaussian process (ICM)
--
-- k((x, i), (x', j)) = k52(x, x') B[i, j] with B = W W^T + diag(v), a noise
-- variance and a constant mean per task (src/core/icm.h).  y is n x T with
-- NULL where a task was not observed.  The model jsonb is in the caller's
-- units, like gp_fit's (README.md, "Low-level multi-task GP").
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._icm_fit(x float8[], y float8[], rank int, restarts int,
							   max_evals int, seed bigint, use_priors bool,
							   min_noise float8, force_full bool,
							   OUT lengthscales float8[], OUT w float8[],
							   OUT v float8[], OUT noise float8[],
							   OUT mean float8[], OUT task_covariance float8[],
							   OUT task_correlation float8[],
							   OUT log_likelihood float8, OUT kronecker bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_icm_fit_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._icm_predict(train_x float8[], train_y float8[],
								   lengthscales float8[], w float8[],
								   v float8[], noise float8[], mean float8[],
								   force_full bool, x float8[], task int,
								   OUT mean float8[], OUT sd float8[],
								   OUT kronecker bool)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_icm_predict_arrays'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The arrays and hyperparameters of an ICM model jsonb, with its errors.
-- Shapes and values are checked by tuner._icm_predict.
CREATE FUNCTION tuner._icm_model_arrays(model jsonb,
										OUT x float8[], OUT y float8[],
										OUT lengthscales float8[],
										OUT w float8[], OUT v float8[],
										OUT noise float8[], OUT mean float8[],
										OUT force_full bool)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
BEGIN
	PERFORM tuner._check_model_object(model, 'tuner.icm_fit()');
	IF model ? 'model' AND model -> 'model' IS DISTINCT FROM '"icm"'::jsonb THEN
		RAISE EXCEPTION 'model % is not a multi-task (ICM) model', model -> 'model'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'tuner.icm_predict() takes the model of tuner.icm_fit(), whose "model" key is "icm".';
	END IF;
	FOREACH k IN ARRAY ARRAY['x', 'y', 'lengthscales', 'W', 'v', 'noise', 'mean']
	LOOP
		IF NOT model ? k THEN
			RAISE EXCEPTION 'model is missing key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'An ICM model has the keys "x", "y", "lengthscales", "W", "v", "noise" and "mean"; see README.md.';
		END IF;
	END LOOP;
	IF model ? 'force_full' AND pg_catalog.jsonb_typeof(model -> 'force_full') <> 'boolean' THEN
		RAISE EXCEPTION 'model key "force_full" must be a boolean'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(model -> 'force_full'));
	END IF;
	force_full := coalesce((model ->> 'force_full')::bool, false);
	x := tuner._jsonb_matrix(model -> 'x', 'x');
	y := tuner._jsonb_matrix(model -> 'y', 'y', allow_null => true);
	lengthscales := tuner._jsonb_vector(model -> 'lengthscales', 'lengthscales');
	IF pg_catalog.jsonb_typeof(model -> 'W') = 'array'
	   AND pg_catalog.jsonb_array_length(model -> 'W') > 0
	   AND pg_catalog.jsonb_typeof(model -> 'W' -> 0) <> 'array' THEN
		RAISE EXCEPTION 'W must be a JSON array of rows (two-dimensional)'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Element 1 is a JSON %s, not an array.',
											 pg_catalog.jsonb_typeof(model -> 'W' -> 0)),
				  HINT = 'W has one row per task and rank columns, for example [[1.0], [0.8]] for two tasks and rank 1.';
	END IF;
	w := tuner._jsonb_matrix(model -> 'W', 'W');
	v := tuner._jsonb_vector(model -> 'v', 'v');
	noise := tuner._jsonb_vector(model -> 'noise', 'noise');
	mean := tuner._jsonb_vector(model -> 'mean', 'mean');
	IF model ? 'rank'
	   AND model -> 'rank' IS DISTINCT FROM pg_catalog.to_jsonb(pg_catalog.array_length(w, 2)) THEN
		RAISE EXCEPTION 'model key "rank" does not match W'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('rank is %s but W has %s columns.',
											 model -> 'rank', pg_catalog.array_length(w, 2)),
				  HINT = 'rank is the number of columns of W; change both or drop "rank".';
	END IF;
END;
$$;

-- Fit an ICM multi-task GP to rows of x (n x d) and y (n x T, NULL where a
-- task was not observed); returns the model jsonb in the caller's units.
CREATE FUNCTION tuner.icm_fit(x float8[], y float8[], options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	k text;
	r record;
BEGIN
	IF x IS NULL THEN
		RAISE EXCEPTION 'x must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the inputs as a 2-D float8[] with one row per point.';
	END IF;
	IF y IS NULL THEN
		RAISE EXCEPTION 'y must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the observations as a 2-D float8[] with one row per point and one column per task.';
	END IF;
	IF options IS NULL THEN
		RAISE EXCEPTION 'options must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass ''{}'' for the defaults.';
	END IF;
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(options)),
				  HINT = 'Pass ''{}'' for the defaults.';
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF k NOT IN ('rank', 'restarts', 'max_evals', 'seed', 'use_priors',
					 'min_noise', 'force_full') THEN
			RAISE EXCEPTION 'unknown icm_fit option "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known options: rank, restarts, max_evals, seed, use_priors, min_noise, force_full.';
		END IF;
	END LOOP;
	FOREACH k IN ARRAY ARRAY['use_priors', 'force_full']
	LOOP
		IF options ? k AND pg_catalog.jsonb_typeof(options -> k) <> 'boolean' THEN
			RAISE EXCEPTION 'icm_fit option % must be a boolean', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> k),
					  HINT = 'Write true or false without quotes.';
		END IF;
	END LOOP;
	IF options ? 'min_noise' AND pg_catalog.jsonb_typeof(options -> 'min_noise') <> 'number' THEN
		RAISE EXCEPTION 'icm_fit option min_noise must be a number'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options -> 'min_noise'),
				  HINT = 'min_noise is a variance in standardised units, for example 1e-6.';
	END IF;

	r := tuner._icm_fit(x, y,
		CASE WHEN options ? 'rank' THEN tuner._json_int(options -> 'rank', 'icm_fit option rank', 1, 1000)::int END,
		CASE WHEN options ? 'restarts' THEN tuner._json_int(options -> 'restarts', 'icm_fit option restarts', 1, 1000)::int END,
		CASE WHEN options ? 'max_evals' THEN tuner._json_int(options -> 'max_evals', 'icm_fit option max_evals', 1, 1000000)::int END,
		CASE WHEN options ? 'seed' THEN tuner._json_int(options -> 'seed', 'icm_fit option seed',
														-9223372036854775808, 9223372036854775807) END,
		(options ->> 'use_priors')::bool,
		(options -> 'min_noise')::float8,
		(options ->> 'force_full')::bool);

	RETURN pg_catalog.jsonb_build_object(
		'kernel', 'matern52',
		'model', 'icm',
		'x', pg_catalog.to_jsonb(x),
		'y', pg_catalog.to_jsonb(y),
		'rank', pg_catalog.array_length(r.w, 2),
		'lengthscales', pg_catalog.to_jsonb(r.lengthscales),
		'W', pg_catalog.to_jsonb(r.w),
		'v', pg_catalog.to_jsonb(r.v),
		'noise', pg_catalog.to_jsonb(r.noise),
		'mean', pg_catalog.to_jsonb(r.mean),
		'task_covariance', pg_catalog.to_jsonb(r.task_covariance),
		'task_correlation', pg_catalog.to_jsonb(r.task_correlation),
		'log_likelihood', r.log_likelihood,
		'kronecker', r.kronecker,
		'force_full', coalesce((options ->> 'force_full')::bool, false));
END;
$$;

-- Posterior mean and standard deviation of the latent function of task
-- (1-based: a column of the model's y) at each row of x (m x d), in order.
CREATE FUNCTION tuner.icm_predict(model jsonb, x float8[], task int)
RETURNS TABLE (mean float8, sd float8)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
#variable_conflict use_column
DECLARE
	m record;
	p record;
BEGIN
	m := tuner._icm_model_arrays($1);
	IF $2 IS NULL THEN
		RAISE EXCEPTION 'x must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Pass the query points as a 2-D float8[] with one row per point.';
	END IF;
	IF $3 IS NULL THEN
		RAISE EXCEPTION 'task must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Tasks are numbered from 1 to the number of columns of the model''s y.';
	END IF;
	p := tuner._icm_predict(m.x, m.y, m.lengthscales, m.w, m.v, m.noise,
							m.mean, m.force_full, $2, $3);
	RETURN QUERY
	SELECT u.mean, u.sd
	  FROM unnest(p.mean, p.sd) WITH ORDINALITY AS u(mean, sd, i)
	 ORDER BY u.i;
END;
$$;

-------------------------------------------------------------------------------
-- Catalog import: washing and pruning a system's option catalog (Sapphire)
--
-- tuner.import_catalog turns a catalog of options in the JSON form Ceph
-- prints (`ceph config help NAME -f json`, or the admin socket's full
-- dump) into a study's search space.  What it needs to know about the
-- system is data, in three seeded tables: how each option type maps to a
-- parameter kind, which option names and tags are not tunable, and which
-- prefixes a module selector prunes.  What it drops, and why, lands in
-- tuner.catalog_drop; what it keeps gets a tuner.parameter_source row
-- (source bounds, which bounds are soft, whether a change needs a
-- restart) next to its tuner.parameter row.  README.md, "Importing a
-- catalog", gives the rules.
-------------------------------------------------------------------------------

CREATE TABLE tuner.catalog_type (
	system		text NOT NULL CHECK (system <> ''),
	type		text NOT NULL CHECK (type <> ''),
	kind		text CHECK (kind IN ('float', 'int', 'bool', 'categorical')),
	drop_reason	text CHECK (drop_reason <> ''),
	zero_default_high float8 CHECK (zero_default_high > 0),
	hard_low	float8,
	builtin		bool NOT NULL DEFAULT false,
	PRIMARY KEY (system, type),
	CHECK ((kind IS NULL) <> (drop_reason IS NULL)),
	CHECK (zero_default_high IS NULL OR kind IN ('float', 'int'))
);

COMMENT ON TABLE tuner.catalog_type IS
	'Catalog import: the parameter kind of each option type of a system (or why options of that type are dropped); zero_default_high is the soft upper bound of a numeric option whose default is 0, hard_low the lowest value the type allows';

CREATE TABLE tuner.catalog_wash_rule (
	id			serial PRIMARY KEY,
	system		text NOT NULL CHECK (system <> ''),
	field		text NOT NULL CHECK (field IN ('name', 'tag', 'choice')),
	pattern		text NOT NULL CHECK (pattern <> ''),
	free_strings_only bool NOT NULL DEFAULT false,
	reason		text NOT NULL CHECK (reason <> ''),
	builtin		bool NOT NULL DEFAULT false
);

COMMENT ON TABLE tuner.catalog_wash_rule IS
	'Catalog import: options that cannot be tuned.  A rule matches when its regular expression matches the option name (field name) or one of its tags (tag), on any option or, with free_strings_only, only on strings without enum_values (to say why such a string is dropped); field choice removes matching enum values from a categorical.  The first matching rule (by id) gives the reason';

CREATE TABLE tuner.catalog_module (
	system		text NOT NULL CHECK (system <> ''),
	selector	text NOT NULL CHECK (selector <> ''),
	value		text NOT NULL,
	prunes		text[] NOT NULL DEFAULT '{}',
	builtin		bool NOT NULL DEFAULT false,
	PRIMARY KEY (system, selector, value)
);

COMMENT ON TABLE tuner.catalog_module IS
	'Catalog import: module selectors.  Choosing value for the option selector (a key of import_catalog''s options) drops the options whose names start with one of prunes';

CREATE TABLE tuner.catalog_import (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	system		text NOT NULL,
	version		text,
	options		jsonb NOT NULL,
	total		int NOT NULL DEFAULT 0,
	kept		int NOT NULL DEFAULT 0,
	dropped		int NOT NULL DEFAULT 0,
	imported_at	timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.catalog_import IS
	'One row per tuner.import_catalog call: the study, the catalog''s system and version, the options used and the counts';

CREATE TABLE tuner.catalog_drop (
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	import_id	bigint NOT NULL REFERENCES tuner.catalog_import (id) ON DELETE CASCADE,
	name		text NOT NULL,
	reason		text NOT NULL,
	detail		text,
	source_type	text,
	level		text,
	PRIMARY KEY (study_id, name)
);

COMMENT ON TABLE tuner.catalog_drop IS
	'Catalog import: every option left out of a study''s space, with the reason';

CREATE TABLE tuner.parameter_source (
	parameter_id bigint PRIMARY KEY REFERENCES tuner.parameter (id) ON DELETE CASCADE,
	import_id	bigint NOT NULL REFERENCES tuner.catalog_import (id) ON DELETE CASCADE,
	source_type	text NOT NULL,
	level		text,
	source_default jsonb,
	source_min	numeric,
	source_max	numeric,
	hard_low	numeric,
	hard_high	numeric,
	soft_low	bool NOT NULL DEFAULT false,
	soft_high	bool NOT NULL DEFAULT false,
	bound_rule	text,
	needs_restart bool NOT NULL DEFAULT false,
	apply		text NOT NULL CHECK (apply IN ('runtime', 'restart', 'create')),
	flags		text[] NOT NULL DEFAULT '{}',
	services	text[] NOT NULL DEFAULT '{}',
	removed_choices text[],
	note		text,
	description	text
);

COMMENT ON TABLE tuner.parameter_source IS
	'Catalog import: where an imported parameter came from: the option''s type, level and raw bounds, hard limits, which of its bounds are soft (derived, not from the catalog) and how a change takes effect (runtime, restart of the daemon, or re-creation)';

CREATE INDEX ON tuner.catalog_drop (import_id);
CREATE INDEX ON tuner.parameter_source (import_id);

SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_type', 'WHERE NOT builtin');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_wash_rule', 'WHERE NOT builtin');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_wash_rule_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_module', 'WHERE NOT builtin');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_import', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_import_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.catalog_drop', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.parameter_source', '');

-- Ceph 16.2 option types (src/common/options.h: Option::type_t).
INSERT INTO tuner.catalog_type (system, type, kind, drop_reason, zero_default_high, hard_low, builtin) VALUES
	('ceph', 'bool', 'bool', NULL, NULL, NULL, true),
	('ceph', 'int', 'int', NULL, 100, NULL, true),
	('ceph', 'uint', 'int', NULL, 100, 0, true),
	('ceph', 'size', 'int', NULL, 1073741824, 0, true),
	('ceph', 'secs', 'int', NULL, 3600, 0, true),
	('ceph', 'millisecs', 'int', NULL, 10000, 0, true),
	('ceph', 'float', 'float', NULL, 1, NULL, true),
	('ceph', 'str', 'categorical', NULL, NULL, NULL, true),
	('ceph', 'addr', NULL, 'address', NULL, NULL, true),
	('ceph', 'addrvec', NULL, 'address', NULL, NULL, true),
	('ceph', 'uuid', NULL, 'uuid', NULL, NULL, true);

-- Ceph options that are not tuning knobs.  The free_strings_only rules
-- only give free strings a more telling reason than free_string: the
-- numbers and enums they would also match (mds_dir_max_commit_size,
-- rocksdb_bloom_bits_per_key, osd_mclock_profile, osd_pool_default_type)
-- are knobs and stay.
INSERT INTO tuner.catalog_wash_rule (system, field, pattern, free_strings_only, reason, builtin) VALUES
	('ceph', 'name', '(^|_)debug(_|$)', false, 'debug', true),
	('ceph', 'name', '(^|_)(inject|kill|die|abort|crash|fake)(_|$)', false, 'fault_injection', true),
	('ceph', 'tag', '^fault injection$', false, 'fault_injection', true),
	('ceph', 'name', '(^|_)(test|testing)(_|$)', false, 'testing', true),
	('ceph', 'tag', '^testing$', false, 'testing', true),
	('ceph', 'name', '^(log|clog|err_to|mon_cluster_log)_|(^|_)(syslog|graylog|journald|lttng|tracing)(_|$)|_to_(stderr|file)$', false, 'logging', true),
	('ceph', 'name', '(^|_)(port|ports)(_|$)', false, 'port', true),
	('ceph', 'name', '(^|_)(addr|addrs|ip|host|hostname|network|networks|iface|interface|nic)(_|$)', false, 'address', true),
	('ceph', 'name', '(^|_)(uuid|fsid)(_|$)', false, 'uuid', true),
	('ceph', 'name', '(^|_)(uid|gid)(_|$)', false, 'name', true),
	('ceph', 'name', '^(auth|cephx)_', false, 'security', true),
	('ceph', 'name', '(^|_)(path|paths|dir|dirs|file|files|filename|socket|pid|keyring|keyfile|mount|device|devices|dev)(_|$)', true, 'path', true),
	('ceph', 'name', '(^|_)(name|names|user|users|group|groups|owner|setuser|setgroup|tenant|realm|zone|zonegroup|pool|profile)(_|$)', true, 'name', true),
	('ceph', 'name', '(^|_)(key|keys|secret|secrets|password|passwd|token|cert|certs|credential|credentials)(_|$)', true, 'secret', true),
	('ceph', 'choice', '^debug_', false, 'debug', true);

-- Ceph module selectors (Sapphire's pruning): the option, the value the
-- study uses, and the prefixes of the options of the modules it leaves
-- unused.
INSERT INTO tuner.catalog_module (system, selector, value, prunes, builtin) VALUES
	('ceph', 'osd_objectstore', 'bluestore', '{filestore_,memstore_,kstore_,journal_}', true),
	('ceph', 'osd_objectstore', 'filestore', '{bluestore_,bluefs_,bdev_,memstore_,kstore_}', true),
	('ceph', 'osd_objectstore', 'memstore', '{filestore_,bluestore_,bluefs_,bdev_,kstore_,journal_}', true),
	('ceph', 'osd_objectstore', 'kstore', '{filestore_,bluestore_,bluefs_,bdev_,memstore_,journal_}', true),
	('ceph', 'ms_type', 'async+posix', '{ms_dpdk_,ms_async_rdma_}', true),
	('ceph', 'ms_type', 'async+dpdk', '{ms_async_rdma_}', true),
	('ceph', 'ms_type', 'async+rdma', '{ms_dpdk_}', true),
	('ceph', 'osd_op_queue', 'wpq', '{osd_mclock_}', true),
	('ceph', 'osd_op_queue', 'mclock_scheduler', '{}', true),
	('ceph', 'bluestore_compression_mode', 'none', '{bluestore_compression_}', true),
	('ceph', 'bluestore_compression_mode', 'passive', '{}', true),
	('ceph', 'bluestore_compression_mode', 'aggressive', '{}', true),
	('ceph', 'bluestore_compression_mode', 'force', '{}', true),
	('ceph', 'osd_pool_default_type', 'replicated', '{osd_pool_erasure_code_,osd_pool_default_erasure_code_,osd_erasure_code_}', true),
	('ceph', 'osd_pool_default_type', 'erasure', '{}', true);

CREATE VIEW tuner.catalog_kept AS
SELECT s.name AS study,
	   p.position,
	   p.name,
	   p.kind,
	   p.low,
	   p.high,
	   p.log_scale,
	   p.choices,
	   p.default_value,
	   ps.source_type,
	   ps.level,
	   ps.source_default,
	   ps.source_min,
	   ps.source_max,
	   ps.hard_low,
	   ps.hard_high,
	   ps.soft_low,
	   ps.soft_high,
	   ps.soft_low OR ps.soft_high AS soft_bound,
	   ps.bound_rule,
	   ps.needs_restart,
	   ps.apply,
	   ps.flags,
	   ps.services,
	   ps.removed_choices,
	   ps.note,
	   p.enabled,
	   ps.import_id
  FROM tuner.parameter_source ps
  JOIN tuner.parameter p ON p.id = ps.parameter_id
  JOIN tuner.study s ON s.id = p.study_id;

COMMENT ON VIEW tuner.catalog_kept IS
	'The parameters a catalog import kept: their space, the source bounds, which bounds are soft and whether a change needs a restart';

CREATE VIEW tuner.catalog_dropped AS
SELECT s.name AS study,
	   d.name,
	   d.reason,
	   d.detail,
	   d.source_type,
	   d.level,
	   d.import_id
  FROM tuner.catalog_drop d
  JOIN tuner.study s ON s.id = d.study_id;

COMMENT ON VIEW tuner.catalog_dropped IS
	'The options a catalog import dropped, and why';

-- A number in a catalog field (a JSON number or a numeric string), NULL
-- when the field is absent, null or empty.
CREATE FUNCTION tuner._catalog_number(value jsonb, option text, field text)
RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v numeric;
BEGIN
	IF value IS NULL OR pg_catalog.jsonb_typeof(value) = 'null'
	   OR value = '""'::jsonb THEN
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(value) NOT IN ('number', 'string') THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'Use a JSON number or a string holding one; "" or null means none.';
	END IF;
	BEGIN
		v := (value #>> '{}')::numeric;
	EXCEPTION WHEN invalid_text_representation THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'Use a JSON number or a string holding one; "" or null means none.';
	END;
	IF v = 'NaN'::numeric THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'NaN is not a bound or a default.';
	END IF;
	RETURN v;
END;
$$;

-- The strings of a JSON array field of an option ('{}' when absent).
CREATE FUNCTION tuner._catalog_strings(value jsonb, option text, field text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF value IS NULL OR pg_catalog.jsonb_typeof(value) = 'null' THEN
		RETURN '{}';
	END IF;
	IF pg_catalog.jsonb_typeof(value) <> 'array'
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(value) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION '% of option "%" is not an array of strings', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = pg_catalog.format('Write it as Ceph does, e.g. "%s": [], or leave it out.', field);
	END IF;
	RETURN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(value));
END;
$$;

-- The strings of an array-valued key of import_catalog's options, checked
-- against allowed (NULL: any string); NULL when the key is absent.
CREATE FUNCTION tuner._catalog_option_list(options jsonb, key text, allowed text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v jsonb := options -> key;
	bad text;
	r text[];
BEGIN
	IF v IS NULL THEN
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(v) <> 'array'
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(v) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION 'option "%" must be an array of strings', key
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', v),
				  HINT = pg_catalog.format('Write e.g. {"%s": ["%s"]}.', key,
										   CASE key WHEN 'services' THEN 'osd'
													WHEN 'levels' THEN 'advanced'
													WHEN 'apply' THEN 'runtime'
													ELSE '^osd_' END);
	END IF;
	r := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(v));
	IF allowed IS NOT NULL THEN
		SELECT x INTO bad FROM pg_catalog.unnest(r) x
		 WHERE x <> ALL (allowed) LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'invalid value "%" in option "%"', bad, key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use some of %s.', pg_catalog.array_to_string(allowed, ', '));
		END IF;
	ELSE
		-- patterns: each must be a valid regular expression
		FOREACH bad IN ARRAY r LOOP
			BEGIN
				PERFORM '' ~ bad;
			EXCEPTION WHEN invalid_regular_expression THEN
				RAISE EXCEPTION 'invalid regular expression "%" in option "%"', bad, key
					USING ERRCODE = 'invalid_regular_expression',
						  DETAIL = SQLERRM,
						  HINT = 'include and exclude take POSIX regular expressions matched against option names.';
			END;
		END LOOP;
	END IF;
	RETURN r;
END;
$$;

-- Import a catalog of options into a study's search space, washed and
-- pruned (README.md, "Importing a catalog").  catalog is a JSON array of
-- option objects in Ceph's schema, or an object with such an array under
-- "options" (the admin socket's dump, or tests/ceph/catalog-16.2.json).
-- Returns a summary: counts of options, kept and dropped ones by reason.
CREATE FUNCTION tuner.import_catalog(study text, catalog jsonb,
									 options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	s tuner.study;
	p_catalog jsonb := $2;
	p_options jsonb := $3;
	known_keys constant text[] := ARRAY['system', 'services', 'levels', 'apply',
										'include', 'exclude', 'invalid'];
	v_system text := 'ceph';
	v_services text[];
	v_levels text[];
	v_apply text[];
	v_include text[];
	v_exclude text[];
	v_invalid text := 'error';
	v_selectors jsonb := '{}';
	v_prunes jsonb := '[]';
	v_items jsonb;
	v_version text;
	v_import bigint;
	v_defaults jsonb;
	v_backrefs jsonb;
	v_types jsonb;
	v_key text;
	v_val jsonb;
	v_bad text;
	r record;
	o jsonb;
	t tuner.catalog_type;
	v_name text;
	v_type text;
	v_level text;
	v_flags text[];
	v_tags text[];
	v_opt_services text[];
	v_enum text[];
	v_choices text[];
	v_removed text[];
	v_reason text;
	v_detail text;
	v_runtime bool;
	v_apply_as text;
	v_default numeric;
	v_min numeric;
	v_max numeric;
	v_low numeric;
	v_high numeric;
	v_hard_low numeric;
	v_sibling numeric;
	v_rule text;
	v_log bool;
	v_soft bool;
	v_default_text text;
	v_note text;
	v_param bigint;
	v_total int := 0;
	v_kept int := 0;
	v_dropped int := 0;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_catalog, 'catalog');
	PERFORM tuner._not_null(p_options, 'options');

	-- The options.
	IF pg_catalog.jsonb_typeof(p_options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', p_options),
				  HINT = 'Write e.g. {"osd_objectstore": "bluestore", "services": ["osd"]}.';
	END IF;
	IF p_options ? 'system' THEN
		IF pg_catalog.jsonb_typeof(p_options -> 'system') <> 'string' THEN
			RAISE EXCEPTION 'option "system" must be a string'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Write e.g. {"system": "ceph"}.';
		END IF;
		v_system := p_options ->> 'system';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.catalog_type ct WHERE ct.system = v_system) THEN
		RAISE EXCEPTION 'unknown catalog system "%"', v_system
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Systems are defined by the rows of tuner.catalog_type; "ceph" is built in.';
	END IF;
	FOR v_key, v_val IN SELECT * FROM pg_catalog.jsonb_each(p_options) ORDER BY 1 LOOP
		CONTINUE WHEN v_key = ANY (known_keys);
		IF NOT EXISTS (SELECT 1 FROM tuner.catalog_module m
						WHERE m.system = v_system AND m.selector = v_key) THEN
			RAISE EXCEPTION 'unknown option "%"', v_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use %s, or a module selector of %s: %s.',
											   pg_catalog.array_to_string(known_keys, ', '), v_system,
											   (SELECT pg_catalog.string_agg(DISTINCT m.selector, ', ' ORDER BY m.selector)
												  FROM tuner.catalog_module m WHERE m.system = v_system));
		END IF;
		IF pg_catalog.jsonb_typeof(v_val) <> 'string'
		   OR NOT EXISTS (SELECT 1 FROM tuner.catalog_module m
						   WHERE m.system = v_system AND m.selector = v_key
							 AND m.value = v_val #>> '{}') THEN
			RAISE EXCEPTION 'unknown value % for module selector "%"', v_val, v_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use one of %s (tuner.catalog_module).',
											   (SELECT pg_catalog.string_agg(m.value, ', ' ORDER BY m.value)
												  FROM tuner.catalog_module m
												 WHERE m.system = v_system AND m.selector = v_key));
		END IF;
		v_selectors := v_selectors || pg_catalog.jsonb_build_object(v_key, v_val);
		v_prunes := v_prunes || (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
									 'prefix', x, 'detail', pg_catalog.format('%s = %s prunes %s*', v_key, v_val #>> '{}', x))
									 ORDER BY x), '[]')
								   FROM tuner.catalog_module m, pg_catalog.unnest(m.prunes) x
								  WHERE m.system = v_system AND m.selector = v_key
									AND m.value = v_val #>> '{}');
	END LOOP;
	v_services := tuner._catalog_option_list(p_options, 'services', NULL);
	v_levels := tuner._catalog_option_list(p_options, 'levels', ARRAY['basic', 'advanced', 'dev']);
	v_apply := tuner._catalog_option_list(p_options, 'apply', ARRAY['runtime', 'restart', 'create']);
	v_include := tuner._catalog_option_list(p_options, 'include', NULL);
	v_exclude := tuner._catalog_option_list(p_options, 'exclude', NULL);
	IF p_options ? 'invalid' THEN
		v_invalid := p_options ->> 'invalid';
		IF pg_catalog.jsonb_typeof(p_options -> 'invalid') <> 'string'
		   OR v_invalid NOT IN ('error', 'drop') THEN
			RAISE EXCEPTION 'option "invalid" must be "error" or "drop"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', p_options -> 'invalid'),
					  HINT = 'Invalid bounds are never clamped: "error" (the default) stops the import, "drop" records the option with the reason invalid_bounds.';
		END IF;
	END IF;

	-- The catalog: an array of options, or {"options": [...], ...}.
	v_items := p_catalog;
	IF pg_catalog.jsonb_typeof(p_catalog) = 'object' AND p_catalog ? 'options' THEN
		v_items := p_catalog -> 'options';
		IF pg_catalog.jsonb_typeof(p_catalog -> 'version') = 'string' THEN
			v_version := p_catalog ->> 'version';
		END IF;
	END IF;
	IF pg_catalog.jsonb_typeof(v_items) <> 'array' THEN
		RAISE EXCEPTION 'catalog must be a JSON array of options'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(v_items)),
				  HINT = 'Pass an array of option objects as printed by "ceph config help NAME -f json", or an object with such an array under "options".';
	END IF;
	FOR r IN SELECT e.value AS o, e.ordinality AS i
			   FROM pg_catalog.jsonb_array_elements(v_items) WITH ORDINALITY e LOOP
		IF pg_catalog.jsonb_typeof(r.o) <> 'object' THEN
			RAISE EXCEPTION 'element % of the catalog is not an object', r.i
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', pg_catalog.left(r.o::text, 100)),
					  HINT = 'Each element is one option, e.g. {"name": "osd_max_backfills", "type": "uint", "default": 1}.';
		END IF;
		IF pg_catalog.jsonb_typeof(r.o -> 'name') IS DISTINCT FROM 'string'
		   OR pg_catalog.btrim(r.o ->> 'name') = '' THEN
			RAISE EXCEPTION 'element % of the catalog has no name', r.i
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', pg_catalog.left(r.o::text, 100)),
					  HINT = 'Every option needs a non-empty string "name".';
		END IF;
		IF pg_catalog.jsonb_typeof(r.o -> 'type') IS DISTINCT FROM 'string'
		   OR NOT EXISTS (SELECT 1 FROM tuner.catalog_type ct
						   WHERE ct.system = v_system AND ct.type = r.o ->> 'type') THEN
			RAISE EXCEPTION 'option "%" has an unknown type %', r.o ->> 'name',
				COALESCE((r.o -> 'type')::text, 'NULL')
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('The types of %s are %s (tuner.catalog_type).', v_system,
											   (SELECT pg_catalog.string_agg(ct.type, ', ' ORDER BY ct.type)
												  FROM tuner.catalog_type ct WHERE ct.system = v_system));
		END IF;
	END LOOP;
	SELECT e ->> 'name' INTO v_bad FROM pg_catalog.jsonb_array_elements(v_items) e
	 GROUP BY e ->> 'name' HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'option "%" appears more than once in the catalog', v_bad
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Option names must be unique; remove the duplicate.';
	END IF;

	-- The study: no trials yet, and none of these names in its space.
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	IF EXISTS (SELECT 1 FROM tuner.trial WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'cannot import a catalog into study "%" because it has trials', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Import the catalog before the first tuner.suggest_next(), or create a new study.';
	END IF;
	SELECT p.name INTO v_bad
	  FROM tuner.parameter p
	  JOIN pg_catalog.jsonb_array_elements(v_items) e ON e ->> 'name' = p.name
	 WHERE p.study_id = s.id ORDER BY p.position LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" already exists in study "%"', v_bad, s.name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Leave it out of the catalog or with {"exclude": [...]}, or import into a new study.';
	END IF;

	-- Types, defaults and reverse see_also links, for zero defaults.
	SELECT COALESCE(pg_catalog.jsonb_object_agg(e ->> 'name', e -> 'type'), '{}'),
		   COALESCE(pg_catalog.jsonb_object_agg(e ->> 'name', e -> 'default')
					FILTER (WHERE pg_catalog.jsonb_typeof(e -> 'default') IN ('number', 'string')), '{}')
	  INTO v_types, v_defaults
	  FROM pg_catalog.jsonb_array_elements(v_items) e;
	SELECT COALESCE(pg_catalog.jsonb_object_agg(x.target, x.sources), '{}')
	  INTO v_backrefs
	  FROM (SELECT sa.target, pg_catalog.jsonb_agg(e ->> 'name') AS sources
			  FROM pg_catalog.jsonb_array_elements(v_items) e,
				   pg_catalog.jsonb_array_elements_text(
					   CASE pg_catalog.jsonb_typeof(e -> 'see_also') WHEN 'array'
					   THEN e -> 'see_also' ELSE '[]' END) sa(target)
			 GROUP BY sa.target) x;

	INSERT INTO tuner.catalog_import (study_id, system, version, options)
	VALUES (s.id, v_system, v_version, p_options)
	RETURNING id INTO v_import;

	FOR r IN SELECT e.value AS o, e.ordinality AS i
			   FROM pg_catalog.jsonb_array_elements(v_items) WITH ORDINALITY e
			  ORDER BY e.ordinality LOOP
		o := r.o;
		v_total := v_total + 1;
		v_name := o ->> 'name';
		v_type := o ->> 'type';
		SELECT * INTO t FROM tuner.catalog_type ct
		 WHERE ct.system = v_system AND ct.type = v_type;
		v_level := CASE WHEN pg_catalog.jsonb_typeof(o -> 'level') = 'string'
					   THEN o ->> 'level' END;
		v_flags := tuner._catalog_strings(o -> 'flags', v_name, 'flags');
		v_tags := tuner._catalog_strings(o -> 'tags', v_name, 'tags');
		v_opt_services := tuner._catalog_strings(o -> 'services', v_name, 'services');
		v_enum := tuner._catalog_strings(o -> 'enum_values', v_name, 'enum_values');
		v_reason := NULL;
		v_detail := NULL;
		v_note := NULL;
		v_removed := NULL;

		-- How a change takes effect: Ceph's Option::can_update_at_runtime
		-- when the catalog gives it, else the same rule from the flags.
		IF pg_catalog.jsonb_typeof(o -> 'can_update_at_runtime') = 'boolean' THEN
			v_runtime := (o ->> 'can_update_at_runtime')::bool;
		ELSE
			v_runtime := ('runtime' = ANY (v_flags) OR t.kind IN ('int', 'float', 'bool'))
						 AND NOT v_flags && ARRAY['startup', 'create', 'cluster_create'];
		END IF;
		v_apply_as := CASE WHEN 'create' = ANY (v_flags) THEN 'create'
						   WHEN v_runtime THEN 'runtime' ELSE 'restart' END;

		-- The first reason that applies, in the documented order.
		IF v_exclude IS NOT NULL THEN
			SELECT 'excluded', pg_catalog.format('matches "%s"', x) INTO v_reason, v_detail
			  FROM pg_catalog.unnest(v_exclude) x WHERE v_name ~ x LIMIT 1;
		END IF;
		IF v_reason IS NULL AND v_include IS NOT NULL
		   AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(v_include) x WHERE v_name ~ x) THEN
			v_reason := 'not_included';
		END IF;
		IF v_reason IS NULL AND v_levels IS NOT NULL
		   AND (v_level IS NULL OR v_level <> ALL (v_levels)) THEN
			v_reason := 'level';
			v_detail := pg_catalog.format('level %s', COALESCE(v_level, 'missing'));
		END IF;
		IF v_reason IS NULL AND v_services IS NOT NULL
		   AND pg_catalog.cardinality(v_opt_services) > 0
		   AND NOT v_opt_services && (v_services || 'common'::text) THEN
			v_reason := 'service';
			v_detail := pg_catalog.format('services %s', pg_catalog.array_to_string(v_opt_services, ', '));
		END IF;
		IF v_reason IS NULL AND v_selectors ? v_name THEN
			v_reason := 'selector';
			v_detail := pg_catalog.format('fixed to %s by the options', v_selectors ->> v_name);
		END IF;
		IF v_reason IS NULL THEN
			SELECT 'module', x ->> 'detail' INTO v_reason, v_detail
			  FROM pg_catalog.jsonb_array_elements(v_prunes) x
			 WHERE pg_catalog.starts_with(v_name, x ->> 'prefix') LIMIT 1;
		END IF;
		IF v_reason IS NULL AND 'cluster_create' = ANY (v_flags) THEN
			v_reason := 'cluster_create';
			v_detail := 'takes effect only when the cluster is created';
		END IF;
		IF v_reason IS NULL AND 'no_mon_update' = ANY (v_flags) THEN
			v_reason := 'no_mon_update';
			v_detail := 'cannot be set through the monitors'' configuration database';
		END IF;
		IF v_reason IS NULL AND t.drop_reason IS NOT NULL THEN
			v_reason := t.drop_reason;
			v_detail := pg_catalog.format('type %s', v_type);
		END IF;
		IF v_reason IS NULL THEN
			SELECT w.reason, pg_catalog.format('%s matches "%s"', w.field, w.pattern)
			  INTO v_reason, v_detail
			  FROM tuner.catalog_wash_rule w
			 WHERE w.system = v_system
			   AND (NOT w.free_strings_only
					OR (t.kind = 'categorical' AND pg_catalog.cardinality(v_enum) = 0))
			   AND CASE w.field
				   WHEN 'name' THEN v_name ~ w.pattern
				   WHEN 'tag' THEN EXISTS (SELECT 1 FROM pg_catalog.unnest(v_tags) g WHERE g ~ w.pattern)
				   ELSE false END
			 ORDER BY w.id LIMIT 1;
		END IF;
		IF v_reason IS NULL AND t.kind = 'categorical'
		   AND pg_catalog.cardinality(v_enum) = 0 THEN
			v_reason := 'free_string';
			v_detail := 'a string without enum_values';
		END IF;
		IF v_reason IS NULL AND v_apply IS NOT NULL AND v_apply_as <> ALL (v_apply) THEN
			v_reason := 'apply';
			v_detail := pg_catalog.format('takes effect at %s', v_apply_as);
		END IF;

		-- The space of what is left.
		v_low := NULL;
		v_high := NULL;
		v_min := NULL;
		v_max := NULL;
		v_hard_low := NULL;
		v_rule := NULL;
		v_log := false;
		v_default_text := NULL;
		v_choices := NULL;
		IF v_reason IS NULL AND t.kind IN ('int', 'float') THEN
			v_default := tuner._catalog_number(o -> 'default', v_name, 'default');
			v_min := tuner._catalog_number(o -> 'min', v_name, 'min');
			v_max := tuner._catalog_number(o -> 'max', v_name, 'max');
			IF v_min > v_max THEN
				v_reason := 'invalid_bounds';
				v_detail := pg_catalog.format('min %s is greater than max %s', v_min, v_max);
			ELSIF v_default < v_min OR v_default > v_max THEN
				v_reason := 'invalid_bounds';
				v_detail := pg_catalog.format('default %s is outside [%s, %s]', v_default,
											  COALESCE(v_min::text, '-inf'), COALESCE(v_max::text, 'inf'));
			END IF;
			IF v_reason = 'invalid_bounds' AND v_invalid = 'error' THEN
				RAISE EXCEPTION 'option "%" has invalid bounds: %', v_name, v_detail
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Fix the catalog, leave the option out with {"exclude": [...]}, or pass {"invalid": "drop"} to drop such options.';
			END IF;
		END IF;
		IF v_reason IS NULL AND t.kind IN ('int', 'float') THEN
			v_hard_low := GREATEST(v_min, t.hard_low::numeric);
			v_low := v_min;
			v_high := v_max;
			IF v_default IS NULL AND (v_low IS NULL OR v_high IS NULL) THEN
				v_reason := 'no_bounds';
				v_detail := 'no default to derive the missing bound from';
			ELSIF v_default < 0 AND (v_low IS NULL OR v_high IS NULL) THEN
				v_reason := 'no_bounds';
				v_detail := pg_catalog.format('negative default %s (a sentinel) and no min/max', v_default);
			ELSIF v_low IS NULL OR v_high IS NULL THEN
				IF v_default > 0 THEN
					v_low := COALESCE(v_low, GREATEST(v_default / 10, v_hard_low));
					v_high := COALESCE(v_high, v_default * 10);
					v_rule := 'default/10, default*10';
				ELSE
					-- A zero default usually means "off" or "use the _hdd/_ssd
					-- variant": scale by the positive defaults of the options
					-- linked to it through see_also (either way), of the same
					-- kind, else by the type's zero_default_high.
					SELECT pg_catalog.max(n) INTO v_sibling
					  FROM (SELECT tuner._catalog_number(v_defaults -> x, x, 'default') AS n
							  FROM (SELECT pg_catalog.unnest(tuner._catalog_strings(o -> 'see_also', v_name, 'see_also'))
									UNION
									SELECT pg_catalog.jsonb_array_elements_text(
											   COALESCE(v_backrefs -> v_name, '[]'))) l(x)
							 WHERE EXISTS (SELECT 1 FROM tuner.catalog_type ct
											WHERE ct.system = v_system AND ct.type = v_types ->> x
											  AND ct.kind = t.kind)) sib
					 WHERE n > 0;
					v_low := COALESCE(v_low, 0);
					IF v_sibling IS NOT NULL THEN
						v_high := COALESCE(v_high, v_sibling * 10);
						v_rule := 'zero default: 0, 10 * see_also default';
					ELSE
						v_high := COALESCE(v_high, t.zero_default_high::numeric);
						v_rule := 'zero default: 0, type scale';
					END IF;
				END IF;
			END IF;
			-- Log scale for a positive range of two decades or more (so
			-- always for default/10..default*10), decided before integer
			-- rounding narrows it.
			v_log := v_reason IS NULL AND v_low > 0 AND v_high >= 100 * v_low;
			IF v_reason IS NULL AND t.kind = 'int' THEN
				v_low := pg_catalog.ceil(v_low);
				v_high := pg_catalog.floor(v_high);
			END IF;
			IF v_reason IS NULL AND v_low >= v_high THEN
				v_reason := CASE WHEN v_min = v_max THEN 'fixed_range' ELSE 'no_bounds' END;
				v_detail := pg_catalog.format('range [%s, %s] is empty', v_low, v_high);
			ELSIF v_reason IS NULL AND GREATEST(abs(v_low), abs(v_high)) > 9007199254740992 THEN
				v_reason := 'no_bounds';
				v_detail := pg_catalog.format('range [%s, %s] exceeds 2^53', v_low, v_high);
			END IF;
			IF v_reason IS NULL THEN
				IF v_default IS NOT NULL THEN
					v_default_text := v_default::text;
					IF t.kind = 'int' AND v_default <> pg_catalog.trunc(v_default) THEN
						v_reason := 'invalid_bounds';
						v_detail := pg_catalog.format('default %s of an integer option', v_default);
						IF v_invalid = 'error' THEN
							RAISE EXCEPTION 'option "%" has invalid bounds: %', v_name, v_detail
								USING ERRCODE = 'invalid_parameter_value',
									  HINT = 'Fix the catalog, leave the option out with {"exclude": [...]}, or pass {"invalid": "drop"} to drop such options.';
						END IF;
					END IF;
				END IF;
			END IF;
		ELSIF v_reason IS NULL AND t.kind = 'bool' THEN
			IF pg_catalog.jsonb_typeof(o -> 'default') = 'boolean' THEN
				v_default_text := o ->> 'default';
			ELSIF pg_catalog.jsonb_typeof(o -> 'default') = 'string'
				  AND pg_catalog.lower(o ->> 'default') IN ('true', 'false') THEN
				v_default_text := pg_catalog.lower(o ->> 'default');
			ELSIF o -> 'default' IS NOT NULL AND pg_catalog.jsonb_typeof(o -> 'default') <> 'null' THEN
				v_note := pg_catalog.format('default %s is not a boolean', o -> 'default');
			END IF;
		ELSIF v_reason IS NULL AND t.kind = 'categorical' THEN
			SELECT pg_catalog.array_agg(c ORDER BY i) FILTER (WHERE NOT m),
				   pg_catalog.array_agg(c ORDER BY i) FILTER (WHERE m)
			  INTO v_choices, v_removed
			  FROM (SELECT c, pg_catalog.min(i) AS i,
						   EXISTS (SELECT 1 FROM tuner.catalog_wash_rule w
									WHERE w.system = v_system AND w.field = 'choice'
									  AND c ~ w.pattern) AS m
					  FROM pg_catalog.unnest(v_enum) WITH ORDINALITY u(c, i)
					 GROUP BY c) ch;
			IF COALESCE(pg_catalog.cardinality(v_choices), 0) < 2 THEN
				v_reason := 'fixed_range';
				v_detail := pg_catalog.format('%s choice(s) left', COALESCE(pg_catalog.cardinality(v_choices), 0));
			ELSIF pg_catalog.jsonb_typeof(o -> 'default') = 'string' THEN
				IF (o ->> 'default') = ANY (v_choices) THEN
					v_default_text := o ->> 'default';
				ELSE
					v_note := pg_catalog.format('default "%s" is not one of the choices', o ->> 'default');
				END IF;
			END IF;
		END IF;

		IF v_reason IS NOT NULL THEN
			INSERT INTO tuner.catalog_drop AS d (study_id, import_id, name, reason, detail, source_type, level)
			VALUES (s.id, v_import, v_name, v_reason, v_detail, v_type, v_level)
			ON CONFLICT (study_id, name) DO UPDATE
			   SET import_id = EXCLUDED.import_id, reason = EXCLUDED.reason,
				   detail = EXCLUDED.detail, source_type = EXCLUDED.source_type,
				   level = EXCLUDED.level;
			v_dropped := v_dropped + 1;
			CONTINUE;
		END IF;

		-- A bound the catalog does not give is a guess: soft, so the study
		-- may widen it (tuner.bound_change), within the catalog's and the
		-- type's limits.
		v_soft := t.kind IN ('int', 'float') AND (v_min IS NULL OR v_max IS NULL);
		PERFORM tuner.add_parameter(s.name, v_name, t.kind, v_low::float8, v_high::float8,
									v_default_text, v_log, v_choices,
									soft_bounds => v_soft,
									hard_low => CASE WHEN NOT v_soft THEN NULL
													 WHEN v_min IS NOT NULL THEN v_low::float8
													 WHEN v_log AND v_hard_low <= 0 THEN NULL
													 ELSE LEAST(v_hard_low, v_low)::float8 END,
									hard_high => CASE WHEN v_soft AND v_max IS NOT NULL THEN v_high::float8 END);
		SELECT p.id INTO v_param FROM tuner.parameter p
		 WHERE p.study_id = s.id AND p.name = v_name;
		INSERT INTO tuner.parameter_source (parameter_id, import_id, source_type, level,
											source_default, source_min, source_max,
											hard_low, hard_high, soft_low, soft_high,
											bound_rule, needs_restart, apply, flags,
											services, removed_choices, note, description)
		VALUES (v_param, v_import, v_type, v_level, o -> 'default', v_min, v_max,
				v_hard_low, v_max,
				t.kind IN ('int', 'float') AND v_min IS NULL,
				t.kind IN ('int', 'float') AND v_max IS NULL,
				v_rule, v_apply_as <> 'runtime', v_apply_as, v_flags, v_opt_services,
				v_removed, v_note, NULLIF(o ->> 'desc', ''));
		-- A kept option forgets an earlier import's drop of the same name.
		DELETE FROM tuner.catalog_drop d WHERE d.study_id = s.id AND d.name = v_name;
		v_kept := v_kept + 1;
	END LOOP;

	UPDATE tuner.catalog_import
	   SET total = v_total, kept = v_kept, dropped = v_dropped
	 WHERE id = v_import;

	RETURN pg_catalog.jsonb_build_object(
		'import', v_import, 'options', v_total, 'kept', v_kept, 'dropped', v_dropped,
		'reasons', (SELECT COALESCE(pg_catalog.jsonb_object_agg(x.reason, x.n), '{}')
					  FROM (SELECT d.reason, pg_catalog.count(*) AS n
							  FROM tuner.catalog_drop d
							 WHERE d.import_id = v_import
							 GROUP BY d.reason) x));
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
CREATE FUNCTION tuner._check_program_privilege(action text)
RETURNS void
AS 'MODULE_PATHNAME', 'tuner_check_program_privilege'
LANGUAGE C STRICT;

-- Register a runner program.  program is an absolute path, or a bare name
-- looked up in PostgreSQL's bindir (pg_config --bindir) and then the
-- server's PATH when a trial runs.  args are passed as they are (no
-- shell); settings reach the runner as "_settings" (the study's
-- settings->'runner' override them).
CREATE FUNCTION tuner.register_runner(name text, program text,
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

-- Drop a runner that no study uses.
CREATE FUNCTION tuner.drop_runner(name text)
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
CREATE FUNCTION tuner.set_runner(study text, runner text)
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
CREATE FUNCTION tuner._study_with_runner(study text)
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

-- tuner.run: check the arguments, reconcile, and insert the job row;
-- returns the job id.  Its workers are launched by tuner.run (C).
CREATE FUNCTION tuner._run_prepare(study text, trials int, parallel int)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_job bigint;
BEGIN
	s := tuner._study_with_runner($1);
	PERFORM tuner._not_null(trials, 'trials');
	PERFORM tuner._not_null(parallel, 'parallel');
	IF trials < 1 THEN
		RAISE EXCEPTION 'trials must be at least 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', trials);
	END IF;
	IF parallel < 1 OR parallel > 64 THEN
		RAISE EXCEPTION 'parallel must be between 1 and 64'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', parallel);
	END IF;
	PERFORM tuner._reconcile();
	INSERT INTO tuner.job (study_id, trials, parallel)
	VALUES (s.id, trials, parallel)
	RETURNING id INTO v_job;
	RETURN v_job;
END;
$$;

-- Start background workers that run trials of a study: trials in all,
-- at most parallel at a time.  Returns at once with the number of workers
-- started; they begin when the calling transaction commits.
-- tuner.progress shows what they do, tuner.stop() stops them.
CREATE FUNCTION tuner.run(study text, trials int, parallel int DEFAULT 1)
RETURNS int
AS 'MODULE_PATHNAME', 'tuner_run'
LANGUAGE C;

-- Ask the background workers of a study to stop.  Each one interrupts its
-- running trial (reason "stopped", its runner is killed) within about a
-- second and exits.  Returns the number of jobs asked to stop.
CREATE FUNCTION tuner.stop(study text)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	n int;
BEGIN
	s := tuner._find_study($1);
	UPDATE tuner.job SET stop_requested = true
	 WHERE study_id = s.id AND state = 'running' AND NOT stop_requested;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN n;
END;
$$;

-- Worker: claim the next trial of a job (suggest it and record the
-- worker), or NULL when the job is done or asked to stop.
CREATE FUNCTION tuner._claim_trial(job bigint, worker text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	j tuner.job;
	v_study text;
	v_trial bigint;
BEGIN
	SELECT * INTO j FROM tuner.job WHERE id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND OR j.state <> 'running' OR j.stop_requested OR j.claimed >= j.trials THEN
		RETURN NULL;
	END IF;
	UPDATE tuner.job SET claimed = claimed + 1 WHERE id = j.id;
	SELECT name INTO v_study FROM tuner.study WHERE id = j.study_id;
	v_trial := (tuner.suggest_next(v_study) ->> 'trial')::bigint;
	UPDATE tuner.trial
	   SET worker = $2, worker_pid = pg_catalog.pg_backend_pid(), job_id = j.id
	 WHERE id = v_trial;
	RETURN v_trial;
END;
$$;

-- Worker: is the job asked to stop (or gone)?
CREATE FUNCTION tuner._job_stop_requested(job bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT COALESCE((SELECT j.stop_requested OR j.state <> 'running'
				   FROM tuner.job j WHERE j.id = $1), true);
$$;

-- Worker: one worker of a job has finished (error: why it ended early).
-- The last one marks the job finished, stopped or failed.
CREATE FUNCTION tuner._job_worker_done(job bigint, error text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
	UPDATE tuner.job j
	   SET workers_done = j.workers_done + 1,
		   error = COALESCE(j.error, $2),
		   state = CASE WHEN j.workers_done + 1 < j.launched THEN j.state
						WHEN j.stop_requested THEN 'stopped'
						WHEN COALESCE(j.error, $2) IS NOT NULL THEN 'failed'
						ELSE 'finished' END,
		   finished_at = CASE WHEN j.workers_done + 1 < j.launched THEN NULL
							  ELSE pg_catalog.now() END
	 WHERE j.id = $1 AND j.state = 'running';
END;
$$;

-- tuner.step: suggest a trial of a study with a runner and record the
-- calling session as its worker.
CREATE FUNCTION tuner._step_begin(study text)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_trial bigint;
BEGIN
	s := tuner._study_with_runner($1);
	v_trial := (tuner.suggest_next(s.name) ->> 'trial')::bigint;
	UPDATE tuner.trial
	   SET worker = 'step', worker_pid = pg_catalog.pg_backend_pid()
	 WHERE id = v_trial;
	RETURN v_trial;
END;
$$;

-- What running a trial needs: the runner's argv, the JSON written to its
-- stdin (the configuration, "_settings" and "_trial") and the timeouts.
CREATE FUNCTION tuner._trial_launch(trial bigint,
									OUT study text, OUT number int,
									OUT runner text, OUT program text,
									OUT args text[], OUT input text,
									OUT timeout_s float8, OUT grace_s float8)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	SELECT s.name, t.number, r.name, r.program, r.args,
		   (t.config || pg_catalog.jsonb_build_object(
				'_settings', r.settings || COALESCE(s.settings -> 'runner', '{}'),
				'_trial', pg_catalog.jsonb_build_object('study', s.name, 'id', t.id,
														'number', t.number)))::text,
		   COALESCE((s.settings ->> 'trial_timeout_s')::float8, 600),
		   COALESCE((s.settings ->> 'kill_grace_s')::float8, 5)
	  INTO study, number, runner, program, args, input, timeout_s, grace_s
	  FROM tuner.trial t
	  JOIN tuner.study s ON s.id = t.study_id
	  JOIN tuner.runner r ON r.name = s.runner
	 WHERE t.id = $1;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % has no runner', $1
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
END;
$$;

-- Record what a runner did: the protocol's parser.  exit_code is the
-- runner's exit status (NULL when a signal ended it or it never started),
-- exit_text describes it, stdout and stderr_tail are its output.  When
-- forced_state is set ('failed' or 'interrupted': timeout, stop, cancel)
-- the output is not parsed and forced_reason becomes the error.  Failures
-- of the protocol (invalid JSON, missing objective, a non-numeric metric)
-- mark the trial failed with the reason; nothing raises.  Returns
-- {"trial", "number", "state", "value", "error"}.
CREATE FUNCTION tuner._finish_trial(trial bigint, exit_code int, exit_text text,
									stdout text, stderr_tail text,
									elapsed_s float8, forced_state text,
									forced_reason text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	t tuner.trial;
	s tuner.study;
	v_details jsonb;
	v_out jsonb;
	v_metrics jsonb := '{}';
	v_extras jsonb := '{}';
	v_reason text;
	v_state text;
	v_snippet text;
	k text;
	v jsonb;
BEGIN
	SELECT * INTO t FROM tuner.trial WHERE id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RETURN NULL;
	END IF;
	SELECT * INTO s FROM tuner.study WHERE id = t.study_id;
	v_details := pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object(
		'exit', exit_text,
		'exit_code', exit_code,
		'elapsed_s', pg_catalog.round(elapsed_s::numeric, 3),
		'stderr', NULLIF(stderr_tail, '')));
	IF t.state <> 'running' THEN
		-- Someone else finished it (tuner.fail, reconciliation): keep theirs.
		UPDATE tuner.trial SET details = COALESCE(details, '{}') || v_details WHERE id = t.id;
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'number', t.number,
											 'state', t.state, 'value', NULL, 'error', t.error);
	END IF;

	v_snippet := pg_catalog.left(pg_catalog.btrim(pg_catalog.regexp_replace(COALESCE(stdout, ''), '\s+', ' ', 'g')), 200);
	IF forced_state IS NOT NULL THEN
		v_state := forced_state;
		v_reason := forced_reason;
	ELSIF exit_code IS DISTINCT FROM 0 THEN
		v_reason := 'runner ' || COALESCE(exit_text, 'failed');
	ELSIF pg_catalog.btrim(COALESCE(stdout, '')) = '' THEN
		v_reason := 'runner printed nothing on stdout (expected one JSON object of metrics)';
	ELSE
		BEGIN
			v_out := stdout::jsonb;
		EXCEPTION WHEN others THEN
			v_reason := pg_catalog.format('runner output is not valid JSON (%s): %s', SQLERRM, v_snippet);
			IF stdout ~* '(^|[^a-z"])(nan|-?inf(inity)?)([^a-z"]|$)' THEN
				v_reason := v_reason || ' (NaN and Infinity are not JSON numbers; print null for a metric without a value)';
			END IF;
		END;
		IF v_reason IS NULL AND pg_catalog.jsonb_typeof(v_out) <> 'object' THEN
			v_reason := pg_catalog.format('runner output must be one JSON object of metrics, not a JSON %s: %s',
										  pg_catalog.jsonb_typeof(v_out), v_snippet);
		END IF;
		IF v_reason IS NULL THEN
			FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(v_out) e ORDER BY e.key
			LOOP
				IF pg_catalog.left(k, 1) = '_' THEN
					v_extras := v_extras || pg_catalog.jsonb_build_object(k, v);
				ELSIF pg_catalog.jsonb_typeof(v) = 'null' THEN
					CONTINUE;		-- a metric without a value this time
				ELSIF pg_catalog.jsonb_typeof(v) = 'number' THEN
					v_metrics := v_metrics || pg_catalog.jsonb_build_object(k, v);
				ELSIF pg_catalog.jsonb_typeof(v) = 'string'
					  AND pg_catalog.lower(v #>> '{}') IN ('nan', 'infinity', '+infinity', '-infinity', 'inf', '+inf', '-inf') THEN
					v_reason := pg_catalog.format('metric "%s" is not a finite number: %s', k, v);
					EXIT;
				ELSE
					v_reason := pg_catalog.format('metric "%s" must be a number or null, not a JSON %s: %s',
												  k, pg_catalog.jsonb_typeof(v), pg_catalog.left(v::text, 100));
					EXIT;
				END IF;
			END LOOP;
		END IF;
		IF v_reason IS NULL AND NOT v_metrics ? s.objective THEN
			v_reason := pg_catalog.format('runner output has no value for the objective "%s": %s',
										  s.objective, v_snippet);
		END IF;
		IF v_reason IS NULL THEN
			BEGIN
				PERFORM tuner.report(t.id, v_metrics);
			EXCEPTION WHEN others THEN
				v_reason := 'runner metrics were rejected: ' || SQLERRM;
			END;
		END IF;
	END IF;

	IF pg_catalog.jsonb_typeof(v_extras) = 'object' AND v_extras <> '{}' THEN
		v_details := v_details || v_extras;
	END IF;
	IF v_reason IS NULL THEN
		UPDATE tuner.trial SET details = v_details WHERE id = t.id;
		v_state := 'complete';
	ELSE
		v_state := COALESCE(v_state, 'failed');
		IF forced_state IS NULL AND COALESCE(stderr_tail, '') <> '' THEN
			v_reason := v_reason || E'\n' || pg_catalog.rtrim(stderr_tail, E' \t\r\n');
		END IF;
		UPDATE tuner.trial
		   SET state = v_state, error = v_reason, details = v_details,
			   finished_at = pg_catalog.now()
		 WHERE id = t.id;
	END IF;
	RETURN pg_catalog.jsonb_build_object(
		'trial', t.id, 'number', t.number, 'state', v_state,
		'value', (v_metrics -> s.objective), 'error', v_reason);
END;
$$;

-- Run one trial of a study synchronously in this session: suggest, run
-- the runner, record what it measured, all in the caller's transaction.
-- Returns {"trial", "number", "state", "value", "error"}.  For schedulers
-- such as pg_cron.
CREATE FUNCTION tuner.step(study text)
RETURNS jsonb
AS 'MODULE_PATHNAME', 'tuner_step'
LANGUAGE C;

-- The functions that make the server run programs.  They also check the
-- privileges of pg_execute_server_program in C; a superuser may GRANT
-- EXECUTE on them to such roles.
REVOKE ALL ON FUNCTION tuner.register_runner(text, text, text[], jsonb) FROM PUBLIC;
REVOKE ALL ON FUNCTION tuner.run(text, int, int) FROM PUBLIC;
REVOKE ALL ON FUNCTION tuner.step(text) FROM PUBLIC;

-- What is running now: one row per running trial with how long it has
-- run and the study's best value so far.
CREATE VIEW tuner.progress AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.worker,
	   t.worker_pid AS pid,
	   t.job_id AS job,
	   t.config AS params,
	   t.started_at,
	   pg_catalog.now() - t.started_at AS elapsed,
	   EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
				WHERE a.pid = t.worker_pid) AS alive,
	   (SELECT pg_catalog.count(*) FROM tuner.trial c
		 WHERE c.study_id = s.id AND c.state = 'complete') AS complete,
	   (SELECT CASE s.direction WHEN 'minimize' THEN pg_catalog.min(ob.value)
			   ELSE pg_catalog.max(ob.value) END
		  FROM tuner.trial c
		  JOIN tuner.observation ob ON ob.trial_id = c.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE c.study_id = s.id AND c.state = 'complete') AS best_value
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
 WHERE t.state = 'running';

COMMENT ON VIEW tuner.progress IS
	'Running trials: study, worker, elapsed time and the best objective value so far';

-------------------------------------------------------------------------------
-- Studies for people (issue 9): typed per-study views, notifications, warm
-- start (enqueue, copy_trials) and reproducible suggestions
-------------------------------------------------------------------------------

-- Views made by tuner.create_view.  Kept current by the triggers below
-- (a parameter or metric added re-creates them) and dropped with the study.
CREATE TABLE tuner.study_view (
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	view_schema	name NOT NULL,
	view_name	name NOT NULL,
	owner		name NOT NULL DEFAULT current_user,
	created_at	timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (view_schema, view_name)
);

CREATE INDEX study_view_study_idx ON tuner.study_view (study_id);

COMMENT ON TABLE tuner.study_view IS
	'The typed per-study views tuner.create_view made; re-created when the study gains a parameter or metric';

-- Everything a suggestion was computed from, so that
-- tuner.replay_suggestion can compute it again: the space as it was, the
-- trials it saw (by id, in trial order: observed = complete with an
-- objective, pending = running or queued, other = failed, interrupted or
-- complete without objective), the seeds and the warm start.
CREATE TABLE tuner.suggestion (
	trial_id	bigint PRIMARY KEY REFERENCES tuner.trial (id) ON DELETE CASCADE,
	algorithm	text NOT NULL,
	parameters	text[] NOT NULL,
	kinds		int[] NOT NULL,
	lows		float8[] NOT NULL,
	highs		float8[] NOT NULL,
	log_scales	bool[] NOT NULL,
	n_choices	int[] NOT NULL,
	fixed		jsonb NOT NULL,
	objective_metric bigint NOT NULL,
	sign		float8 NOT NULL,
	aux_metrics	bigint[],
	aux_weights	float8[],
	observed	bigint[] NOT NULL,
	pending		bigint[] NOT NULL,
	other		bigint[] NOT NULL,
	n_initial	int NOT NULL,
	design_index int NOT NULL,
	seed		bigint NOT NULL,
	design_seed	bigint NOT NULL,
	icm_rank	int,
	warm_model	bigint,
	cluster_members int[],
	cluster_metric int[],
	warm_cluster_tasks int[],
	warm_cluster_rank int[],
	warm_cluster_lengthscales float8[],
	warm_cluster_loadings float8[],
	warm_cluster_variance float8[],
	warm_cluster_noise float8[],
	warm_cluster_mean float8[],
	transfer	bool NOT NULL,
	history_md5	text NOT NULL,
	made_at		timestamptz NOT NULL DEFAULT now()
);

COMMENT ON TABLE tuner.suggestion IS
	'What each suggestion of tuner.suggest_next saw: the algorithm run, the space, the trials (ids) observed, pending and failed, seeds and warm start';
COMMENT ON COLUMN tuner.suggestion.algorithm IS
	'What the model code ran (gp-ei, icm, clustered-icm, random; sapphire runs one of the first two)';
COMMENT ON COLUMN tuner.suggestion.history_md5 IS
	'md5 of the objective (and auxiliary) values the suggestion saw; replay_suggestion refuses a history that changed';

SELECT pg_catalog.pg_extension_config_dump('tuner.study_view', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.suggestion', '');

-- The fingerprint of the values a suggestion saw.
CREATE FUNCTION tuner._history_md5(y_observed float8[], y_aux float8[])
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
SELECT pg_catalog.md5(COALESCE($1::text, '') || '|' || COALESCE($2::text, ''));
$$;

-- An identifier of at most 63 bytes (NAMEDATALEN - 1).  A longer wanted
-- name keeps its beginning and ends in "_" and 8 hex digits of its md5, so
-- that long names differing only at the end stay apart.
CREATE FUNCTION tuner._identifier(wanted text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v text;
BEGIN
	IF pg_catalog.octet_length(wanted) <= 63 THEN
		RETURN wanted;
	END IF;
	v := pg_catalog.left(wanted, 54);
	WHILE pg_catalog.octet_length(v) > 54 LOOP
		v := pg_catalog.left(v, -1);
	END LOOP;
	RETURN v || '_' || pg_catalog.left(pg_catalog.md5(wanted), 8);
END;
$$;

-- A column name for a parameter or metric: its own name, or with prefix
-- when that is taken (a fixed column, or a parameter of the same name),
-- then with a counter.
CREATE FUNCTION tuner._view_column(wanted text, prefix text, taken text[])
RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v text := tuner._identifier(wanted);
	i int := 1;
BEGIN
	IF v = ANY (taken) THEN
		v := tuner._identifier(prefix || wanted);
	END IF;
	WHILE v = ANY (taken) LOOP
		i := i + 1;
		v := tuner._identifier(prefix || wanted || '_' || i);
	END LOOP;
	RETURN v;
END;
$$;

-- (Re)build one registered view of a study from its current parameters and
-- metrics.  The view is dropped and created again (its columns may change
-- anywhere), keeping its grants.  It runs with its owner's rights (the
-- role that called create_view, subject to row-level security unless a
-- superuser): granting SELECT on it shares the study's trials, which is
-- what it is for.  A registered view that no longer exists
-- was dropped by its owner: then its registration goes too.
CREATE FUNCTION tuner._build_view(p_study_id bigint, p_schema name, p_name name)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	p tuner.parameter;
	m tuner.metric;
	v_rel oid;
	v_qname text := pg_catalog.format('%I.%I', p_schema, p_name);
	v_grants record;
	v_acl aclitem[];
	v_owner oid;
	v_objective bigint;
	v_ratio bigint;
	v_default jsonb;
	v_taken text[] := ARRAY['trial', 'number', 'state', 'source', 'created_at',
							'started_at', 'finished_at', 'objective',
							'best_so_far', 'ratio_to_default', 'error'];
	v_col text;
	v_cols text := '';
	v_aggs text := '';
	v_comments text[] := '{}';
	v_sql text;
	i int;
BEGIN
	SELECT * INTO s FROM tuner.study WHERE id = p_study_id;
	SELECT c.oid, c.relacl, c.relowner INTO v_rel, v_acl, v_owner
	  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = p_schema AND c.relname = p_name;
	IF FOUND THEN
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c WHERE c.oid = v_rel AND c.relkind = 'v') THEN
			RAISE EXCEPTION '"%" is not a view', v_qname
				USING ERRCODE = 'wrong_object_type';
		END IF;
		EXECUTE pg_catalog.format('DROP VIEW %s', v_qname);
	END IF;

	SELECT mt.id INTO v_objective FROM tuner.metric mt
	 WHERE mt.study_id = s.id AND mt.name = s.objective;
	SELECT mt.id INTO v_ratio FROM tuner.metric mt
	 WHERE mt.study_id = s.id AND mt.name = 'ratio_to_default';
	SELECT CASE WHEN pg_catalog.bool_and(q.default_value IS NOT NULL)
				THEN pg_catalog.jsonb_object_agg(q.name, q.default_value) END
	  INTO v_default FROM tuner.parameter q WHERE q.study_id = s.id;

	FOR p IN SELECT * FROM tuner.parameter q WHERE q.study_id = s.id ORDER BY q.position
	LOOP
		v_col := tuner._view_column(p.name, 'param_', v_taken);
		v_taken := v_taken || v_col;
		v_cols := v_cols || pg_catalog.format(E',\n       %s AS %I', CASE p.kind
			WHEN 'int' THEN pg_catalog.format('((t.config -> %L)::numeric)::bigint', p.name)
			WHEN 'float' THEN pg_catalog.format('(t.config -> %L)::double precision', p.name)
			WHEN 'bool' THEN pg_catalog.format('(t.config -> %L)::boolean', p.name)
			ELSE pg_catalog.format('t.config ->> %L', p.name) END, v_col);
		v_comments := v_comments || ARRAY[v_col, pg_catalog.format('parameter %s: %s%s%s',
			pg_catalog.to_jsonb(p.name), p.kind,
			CASE WHEN p.kind IN ('int', 'float') THEN pg_catalog.format(' in [%s, %s]', p.low, p.high)
				 WHEN p.kind = 'categorical' THEN ' of ' || pg_catalog.array_to_string(p.choices, ', ')
				 ELSE '' END,
			CASE WHEN p.log_scale THEN ', log scale' ELSE '' END)];
	END LOOP;
	FOR m IN SELECT * FROM tuner.metric q WHERE q.study_id = s.id ORDER BY q.id
	LOOP
		v_aggs := v_aggs || pg_catalog.format(E',\n                  pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS m%s',
											 m.id, m.id);
		-- the same values as a fixed column already
		CONTINUE WHEN m.name = 'ratio_to_default'
			OR (m.name = 'objective' AND m.id = v_objective);
		v_col := tuner._view_column(m.name, 'metric_', v_taken);
		v_taken := v_taken || v_col;
		v_cols := v_cols || pg_catalog.format(E',\n       o.m%s AS %I', m.id, v_col);
		v_comments := v_comments || ARRAY[v_col, pg_catalog.format('metric %s (%s%s%s)',
			pg_catalog.to_jsonb(m.name), m.role,
			COALESCE(', ' || m.direction, ''), COALESCE(', unit ' || m.unit, ''))];
	END LOOP;

	v_sql := pg_catalog.format(
$v$CREATE VIEW %s AS
SELECT t.id AS trial,
       t.number,
       t.state,
       t.source,
       t.created_at,
       t.started_at,
       t.finished_at,
       o.objective,
       pg_catalog.%s(o.objective) OVER (ORDER BY t.number) AS best_so_far,
       COALESCE(%s%s) AS ratio_to_default,
       t.error%s
  FROM tuner.trial t
  LEFT JOIN LATERAL (
           SELECT pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS objective%s
             FROM tuner.observation ob
            WHERE ob.trial_id = t.id) o ON true
 WHERE t.study_id = %s
 ORDER BY t.number$v$,
		v_qname,
		CASE s.direction WHEN 'minimize' THEN 'min' ELSE 'max' END,
		CASE WHEN v_ratio IS NOT NULL THEN pg_catalog.format('o.m%s', v_ratio) || ', ' END,
		pg_catalog.format(
$v$o.objective / NULLIF((
           SELECT ob.value
             FROM tuner.trial dt
             JOIN tuner.observation ob ON ob.trial_id = dt.id AND ob.metric_id = %s
            WHERE dt.study_id = %s AND dt.state = 'complete'
              AND (dt.source = 'default' OR dt.config = %L::jsonb)
            ORDER BY dt.number LIMIT 1), 0)$v$, v_objective, s.id, COALESCE(v_default::text, 'null')),
		v_cols, v_objective, v_aggs, s.id);
	EXECUTE v_sql;

	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', v_qname,
		pg_catalog.format('Trials of tuner study %s (%s %s), one row per trial; made by tuner.create_view',
						  pg_catalog.to_jsonb(s.name), s.direction, pg_catalog.to_jsonb(s.objective)));
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.best_so_far IS %L', v_qname,
		'Best objective value of the trials up to this trial number, in the study''s direction');
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.ratio_to_default IS %L', v_qname,
		CASE WHEN v_ratio IS NOT NULL THEN 'The trial''s own ratio_to_default metric (measured paired with the default), else objective / objective of the default configuration''s trial'
			 ELSE 'objective / objective of the default configuration''s trial' END);
	FOR i IN 1 .. pg_catalog.array_length(v_comments, 1) / 2
	LOOP
		EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', v_qname,
								  v_comments[2 * i - 1], v_comments[2 * i]);
	END LOOP;

	-- The grants the view had: its owner granted them, so can again.
	FOR v_grants IN
		SELECT a.grantee, a.privilege_type, a.is_grantable
		  FROM pg_catalog.aclexplode(v_acl) a
		 WHERE a.grantee <> v_owner
	LOOP
		EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', v_grants.privilege_type, v_qname,
			CASE v_grants.grantee WHEN 0 THEN 'PUBLIC'
				 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(v_grants.grantee)) END,
			CASE WHEN v_grants.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
	END LOOP;
END;
$$;

-- Create a typed view of a study's trials: one row per trial, one column
-- per parameter (bigint, double precision, boolean or text) and per metric
-- (double precision).  view_name is an SQL name, possibly qualified
-- ('reports.branin', '"My Study"'); the default is tuner."<study>_trials".
-- Returns the view's quoted name.  Called again, it rebuilds the view.
CREATE FUNCTION tuner.create_view(study text, view_name text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	v_parts text[];
	v_schema text;
	v_name text;
	v_other bigint;
BEGIN
	s := tuner._find_study(study);
	IF view_name IS NULL THEN
		v_schema := 'tuner';
		v_name := tuner._identifier(s.name || '_trials');
	ELSE
		BEGIN
			v_parts := pg_catalog.parse_ident(view_name);
		EXCEPTION WHEN invalid_parameter_value THEN
			RAISE EXCEPTION 'invalid view name "%"', view_name
				USING ERRCODE = 'invalid_name',
					  HINT = 'Pass an SQL name, optionally schema-qualified; double-quote names with spaces, capitals or quotes: ''"My View"''.';
		END;
		IF pg_catalog.cardinality(v_parts) > 2 THEN
			RAISE EXCEPTION 'invalid view name "%"', view_name
				USING ERRCODE = 'invalid_name',
					  DETAIL = 'A view name is "name" or "schema.name".';
		END IF;
		v_schema := CASE pg_catalog.cardinality(v_parts) WHEN 2 THEN v_parts[1] ELSE 'tuner' END;
		v_name := v_parts[pg_catalog.cardinality(v_parts)];
		IF pg_catalog.octet_length(v_name) > 63 OR pg_catalog.octet_length(v_schema) > 63 THEN
			RAISE EXCEPTION 'view name "%" is too long', view_name
				USING ERRCODE = 'name_too_long',
					  DETAIL = 'Names are at most 63 bytes.';
		END IF;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace n WHERE n.nspname = v_schema) THEN
		RAISE EXCEPTION 'schema "%" does not exist', v_schema
			USING ERRCODE = 'invalid_schema_name';
	END IF;
	IF NOT pg_catalog.has_schema_privilege(v_schema, 'CREATE') THEN
		RAISE EXCEPTION 'permission denied to create a view in schema "%"', v_schema
			USING ERRCODE = 'insufficient_privilege';
	END IF;

	SELECT v.study_id INTO v_other FROM tuner.study_view v
	 WHERE v.view_schema = v_schema AND v.view_name = v_name;
	IF v_other IS NOT NULL AND v_other <> s.id THEN
		RAISE EXCEPTION 'view %.% shows study "%"', pg_catalog.quote_ident(v_schema),
			  pg_catalog.quote_ident(v_name), (SELECT x.name FROM tuner.study x WHERE x.id = v_other)
			USING ERRCODE = 'duplicate_table',
				  HINT = 'Pass another view_name.';
	END IF;
	IF v_other IS NULL AND EXISTS (
		SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = v_schema AND c.relname = v_name) THEN
		RAISE EXCEPTION 'relation %.% already exists', pg_catalog.quote_ident(v_schema),
			  pg_catalog.quote_ident(v_name)
			USING ERRCODE = 'duplicate_table',
				  HINT = 'Pass another view_name.';
	END IF;
	IF v_other IS NULL THEN
		INSERT INTO tuner.study_view (study_id, view_schema, view_name)
		VALUES (s.id, v_schema, v_name);
	END IF;
	PERFORM tuner._build_view(s.id, v_schema, v_name);
	RETURN pg_catalog.format('%I.%I', v_schema, v_name);
END;
$$;

-- Trigger: a study gained a parameter or metric; rebuild its views.  A
-- view that cannot be rebuilt (dropped, or owned by another role, or with
-- views of its own on it) is reported as a warning: recording a trial
-- never fails because of a view.
CREATE FUNCTION tuner._refresh_views()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v tuner.study_view;
BEGIN
	FOR v IN SELECT * FROM tuner.study_view x WHERE x.study_id = NEW.study_id
			 ORDER BY x.view_schema, x.view_name
	LOOP
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
						 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
						WHERE n.nspname = v.view_schema AND c.relname = v.view_name) THEN
			-- dropped by its owner: forget it
			DELETE FROM tuner.study_view x
			 WHERE x.view_schema = v.view_schema AND x.view_name = v.view_name;
			CONTINUE;
		END IF;
		BEGIN
			PERFORM tuner._build_view(v.study_id, v.view_schema, v.view_name);
		EXCEPTION WHEN OTHERS THEN
			RAISE WARNING 'view %.% was not brought up to date: %',
				  pg_catalog.quote_ident(v.view_schema), pg_catalog.quote_ident(v.view_name), SQLERRM
				USING HINT = 'Run tuner.create_view() again as the view''s owner.';
		END;
	END LOOP;
	RETURN NULL;
END;
$$;

CREATE TRIGGER parameter_views AFTER INSERT ON tuner.parameter
	FOR EACH ROW EXECUTE FUNCTION tuner._refresh_views();
CREATE TRIGGER metric_views AFTER INSERT ON tuner.metric
	FOR EACH ROW EXECUTE FUNCTION tuner._refresh_views();

-- Trigger: a study is being deleted; drop its views.
CREATE FUNCTION tuner._drop_views()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v tuner.study_view;
BEGIN
	FOR v IN SELECT * FROM tuner.study_view x WHERE x.study_id = OLD.id
	LOOP
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_class c
					 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
					WHERE n.nspname = v.view_schema AND c.relname = v.view_name
					  AND c.relkind = 'v') THEN
			EXECUTE pg_catalog.format('DROP VIEW %I.%I', v.view_schema, v.view_name);
		END IF;
	END LOOP;
	RETURN OLD;
END;
$$;

CREATE TRIGGER study_drop_views BEFORE DELETE ON tuner.study
	FOR EACH ROW EXECUTE FUNCTION tuner._drop_views();

-- Trigger: a trial finished (complete, failed or interrupted, however it
-- got there: report, fail, a runner, a worker, a restart, copy_trials);
-- NOTIFY tuner_trials with {"study", "trial", "number", "state",
-- "value"} (value: the objective, null unless complete).
CREATE FUNCTION tuner._notify_trial()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	SELECT * INTO s FROM tuner.study x WHERE x.id = NEW.study_id;
	PERFORM pg_catalog.pg_notify('tuner_trials', pg_catalog.jsonb_build_object(
		-- a payload holds at most 8000 bytes
		'study', pg_catalog.left(s.name, 1000),
		'trial', NEW.id,
		'number', NEW.number,
		'state', NEW.state,
		'value', (SELECT ob.value FROM tuner.observation ob
					JOIN tuner.metric m ON m.id = ob.metric_id
				   WHERE ob.trial_id = NEW.id AND m.study_id = s.id
					 AND m.name = s.objective))::text);
	RETURN NULL;
END;
$$;

CREATE TRIGGER trial_finished_notify AFTER UPDATE OF state ON tuner.trial
	FOR EACH ROW
	WHEN (OLD.state IS DISTINCT FROM NEW.state
		  AND NEW.state IN ('complete', 'failed', 'interrupted'))
	EXECUTE FUNCTION tuner._notify_trial();
CREATE TRIGGER trial_inserted_notify AFTER INSERT ON tuner.trial
	FOR EACH ROW
	WHEN (NEW.state IN ('complete', 'failed', 'interrupted'))
	EXECUTE FUNCTION tuner._notify_trial();

-- Why a value is not one of a parameter's: NULL when it is, else
-- {reason, message}, reason one of wrong_type, out_of_bounds,
-- unknown_choice.
CREATE FUNCTION tuner._value_problem(p tuner.parameter, value jsonb)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_type text := pg_catalog.jsonb_typeof(value);
	v numeric;
BEGIN
	IF p.kind = 'bool' THEN
		IF v_type <> 'boolean' THEN
			RETURN ARRAY['wrong_type', pg_catalog.format('must be true or false, not %s', value)];
		END IF;
		RETURN NULL;
	END IF;
	IF p.kind = 'categorical' THEN
		IF v_type <> 'string' THEN
			RETURN ARRAY['wrong_type', pg_catalog.format('must be a string (one of its choices), not %s', value)];
		END IF;
		IF NOT (value #>> '{}') = ANY (p.choices) THEN
			RETURN ARRAY['unknown_choice', pg_catalog.format('%s is not one of its choices (%s)',
				value, pg_catalog.array_to_string(p.choices, ', '))];
		END IF;
		RETURN NULL;
	END IF;
	IF v_type <> 'number' THEN
		RETURN ARRAY['wrong_type', pg_catalog.format('must be a number, not %s', value)];
	END IF;
	v := value::numeric;
	IF p.kind = 'int' AND v <> pg_catalog.trunc(v) THEN
		RETURN ARRAY['wrong_type', pg_catalog.format('must be an integer, not %s', value)];
	END IF;
	IF v < p.low::numeric OR v > p.high::numeric THEN
		RETURN ARRAY['out_of_bounds', pg_catalog.format('%s is outside its bounds [%s, %s]',
			CASE WHEN pg_catalog.length(value::text) > 30
				 THEN pg_catalog.left(value::text, 20) || '...' ELSE value::text END, p.low, p.high)];
	END IF;
	RETURN NULL;
END;
$$;

-- A configuration (name -> value) checked against a study's space and
-- completed: known parameters' values are checked and normalised (an int
-- as a JSON integer, a float as a double), missing ones take their
-- default, unknown ones are dropped, inactive conditional ones take their
-- default.  problem is {reason, message} (reasons: wrong_type,
-- out_of_bounds, unknown_choice, missing_parameter) or NULL.
CREATE FUNCTION tuner._complete_config(p_study_id bigint, params jsonb,
									   OUT config jsonb, OUT problem text[],
									   OUT defaulted text[], OUT dropped text[])
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	v jsonb;
BEGIN
	config := '{}';
	defaulted := '{}';
	dropped := ARRAY(SELECT k FROM pg_catalog.jsonb_object_keys(params) AS k
					  WHERE NOT EXISTS (SELECT 1 FROM tuner.parameter q
										 WHERE q.study_id = p_study_id AND q.name = k)
					  ORDER BY k);
	FOR p IN SELECT * FROM tuner.parameter q WHERE q.study_id = p_study_id ORDER BY q.position
	LOOP
		v := params -> p.name;
		IF v IS NULL OR pg_catalog.jsonb_typeof(v) = 'null' THEN
			IF p.default_value IS NULL THEN
				problem := ARRAY['missing_parameter',
					pg_catalog.format('parameter %s has no value and no default', pg_catalog.to_jsonb(p.name))];
				RETURN;
			END IF;
			defaulted := defaulted || p.name;
			v := p.default_value;
		ELSE
			problem := tuner._value_problem(p, v);
			IF problem IS NOT NULL THEN
				problem[2] := pg_catalog.format('parameter %s %s', pg_catalog.to_jsonb(p.name), problem[2]);
				RETURN;
			END IF;
			v := CASE p.kind WHEN 'int' THEN pg_catalog.to_jsonb((v::numeric)::bigint)
							 WHEN 'float' THEN pg_catalog.to_jsonb(v::float8)
							 ELSE v END;
		END IF;
		config := config || pg_catalog.jsonb_build_object(p.name, v);
	END LOOP;
	config := tuner._apply_conditions(p_study_id, config);
END;
$$;

-- Queue a configuration to be tried next: suggest_next hands queued
-- configurations out first, in the order they were queued.  Values are
-- checked like the study's own suggestions; missing parameters take their
-- defaults.  Returns the trial id (state queued, source manual).
CREATE FUNCTION tuner.enqueue(study text, params jsonb)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	c record;
	v_number int;
	v_trial bigint;
BEGIN
	s := tuner._find_study(study);
	PERFORM tuner._not_null(params, 'params');
	IF pg_catalog.jsonb_typeof(params) <> 'object' THEN
		RAISE EXCEPTION 'params must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(params)),
				  HINT = 'Pass {"parameter": value, ...}.';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	-- the same lock as suggest_next: trial numbers are max + 1
	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	c := tuner._complete_config(s.id, params);
	IF pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'parameter "%" is not in study "%"', c.dropped[1], s.name
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	IF c.problem IS NOT NULL THEN
		RAISE EXCEPTION '%', c.problem[2]
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = CASE c.problem[1] WHEN 'missing_parameter' THEN 'Give it a value.'
							  ELSE 'Give a value the parameter''s kind, bounds or choices allow.' END;
	END IF;
	SELECT COALESCE(pg_catalog.max(t.number), 0) + 1 INTO v_number
	  FROM tuner.trial t WHERE t.study_id = s.id;
	INSERT INTO tuner.trial (study_id, number, config, state, source)
	VALUES (s.id, v_number, c.config, 'queued', 'manual')
	RETURNING id INTO v_trial;
	RETURN v_trial;
END;
$$;

-- Import the complete trials of another study, with every metric they
-- measured, as complete trials (source copied) of to_study.  Parameters
-- are matched by name: a missing one takes to_study's default, an extra
-- one is dropped, and a trial with a value outside to_study's space (or a
-- missing parameter without default, or no value of to_study's
-- objective) is skipped.  A trial copied before is not copied again.
-- filter: {"numbers": [..]} (trial numbers), {"sources": [..]}, {"best":
-- n} (the n best by from_study's direction).  Returns {"copied",
-- "skipped", "reasons": {reason: count}, "defaulted": [parameters],
-- "dropped": [parameters]}.
CREATE FUNCTION tuner.copy_trials(from_study text, to_study text,
								  filter jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	f tuner.study;
	s tuner.study;
	t tuner.trial;
	c record;
	k text;
	v_numbers int[];
	v_sources text[];
	v_best int;
	v_number int;
	v_trial bigint;
	v_copied int := 0;
	v_reasons jsonb := '{}';
	v_defaulted text[] := '{}';
	v_dropped text[] := '{}';
	v_reason text;
BEGIN
	f := tuner._find_study(from_study);
	s := tuner._find_study(to_study);
	PERFORM tuner._not_null(filter, 'filter');
	IF f.id = s.id THEN
		RAISE EXCEPTION 'cannot copy the trials of study "%" into itself', s.name
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF pg_catalog.jsonb_typeof(filter) <> 'object' THEN
		RAISE EXCEPTION 'filter must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use {}, {"numbers": [1, 2]}, {"sources": ["model"]} or {"best": 10}.';
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(filter)
	LOOP
		IF k NOT IN ('numbers', 'sources', 'best') THEN
			RAISE EXCEPTION 'unknown filter key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known keys: numbers, sources, best.';
		END IF;
	END LOOP;
	IF filter ? 'numbers' THEN
		IF pg_catalog.jsonb_typeof(filter -> 'numbers') <> 'array' THEN
			RAISE EXCEPTION 'filter "numbers" must be an array of trial numbers'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		v_numbers := ARRAY(SELECT tuner._json_int(e, 'filter "numbers"', 1, 2147483647)
							 FROM pg_catalog.jsonb_array_elements(filter -> 'numbers') e);
	END IF;
	IF filter ? 'sources' THEN
		IF pg_catalog.jsonb_typeof(filter -> 'sources') <> 'array'
		   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(filter -> 'sources') e
					   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
			RAISE EXCEPTION 'filter "sources" must be an array of strings'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Sources are default, design, model, random, manual and copied.';
		END IF;
		v_sources := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(filter -> 'sources'));
	END IF;
	IF filter ? 'best' THEN
		v_best := tuner._json_int(filter -> 'best', 'filter "best"', 1, 2147483647);
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;

	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	FOR t IN
		SELECT x.* FROM tuner.trial x
		  LEFT JOIN tuner.observation ob ON ob.trial_id = x.id
			   AND ob.metric_id = (SELECT m.id FROM tuner.metric m
									WHERE m.study_id = f.id AND m.name = f.objective)
		 WHERE x.study_id = f.id AND x.state = 'complete'
		   AND (v_numbers IS NULL OR x.number = ANY (v_numbers))
		   AND (v_sources IS NULL OR x.source = ANY (v_sources))
		 ORDER BY CASE WHEN v_best IS NULL THEN 0
					   WHEN f.direction = 'minimize' THEN ob.value ELSE -ob.value END NULLS LAST,
				  x.number
		 LIMIT v_best
	LOOP
		v_reason := NULL;
		c := tuner._complete_config(s.id, t.config);
		IF c.problem IS NOT NULL THEN
			v_reason := c.problem[1];
		ELSIF NOT EXISTS (SELECT 1 FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
						   WHERE ob.trial_id = t.id AND m.name = s.objective) THEN
			v_reason := 'no_objective';
		ELSIF EXISTS (SELECT 1 FROM tuner.trial x
					   WHERE x.study_id = s.id AND x.source = 'copied'
						 AND x.details -> 'copied_from' -> 'trial' = pg_catalog.to_jsonb(t.id)) THEN
			v_reason := 'already_copied';
		END IF;
		IF v_reason IS NOT NULL THEN
			v_reasons := v_reasons || pg_catalog.jsonb_build_object(v_reason,
				COALESCE((v_reasons ->> v_reason)::int, 0) + 1);
			CONTINUE;
		END IF;
		v_defaulted := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_defaulted || c.defaulted) u ORDER BY u);
		v_dropped := ARRAY(SELECT DISTINCT u FROM pg_catalog.unnest(v_dropped || c.dropped) u ORDER BY u);

		SELECT COALESCE(pg_catalog.max(x.number), 0) + 1 INTO v_number
		  FROM tuner.trial x WHERE x.study_id = s.id;
		-- metrics this study does not know yet are recorded, as report does
		INSERT INTO tuner.metric (study_id, name, role)
		SELECT s.id, m.name, 'recorded'
		  FROM tuner.observation ob JOIN tuner.metric m ON m.id = ob.metric_id
		 WHERE ob.trial_id = t.id
		 ORDER BY m.name
		ON CONFLICT (study_id, name) DO NOTHING;
		-- running first, so that the observations are there when it completes
		INSERT INTO tuner.trial (study_id, number, config, state, source, created_at,
								 started_at, details)
		VALUES (s.id, v_number, c.config, 'running', 'copied', pg_catalog.now(), t.started_at,
				pg_catalog.jsonb_build_object('copied_from', pg_catalog.jsonb_build_object(
					'study', f.name, 'trial', t.id, 'number', t.number)))
		RETURNING id INTO v_trial;
		INSERT INTO tuner.observation (trial_id, metric_id, value, reported_at)
		SELECT v_trial, mt.id, ob.value, ob.reported_at
		  FROM tuner.observation ob
		  JOIN tuner.metric m ON m.id = ob.metric_id
		  JOIN tuner.metric mt ON mt.study_id = s.id AND mt.name = m.name
		 WHERE ob.trial_id = t.id;
		UPDATE tuner.trial SET state = 'complete', finished_at = t.finished_at
		 WHERE id = v_trial;
		v_copied := v_copied + 1;
	END LOOP;
	RETURN pg_catalog.jsonb_build_object(
		'copied', v_copied,
		'skipped', (SELECT COALESCE(pg_catalog.sum(e.value::int), 0) FROM pg_catalog.jsonb_each(v_reasons) e),
		'reasons', v_reasons, 'defaulted', v_defaulted, 'dropped', v_dropped);
END;
$$;

-- The native rows (src/core/space.h) of trials, in the given order, over
-- the named parameters: what suggest_next builds from its history.
CREATE FUNCTION tuner._native_rows(p_study_id bigint, ids bigint[], names text[])
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(r.x ORDER BY o.k)
  FROM pg_catalog.unnest($2) WITH ORDINALITY AS o(id, k)
  JOIN tuner.trial t ON t.id = o.id
 CROSS JOIN LATERAL (
	SELECT pg_catalog.array_agg(CASE p.kind
				WHEN 'bool' THEN CASE WHEN (t.config -> p.name)::bool THEN 1 ELSE 0 END
				WHEN 'categorical' THEN pg_catalog.array_position(p.choices, t.config ->> p.name) - 1
				ELSE (t.config -> p.name)::float8 END ORDER BY n.j) AS x
	  FROM pg_catalog.unnest($3) WITH ORDINALITY AS n(name, j)
	  JOIN tuner.parameter p ON p.study_id = $1 AND p.name = n.name) r;
$$;

-- Compute a trial's suggestion again from what it saw (tuner.suggestion):
-- the same space, trials, seeds and warm start.  Returns the
-- configuration, which equals the trial's config.
CREATE FUNCTION tuner.replay_suggestion(trial bigint)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	g tuner.suggestion;
	w tuner.model;
	r record;
	v_ids bigint[];
	v_x_observed float8[];
	v_y_observed float8[];
	v_y_aux float8[];
	v_params jsonb;
	v_failed bigint[];
	v_other bigint[];
	v_con_ids bigint[];
	v_con_signs float8[];
	v_con_bounds float8[];
	v_y_constraint float8[];
	v_lin record;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	SELECT * INTO t FROM tuner.trial x WHERE x.id = p_trial;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object';
	END IF;
	SELECT * INTO g FROM tuner.suggestion x WHERE x.trial_id = t.id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % was not suggested by the study''s algorithm', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('Its source is %s.', t.source),
				  HINT = 'Only trials made by the design, the model or random search (source design, model or random) can be replayed.';
	END IF;
	IF g.transfer THEN
		RAISE EXCEPTION 'trial % learned from earlier studies and cannot be replayed', p_trial
			USING ERRCODE = 'feature_not_supported',
				  DETAIL = 'The trials of the studies in transfer_from are not recorded with the suggestion.';
	END IF;

	-- Every trial it saw, with the same values, and every parameter.
	v_ids := g.observed || g.pending || g.other;
	IF (SELECT pg_catalog.count(*) FROM tuner.trial x
		 WHERE x.study_id = t.study_id AND x.id = ANY (v_ids)) <> pg_catalog.cardinality(v_ids)
	   OR (SELECT pg_catalog.count(*) FROM tuner.parameter p
			WHERE p.study_id = t.study_id AND p.name = ANY (g.parameters)) <> pg_catalog.cardinality(g.parameters)
	   OR (g.warm_model IS NOT NULL AND NOT EXISTS (SELECT 1 FROM tuner.model m WHERE m.id = g.warm_model)) THEN
		RAISE EXCEPTION 'the study of trial % changed since its suggestion', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A trial, parameter or model it was computed from is gone.';
	END IF;
	v_x_observed := tuner._native_rows(t.study_id, g.observed, g.parameters);
	SELECT pg_catalog.array_agg(g.sign * ob.value ORDER BY o.k) INTO v_y_observed
	  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k)
	  JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = g.objective_metric;
	-- several objectives: the same scalarization, from the same seed
	IF g.objective_metrics IS NOT NULL AND pg_catalog.cardinality(g.observed) > 0 THEN
		v_y_observed := tuner._parego_scalarize(
			tuner._objective_matrix(g.observed, g.objective_metrics, g.objective_signs), g.seed);
	END IF;
	IF g.aux_metrics IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT ax.value
					  FROM pg_catalog.unnest(g.aux_metrics) WITH ORDINALITY AS a(id, j)
					  LEFT JOIN tuner.observation ax ON ax.trial_id = o.id AND ax.metric_id = a.id
					 ORDER BY a.j) ORDER BY o.k)
		  INTO v_y_aux
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	IF tuner._history_md5(v_y_observed, v_y_aux) <> g.history_md5 THEN
		RAISE EXCEPTION 'the study of trial % changed since its suggestion', p_trial
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = 'A metric value of a trial it was computed from is different now.';
	END IF;
	IF g.warm_model IS NOT NULL THEN
		SELECT * INTO w FROM tuner.model m WHERE m.id = g.warm_model;
	END IF;
	-- As suggest_next: failed trials feed the feasibility model, the other
	-- unobserved ones are only kept from being suggested again; bounded
	-- constraint metrics and parameter constraints as the study has them.
	SELECT pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state = 'failed'),
		   pg_catalog.array_agg(o.id ORDER BY o.k) FILTER (WHERE x.state <> 'failed')
	  INTO v_failed, v_other
	  FROM pg_catalog.unnest(g.other) WITH ORDINALITY AS o(id, k)
	  JOIN tuner.trial x ON x.id = o.id;
	SELECT pg_catalog.array_agg(m.id ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -1 ELSE 1 END ORDER BY m.id),
		   pg_catalog.array_agg(CASE m.direction WHEN 'maximize' THEN -m.bound ELSE m.bound END ORDER BY m.id)
	  INTO v_con_ids, v_con_signs, v_con_bounds
	  FROM tuner.metric m
	 WHERE m.study_id = t.study_id AND m.role = 'constraint' AND m.bound IS NOT NULL;
	IF v_con_ids IS NOT NULL THEN
		SELECT pg_catalog.array_agg(ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, j)
					  LEFT JOIN tuner.observation cx ON cx.trial_id = o.id AND cx.metric_id = c.id
					 ORDER BY c.j) ORDER BY o.k)
		  INTO v_y_constraint
		  FROM pg_catalog.unnest(g.observed) WITH ORDINALITY AS o(id, k);
	END IF;
	SELECT * INTO v_lin FROM tuner._linear_constraints(t.study_id);

	r := tuner._suggest_point(g.kinds, g.lows, g.highs, g.log_scales, g.n_choices,
							  v_x_observed, v_y_observed,
							  tuner._native_rows(t.study_id, g.pending, g.parameters),
							  tuner._native_rows(t.study_id, v_other, g.parameters),
							  g.n_initial, g.design_index, g.seed, g.design_seed,
							  w.lengthscales, w.outputscale, w.noise, w.mean,
							  g.algorithm, v_y_aux, g.icm_rank,
							  w.task_loadings, w.task_variance, w.task_noise,
							  w.task_mean, NULL, NULL,
							  g.cluster_members, g.cluster_metric, g.aux_weights,
							  g.warm_cluster_tasks, g.warm_cluster_rank,
							  g.warm_cluster_lengthscales, g.warm_cluster_loadings,
							  g.warm_cluster_variance, g.warm_cluster_noise,
							  g.warm_cluster_mean,
							  tuner._native_rows(t.study_id, v_failed, g.parameters),
							  v_y_constraint, v_con_bounds,
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict);

	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(r.config[n.j])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(r.config[n.j])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(r.config[n.j] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(r.config[n.j])::int + 1]) END)
	  INTO v_params
	  FROM pg_catalog.unnest(g.parameters) WITH ORDINALITY AS n(name, j)
	  JOIN tuner.parameter p ON p.study_id = t.study_id AND p.name = n.name;
	RETURN tuner._apply_conditions(t.study_id, g.fixed || v_params);
END;
$$;

-------------------------------------------------------------------------------
-- Integrity: the trial state machine, enforced on the tables themselves
-------------------------------------------------------------------------------
--
-- A trial moves queued -> running -> complete | failed | interrupted (queued
-- may also end directly).  A finished trial is immutable: its state, config
-- and timestamps never change again, and its observations are neither
-- changed nor removed (only its runner details may be added and its job
-- reference cleared when the job row is deleted).  These rules hold for
-- every writer, not only the tuner functions.  Inserting finished history
-- stays possible, because pg_restore and bulk loaders do exactly that:
-- trials inserted as complete, then their observations.  A failed or
-- interrupted trial never gets observations.

CREATE FUNCTION tuner._trial_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.id <> OLD.id OR NEW.study_id <> OLD.study_id OR NEW.number <> OLD.number THEN
		RAISE EXCEPTION 'the identity of trial % cannot change', OLD.id
			USING ERRCODE = 'integrity_constraint_violation',
				  HINT = 'A trial keeps its id, study and number.';
	END IF;
	IF OLD.state IN ('complete', 'failed', 'interrupted') THEN
		IF NEW.state IS DISTINCT FROM OLD.state
		   OR NEW.config IS DISTINCT FROM OLD.config
		   OR NEW.source IS DISTINCT FROM OLD.source
		   OR NEW.error IS DISTINCT FROM OLD.error
		   OR NEW.seed IS DISTINCT FROM OLD.seed
		   OR NEW.created_at IS DISTINCT FROM OLD.created_at
		   OR NEW.started_at IS DISTINCT FROM OLD.started_at
		   OR NEW.finished_at IS DISTINCT FROM OLD.finished_at THEN
			RAISE EXCEPTION 'trial % is % and cannot change', OLD.id, OLD.state
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('It is trial number %s of study "%s".', OLD.number,
												 (SELECT s.name FROM tuner.study s WHERE s.id = OLD.study_id)),
					  HINT = 'A finished trial is immutable; ask tuner.suggest_next() for a new one.';
		END IF;
		RETURN NEW;
	END IF;
	IF NEW.config IS DISTINCT FROM OLD.config AND OLD.state <> 'queued' THEN
		RAISE EXCEPTION 'the configuration of running trial % cannot change', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report or fail the trial, and ask tuner.suggest_next() for a new configuration.';
	END IF;
	IF OLD.state = 'running' AND NEW.state = 'queued' THEN
		RAISE EXCEPTION 'running trial % cannot go back to queued', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'A running trial ends as complete, failed or interrupted.';
	END IF;
	IF NEW.state = 'complete' AND NOT EXISTS (
			SELECT 1 FROM tuner.observation o
			  JOIN tuner.metric m ON m.id = o.metric_id
			  JOIN tuner.study s ON s.id = m.study_id AND m.name = s.objective
			 WHERE o.trial_id = NEW.id) THEN
		RAISE EXCEPTION 'trial % cannot be complete without a value of its objective', OLD.id
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Use tuner.report(), which records the metrics and completes the trial.';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_guard BEFORE UPDATE ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_guard();

-- Observations are written once: never changed, removed only with their
-- trial, study or metric, and never added to a failed or interrupted
-- trial (see above for why complete trials accept inserts).
CREATE FUNCTION tuner._observation_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_state text;
	v_trial bigint := CASE TG_OP WHEN 'INSERT' THEN NEW.trial_id ELSE OLD.trial_id END;
BEGIN
	SELECT state INTO v_state FROM tuner.trial WHERE id = v_trial;
	IF TG_OP = 'DELETE' THEN
		IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM tuner.metric WHERE id = OLD.metric_id) THEN
			RETURN OLD;		-- the trial, study or metric is being deleted
		END IF;
		IF v_state IN ('running', 'queued') THEN
			RETURN OLD;
		END IF;
	ELSIF TG_OP = 'INSERT' AND (v_state IN ('running', 'queued', 'complete') OR NOT FOUND) THEN
		RETURN NEW;			-- an unknown trial is the foreign key's error
	END IF;
	RAISE EXCEPTION 'the observations of trial % cannot change: it is %', v_trial, v_state
		USING ERRCODE = 'object_not_in_prerequisite_state',
			  HINT = 'Metrics are recorded once, by tuner.report() while the trial runs.';
END;
$$;

CREATE TRIGGER observation_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.observation
	FOR EACH ROW EXECUTE FUNCTION tuner._observation_guard();

-------------------------------------------------------------------------------
-- Plots from SQL (issue 9): tuner.plot draws a study as standalone SVG.
-- plpgsql gathers and checks the data; the drawing (scales, ticks, SVG,
-- XML escaping) is C in src/core/plot_*.c and svg.c, via src/pg/plot_glue.c.
-------------------------------------------------------------------------------

-- Not STRICT: NULL marks an absent optional part (the default line, the
-- categories, a panel); the C side rejects NULL where it is required.
CREATE FUNCTION tuner._plot_convergence(title text, y_label text,
										numbers float8[], "values" float8[],
										failed float8[], default_value float8,
										minimize bool, log_y bool,
										width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_convergence'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_slice(title text, x_label text, y_label text,
								  x float8[], y float8[], numbers float8[],
								  categories text[], x_log bool, log_y bool,
								  minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_slice'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_pareto(title text, x_label text, y_label text,
								   x float8[], y float8[], numbers float8[],
								   x_minimize bool, y_minimize bool,
								   width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_pareto'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_importance(title text, names text[],
									   lasso float8[], lengthscales float8[],
									   width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_importance'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_heatmap(title text, names text[], matrix float8[],
									width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_heatmap'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- A string option of a plot, or NULL when absent; required raises the
-- error for an absent one.
CREATE FUNCTION tuner._plot_string(options jsonb, key text, kind text,
								   required bool)
RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF NOT options ? key THEN
		IF required THEN
			RAISE EXCEPTION 'plot kind % needs the option "%"', kind, key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = CASE kind
						  WHEN 'slice' THEN 'For example {"parameter": "x1"}.'
						  ELSE 'For example {"x": "throughput", "y": "p99_latency"}.' END;
		END IF;
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(options -> key) IS DISTINCT FROM 'string' THEN
		RAISE EXCEPTION 'plot option "%" must be a string', key
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options -> key);
	END IF;
	RETURN options ->> key;
END;
$$;

-- The options every plot takes (width, height, title, log_y) checked
-- against the keys its kind allows.
CREATE FUNCTION tuner._plot_options(options jsonb, kind text, allowed text[],
									OUT width int, OUT height int,
									OUT title text, OUT log_y bool)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v_key text;
BEGIN
	PERFORM tuner._not_null(options, 'options');
	IF pg_catalog.jsonb_typeof(options) <> 'object' THEN
		RAISE EXCEPTION 'plot options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', options),
				  HINT = 'For example {"width": 800, "height": 500}.';
	END IF;
	allowed := allowed || ARRAY['width', 'height', 'title'];
	FOR v_key IN SELECT pg_catalog.jsonb_object_keys(options)
	LOOP
		IF NOT v_key = ANY (allowed) THEN
			RAISE EXCEPTION 'unknown option "%" for plot kind %', v_key, kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('The options of plot kind %s are %s.', kind,
											   pg_catalog.array_to_string(allowed, ', '));
		END IF;
	END LOOP;
	width := 720;
	IF options ? 'width' THEN
		width := tuner._json_int(options -> 'width', 'plot option width', 200, 4000);
	END IF;
	height := 480;
	IF options ? 'height' THEN
		height := tuner._json_int(options -> 'height', 'plot option height', 200, 4000);
	END IF;
	title := tuner._plot_string(options, 'title', kind, false);
	log_y := false;
	IF options ? 'log_y' THEN
		IF pg_catalog.jsonb_typeof(options -> 'log_y') IS DISTINCT FROM 'boolean' THEN
			RAISE EXCEPTION 'plot option "log_y" must be true or false'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', options -> 'log_y');
		END IF;
		log_y := (options ->> 'log_y')::bool;
	END IF;
END;
$$;

-- "name (unit)" of a metric of the study, or just its name.
CREATE FUNCTION tuner._plot_metric_label(study_id bigint, metric text)
RETURNS text
LANGUAGE sql STABLE PARALLEL SAFE
AS $$
	SELECT CASE WHEN m.unit IS NULL OR m.unit = '' THEN $2
				ELSE pg_catalog.format('%s (%s)', $2, m.unit) END
	  FROM (SELECT NULL) AS one
	  LEFT JOIN tuner.metric m ON m.study_id = $1 AND m.name = $2
$$;

-- The study's complete trials that reported the objective, or the error
-- when there are none.
CREATE FUNCTION tuner._plot_require_trials(s tuner.study)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF NOT EXISTS (SELECT 1
					 FROM tuner.trial t
					 JOIN tuner.observation ob ON ob.trial_id = t.id
					 JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
					WHERE t.study_id = s.id AND t.state = 'complete') THEN
		RAISE EXCEPTION 'study "%" has no complete trials to plot', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report trials with tuner.report() (or run them with tuner.run()) first.';
	END IF;
END;
$$;

-- Convergence: each complete trial's objective and the best so far by
-- trial number, the default's value, failed trials.
CREATE FUNCTION tuner._plot_convergence_of(s tuner.study, o record)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_numbers float8[];
	v_values float8[];
	v_failed float8[];
	v_default float8;
BEGIN
	PERFORM tuner._plot_require_trials(s);
	SELECT pg_catalog.array_agg(t.number::float8 ORDER BY t.number),
		   pg_catalog.array_agg(ob.value ORDER BY t.number)
	  INTO v_numbers, v_values
	  FROM tuner.trial t
	  JOIN tuner.observation ob ON ob.trial_id = t.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE t.study_id = s.id AND t.state = 'complete';
	SELECT COALESCE(pg_catalog.array_agg(t.number::float8 ORDER BY t.number), '{}')
	  INTO v_failed
	  FROM tuner.trial t
	 WHERE t.study_id = s.id AND t.state = 'failed';
	SELECT ob.value INTO v_default
	  FROM tuner.trial t
	  JOIN tuner.observation ob ON ob.trial_id = t.id
	  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
	 WHERE t.study_id = s.id AND t.state = 'complete' AND t.source = 'default'
	 ORDER BY t.number LIMIT 1;
	RETURN tuner._plot_convergence(
		COALESCE(o.title, pg_catalog.format('%s: %s by trial (%s)', s.name, s.objective, s.direction)),
		tuner._plot_metric_label(s.id, s.objective),
		v_numbers, v_values, v_failed, v_default, s.direction = 'minimize',
		o.log_y, o.width, o.height);
END;
$$;

-- Slice: the objective against one parameter's value in each complete
-- trial (its default where the trial's config lacks it).
CREATE FUNCTION tuner._plot_slice_of(s tuner.study, o record, p_name text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
	v_categories text[];
BEGIN
	SELECT * INTO p FROM tuner.parameter WHERE study_id = s.id AND name = p_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no parameter "%"', s.name, p_name
			USING ERRCODE = 'undefined_object',
				  HINT = pg_catalog.format('Its parameters are: %s.',
						   COALESCE((SELECT pg_catalog.string_agg(pg_catalog.quote_ident(q.name), ', ' ORDER BY q.position)
									   FROM tuner.parameter q WHERE q.study_id = s.id), 'none'));
	END IF;
	PERFORM tuner._plot_require_trials(s);
	IF p.kind = 'bool' THEN
		v_categories := ARRAY['false', 'true'];
	ELSIF p.kind = 'categorical' THEN
		v_categories := p.choices;
	END IF;
	SELECT pg_catalog.array_agg(q.x ORDER BY q.number),
		   pg_catalog.array_agg(q.value ORDER BY q.number),
		   pg_catalog.array_agg(q.number::float8 ORDER BY q.number)
	  INTO v_x, v_y, v_numbers
	  FROM (SELECT t.number, ob.value,
				   CASE WHEN v_categories IS NULL THEN (r.v)::float8
						ELSE (pg_catalog.array_position(v_categories, r.v) - 1)::float8 END AS x
			  FROM tuner.trial t
			  JOIN tuner.observation ob ON ob.trial_id = t.id
			  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
			 CROSS JOIN LATERAL (SELECT COALESCE(t.config ->> p.name, p.default_value #>> '{}') AS v) r
			 WHERE t.study_id = s.id AND t.state = 'complete') q
	 WHERE q.x IS NOT NULL;
	IF v_x IS NULL THEN
		RAISE EXCEPTION 'no complete trial of study "%" has a value for parameter "%"', s.name, p.name
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	RETURN tuner._plot_slice(
		COALESCE(o.title, pg_catalog.format('%s: %s against %s', s.name, s.objective, p.name)),
		p.name || CASE WHEN p.log_scale THEN ' (log scale)' ELSE '' END,
		tuner._plot_metric_label(s.id, s.objective),
		v_x, v_y, v_numbers, v_categories, p.log_scale, o.log_y,
		s.direction = 'minimize', o.width, o.height);
END;
$$;

-- A metric of the study with its direction, or the error.
CREATE FUNCTION tuner._plot_metric(s tuner.study, p_name text)
RETURNS tuner.metric
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	m tuner.metric;
BEGIN
	SELECT * INTO m FROM tuner.metric WHERE study_id = s.id AND name = p_name;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study "%" has no metric "%"', s.name, p_name
			USING ERRCODE = 'undefined_object',
				  HINT = pg_catalog.format('Its metrics are: %s.',
						   (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(q.name), ', ' ORDER BY q.id)
							  FROM tuner.metric q WHERE q.study_id = s.id));
	END IF;
	m.direction := COALESCE(m.direction, CASE WHEN m.name = s.objective THEN s.direction END);
	IF m.direction IS NULL THEN
		RAISE EXCEPTION 'metric "%" of study "%" has no direction, so its better end is unknown', p_name, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = pg_catalog.format('Give it one: tuner.add_metric(%L, %L, direction => ''minimize'').', s.name, p_name);
	END IF;
	RETURN m;
END;
$$;

-- Pareto: two metrics of every complete trial that reported both.
CREATE FUNCTION tuner._plot_pareto_of(s tuner.study, o record, p_x text, p_y text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	mx tuner.metric;
	my tuner.metric;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
BEGIN
	mx := tuner._plot_metric(s, p_x);
	my := tuner._plot_metric(s, p_y);
	IF mx.id = my.id THEN
		RAISE EXCEPTION 'a pareto plot needs two different metrics, got "%" twice', p_x
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT pg_catalog.array_agg(ox.value ORDER BY t.number),
		   pg_catalog.array_agg(oy.value ORDER BY t.number),
		   pg_catalog.array_agg(t.number::float8 ORDER BY t.number)
	  INTO v_x, v_y, v_numbers
	  FROM tuner.trial t
	  JOIN tuner.observation ox ON ox.trial_id = t.id AND ox.metric_id = mx.id
	  JOIN tuner.observation oy ON oy.trial_id = t.id AND oy.metric_id = my.id
	 WHERE t.study_id = s.id AND t.state = 'complete';
	IF v_x IS NULL THEN
		RAISE EXCEPTION 'no complete trial of study "%" reported both "%" and "%"', s.name, p_x, p_y
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Report both metrics with tuner.report().';
	END IF;
	RETURN tuner._plot_pareto(
		COALESCE(o.title, pg_catalog.format('%s: %s (%s) and %s (%s)', s.name,
											mx.name, mx.direction, my.name, my.direction)),
		tuner._plot_metric_label(s.id, mx.name) || ', ' || mx.direction,
		tuner._plot_metric_label(s.id, my.name) || ', ' || my.direction,
		v_x, v_y, v_numbers, mx.direction = 'minimize', my.direction = 'minimize',
		o.width, o.height);
END;
$$;

-- Importance: the Lasso ranking (tuner.lasso_rank) and/or the GP
-- length-scales of the latest single- or multi-task model.  method 'auto'
-- shows what is available: Lasso when it can rank (enough complete
-- trials, a varying objective), length-scales when a model exists.
CREATE FUNCTION tuner._plot_importance_of(s tuner.study, o record, p_method text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_method text := COALESCE(p_method, 'auto');
	v_names text[];
	v_lasso float8[];
	v_ls float8[];
	m tuner.model;
	v_rank jsonb;
	v_why text;
BEGIN
	IF v_method NOT IN ('auto', 'lasso', 'lengthscale', 'both') THEN
		RAISE EXCEPTION 'unknown importance method "%"', v_method
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The methods are auto, lasso, lengthscale and both.';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	IF v_method IN ('auto', 'lengthscale', 'both') THEN
		SELECT * INTO m FROM tuner.model
		 WHERE study_id = s.id AND kind IN ('gp', 'icm') AND parameters IS NOT NULL
		 ORDER BY id DESC LIMIT 1;
		IF NOT FOUND AND v_method <> 'auto' THEN
			RAISE EXCEPTION 'study "%" has no GP model yet', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'tuner.suggest_next() fits one after the initial design (algorithm gp-ei or icm); or use {"method": "lasso"}.';
		END IF;
	END IF;
	IF v_method IN ('lasso', 'both') THEN
		PERFORM tuner._plot_require_trials(s);
		SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(r.parameter, r.importance) ORDER BY r.rank)
		  INTO v_rank FROM tuner.lasso_rank(s.name) r;
	ELSIF v_method = 'auto' THEN
		BEGIN
			SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_array(r.parameter, r.importance) ORDER BY r.rank)
			  INTO v_rank FROM tuner.lasso_rank(s.name) r;
		EXCEPTION WHEN object_not_in_prerequisite_state THEN
			GET STACKED DIAGNOSTICS v_why = MESSAGE_TEXT;
			v_rank := NULL;
		END;
		IF v_rank IS NULL AND m.id IS NULL THEN
			RAISE EXCEPTION 'study "%" has neither a Lasso ranking nor a GP model to show', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = pg_catalog.format('Lasso: %s.', v_why),
					  HINT = 'Complete more trials (at least 5, with different objective values).';
		END IF;
	END IF;
	IF v_rank IS NOT NULL THEN
		-- rows in Lasso rank order
		SELECT pg_catalog.array_agg(e ->> 0 ORDER BY i), pg_catalog.array_agg((e ->> 1)::float8 ORDER BY i)
		  INTO v_names, v_lasso
		  FROM pg_catalog.jsonb_array_elements(v_rank) WITH ORDINALITY AS a(e, i);
	ELSE
		-- rows by length-scale, shortest (most important) first
		SELECT pg_catalog.array_agg(p.name ORDER BY COALESCE(m.lengthscales[pg_catalog.array_position(m.parameters, p.name)],
															  'Infinity'), p.position)
		  INTO v_names
		  FROM tuner.parameter p WHERE p.study_id = s.id;
	END IF;
	IF m.id IS NOT NULL THEN
		-- a parameter the model left out (disabled) has no length-scale
		v_ls := ARRAY(SELECT COALESCE(m.lengthscales[pg_catalog.array_position(m.parameters, u.name)], 'Infinity')
						FROM pg_catalog.unnest(v_names) WITH ORDINALITY AS u(name, i) ORDER BY u.i);
	END IF;
	RETURN tuner._plot_importance(
		COALESCE(o.title, pg_catalog.format('%s: parameter importance for %s', s.name, s.objective)
						  || CASE WHEN m.id IS NOT NULL
								  THEN pg_catalog.format(' (model of trial %s, n = %s)',
									   (SELECT t.number FROM tuner.trial t WHERE t.id = m.trial_id), m.n)
								  ELSE '' END),
		v_names, v_lasso, v_ls, o.width, o.height);
END;
$$;

-- Task correlations: a heat map of the latest multi-task model's learned
-- correlations (tuner.task_correlation, which raises the error when the
-- study has none).
CREATE FUNCTION tuner._plot_task_correlation_of(s tuner.study, o record)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_a text[];
	v_b text[];
	v_corr float8[];
	v_names text[] := '{}';
	v_matrix float8[];
	v_row float8[];
	v_model bigint;
	v_n int;
	v_found bool;
BEGIN
	SELECT pg_catalog.array_agg(c.metric ORDER BY c.ord), pg_catalog.array_agg(c.other_metric ORDER BY c.ord),
		   pg_catalog.array_agg(c.correlation ORDER BY c.ord), pg_catalog.max(c.model), pg_catalog.max(c.n)
	  INTO v_a, v_b, v_corr, v_model, v_n
	  FROM tuner.task_correlation(s.name)
		   WITH ORDINALITY AS c(metric, other_metric, correlation, covariance, model, n, ord);
	-- the metrics in the order tuner.task_correlation lists them
	FOR i IN 1 .. pg_catalog.cardinality(v_a)
	LOOP
		IF NOT v_a[i] = ANY (v_names) THEN
			v_names := v_names || v_a[i];
		END IF;
	END LOOP;
	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		v_row := '{}';
		FOR j IN 1 .. pg_catalog.cardinality(v_names)
		LOOP
			v_found := false;
			FOR k IN 1 .. pg_catalog.cardinality(v_a)
			LOOP
				IF v_a[k] = v_names[i] AND v_b[k] = v_names[j] THEN
					v_row := v_row || v_corr[k];
					v_found := true;
					EXIT;
				END IF;
			END LOOP;
			IF NOT v_found THEN
				v_row := v_row || NULL::float8;	-- a pair the model did not learn
			END IF;
		END LOOP;
		v_matrix := v_matrix || ARRAY[v_row];
	END LOOP;
	RETURN tuner._plot_heatmap(
		COALESCE(o.title, pg_catalog.format('%s: task correlations (model of trial %s, n = %s)', s.name,
											(SELECT t.number FROM tuner.model mm JOIN tuner.trial t ON t.id = mm.trial_id
											  WHERE mm.id = v_model), v_n)),
		v_names, v_matrix, o.width, o.height);
END;
$$;

-- Draw a study as standalone SVG text.  kind: 'convergence', 'importance',
-- 'slice' (options {"parameter": name}), 'pareto' (options {"x": metric,
-- "y": metric}) or 'task_correlation'.  Every kind takes {"width": px,
-- "height": px, "title": text}; convergence and slice take {"log_y":
-- true}; importance takes {"method": "auto" | "lasso" | "lengthscale" |
-- "both"}.
CREATE FUNCTION tuner.plot(study text, kind text, options jsonb DEFAULT '{}')
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	p_kind text := $2;
	p_options jsonb := $3;
	o record;
	v_objectives text[];
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_kind, 'kind');
	PERFORM tuner._not_null(p_options, 'options');
	CASE p_kind
		WHEN 'convergence' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['log_y']);
			RETURN tuner._plot_convergence_of(s, o);
		WHEN 'slice' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['log_y', 'parameter']);
			RETURN tuner._plot_slice_of(s, o, tuner._plot_string(p_options, 'parameter', p_kind, true));
		WHEN 'pareto' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['x', 'y']);
			-- a multi-objective study: its first two objectives by default
			v_objectives := ARRAY(SELECT q.name FROM tuner._objectives(s.id) q ORDER BY q.ordinal);
			RETURN tuner._plot_pareto_of(s, o,
				COALESCE(tuner._plot_string(p_options, 'x', p_kind, pg_catalog.cardinality(v_objectives) < 2), v_objectives[1]),
				COALESCE(tuner._plot_string(p_options, 'y', p_kind, pg_catalog.cardinality(v_objectives) < 2), v_objectives[2]));
		WHEN 'importance' THEN
			o := tuner._plot_options(p_options, p_kind, ARRAY['method']);
			RETURN tuner._plot_importance_of(s, o, tuner._plot_string(p_options, 'method', p_kind, false));
		WHEN 'task_correlation' THEN
			o := tuner._plot_options(p_options, p_kind, '{}');
			RETURN tuner._plot_task_correlation_of(s, o);
		ELSE
			RAISE EXCEPTION 'unknown plot kind "%"', p_kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'The kinds are convergence, importance, slice, pareto and task_correlation.';
	END CASE;
END;
$$;

COMMENT ON FUNCTION tuner.plot(text, text, jsonb) IS
	'A study drawn as standalone SVG: convergence, importance, slice, pareto or task_correlation';

-------------------------------------------------------------------------------
-- Failures and constraints the optimizer learns from (issue 10): failed
-- trials feed a feasibility model, constraint metrics with a bound get a
-- model each, the acquisition is constrained EI (src/core/feasibility.h),
-- and known-invalid parameter combinations are never suggested.
-------------------------------------------------------------------------------

ALTER TABLE tuner.metric ADD COLUMN bound float8
	CHECK (bound <> 'NaN' AND bound > '-Infinity' AND bound < 'Infinity');

COMMENT ON COLUMN tuner.metric.bound IS
	'role constraint: a trial meets it when the metric is <= bound (direction minimize) or >= bound (maximize); NULL = recorded only, not enforced';

ALTER TABLE tuner.model DROP CONSTRAINT model_kind_check;
ALTER TABLE tuner.model ADD CONSTRAINT model_kind_check
	CHECK (kind IN ('gp', 'icm', 'cluster', 'feasibility', 'constraint'));
ALTER TABLE tuner.model ADD COLUMN outcome_mean float8,
	ADD COLUMN outcome_sd float8, ADD COLUMN bound float8,
	ADD COLUMN constraint_metric text;

COMMENT ON COLUMN tuner.model.outcome_mean IS
	'kinds feasibility and constraint: the GP models (outcome - outcome_mean) / outcome_sd; the outcome is 1 for a failed trial and 0 for one that ran, or the constraint metric (negated for a >= constraint)';
COMMENT ON COLUMN tuner.model.bound IS
	'kinds feasibility and constraint: the standardized bound; P(feasible) = Phi((bound - mean) / sd) of the latent GP';
COMMENT ON COLUMN tuner.model.constraint_metric IS
	'kind constraint: the constraint metric this model predicts';

-- Known-invalid parameter combinations: sum of coefficients[name] * value
-- <= rhs (< rhs when strict), over native values.
CREATE TABLE tuner.parameter_constraint (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	expression	text NOT NULL,
	coefficients jsonb NOT NULL CHECK (jsonb_typeof(coefficients) = 'object'),
	strict		bool NOT NULL,
	rhs			float8 NOT NULL,
	source		text NOT NULL DEFAULT 'user' CHECK (source IN ('user', 'preset')),
	UNIQUE (study_id, expression)
);

COMMENT ON TABLE tuner.parameter_constraint IS
	'Parameter combinations never suggested: sum(coefficients[p] * p) <= rhs (< rhs when strict), from tuner.add_constraint';

SELECT pg_catalog.pg_extension_config_dump('tuner.parameter_constraint', '');
SELECT pg_catalog.pg_extension_config_dump('tuner.parameter_constraint_id_seq', '');

-- The checks of a constraint metric's bound (tuner.add_metric).
CREATE FUNCTION tuner._check_metric_bound(name text, role text,
										  direction text, bound float8)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF bound IS NULL THEN
		RETURN;
	END IF;
	IF bound = 'NaN'::float8 OR bound IN ('Infinity'::float8, '-Infinity'::float8) THEN
		RAISE EXCEPTION 'the bound of metric "%" must be a finite number', name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', bound);
	END IF;
	IF role <> 'constraint' THEN
		RAISE EXCEPTION 'only a constraint metric has a bound'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Metric "%s" has role %s.', name, role),
				  HINT = 'Declare it with role => ''constraint''.';
	END IF;
	IF direction IS NULL THEN
		RAISE EXCEPTION 'constraint metric "%" needs a direction for its bound', name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'direction => ''minimize'' means value <= bound, ''maximize'' value >= bound.';
	END IF;
END;
$$;

-- Did a complete trial meet every bounded constraint of its study?  NULL
-- when the study has none or the trial is not complete; a constraint
-- metric the trial did not report is not met.
CREATE FUNCTION tuner._trial_meets_constraints(trial bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.bool_and(ob.value IS NOT NULL AND
		CASE m.direction WHEN 'maximize' THEN ob.value >= m.bound ELSE ob.value <= m.bound END)
  FROM tuner.trial t
  JOIN tuner.metric m ON m.study_id = t.study_id AND m.role = 'constraint' AND m.bound IS NOT NULL
  LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = m.id
 WHERE t.id = $1 AND t.state = 'complete';
$$;

-- tuner.trials with whether each trial met the outcome constraints.
CREATE OR REPLACE VIEW tuner.trials AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.state,
	   t.config AS params,
	   o.value,
	   COALESCE(o.metrics, '{}'::jsonb) AS metrics,
	   t.source,
	   t.predicted_mean,
	   t.predicted_sd,
	   t.acquisition,
	   t.seed,
	   t.worker,
	   t.error,
	   t.created_at,
	   t.started_at,
	   t.finished_at,
	   t.details,
	   tuner._trial_meets_constraints(t.id) AS constraints_met
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;

COMMENT ON COLUMN tuner.trials.constraints_met IS
	'Complete trials of a study with bounded constraint metrics: false when the trial broke one (or did not report it); NULL otherwise';

-- The study's parameter constraints as the rows suggest works with: one row
-- of coefficients per constraint over the enabled parameters in position
-- order, a disabled parameter's default moved to the right-hand side.
CREATE FUNCTION tuner._linear_constraints(study_id bigint,
										  OUT lin_coef float8[],
										  OUT lin_rhs float8[],
										  OUT lin_strict bool[])
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(ARRAY(
			SELECT COALESCE((pc.coefficients ->> p.name)::float8, 0)
			  FROM tuner.parameter p
			 WHERE p.study_id = pc.study_id AND p.enabled
			 ORDER BY p.position) ORDER BY pc.id),
	   pg_catalog.array_agg(pc.rhs - COALESCE((
			SELECT pg_catalog.sum((pc.coefficients ->> p.name)::float8 * (p.default_value #>> '{}')::float8)
			  FROM tuner.parameter p
			 WHERE p.study_id = pc.study_id AND NOT p.enabled
			   AND pc.coefficients ? p.name), 0) ORDER BY pc.id),
	   pg_catalog.array_agg(pc.strict ORDER BY pc.id)
  FROM tuner.parameter_constraint pc
 WHERE pc.study_id = $1;
$$;

-- Parse one side of a parameter constraint: terms "name", "number",
-- "number * name" or "number name", joined by + and -, into coefficients
-- (jsonb) and a constant.
CREATE FUNCTION tuner._parse_linear_side(side text, expression text,
										 OUT coefficients jsonb, OUT constant float8)
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v_text text := pg_catalog.regexp_replace(side, '\s+', '', 'g');
	m text[];
	v_sign float8;
	v_coef float8;
BEGIN
	coefficients := '{}';
	constant := 0;
	IF v_text = '' THEN
		RAISE EXCEPTION 'parameter constraint "%" has an empty side', expression
			USING ERRCODE = 'syntax_error',
				  HINT = 'Write e.g. ''a <= b'', ''a + 2*b <= 100'' or ''a < b''.';
	END IF;
	IF pg_catalog.left(v_text, 1) NOT IN ('+', '-') THEN
		v_text := '+' || v_text;
	END IF;
	IF v_text !~ '^([+-](([0-9]+\.?[0-9]*|\.[0-9]+)\*?)?([A-Za-z_][A-Za-z0-9_.]*)?)+$' THEN
		RAISE EXCEPTION 'cannot parse parameter constraint "%"', expression
			USING ERRCODE = 'syntax_error',
				  DETAIL = pg_catalog.format('Near "%s".', side),
				  HINT = 'Each side is a sum of terms: name, number, or number*name; the operator is one of <=, <, >=, >.';
	END IF;
	FOR m IN SELECT pg_catalog.regexp_matches(v_text,
			'([+-])(([0-9]+\.?[0-9]*|\.[0-9]+)\*?)?([A-Za-z_][A-Za-z0-9_.]*)?', 'g')
	LOOP
		v_sign := CASE m[1] WHEN '-' THEN -1 ELSE 1 END;
		IF m[3] IS NULL AND m[4] IS NULL THEN
			RAISE EXCEPTION 'cannot parse parameter constraint "%"', expression
				USING ERRCODE = 'syntax_error',
					  DETAIL = 'A sign is not followed by a term.';
		END IF;
		v_coef := v_sign * COALESCE(m[3]::float8, 1);
		IF m[4] IS NULL THEN
			constant := constant + v_coef;
		ELSE
			coefficients := coefficients || pg_catalog.jsonb_build_object(m[4],
				COALESCE((coefficients ->> m[4])::float8, 0) + v_coef);
		END IF;
	END LOOP;
END;
$$;

-- Declare a known-invalid combination of parameters: a linear inequality
-- over int and float parameters that every suggestion must satisfy, e.g.
-- 'level0_slowdown_writes_trigger <= level0_stop_writes_trigger' or
-- 'a + 2*b <= 100'.  Refused when no configuration within the bounds
-- satisfies it (with the study's other constraints) or the defaults break
-- it.  Returns the constraint's id.
CREATE FUNCTION tuner.add_constraint(study text, expression text,
									 source text DEFAULT 'user')
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	p_expr text := $2;
	m text[];
	l record;
	r record;
	v_op text;
	v_coef jsonb := '{}';
	v_rhs float8;
	v_strict bool;
	v_min float8 := 0;
	v_default float8 := 0;
	v_all_defaults bool := true;
	k text;
	c float8;
	p tuner.parameter;
	v_id bigint;
	v_found bool;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_expr, 'expression');
	PERFORM tuner._not_null($3, 'source');
	IF $3 NOT IN ('user', 'preset') THEN
		RAISE EXCEPTION 'invalid constraint source "%"', $3
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use ''user'' or ''preset''.';
	END IF;
	m := pg_catalog.regexp_match(p_expr, '^([^<>=!]*)(<=|>=|<|>)([^<>=!]*)$');
	IF m IS NULL THEN
		RAISE EXCEPTION 'cannot parse parameter constraint "%"', p_expr
			USING ERRCODE = 'syntax_error',
				  HINT = 'Use exactly one of <=, <, >=, > between two sums of terms, e.g. ''a + 2*b <= 100''.';
	END IF;
	l := tuner._parse_linear_side(m[1], p_expr);
	r := tuner._parse_linear_side(m[3], p_expr);
	v_op := m[2];
	-- left - right <= right constant - left constant, negated for >= and >
	FOR k IN SELECT key FROM pg_catalog.jsonb_object_keys(l.coefficients || r.coefficients) AS key
	LOOP
		c := COALESCE((l.coefficients ->> k)::float8, 0) - COALESCE((r.coefficients ->> k)::float8, 0);
		IF v_op IN ('>=', '>') THEN
			c := -c;
		END IF;
		IF c <> 0 THEN
			v_coef := v_coef || pg_catalog.jsonb_build_object(k, c);
		END IF;
	END LOOP;
	v_rhs := (r.constant - l.constant) * CASE WHEN v_op IN ('>=', '>') THEN -1 ELSE 1 END;
	v_strict := v_op IN ('<', '>');
	IF v_coef = '{}' THEN
		RAISE EXCEPTION 'parameter constraint "%" involves no parameter', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Name at least one parameter with a nonzero coefficient.';
	END IF;

	-- every name a numeric parameter; the smallest left side within the bounds
	FOR k, c IN SELECT key, value::float8 FROM pg_catalog.jsonb_each_text(v_coef)
	LOOP
		SELECT * INTO p FROM tuner.parameter WHERE study_id = s.id AND name = k;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'parameter "%" of constraint "%" does not exist in study "%"', k, p_expr, s.name
				USING ERRCODE = 'undefined_object',
					  HINT = 'Add it with tuner.add_parameter() first.';
		END IF;
		IF p.kind NOT IN ('int', 'float') THEN
			RAISE EXCEPTION 'parameter "%" of constraint "%" is %', k, p_expr, p.kind
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Parameter constraints are linear in int and float parameters.';
		END IF;
		v_min := v_min + CASE WHEN c > 0 THEN c * p.low ELSE c * p.high END;
		IF p.default_value IS NULL THEN
			v_all_defaults := false;
		ELSE
			v_default := v_default + c * (p.default_value #>> '{}')::float8;
		END IF;
	END LOOP;
	IF v_min > v_rhs OR (v_strict AND v_min >= v_rhs) THEN
		RAISE EXCEPTION 'no configuration satisfies parameter constraint "%"', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Within the parameters'' bounds its left side minus its right side is at least %s.',
											 v_min - v_rhs),
				  HINT = 'Check the constraint''s direction and the parameters'' bounds.';
	END IF;
	IF v_all_defaults AND (v_default > v_rhs OR (v_strict AND v_default >= v_rhs)) THEN
		RAISE EXCEPTION 'the default configuration breaks parameter constraint "%"', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Change the parameters'' defaults or the constraint: the study measures the defaults first.';
	END IF;

	INSERT INTO tuner.parameter_constraint (study_id, expression, coefficients, strict, rhs, source)
	VALUES (s.id, p_expr, v_coef, v_strict, v_rhs, $3)
	ON CONFLICT ON CONSTRAINT parameter_constraint_study_id_expression_key
		DO UPDATE SET source = EXCLUDED.source
	RETURNING id INTO v_id;

	-- Together with the others: some of 4096 points spread over the space
	-- (uniform in each parameter's search scale) must satisfy all of them.
	WITH pts AS (
		SELECT g AS i,
			   pg_catalog.jsonb_object_agg(pp.name,
					CASE WHEN pp.log_scale THEN pp.low * pg_catalog.power(pp.high / pp.low, u.u)
						 ELSE pp.low + (pp.high - pp.low) * u.u END) AS x
		  FROM pg_catalog.generate_series(1, 4096) AS g
		 CROSS JOIN tuner.parameter pp
		 CROSS JOIN LATERAL (SELECT ((pg_catalog.hashint8extended(g * 1000 + pp.position, 17) & 1048575)::float8 + 0.5)
									/ 1048576 AS u) u
		 WHERE pp.study_id = s.id AND pp.kind IN ('int', 'float')
		 GROUP BY g
	)
	SELECT EXISTS (
		SELECT 1 FROM pts
		 WHERE NOT EXISTS (
			SELECT 1 FROM tuner.parameter_constraint pc
			 CROSS JOIN LATERAL (
				SELECT pg_catalog.sum(e.value::float8 *
						CASE WHEN q.kind = 'int' THEN pg_catalog.round((pts.x ->> e.key)::float8)
							 ELSE (pts.x ->> e.key)::float8 END) AS lhs
				  FROM pg_catalog.jsonb_each_text(pc.coefficients) e
				  JOIN tuner.parameter q ON q.study_id = s.id AND q.name = e.key) v
			 WHERE pc.study_id = s.id
			   AND NOT (v.lhs < pc.rhs OR (NOT pc.strict AND v.lhs <= pc.rhs))))
	  INTO v_found;
	IF NOT v_found THEN
		RAISE EXCEPTION 'no configuration satisfies parameter constraint "%" together with the study''s others', p_expr
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = 'None of 4096 configurations spread over the space satisfies all of them.',
				  HINT = 'See tuner.parameter_constraint for the study''s constraints.';
	END IF;
	RETURN v_id;
END;
$$;

-- Phi(z), the standard normal CDF (src/core/log_ei.h).
CREATE FUNCTION tuner._normal_cdf(z float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_normal_cdf'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The probability that a configuration is feasible: that it runs, under
-- the study's latest feasibility model of its failed trials, and that it
-- meets each bounded constraint, under that constraint's latest model
-- (tuner.model rows of kinds feasibility and constraint, refitted at each
-- suggestion).  The models' hyperparameters are the stored ones; the data
-- are the study's trials now.
CREATE FUNCTION tuner.predict_feasibility(study text, params jsonb)
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
		v_pred := tuner._gp_predict(v_train, v_y, mo.lengthscales, mo.outputscale,
									mo.noise, mo.mean, v_u);
		v_p := v_p * tuner._normal_cdf((mo.bound - v_pred.mean[1])
									   / GREATEST(v_pred.sd[1], 1e-6 * pg_catalog.sqrt(mo.outputscale)));
	END LOOP;
	RETURN v_p;
END;
$$;

-- A stored configuration as native values over the enabled parameters.
CREATE FUNCTION tuner._config_native(study_id bigint, config jsonb)
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(CASE p.kind
			WHEN 'bool' THEN CASE WHEN (config -> p.name)::bool THEN 1 ELSE 0 END
			WHEN 'categorical' THEN pg_catalog.array_position(p.choices, config ->> p.name) - 1
			ELSE (config -> p.name)::float8 END ORDER BY p.position)
  FROM tuner.parameter p
 WHERE p.study_id = $1 AND p.enabled;
$$;

-------------------------------------------------------------------------------
-- Preset "ceph": the live Ceph test cluster's option catalog through the
-- Sapphire washing and pruning, tuned with the Sapphire pipeline by the
-- tuner_ceph runner (src/runners/ceph/README.md).
-------------------------------------------------------------------------------

-- Study settings of the preset.  A trial is a paired measurement (the
-- default configuration interleaved: two runs of three 3 s phases, plus
-- OSD restarts when a restart-only option changes, ~10 s each here), and
-- "restore" puts the cluster back to its defaults after every trial, so it
-- is at them whenever the study ends or is stopped.  600 s is a generous
-- timeout for that.
CREATE FUNCTION tuner._ceph_preset_settings()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$
SELECT '{"trial_timeout_s": 600, "runner": {"duration_s": 3, "paired": true, "restore": true}}'::jsonb;
$$;

-- The objectives the preset knows: tuner_ceph's metric names.  The
-- *_ratio ones are the paired ratio to the default configuration.
CREATE FUNCTION tuner._ceph_preset_objectives()
RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
SELECT ARRAY['write_mbps', 'rand_read_iops', 'write_ratio', 'rand_read_ratio'];
$$;

-- The part of the catalog the preset searches (regular expressions on the
-- option name, the "include" of tuner.import_catalog): the OSD's client
-- data path (op shards and threads, client message throttles), BlueStore's
-- write throttles, deferred writes and caches, the messenger and the
-- client's objecter throttles -- options that apply at runtime or by an OSD
-- restart.  Random exploration over the whole catalog would set heartbeat
-- grace times, op thread timeouts, full ratios or pool defaults that take
-- the single-host OSD down or make its pool unwritable, which measures
-- nothing; creation-time options are refused by the runner anyway.
CREATE FUNCTION tuner._ceph_preset_include()
RETURNS text[]
LANGUAGE sql IMMUTABLE
AS $$
SELECT ARRAY[
	'^osd_op_num_shards$', '^osd_op_num_threads_per_shard$',
	'^osd_client_message_(size_)?cap$',
	'^ms_async_op_threads$', '^ms_dispatch_throttle_bytes$', '^ms_tcp_nodelay$', '^ms_tcp_rcvbuf$',
	'^objecter_inflight_op(s|_bytes)$',
	'^bluestore_throttle_(bytes|deferred_bytes|cost_per_io)$',
	'^bluestore_deferred_batch_ops$', '^bluestore_prefer_deferred_size$',
	'^bluestore_cache_(size|autotune|meta_ratio|kv_ratio)$', '^bluestore_csum_type$',
	'^rocksdb_cache_size$'];
$$;

-- The import options: BlueStore, the wpq queue and the posix messenger
-- (the test cluster's; they prune the other modules' options), no
-- developer options, nothing fixed at OSD creation.  Options whose catalog
-- bounds are inconsistent are dropped rather than failing the import.
CREATE FUNCTION tuner._ceph_preset_import_options()
RETURNS jsonb
LANGUAGE sql IMMUTABLE
AS $$
SELECT pg_catalog.jsonb_build_object(
	'osd_objectstore', 'bluestore', 'osd_op_queue', 'wpq', 'ms_type', 'async+posix',
	'levels', '["basic", "advanced"]'::jsonb, 'apply', '["runtime", "restart"]'::jsonb,
	'include', pg_catalog.to_jsonb(tuner._ceph_preset_include()), 'invalid', 'drop');
$$;

-- Check the runner settings tuner_ceph understands (its README's
-- "_settings"), so that a typo fails here and not in every trial.
CREATE FUNCTION tuner._check_ceph_runner_settings(runner jsonb)
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
			WHEN 'duration_s' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'number' OR NOT (v::text::numeric BETWEEN 0.1 AND 3600) THEN
					RAISE EXCEPTION 'runner setting duration_s must be a number of seconds between 0.1 and 3600'
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'repeats' THEN
				PERFORM tuner._json_int(v, 'runner setting repeats', 1, 16);
			WHEN 'object_size' THEN
				PERFORM tuner._json_int(v, 'runner setting object_size', 1, 67108864);
			WHEN 'concurrency' THEN
				PERFORM tuner._json_int(v, 'runner setting concurrency', 1, 1024);
			WHEN 'apply_timeout_s' THEN
				PERFORM tuner._json_int(v, 'runner setting apply_timeout_s', 1, 600);
			WHEN 'seed' THEN
				PERFORM tuner._json_int(v, 'runner setting seed', 0, 9007199254740992);
			WHEN 'paired', 'restore' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'boolean' THEN
					RAISE EXCEPTION 'runner setting % must be true or false', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'cluster_dir', 'conf', 'keyring', 'cluster_script', 'state_file' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR left(v #>> '{}', 1) <> '/' THEN
					RAISE EXCEPTION 'runner setting % must be an absolute path', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'pool', 'client_name' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR v #>> '{}' = '' THEN
					RAISE EXCEPTION 'runner setting % must be a non-empty string', k
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			ELSE
				RAISE EXCEPTION 'unknown runner setting "%" for the ceph preset', k
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Known: cluster_dir, conf, keyring, client_name, pool, cluster_script, state_file, object_size, concurrency, duration_s, seed, apply_timeout_s, repeats, paired, restore.';
		END CASE;
	END LOOP;
END;
$$;

-- The cluster directory of a study's runner settings; by default
-- tests/ceph/cluster.sh's default for the OS user the server (and so every
-- trial's tuner_ceph) runs as: /var/tmp/tuner-ceph-<uid>.  The uid is the
-- server process's own, from /proc.
CREATE FUNCTION tuner._ceph_cluster_dir(runner jsonb)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	v_uid text;
BEGIN
	IF runner ? 'cluster_dir' THEN
		RETURN runner ->> 'cluster_dir';
	END IF;
	v_uid := pg_catalog.substring(pg_catalog.pg_read_file('/proc/self/status'),
								  E'\\nUid:\\s+([0-9]+)');
	IF v_uid IS NULL THEN
		RAISE EXCEPTION 'could not find the server''s user id in /proc/self/status'
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Set the runner setting cluster_dir, e.g. settings => ''{"runner": {"cluster_dir": "/var/tmp/tuner-ceph-101"}}''.';
	END IF;
	RETURN '/var/tmp/tuner-ceph-' || v_uid;
END;
$$;

-- The live cluster's catalog, written by `cluster.sh start` into its
-- directory.
CREATE FUNCTION tuner._ceph_read_catalog(dir text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	v_path text := dir || '/catalog.json';
	v_size bigint;
	v_text text;
	v_catalog jsonb;
BEGIN
	-- (PostgreSQL 15 has no pg_read_file(path, missing_ok)).  missing_ok
	-- covers only a missing file: a path that cannot be stat'ed at all
	-- (too long, not a directory on the way) is an internal error there,
	-- so it is caught and answered as a missing catalog.
	BEGIN
		SELECT f.size INTO v_size FROM pg_catalog.pg_stat_file(v_path, true) f;
	EXCEPTION WHEN internal_error THEN
		v_size := NULL;
	END;
	IF v_size IS NULL THEN
		RAISE EXCEPTION 'no Ceph catalog at "%"', v_path
			USING ERRCODE = 'undefined_file',
				  DETAIL = 'The ceph preset imports the option catalog of the running cluster, which tests/ceph/cluster.sh start writes there.',
				  HINT = 'Start the cluster as the server''s OS user: runuser -u postgres -- tests/ceph/cluster.sh start (add TUNER_CEPH_DIR=... and the runner setting cluster_dir for another directory).';
	END IF;
	v_text := pg_catalog.pg_read_file(v_path, 0, v_size);
	BEGIN
		v_catalog := v_text::jsonb;
	EXCEPTION WHEN invalid_text_representation THEN
		RAISE EXCEPTION 'the Ceph catalog "%" is not valid JSON', v_path
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Restart the cluster with tests/ceph/cluster.sh start, which rewrites it.';
	END;
	RETURN v_catalog;
END;
$$;

-- Checks and settings of a "ceph" study before it is created; returns the
-- study's settings (the preset's under the caller's, "runner" merged by
-- key) and the catalog.
CREATE FUNCTION tuner._ceph_preset_prepare(objective text, settings jsonb,
										   OUT settings_out jsonb, OUT catalog jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
	v_runner jsonb;
BEGIN
	-- trials run tuner_ceph, and the catalog is a server file
	PERFORM tuner._check_program_privilege('create a study with the ceph preset');
	IF NOT pg_catalog.pg_has_role(current_user, 'pg_read_server_files', 'USAGE')
	   OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_read_file(text)', 'EXECUTE')
	   OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_read_file(text, bigint, bigint)', 'EXECUTE')
	   OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_stat_file(text, boolean)', 'EXECUTE') THEN
		RAISE EXCEPTION 'permission denied to create a study with the ceph preset'
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'The preset reads the cluster''s catalog with pg_stat_file and pg_read_file.',
				  HINT = pg_catalog.format('A superuser can run GRANT pg_read_server_files TO %1$s and GRANT EXECUTE on pg_read_file(text), pg_read_file(text, bigint, bigint) and pg_stat_file(text, boolean) to it.',
										   pg_catalog.quote_ident(current_user));
	END IF;
	IF NOT (objective = ANY (tuner._ceph_preset_objectives())) THEN
		RAISE EXCEPTION 'unknown objective "%" for the ceph preset', objective
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Use write_mbps (4 MiB objects, the default) or rand_read_iops (4 KiB objects), or their paired ratios to the default configuration, write_ratio and rand_read_ratio.';
	END IF;
	IF settings ? 'runner' THEN
		PERFORM tuner._check_ceph_runner_settings(settings -> 'runner');
	END IF;
	v_runner := (tuner._ceph_preset_settings() -> 'runner')
		-- random reads of small objects measure IOPS
		|| CASE WHEN objective LIKE 'rand_read%' THEN '{"object_size": 4096}'::jsonb ELSE '{}' END
		|| COALESCE(settings -> 'runner', '{}');
	IF objective LIKE '%_ratio' AND v_runner -> 'paired' <> 'true' THEN
		RAISE EXCEPTION 'objective % needs the runner setting paired', objective
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Leave "paired" at true, or choose write_mbps or rand_read_iops.';
	END IF;
	settings_out := tuner._ceph_preset_settings() || settings
		|| pg_catalog.jsonb_build_object('runner', v_runner);
	catalog := tuner._ceph_read_catalog(tuner._ceph_cluster_dir(v_runner));
END;
$$;

-- The space and the algorithm of a created "ceph" study: the catalog
-- through tuner.import_catalog, then the Sapphire pipeline.  Trial 1 is
-- the default configuration (every imported option has a default).  The
-- exploration takes 20 trials (at ~30 s a paired trial, ~10 minutes here)
-- and the model then works on the top 5: a 40-trial study fits in about
-- 20 minutes on this 2-core machine.  tuner.set_algorithm changes them.
CREATE FUNCTION tuner._apply_ceph_preset(p_study text, p_catalog jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	v_kept int;
BEGIN
	PERFORM tuner.import_catalog(p_study, p_catalog, tuner._ceph_preset_import_options());
	SELECT pg_catalog.count(*) INTO v_kept
	  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
	 WHERE s.name = p_study;
	IF v_kept < 2 THEN
		RAISE EXCEPTION 'the Ceph catalog left % parameters for the ceph preset', v_kept
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'The catalog should be the running cluster''s (tests/ceph/cluster.sh start writes it); tuner.catalog_dropped says why options were left out.';
	END IF;
	PERFORM tuner.set_algorithm(p_study, 'sapphire',
		pg_catalog.jsonb_build_object('explore', 20, 'top_k', LEAST(5, v_kept)));
END;
$$;

-------------------------------------------------------------------------------
-- Preset "fastquery": the FastQuery-style bitmap index build and a fixed
-- query set over parallel HDF5 / MPI-IO (tuner_fastquery_runner, see
-- src/runners/fastquery/README.md).
-------------------------------------------------------------------------------

-- Check the runner settings tuner_fastquery_runner understands, so that a
-- typo fails when the study is created and not in every trial.
CREATE FUNCTION tuner._check_fastquery_runner_settings(runner jsonb)
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
						  HINT = 'Known: particles, data_dir, timeout_s, queries, random_queries, query_seed, cold, paired, repeats, program, mpiexec.';
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
-- and the machine).
CREATE FUNCTION tuner._fastquery_preset_settings(p_settings jsonb,
												 p_objective text DEFAULT 'total_s')
RETURNS jsonb
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	base jsonb := '{"n_initial": 5, "trial_timeout_s": 900,
					"runner": {"particles": 16777216, "timeout_s": 840}}';
BEGIN
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
-- The HDF5 alignment is a choice of three values because every value
-- needs its own cached data file.
CREATE FUNCTION tuner._apply_fastquery_preset(p_study_id bigint, p_study text)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	toggle text[] := '{automatic,enable,disable}';
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
	PERFORM tuner.add_parameter($2, 'ranks', 'int', low => 1, high => 4, default_value => '1');
	PERFORM tuner.add_parameter($2, 'cb_nodes', 'int', low => 1, high => 4, default_value => '1');
	PERFORM tuner.add_parameter($2, 'threads', 'int', low => 1, high => 4, default_value => '1');
	PERFORM tuner.add_parameter($2, 'overlap', 'bool', default_value => 'false');
	PERFORM tuner.add_parameter($2, 'align', 'categorical', choices => '{0,65536,1048576}',
								default_value => '0');
	-- ROMIO clamps cb_nodes to the number of ranks: a larger value would
	-- measure the clamped configuration under another name.
	PERFORM tuner.add_constraint($2, 'cb_nodes <= ranks', 'preset');

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
	UPDATE tuner.metric m SET unit = CASE m.name WHEN 'speedup_vs_default' THEN 'ratio' ELSE 's' END
	 WHERE m.study_id = $1 AND m.role = 'objective' AND m.name IN ('total_s', 'total_s_default', 'speedup_vs_default');
	UPDATE tuner.metric m SET cluster_source = 'preset'
	 WHERE m.study_id = $1 AND m.cluster IS NOT NULL;
END;
$$;
-- Leases and heartbeats (issue 8): idempotent suggestions per worker, trial
-- leases on the database clock, eager reaping of stale trials, retries
-------------------------------------------------------------------------------
--
-- A running trial with a worker, or of a study that sets lease_s, holds a
-- lease until lease_expires_at (study setting lease_s, default 300 s; see
-- tuner._trial_take_lease for who gets one), renewed by tuner.heartbeat(), by asking
-- tuner.suggest_next(study, worker) again, and by the background workers
-- while their runner runs.  tuner.reap() marks running trials whose lease
-- expired as interrupted ("lease expired") and queues a retry of each (same
-- configuration, retry_of = the reaped trial) while the lineage has fewer
-- than max_retries retries (default 1).  Every time is the database's
-- clock_timestamp(), so clients' clocks do not matter.  Background workers
-- renew every 3 s (src/pg/worker.c), so their studies need a lease_s of
-- several seconds.  reap() runs inside
-- suggest_next, report, heartbeat and the tuner.progress view; run it on a
-- schedule too, so that stale trials are found while nobody asks, e.g. with
-- pg_cron:
--	 SELECT cron.schedule('tuner-reap', '* * * * *', 'SELECT tuner.reap()');
-- A report and a reap of one trial exclude each other by the trial's row
-- lock: whichever comes second sees the trial no longer running.

ALTER TABLE tuner.trial
	ADD COLUMN heartbeat_at timestamptz,
	ADD COLUMN lease_expires_at timestamptz,
	ADD COLUMN retry_of bigint REFERENCES tuner.trial (id) ON DELETE SET NULL;

CREATE INDEX trial_lease_idx ON tuner.trial (lease_expires_at) WHERE state = 'running';
CREATE INDEX trial_retry_of_idx ON tuner.trial (retry_of);

COMMENT ON COLUMN tuner.trial.heartbeat_at IS
	'When the trial''s lease was last taken or renewed (database clock)';
COMMENT ON COLUMN tuner.trial.lease_expires_at IS
	'A running trial not renewed by then is interrupted by tuner.reap() ("lease expired")';
COMMENT ON COLUMN tuner.trial.retry_of IS
	'The interrupted trial this one retries (same configuration)';

-- The lease length of a study, in seconds.
CREATE FUNCTION tuner._lease_s(study_id bigint)
RETURNS float8
LANGUAGE sql STABLE
AS $$
SELECT COALESCE((SELECT (s.settings ->> 'lease_s')::float8
				   FROM tuner.study s WHERE s.id = $1), 300);
$$;

-- Trigger: a running trial takes its lease, however it got there
-- (suggest_next, a queued trial handed out, a direct INSERT), when someone
-- is there to renew it: a named worker (suggest_next(study, worker), the
-- background workers, tuner.step), or any client once the study sets
-- lease_s.  A plain ask/tell trial of a study without lease_s has no lease
-- until its first heartbeat: a client that never heartbeats may run a
-- trial for hours, and reaping it would throw its report away.
CREATE FUNCTION tuner._trial_take_lease()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.state = 'running'
	   AND (TG_OP = 'INSERT' OR OLD.state <> 'running'
			OR (NEW.worker IS NOT NULL AND NEW.worker IS DISTINCT FROM OLD.worker)) THEN
		IF NEW.worker IS NOT NULL
		   OR (SELECT s.settings ? 'lease_s' FROM tuner.study s WHERE s.id = NEW.study_id) THEN
			NEW.heartbeat_at := pg_catalog.clock_timestamp();
			NEW.lease_expires_at := NEW.heartbeat_at
				+ pg_catalog.make_interval(secs => tuner._lease_s(NEW.study_id));
		ELSE
			NEW.heartbeat_at := NULL;
			NEW.lease_expires_at := NULL;
		END IF;
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_take_lease BEFORE INSERT OR UPDATE OF state, worker ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_take_lease();

-- How many retries lead to a trial (0 for an original).
CREATE FUNCTION tuner._retry_depth(trial bigint)
RETURNS int
LANGUAGE sql STABLE
AS $$
WITH RECURSIVE chain(id, retry_of, depth) AS (
	SELECT t.id, t.retry_of, 0 FROM tuner.trial t WHERE t.id = $1
	UNION ALL
	SELECT t.id, t.retry_of, c.depth + 1
	  FROM chain c JOIN tuner.trial t ON t.id = c.retry_of
	 WHERE c.depth < 1000
)
SELECT pg_catalog.max(depth) FROM chain;
$$;

-- Mark the running trials whose lease expired as interrupted, of one study
-- or (NULL) of all, and queue their retries.  Trials locked by a report or
-- heartbeat in progress are left to it.  Returns how many trials it
-- interrupted.
CREATE FUNCTION tuner.reap(study text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study_id bigint;
	v_ids bigint[];
	v_old tuner.trial;
	v_max int;
	v_number int;
	i bigint;
BEGIN
	IF $1 IS NOT NULL THEN
		v_study_id := (tuner._find_study($1)).id;
	END IF;
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
	IF v_ids IS NULL THEN
		RETURN 0;
	END IF;
	FOREACH i IN ARRAY v_ids
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
		END IF;
	END LOOP;
	RETURN pg_catalog.cardinality(v_ids);
END;
$$;

-- tuner.progress's reap: nothing where the reader may not write (a read-only
-- transaction, a standby, a role that only reads the trials).
CREATE FUNCTION tuner._reap_if_writable()
RETURNS int
LANGUAGE plpgsql
AS $$
BEGIN
	IF pg_catalog.current_setting('transaction_read_only') = 'on'
	   OR NOT pg_catalog.has_table_privilege('tuner.trial', 'UPDATE')
	   OR NOT pg_catalog.has_table_privilege('tuner.trial', 'INSERT')
	   -- (tuner_user has UPDATE on the study's columns but owner)
	   OR NOT pg_catalog.has_any_column_privilege('tuner.study', 'UPDATE') THEN
		RETURN 0;
	END IF;
	RETURN tuner.reap();
END;
$$;

-- Reap the study of a trial (nothing for a NULL or unknown trial: the
-- caller raises that error).
CREATE FUNCTION tuner._reap_of_trial(trial bigint)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study text;
BEGIN
	SELECT s.name INTO v_study
	  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
	 WHERE t.id = $1;
	IF NOT FOUND THEN
		RETURN 0;
	END IF;
	RETURN tuner.reap(v_study);
END;
$$;

-- Renew the lease of a running trial; returns when it now expires.
CREATE FUNCTION tuner.heartbeat(trial bigint)
RETURNS timestamptz
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	PERFORM tuner._reap_of_trial(p_trial);
	SELECT * INTO t FROM tuner.trial WHERE tuner.trial.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object',
				  HINT = 'Pass the "trial" id that tuner.suggest_next() returned.';
	END IF;
	IF t.state <> 'running' THEN
		RAISE EXCEPTION 'trial % is % and has no lease to renew', p_trial, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN t.error = 'lease expired'
							   THEN 'Its lease expired before this heartbeat.' END,
				  HINT = 'Only a running trial takes heartbeats; ask tuner.suggest_next() for a trial to run.';
	END IF;
	PERFORM tuner._worker_heartbeat(p_trial);
	SELECT lease_expires_at INTO t.lease_expires_at FROM tuner.trial WHERE id = p_trial;
	RETURN t.lease_expires_at;
END;
$$;

-- Worker: renew the lease of the trial a background worker's runner runs
-- (nothing once the trial is no longer running: its outcome is recorded
-- by whoever ended it).
CREATE FUNCTION tuner._worker_heartbeat(trial bigint)
RETURNS void
LANGUAGE sql
AS $$
UPDATE tuner.trial t
   SET heartbeat_at = n.now,
	   lease_expires_at = n.now + pg_catalog.make_interval(secs => tuner._lease_s(t.study_id))
  FROM (SELECT pg_catalog.clock_timestamp() AS now) n
 WHERE t.id = $1 AND t.state = 'running';
$$;

-- Suggest the next trial of a study for a worker (any name that identifies
-- one client: a host and process, an agent id).  Idempotent: while the
-- worker holds a running trial of the study, it gets that trial back (and
-- its lease renewed) instead of a new one.
CREATE FUNCTION tuner.suggest_next(study text, worker text)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	t tuner.trial;
	v_next jsonb;
	p_study text := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	PERFORM tuner._not_null(p_worker, 'worker');
	IF pg_catalog.btrim(p_worker) = '' OR pg_catalog.length(p_worker) > 200 THEN
		RAISE EXCEPTION 'worker must be a name of 1 to 200 characters, not blank'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s characters.', pg_catalog.length(p_worker)),
				  HINT = 'Name the client asking, for example its host and process id.';
	END IF;
	PERFORM tuner.reap(p_study);
	-- One suggestion of a study at a time, so a worker never gets two.
	SELECT * INTO s FROM tuner.study WHERE tuner.study.name = p_study FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		s := tuner._find_study(p_study);	-- raises the error
	END IF;
	SELECT * INTO t FROM tuner.trial
	 WHERE tuner.trial.study_id = s.id AND tuner.trial.state = 'running'
	   AND tuner.trial.worker = p_worker
	 ORDER BY tuner.trial.number LIMIT 1
	   FOR NO KEY UPDATE;
	IF FOUND THEN
		PERFORM tuner._worker_heartbeat(t.id);
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'params', t.config);
	END IF;
	v_next := tuner.suggest_next(p_study);
	UPDATE tuner.trial SET worker = p_worker
	 WHERE tuner.trial.id = (v_next ->> 'trial')::bigint;
	RETURN v_next;
END;
$$;

-- The trials view with the lease and retry columns.
CREATE OR REPLACE VIEW tuner.trials AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.state,
	   t.config AS params,
	   o.value,
	   COALESCE(o.metrics, '{}'::jsonb) AS metrics,
	   t.source,
	   t.predicted_mean,
	   t.predicted_sd,
	   t.acquisition,
	   t.seed,
	   t.worker,
	   t.error,
	   t.created_at,
	   t.started_at,
	   t.finished_at,
	   t.details,
	   tuner._trial_meets_constraints(t.id) AS constraints_met,
	   t.retry_of,
	   t.heartbeat_at,
	   t.lease_expires_at
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;

-- tuner.progress reaps first (reap's changes are not in the view's
-- snapshot, so expired trials are also left out by the filter).
CREATE OR REPLACE VIEW tuner.progress AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.worker,
	   t.worker_pid AS pid,
	   t.job_id AS job,
	   t.config AS params,
	   t.started_at,
	   pg_catalog.now() - t.started_at AS elapsed,
	   EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
				WHERE a.pid = t.worker_pid) AS alive,
	   (SELECT pg_catalog.count(*) FROM tuner.trial c
		 WHERE c.study_id = s.id AND c.state = 'complete') AS complete,
	   (SELECT CASE s.direction WHEN 'minimize' THEN pg_catalog.min(ob.value)
			   ELSE pg_catalog.max(ob.value) END
		  FROM tuner.trial c
		  JOIN tuner.observation ob ON ob.trial_id = c.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE c.study_id = s.id AND c.state = 'complete') AS best_value,
	   t.heartbeat_at,
	   t.lease_expires_at
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
 WHERE t.state = 'running'
   AND (SELECT tuner._reap_if_writable()) IS NOT NULL
   AND (t.lease_expires_at IS NULL OR t.lease_expires_at >= pg_catalog.clock_timestamp());

-------------------------------------------------------------------------------
-- Multi-objective studies (issue 9): two or more objectives, each with its
-- direction; the Pareto front, its hypervolume, and ParEGO suggestions
-- (src/core/pareto.h, hypervolume.h, parego.h).
--
-- The study's own objective (tuner.study.objective, set by create_study)
-- is the first objective; tuner.add_metric(study, name, 'objective',
-- direction => ...) adds the others, in the order they were added.
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._pareto_first_front(points float8[])
RETURNS bool[]
AS 'MODULE_PATHNAME', 'tuner_pareto_first_front'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._hypervolume(points float8[], reference float8[])
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_hypervolume_points'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._parego_scalarize(points float8[], seed bigint)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_parego_scalarize'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._parego_weights(objectives int, seed bigint)
RETURNS float8[]
AS 'MODULE_PATHNAME', 'tuner_parego_weights'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- A suggestion of a multi-objective study also records its objectives
-- (in order, with the sign that makes each minimized) and the ParEGO
-- weights it drew from its seed.
ALTER TABLE tuner.suggestion ADD COLUMN objective_metrics bigint[],
	ADD COLUMN objective_signs float8[],
	ADD COLUMN scalarization_weights float8[];

COMMENT ON COLUMN tuner.suggestion.objective_metrics IS
	'Multi-objective studies: the objectives (metric ids, in order) whose ParEGO scalarization the model fitted; NULL for one objective';
COMMENT ON COLUMN tuner.suggestion.scalarization_weights IS
	'Multi-objective studies: the augmented Chebyshev weights drawn from the suggestion''s seed, one per objective';

-- The objectives of a study in order: its own objective first, then the
-- metrics added with role 'objective' by id; sign is 1 to minimize, -1 to
-- maximize.
CREATE FUNCTION tuner._objectives(study_id bigint)
RETURNS TABLE (ordinal int, id bigint, name text, direction text, sign float8)
LANGUAGE sql STABLE
AS $$
SELECT (pg_catalog.row_number() OVER (ORDER BY m.name <> s.objective, m.id))::int,
	   m.id, m.name, COALESCE(m.direction, s.direction),
	   CASE COALESCE(m.direction, s.direction) WHEN 'maximize' THEN -1 ELSE 1 END::float8
  FROM tuner.study s
  JOIN tuner.metric m ON m.study_id = s.id AND m.role = 'objective'
 WHERE s.id = $1
 ORDER BY 1;
$$;

-- Whether a study has more than one objective.
CREATE FUNCTION tuner._is_multiobjective(study_id bigint)
RETURNS bool
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.count(*) > 1 FROM tuner.metric m
 WHERE m.study_id = $1 AND m.role = 'objective';
$$;

-- The objectives of a study, in the order of pareto_front's values.
CREATE FUNCTION tuner.objectives(study text)
RETURNS TABLE (ordinal int, metric text, direction text)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	RETURN QUERY SELECT o.ordinal, o.name, o.direction FROM tuner._objectives(s.id) o;
END;
$$;

COMMENT ON FUNCTION tuner.objectives(text) IS
	'The objectives of a study in order (its own objective first) with their directions';

-- The signed objectives of the trials ids (every objective minimized), one
-- row per trial in the order of ids; NULL for no trials.
CREATE FUNCTION tuner._objective_matrix(ids bigint[], metrics bigint[], signs float8[])
RETURNS float8[]
LANGUAGE sql STABLE
AS $$
SELECT pg_catalog.array_agg(ARRAY(
			SELECT c.sign * ob.value
			  FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3)) WITH ORDINALITY AS c(id, sign, j)
			  LEFT JOIN tuner.observation ob ON ob.trial_id = o.id AND ob.metric_id = c.id
			 ORDER BY c.j) ORDER BY o.k)
  FROM pg_catalog.unnest($1) WITH ORDINALITY AS o(id, k);
$$;

-- The error of functions that need a single objective.
CREATE FUNCTION tuner._require_one_objective(s tuner.study, fn text)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF tuner._is_multiobjective(s.id) THEN
		RAISE EXCEPTION 'study "%" has % objectives, so % has no single answer', s.name,
			  (SELECT pg_catalog.count(*) FROM tuner._objectives(s.id)), fn
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = pg_catalog.format('Its objectives: %s.',
						   (SELECT pg_catalog.string_agg(pg_catalog.format('%s (%s)', o.name, o.direction), ', ' ORDER BY o.ordinal)
							  FROM tuner._objectives(s.id) o)),
				  HINT = pg_catalog.format('Its best trials are the non-dominated ones: SELECT * FROM tuner.pareto_front(%L).', s.name);
	END IF;
END;
$$;

-- The trials whose objectives pareto_front and hypervolume compare:
-- complete, with every objective reported and every outcome constraint
-- met; values in the objectives' order and units.
CREATE FUNCTION tuner._objective_rows(study_id bigint)
RETURNS TABLE (trial bigint, number int, objectives float8[], signed float8[], params jsonb)
LANGUAGE sql STABLE
AS $$
WITH o AS MATERIALIZED (
	SELECT pg_catalog.array_agg(x.id ORDER BY x.ordinal) AS ids,
		   pg_catalog.array_agg(x.sign ORDER BY x.ordinal) AS signs
	  FROM tuner._objectives($1) x
)
SELECT t.id, t.number, v.objectives, v.signed, t.config
  FROM tuner.trial t
 CROSS JOIN o
 CROSS JOIN LATERAL (
	SELECT pg_catalog.array_agg(ob.value ORDER BY c.j) AS objectives,
		   pg_catalog.array_agg(c.sign * ob.value ORDER BY c.j) AS signed,
		   pg_catalog.count(ob.value) AS n
	  FROM ROWS FROM (pg_catalog.unnest(o.ids), pg_catalog.unnest(o.signs)) WITH ORDINALITY AS c(id, sign, j)
	  LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = c.id) v
 WHERE t.study_id = $1 AND t.state = 'complete'
   AND v.n = pg_catalog.cardinality(o.ids)
   AND tuner._trial_meets_constraints(t.id) IS NOT FALSE
 ORDER BY t.number;
$$;

-- The Pareto front of a study: its complete trials that met every outcome
-- constraint and that no other such trial dominates (no worse in every
-- objective, better in one, each in its direction).  objectives holds the
-- trial's values in the order of tuner.objectives(study).  Trials with
-- equal values are all on the front or all off it.  With one objective
-- the front is every trial at the best value.  Failed, interrupted and
-- running trials are not compared, nor trials missing an objective.
CREATE FUNCTION tuner.pareto_front(study text)
RETURNS TABLE (trial bigint, number int, objectives float8[], params jsonb)
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	v_ids bigint[];
	v_points float8[];
	v_front bool[];
BEGIN
	s := tuner._find_study($1);
	SELECT pg_catalog.array_agg(r.trial ORDER BY r.number),
		   pg_catalog.array_agg(r.signed ORDER BY r.number)
	  INTO v_ids, v_points
	  FROM tuner._objective_rows(s.id) r;
	IF v_ids IS NULL THEN
		RETURN;
	END IF;
	v_front := tuner._pareto_first_front(v_points);
	RETURN QUERY
	SELECT r.trial, r.number, r.objectives, r.params
	  FROM tuner._objective_rows(s.id) r
	  JOIN ROWS FROM (pg_catalog.unnest(v_ids), pg_catalog.unnest(v_front)) AS f(id, on_front)
		ON f.id = r.trial
	 WHERE f.on_front
	 ORDER BY r.signed[1], r.number;
END;
$$;

COMMENT ON FUNCTION tuner.pareto_front(text) IS
	'The non-dominated complete trials of a study, with their objectives in the order of tuner.objectives()';

-- The hypervolume of a study's front: the volume of objective space its
-- trials dominate, bounded by reference (one value per objective, in the
-- order of tuner.objectives(), in each objective's units: a worst
-- acceptable value, above the front of a minimized objective and below
-- that of a maximized one).  Trials not better than the reference in
-- every objective add nothing; no trial gives 0.  Exact, for up to 6
-- objectives.
CREATE FUNCTION tuner.hypervolume(study text, reference float8[])
RETURNS float8
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v_signs float8[];
	v_names text[];
	v_points float8[];
	v_ref float8[];
	i int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(reference, 'reference');
	SELECT pg_catalog.array_agg(o.sign ORDER BY o.ordinal),
		   pg_catalog.array_agg(o.name ORDER BY o.ordinal)
	  INTO v_signs, v_names
	  FROM tuner._objectives(s.id) o;
	IF pg_catalog.array_ndims(reference) > 1 THEN
		RAISE EXCEPTION 'reference must be a one-dimensional array'
			USING ERRCODE = 'array_subscript_error',
				  DETAIL = pg_catalog.format('It has %s dimensions.', pg_catalog.array_ndims(reference)),
				  HINT = pg_catalog.format('Give a worst acceptable value of %s, in this order.',
										   pg_catalog.array_to_string(v_names, ', '));
	END IF;
	IF pg_catalog.cardinality(reference) <> pg_catalog.cardinality(v_names) THEN
		RAISE EXCEPTION 'reference must have one value per objective of study "%"', s.name
			USING ERRCODE = 'array_subscript_error',
				  DETAIL = pg_catalog.format('Got %s values for %s objectives.',
											 COALESCE(pg_catalog.cardinality(reference), 0),
											 pg_catalog.cardinality(v_names)),
				  HINT = pg_catalog.format('Give a worst acceptable value of %s, in this order.',
										   pg_catalog.array_to_string(v_names, ', '));
	END IF;
	FOR i IN 1 .. pg_catalog.cardinality(v_names)
	LOOP
		IF reference[i] IS NULL OR reference[i] IN ('NaN', 'Infinity', '-Infinity') THEN
			RAISE EXCEPTION 'reference value of "%" must be a finite number', v_names[i]
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', COALESCE(reference[i]::text, 'NULL'));
		END IF;
		v_ref := v_ref || v_signs[i] * reference[i];
	END LOOP;
	SELECT pg_catalog.array_agg(r.signed ORDER BY r.number) INTO v_points
	  FROM tuner._objective_rows(s.id) r;
	RETURN tuner._hypervolume(COALESCE(v_points, '{}'), v_ref);
END;
$$;

COMMENT ON FUNCTION tuner.hypervolume(text, float8[]) IS
	'Volume of objective space the study''s trials dominate up to a reference point (one worst acceptable value per objective)';

-------------------------------------------------------------------------------
-- Remote runner agents (issue 8): tuner-agent (src/agent/) runs trials of a
-- study on another host with a runner program it has there.  It claims a
-- trial with tuner.agent_claim, runs the runner with the protocol of the
-- background workers (the same JSON on stdin, the same timeout rules),
-- renews the lease with tuner.heartbeat while it runs, and records what
-- the runner printed with tuner.agent_finish, which parses it exactly as
-- the background workers' outcomes are parsed (tuner._finish_trial).
-- Agent trials carry no worker_pid: a lost connection does not end them;
-- their lease does (tuner.reap), and then a late outcome is refused.
-------------------------------------------------------------------------------

-- The worker name rule of suggest_next(study, worker).
CREATE FUNCTION tuner._check_worker_name(worker text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	PERFORM tuner._not_null($1, 'worker');
	IF pg_catalog.btrim($1) = '' OR pg_catalog.length($1) > 200 THEN
		RAISE EXCEPTION 'worker must be a name of 1 to 200 characters, not blank'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s characters.', pg_catalog.length($1)),
				  HINT = 'Name the client asking, for example its host and process id.';
	END IF;
END;
$$;

-- Claim a trial of a study for an agent (worker: a name that identifies
-- one agent process).  Idempotent like suggest_next(study, worker): while
-- the worker holds a running trial of the study it gets that trial back
-- (lease renewed).  Otherwise it takes the first queued trial (enqueued
-- configurations, retries of reaped trials) that no other claim is taking
-- (FOR NO KEY UPDATE SKIP LOCKED, without the study's lock, so agents do
-- not wait on each other's suggestions), and only when there is none asks
-- for a new suggestion (which sees every running and queued trial as
-- pending).  Returns what running the trial needs: the runner's stdin (the
-- configuration with "_settings" and "_trial", as background workers
-- write it; "_settings" are the study's registered runner's settings, if
-- it has one, overridden by settings->'runner'), the study's
-- trial_timeout_s and kill_grace_s, and its lease_s.
CREATE FUNCTION tuner.agent_claim(study text, worker text,
								  OUT trial bigint, OUT number int,
								  OUT input text, OUT timeout_s float8,
								  OUT grace_s float8, OUT lease_s float8)
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	t tuner.trial;
	p_study text := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_study, 'study');
	PERFORM tuner._check_worker_name(p_worker);
	s := tuner._find_study(p_study);
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = s.id) THEN
		RAISE EXCEPTION 'study "%" has no parameters', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Add parameters with tuner.add_parameter().';
	END IF;
	PERFORM tuner.reap(s.name);
	SELECT * INTO t FROM tuner.trial x
	 WHERE x.study_id = s.id AND x.state = 'running' AND x.worker = p_worker
	 ORDER BY x.number LIMIT 1
	   FOR NO KEY UPDATE;
	IF FOUND THEN
		PERFORM tuner._worker_heartbeat(t.id);
	ELSE
		SELECT * INTO t FROM tuner.trial x
		 WHERE x.study_id = s.id AND x.state = 'queued'
		 ORDER BY x.number LIMIT 1
		   FOR NO KEY UPDATE SKIP LOCKED;
		IF FOUND THEN
			UPDATE tuner.trial x
			   SET state = 'running', started_at = pg_catalog.now(), worker = p_worker
			 WHERE x.id = t.id;
		ELSE
			t.id := (tuner.suggest_next(s.name, p_worker) ->> 'trial')::bigint;
		END IF;
	END IF;
	SELECT x.id, x.number,
		   (x.config || pg_catalog.jsonb_build_object(
				'_settings', COALESCE(r.settings, '{}') || COALESCE(s.settings -> 'runner', '{}'),
				'_trial', pg_catalog.jsonb_build_object('study', s.name, 'id', x.id,
														'number', x.number)))::text,
		   COALESCE((s.settings ->> 'trial_timeout_s')::float8, 600),
		   COALESCE((s.settings ->> 'kill_grace_s')::float8, 5),
		   tuner._lease_s(s.id)
	  INTO trial, number, input, timeout_s, grace_s, lease_s
	  FROM tuner.trial x
	  LEFT JOIN tuner.runner r ON r.name = s.runner
	 WHERE x.id = t.id;
END;
$$;

-- Record what an agent's runner did (arguments as tuner._finish_trial:
-- the exit code, NULL when a signal ended it or it never started; a text
-- for the exit; stdout; the tail of stderr; the run time; forced_state
-- 'failed' or 'interrupted' with forced_reason when the agent stopped the
-- runner).  Only the worker holding the trial may finish it.  Reaps the
-- trial's study first: a trial whose lease expired is interrupted (and
-- retried) and the outcome is not recorded.  Returns _finish_trial's
-- summary with "recorded": true, or, for a trial no longer running (reaped,
-- or recorded by an earlier attempt whose answer was lost with the
-- connection), {"trial", "number", "state", "error", "recorded": false}
-- and changes nothing.
CREATE FUNCTION tuner.agent_finish(trial bigint, worker text, exit_code int,
								   exit_text text, stdout text,
								   stderr_tail text, elapsed_s float8,
								   forced_state text DEFAULT NULL,
								   forced_reason text DEFAULT NULL)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	p_trial bigint := $1;
	p_worker text := $2;
BEGIN
	PERFORM tuner._not_null(p_trial, 'trial');
	PERFORM tuner._check_worker_name(p_worker);
	IF forced_state IS NOT NULL AND forced_state NOT IN ('failed', 'interrupted') THEN
		RAISE EXCEPTION 'forced_state must be failed or interrupted'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got "%s".', forced_state),
				  HINT = 'Pass NULL to record the outcome from the runner''s output.';
	END IF;
	IF elapsed_s IS NOT NULL AND (elapsed_s = 'NaN' OR elapsed_s < 0 OR elapsed_s = 'Infinity') THEN
		RAISE EXCEPTION 'elapsed_s must be a finite number of seconds, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', elapsed_s);
	END IF;
	PERFORM tuner._reap_of_trial(p_trial);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = p_trial FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'trial % does not exist', p_trial
			USING ERRCODE = 'undefined_object',
				  HINT = 'Pass the trial id that tuner.agent_claim() returned.';
	END IF;
	IF t.worker IS DISTINCT FROM p_worker THEN
		RAISE EXCEPTION 'trial % is not held by worker "%"', p_trial, p_worker
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = CASE WHEN t.worker IS NULL THEN 'It has no worker.'
							   ELSE pg_catalog.format('Its worker is "%s".', t.worker) END,
				  HINT = 'An agent finishes only the trials tuner.agent_claim() gave it.';
	END IF;
	IF t.state <> 'running' THEN
		RETURN pg_catalog.jsonb_build_object('trial', t.id, 'number', t.number,
											 'state', t.state, 'error', t.error,
											 'recorded', false);
	END IF;
	RETURN tuner._finish_trial(p_trial, exit_code, exit_text, stdout, stderr_tail,
							   elapsed_s, forced_state, forced_reason)
		   || '{"recorded": true}';
END;
$$;
-- Security (issue 8): who may see and change a study, and who may make the
-- server run programs.
--
-- Row-level security on every table that holds a study's data: a study and
-- everything of it (parameters, metrics, trials, observations, models,
-- suggestions, jobs, events, bound changes, constraints, catalog imports,
-- registered views and grants) is visible to its owner, to the roles it
-- was granted to (tuner.grant_study, 'read' or 'write') and to members of
-- tuner_reader (BI tools: every study, read only).  Only the owner and
-- 'write' grantees change it; only the owner drops or grants it.  Being
-- "the owner" or "a grantee" includes having that role's privileges
-- (pg_has_role USAGE).  Superusers and the tables' owner (the role that
-- ran CREATE EXTENSION) bypass row-level security, as always.  Roles use
-- tuner through the group tuner_user.  The extension's views are
-- security_invoker, so they show each caller what it may see; the typed
-- views of tuner.create_view run as their owner (see tuner._build_view).
--
-- Programs: register_runner, run and step check pg_execute_server_program
-- (tuner_check_program_privilege_for, in C); so do creating a study with
-- a runner or a preset, choosing a study's runner and changing its runner
-- settings (they name paths and programs the runner uses), by any route
-- (trigger study_runner_guard); and the runner table accepts rows only
-- from such roles.  A background worker runs as the role that called
-- tuner.run and checks that role again before every exec (runner_exec.c).
--
-- No function of the extension is SECURITY DEFINER, and none builds a
-- shell command: a runner is exec'd with the fixed argv of its row
-- (runner_exec.c), dynamic SQL quotes with %I/%L.
--
-- pg_dump leaves these policies and grants to CREATE EXTENSION (checked
-- with pg_dump 15.20 by tests/dump_restore.sh); the groups are roles of
-- the cluster, made here when missing.
-------------------------------------------------------------------------------

-- Two groups (cluster-wide, kept when the extension is dropped):
-- tuner_user may use tuner (create studies, work on the studies it owns
-- or was granted); tuner_reader reads every study and changes none.
DO $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'tuner_user') THEN
		CREATE ROLE tuner_user NOLOGIN;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'tuner_reader') THEN
		CREATE ROLE tuner_reader NOLOGIN;
	END IF;
END
$$;

-- Does the current role have the privileges of role (by name)?  False for
-- a role that no longer exists (owner and grantee are names, not oids).
-- The policies call it as the querying role, so its body is an SQL-standard
-- one (RETURN), parsed here, once: a body in quotes would be parsed with
-- the caller's search_path, and an operator "=" of the caller's own
-- schema would decide who owns what.  It is still inlined.
CREATE FUNCTION tuner._has_role(role name)
RETURNS bool
LANGUAGE sql STABLE
RETURN role OPERATOR(pg_catalog.=) CURRENT_USER
	OR COALESCE(pg_catalog.pg_has_role(
		pg_catalog.to_regrole(pg_catalog.quote_ident(role))::oid, 'USAGE'), false);

-- May the current role make the server run programs?  (RETURN: as above.)
CREATE FUNCTION tuner._may_run_programs()
RETURNS bool
LANGUAGE sql STABLE
RETURN pg_catalog.pg_has_role('pg_execute_server_program', 'USAGE');

-- Who else may read or change a study.  owner is the study's owner when
-- the grant was made (set by the trigger below), so that the policies of
-- this table need not look at tuner.study (whose policy looks here).
CREATE TABLE tuner.study_grant (
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	grantee		name NOT NULL,
	privilege	text NOT NULL CHECK (privilege IN ('read', 'write')),
	owner		name NOT NULL,
	granted_at	timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (study_id, grantee)
);

COMMENT ON TABLE tuner.study_grant IS
	'Roles a study was granted to (tuner.grant_study): read sees it, write also changes it';

SELECT pg_catalog.pg_extension_config_dump('tuner.study_grant', '');

-- Trigger: a grant names its study's owner, and only roles that may see
-- the study can name it.  The security triggers and grant functions pin
-- search_path: they run as the caller, whose own operators must not
-- change what they check.
CREATE FUNCTION tuner._study_grant_owner()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
	SELECT s.owner INTO NEW.owner FROM tuner.study s WHERE s.id = NEW.study_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study % does not exist', NEW.study_id
			USING ERRCODE = 'undefined_object';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER study_grant_owner BEFORE INSERT ON tuner.study_grant
	FOR EACH ROW EXECUTE FUNCTION tuner._study_grant_owner();

-- Trigger: choosing a study's runner, or changing the settings passed to
-- it, decides what the server runs; that needs pg_execute_server_program
-- whatever the route (create_study, set_runner, set_algorithm, UPDATE).
CREATE FUNCTION tuner._study_runner_guard()
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

-- Grant a study to a role: privilege 'read' (see it) or 'write' (also
-- suggest, report, change it).  Only the study's owner may grant; granting
-- again replaces the privilege.
CREATE FUNCTION tuner.grant_study(study text, role text, privilege text DEFAULT 'read')
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	s tuner.study;
	p_role text := $2;
	p_privilege text := $3;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_role, 'role');
	PERFORM tuner._not_null(p_privilege, 'privilege');
	IF p_privilege NOT IN ('read', 'write') THEN
		RAISE EXCEPTION 'unknown study privilege "%"', p_privilege
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Grant ''read'' (see the study) or ''write'' (also change it).';
	END IF;
	IF pg_catalog.octet_length(p_role) > 63
	   OR pg_catalog.to_regrole(pg_catalog.quote_ident(p_role)) IS NULL THEN
		RAISE EXCEPTION 'role "%" does not exist', p_role
			USING ERRCODE = 'undefined_object';
	END IF;
	IF NOT tuner._has_role(s.owner) THEN
		RAISE EXCEPTION 'permission denied to grant study "%"', s.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Only its owner %s may grant it.', pg_catalog.quote_ident(s.owner));
	END IF;
	DELETE FROM tuner.study_grant g WHERE g.study_id = s.id AND g.grantee = p_role;
	INSERT INTO tuner.study_grant (study_id, grantee, privilege)
	VALUES (s.id, p_role, p_privilege);
END;
$$;

-- Take a grant of a study back; returns whether there was one.  Only the
-- study's owner may revoke.
CREATE FUNCTION tuner.revoke_study(study text, role text)
RETURNS bool
LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	s tuner.study;
	p_role text := $2;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_role, 'role');
	IF NOT tuner._has_role(s.owner) THEN
		RAISE EXCEPTION 'permission denied to revoke study "%"', s.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Only its owner %s may revoke it.', pg_catalog.quote_ident(s.owner));
	END IF;
	DELETE FROM tuner.study_grant g WHERE g.study_id = s.id AND g.grantee = p_role;
	RETURN FOUND;
END;
$$;

-- Table privileges go to the two groups; the policies below decide which
-- rows.  (Functions keep EXECUTE for PUBLIC, but without USAGE on the
-- schema nobody else reaches them.)
GRANT USAGE ON SCHEMA tuner TO tuner_user, tuner_reader;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA tuner TO tuner_user;
GRANT SELECT ON ALL TABLES IN SCHEMA tuner TO tuner_user, tuner_reader;

-- tuner.study: owner is not updatable (UPDATE on the other columns only).
ALTER TABLE tuner.study ENABLE ROW LEVEL SECURITY;
GRANT INSERT, DELETE ON tuner.study TO tuner_user;
GRANT UPDATE (name, objective, direction, algorithm, settings, seed, runner)
	ON tuner.study TO tuner_user;
CREATE POLICY study_read ON tuner.study FOR SELECT
	USING (tuner._has_role(owner) OR tuner._has_role('tuner_reader')
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND tuner._has_role(g.grantee)));
CREATE POLICY study_insert ON tuner.study FOR INSERT
	WITH CHECK (tuner._has_role(owner));
CREATE POLICY study_update ON tuner.study FOR UPDATE
	USING (tuner._has_role(owner)
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND g.privilege = 'write'
						 AND tuner._has_role(g.grantee)))
	WITH CHECK (tuner._has_role(owner)
		   OR EXISTS (SELECT 1 FROM tuner.study_grant g
					   WHERE g.study_id = id AND g.privilege = 'write'
						 AND tuner._has_role(g.grantee)));
CREATE POLICY study_delete ON tuner.study FOR DELETE
	USING (tuner._has_role(owner));

-- tuner.study_grant: seen by the grantee and the owner, made and removed
-- by the owner (tuner.grant_study, tuner.revoke_study).
ALTER TABLE tuner.study_grant ENABLE ROW LEVEL SECURITY;
GRANT INSERT, DELETE ON tuner.study_grant TO tuner_user;
CREATE POLICY study_grant_read ON tuner.study_grant FOR SELECT
	USING (tuner._has_role(grantee) OR tuner._has_role(owner));
CREATE POLICY study_grant_insert ON tuner.study_grant FOR INSERT
	WITH CHECK (tuner._has_role(owner));
CREATE POLICY study_grant_delete ON tuner.study_grant FOR DELETE
	USING (tuner._has_role(owner));

-- The tables with a study_id: read with the study, written by its writers.
-- The policies are written out, not wrapped in functions: a SQL function
-- with a subquery is never inlined, and calling one for every row made a
-- study of 1000 trials ten times slower for a non-superuser.  As "IN
-- (uncorrelated subquery)" each is a hashed subplan: the visible (or
-- writable) studies are found once per statement, through tuner.study's
-- own policy.
DO $$
DECLARE
	t text;
	v_read text := 'study_id IN (SELECT s.id FROM tuner.study s)';
	v_write text := 'study_id IN (SELECT s.id FROM tuner.study s'
		' WHERE tuner._has_role(s.owner)'
		' OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id'
		' AND g.privilege = ''write'' AND tuner._has_role(g.grantee)))';
BEGIN
	FOREACH t IN ARRAY ARRAY['parameter', 'metric', 'trial', 'model', 'job',
							 'study_event', 'bound_change', 'study_view',
							 'parameter_constraint', 'catalog_import',
							 'catalog_drop']
	LOOP
		EXECUTE pg_catalog.format('ALTER TABLE tuner.%I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE pg_catalog.format('GRANT INSERT, UPDATE, DELETE ON tuner.%I TO tuner_user', t);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR SELECT USING (%s)',
								  t || '_read', t, v_read);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR INSERT WITH CHECK (%s)',
								  t || '_insert', t, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR UPDATE USING (%s) WITH CHECK (%s)',
								  t || '_update', t, v_write, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR DELETE USING (%s)',
								  t || '_delete', t, v_write);
	END LOOP;
END
$$;

-- The tables of a trial (observation, suggestion) and of a parameter
-- (parameter_source) follow the study of their trial or parameter, also
-- as hashed subplans.  Not as a correlated EXISTS per row: the planner
-- costs that at thousands per row, and a plan over a few hundred rows
-- then crossed jit_above_cost; JIT compilation took 0.7-2 s of a 1 ms
-- query (measured on a loaded 2-core machine).
DO $$
DECLARE
	t text;
	v_read text;
	v_write text;
	v_writable text := 'IN (SELECT s.id FROM tuner.study s'
		' WHERE tuner._has_role(s.owner)'
		' OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id'
		' AND g.privilege = ''write'' AND tuner._has_role(g.grantee)))';
BEGIN
	FOREACH t IN ARRAY ARRAY['observation', 'suggestion', 'parameter_source']
	LOOP
		IF t = 'parameter_source' THEN
			v_read := 'parameter_id IN (SELECT p.id FROM tuner.parameter p)';
			v_write := 'parameter_id IN (SELECT p.id FROM tuner.parameter p WHERE p.study_id ' || v_writable || ')';
		ELSE
			v_read := 'trial_id IN (SELECT x.id FROM tuner.trial x)';
			v_write := 'trial_id IN (SELECT x.id FROM tuner.trial x WHERE x.study_id ' || v_writable || ')';
		END IF;
		EXECUTE pg_catalog.format('ALTER TABLE tuner.%I ENABLE ROW LEVEL SECURITY', t);
		EXECUTE pg_catalog.format('GRANT INSERT, UPDATE, DELETE ON tuner.%I TO tuner_user', t);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR SELECT USING (%s)',
								  t || '_read', t, v_read);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR INSERT WITH CHECK (%s)',
								  t || '_insert', t, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR UPDATE USING (%s) WITH CHECK (%s)',
								  t || '_update', t, v_write, v_write);
		EXECUTE pg_catalog.format('CREATE POLICY %I ON tuner.%I FOR DELETE USING (%s)',
								  t || '_delete', t, v_write);
	END LOOP;
END
$$;

-- tuner.runner: everyone reads the registered runners; only roles that may
-- run programs register them, and change or drop only their own.
ALTER TABLE tuner.runner ENABLE ROW LEVEL SECURITY;
GRANT INSERT, UPDATE, DELETE ON tuner.runner TO tuner_user;
CREATE POLICY runner_read ON tuner.runner FOR SELECT USING (true);
CREATE POLICY runner_insert ON tuner.runner FOR INSERT
	WITH CHECK (tuner._may_run_programs() AND tuner._has_role(owner));
CREATE POLICY runner_update ON tuner.runner FOR UPDATE
	USING (tuner._may_run_programs() AND tuner._has_role(owner))
	WITH CHECK (tuner._may_run_programs() AND tuner._has_role(owner));
CREATE POLICY runner_delete ON tuner.runner FOR DELETE
	USING (tuner._may_run_programs() AND tuner._has_role(owner));

-- The catalog's type, wash-rule and module tables are shared by every
-- study: readable by both groups (granted above), changed by superusers
-- only.

-- Every view of the schema shows what its caller may see, not what its
-- owner (the superuser who created the extension) may.
DO $$
DECLARE
	v regclass;
BEGIN
	FOR v IN SELECT c.oid::regclass FROM pg_catalog.pg_class c
			  WHERE c.relnamespace = 'tuner'::regnamespace AND c.relkind = 'v'
	LOOP
		EXECUTE pg_catalog.format('ALTER VIEW %s SET (security_invoker = true)', v);
	END LOOP;
END
$$;
