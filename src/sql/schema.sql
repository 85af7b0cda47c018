/*
 * schema.sql
 *	  The tables: studies, their space, metrics, trials and what was observed,
 *	  models and suggestions, jobs, views, grants, the option catalog, presets
 *	  and intermediate results.  Every table a study owns is dumped with it
 *	  (pg_extension_config_dump); the seeded catalog and preset rows are not.
 */

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
	bound		float8
				CHECK (bound <> 'NaN' AND bound > '-Infinity' AND bound < 'Infinity'),
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
				CHECK (state IN ('queued', 'running', 'complete', 'failed', 'interrupted', 'pruned')),
	source		text NOT NULL
				CHECK (source IN ('default', 'design', 'model', 'random', 'manual', 'copied',
								  'confirm', 'baseline')),
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
	heartbeat_at timestamptz,
	lease_expires_at timestamptz,
	retry_of	bigint REFERENCES tuner.trial (id) ON DELETE SET NULL,
	confirms	bigint REFERENCES tuner.trial (id) ON DELETE SET NULL,
	confirm_pair int CHECK (confirm_pair >= 1),
	disturbed	bool,
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
	PRIMARY KEY (trial_id, metric_id),
	std_error	float8
				CHECK (std_error >= 0 AND std_error < 'Infinity')
);

CREATE INDEX observation_metric_idx ON tuner.observation (metric_id);

COMMENT ON TABLE tuner.observation IS
	'Every metric value every trial reported (long format)';

COMMENT ON COLUMN tuner.observation.std_error IS
	'The standard error of the value, in the metric''s units, as reported (_std_error); GP-EI reads it as the value''s known noise (NULL: not known)';

CREATE TABLE tuner.model (
	id			bigserial PRIMARY KEY,
	study_id	bigint NOT NULL REFERENCES tuner.study (id) ON DELETE CASCADE,
	trial_id	bigint REFERENCES tuner.trial (id) ON DELETE CASCADE,
	kind		text NOT NULL DEFAULT 'gp'
				CHECK (kind IN ('gp', 'icm', 'cluster', 'feasibility', 'constraint')),
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
	fitted_at	timestamptz NOT NULL DEFAULT now(),
	-- the failure and constraint models (kinds feasibility, constraint)
	outcome_mean float8,
	outcome_sd	float8,
	bound		float8,
	constraint_metric text,
	trend_intercept float8,
	trend_slopes float8[],
	calibration_threshold float8,
	calibration_spread float8
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
	made_at		timestamptz NOT NULL DEFAULT now(),
	-- multi-objective studies: the objectives (in order, with the sign
	-- that makes each minimized) and the ParEGO weights drawn from the seed
	objective_metrics bigint[],
	objective_signs float8[],
	scalarization_weights float8[],
	-- configurations compared in canonical form under these conditions
	canonical	bool NOT NULL DEFAULT false,
	condition_parent int[],
	condition_op text[],
	condition_values float8[],
	condition_default float8[],
	warm_feasibility_model bigint,
	disturbed	bigint[]
);

COMMENT ON TABLE tuner.suggestion IS
	'What each suggestion of tuner.suggest_next saw: the algorithm run, the space, the trials (ids) observed, pending and failed, seeds and warm start';

COMMENT ON COLUMN tuner.suggestion.algorithm IS
	'What the model code ran (gp-ei, icm, clustered-icm, random; sapphire runs one of the first two)';

COMMENT ON COLUMN tuner.suggestion.history_md5 IS
	'md5 of the objective (and auxiliary) values the suggestion saw; replay_suggestion refuses a history that changed';

SELECT pg_catalog.pg_extension_config_dump('tuner.study_view', '');

SELECT pg_catalog.pg_extension_config_dump('tuner.suggestion', '');

COMMENT ON COLUMN tuner.metric.bound IS
	'role constraint: a trial meets it when the metric is <= bound (direction minimize) or >= bound (maximize); NULL = recorded only, not enforced';

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

CREATE INDEX trial_lease_idx ON tuner.trial (lease_expires_at) WHERE state = 'running';

CREATE INDEX trial_retry_of_idx ON tuner.trial (retry_of);

COMMENT ON COLUMN tuner.trial.heartbeat_at IS
	'When the trial''s lease was last taken or renewed (database clock)';

COMMENT ON COLUMN tuner.trial.lease_expires_at IS
	'A running trial not renewed by then is interrupted by tuner.reap() ("lease expired")';

COMMENT ON COLUMN tuner.trial.retry_of IS
	'The interrupted trial this one retries (same configuration)';

COMMENT ON COLUMN tuner.suggestion.objective_metrics IS
	'Multi-objective studies: the objectives (metric ids, in order) whose ParEGO scalarization the model fitted; NULL for one objective';

COMMENT ON COLUMN tuner.suggestion.scalarization_weights IS
	'Multi-objective studies: the augmented Chebyshev weights drawn from the suggestion''s seed, one per objective';

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

COMMENT ON COLUMN tuner.model.trend_intercept IS
	'Feasibility model: intercept of the linear trend of the standardized outcome, fitted before the GP (NULL: none)';

COMMENT ON COLUMN tuner.model.trend_slopes IS
	'Feasibility model: the trend''s slope per parameter on the unit cube, the trend being trend_intercept + sum(slope * (u - 0.5)); 0 for categorical parameters (NULL: none)';

COMMENT ON COLUMN tuner.model.calibration_threshold IS
	'Feasibility model: the standardized outcome above which a configuration is predicted to fail, fitted to the model''s leave-one-out predictions (NULL: not calibrated; then bound is the threshold)';

COMMENT ON COLUMN tuner.model.calibration_spread IS
	'Feasibility model: the sd added to the prediction''s by the same calibration (standardized units; NULL: not calibrated)';

COMMENT ON COLUMN tuner.suggestion.canonical IS
	'The suggestion compared configurations in canonical form, with the conditions below (false: computed by tuner 0.2.0 or earlier, as replay_suggestion replays it)';

COMMENT ON COLUMN tuner.suggestion.condition_parent IS
	'Per parameter: the 1-based position in parameters of the parameter its condition tests (0: none)';

COMMENT ON COLUMN tuner.suggestion.condition_op IS
	'Per parameter: its condition''s operator (=, <>, in, not in, <, <=, >, >=; never: a disabled parameter rules it out; NULL: no condition)';

COMMENT ON COLUMN tuner.suggestion.condition_values IS
	'Per parameter, a row of the native values its condition compares the parent with (NULL-padded; NULL: no condition has values)';

COMMENT ON COLUMN tuner.suggestion.condition_default IS
	'Per parameter: the native value it takes while inactive (NULL: no condition)';

COMMENT ON COLUMN tuner.suggestion.warm_feasibility_model IS
	'The feasibility model (tuner.model) whose fit the failure model started from (NULL: fitted from cold starts, as before tuner 0.3.0)';

COMMENT ON COLUMN tuner.suggestion.disturbed IS
	'The observed trials that were disturbed when the suggestion was made (their values without a standard error got extra noise; NULL: none)';

-- A preset: name, owner (NULL for a built-in) and its definition.  Names
-- are unique per owner, so that a role's private names neither collide
-- with nor reveal another's; a role's own preset may not take a
-- built-in's name (tuner.create_preset).
CREATE TABLE tuner.preset (
	name		text NOT NULL CHECK (pg_catalog.btrim(name) <> ''),
	owner		name DEFAULT current_user,
	definition	jsonb NOT NULL CHECK (pg_catalog.jsonb_typeof(definition) = 'object'),
	created_at	timestamptz NOT NULL DEFAULT pg_catalog.now(),
	CONSTRAINT preset_name_owner UNIQUE NULLS NOT DISTINCT (name, owner)
);

COMMENT ON TABLE tuner.preset IS
	'Study presets: built-in (owner NULL) and roles'' own; made with tuner.create_preset, used by tuner.create_study(preset => ...)';

COMMENT ON COLUMN tuner.preset.definition IS
	'The preset as JSON (docs/presets.md, "Defining a preset")';

-- pg_dump keeps the roles' presets; the built-ins come with the extension.
SELECT pg_catalog.pg_extension_config_dump('tuner.preset', 'WHERE owner IS NOT NULL');

CREATE INDEX trial_confirms_idx ON tuner.trial (confirms);

COMMENT ON COLUMN tuner.trial.confirms IS
	'The trial whose configuration this confirmation run measures (tuner.confirm)';

COMMENT ON COLUMN tuner.trial.confirm_pair IS
	'Which pair of that confirmation this run belongs to (1, 2, ...)';

COMMENT ON COLUMN tuner.trial.disturbed IS
	'Other processes used more than the study''s max_disturbance of the machine''s CPU while it ran (NULL: not measured)';

CREATE TABLE tuner.trial_progress (
	trial_id	bigint NOT NULL REFERENCES tuner.trial (id) ON DELETE CASCADE,
	step		float8 NOT NULL CHECK (step >= 0 AND step < 'Infinity'),
	at			timestamptz NOT NULL DEFAULT now(),
	metrics		jsonb NOT NULL CHECK (jsonb_typeof(metrics) = 'object'),
	PRIMARY KEY (trial_id, step)
);

COMMENT ON TABLE tuner.trial_progress IS
	'Intermediate results of a trial while it ran: a monotone step (seconds, operations, a phase) and its metrics';

SELECT pg_catalog.pg_extension_config_dump('tuner.trial_progress', '');
