/*
 * views.sql
 *	  The views users and tools read.  Each runs as its caller
 *	  (security_invoker), so the study's row-level security applies.
 */

CREATE OR REPLACE VIEW tuner.clusters WITH (security_invoker = true) AS
SELECT s.name AS study,
	   m.name AS metric,
	   m.cluster AS parameters,
	   m.cluster_source AS source,
	   m.cluster_confidence AS confidence
  FROM tuner.metric m
  JOIN tuner.study s ON s.id = m.study_id
 WHERE m.cluster IS NOT NULL;

CREATE OR REPLACE VIEW tuner.catalog_kept WITH (security_invoker = true) AS
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

CREATE OR REPLACE VIEW tuner.catalog_dropped WITH (security_invoker = true) AS
SELECT s.name AS study,
	   d.name,
	   d.reason,
	   d.detail,
	   d.source_type,
	   d.level,
	   d.import_id
  FROM tuner.catalog_drop d
  JOIN tuner.study s ON s.id = d.study_id;

-- The studies with their counts and best value (best's).
CREATE OR REPLACE VIEW tuner.studies WITH (security_invoker = true) AS
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
	   (SELECT b.value FROM tuner._best_trial(s.id) b) AS best_value,
	   s.owner,
	   s.created_at,
	   s.runner,
	   s.algorithm,
	   (SELECT pg_catalog.count(*) FROM tuner.trial t
		 WHERE t.study_id = s.id AND t.state = 'complete' AND t.disturbed) AS disturbed
  FROM tuner.study s;

-- What is running now: one row per running trial that can still finish,
-- with how long it has run, when it last showed a sign of life and the
-- study's best value (tuner.best's).  It reaps first (reap's changes are
-- not in the view's snapshot, so what reap ends is also left out by the
-- filter: an expired lease, an abandoned trial).
CREATE OR REPLACE VIEW tuner.progress WITH (security_invoker = true) AS
SELECT s.name AS study,
	   t.id AS trial,
	   t.number,
	   t.worker,
	   t.worker_pid AS pid,
	   t.job_id AS job,
	   t.config AS params,
	   t.started_at,
	   pg_catalog.now() - t.started_at AS elapsed,
	   CASE WHEN t.worker_pid IS NOT NULL THEN
			EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity a
					 WHERE a.pid = t.worker_pid) END AS alive,
	   (SELECT pg_catalog.count(*) FROM tuner.trial c
		 WHERE c.study_id = s.id AND c.state = 'complete') AS complete,
	   (SELECT b.value FROM tuner._best_trial(s.id) b) AS best_value,
	   t.heartbeat_at,
	   t.lease_expires_at,
	   tuner._last_seen(t) AS last_seen,
	   pg_catalog.clock_timestamp() - tuner._last_seen(t) AS silent_for,
	   (SELECT pg_catalog.count(*) FROM tuner.trial c
		 WHERE c.study_id = s.id AND c.state = 'complete' AND c.disturbed) AS disturbed,
	   (t.details -> 'slurm' ->> 'job_id')::bigint AS slurm_job,
	   t.details -> 'slurm' ->> 'state' AS slurm_state
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
 WHERE t.state = 'running'
   AND (SELECT tuner._reap_if_writable()) IS NOT NULL
   AND (t.lease_expires_at IS NULL OR t.lease_expires_at >= pg_catalog.clock_timestamp())
   AND NOT tuner._is_abandoned(t, s.settings);

-- The presets a role may use, one row each.
CREATE OR REPLACE VIEW tuner.presets WITH (security_invoker = true) AS
SELECT p.name,
	   p.owner IS NULL AS built_in,
	   p.owner,
	   p.definition ->> 'description' AS description,
	   p.definition ->> 'objective' AS objective,
	   p.definition -> 'runner' ->> 'name' AS runner,
	   pg_catalog.jsonb_array_length(COALESCE(p.definition -> 'parameters', '[]')) AS parameters,
	   p.definition ? 'catalog' AS from_catalog,
	   p.created_at
  FROM tuner.preset p
 WHERE p.owner IS NULL OR p.owner = current_user;

-- The trials view with the confirmation and context columns.
CREATE OR REPLACE VIEW tuner.trials WITH (security_invoker = true) AS
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
	   t.lease_expires_at,
	   t.confirms,
	   t.confirm_pair,
	   t.disturbed,
	   o.std_error,
	   o.std_errors
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value,
		   pg_catalog.max(ob.std_error) FILTER (WHERE m.name = s.objective) AS std_error,
		   pg_catalog.jsonb_object_agg(m.name, ob.std_error)
			   FILTER (WHERE ob.std_error IS NOT NULL) AS std_errors
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;

COMMENT ON VIEW tuner.trials IS
	'One row per trial: its parameters, objective value and every reported metric';

COMMENT ON VIEW tuner.clusters IS
	'The parameter groups of clustered multi-task models: per auxiliary metric, its parameters and who chose them';

COMMENT ON VIEW tuner.studies IS
	'One row per study with its trial counts and best objective value';

COMMENT ON VIEW tuner.catalog_kept IS
	'The parameters a catalog import kept: their space, the source bounds, which bounds are soft and whether a change needs a restart';

COMMENT ON VIEW tuner.catalog_dropped IS
	'The options a catalog import dropped, and why';

COMMENT ON VIEW tuner.progress IS
	'Running trials: study, worker, elapsed time and the best objective value so far';

COMMENT ON COLUMN tuner.trials.constraints_met IS
	'Complete trials of a study with bounded constraint metrics: false when the trial broke one (or did not report it); NULL otherwise';

COMMENT ON COLUMN tuner.studies.best_value IS
	'The objective value of tuner.best: the best complete trial that met every outcome constraint (the first objective of a multi-objective study)';

COMMENT ON VIEW tuner.progress IS
	'Running trials that can still finish: study, worker, elapsed time, the last sign of life and the study''s best value (tuner.best''s)';

COMMENT ON COLUMN tuner.progress.alive IS
	'Whether the server process running the trial still exists; NULL for a trial no server process runs (ask/tell, a remote agent)';

COMMENT ON COLUMN tuner.progress.last_seen IS
	'The trial''s last sign of life: its last heartbeat, else its start';

COMMENT ON COLUMN tuner.progress.disturbed IS
	'How many of the study''s complete trials ran while the machine was busy (tuner.trial.disturbed): their values are less certain';

COMMENT ON COLUMN tuner.studies.disturbed IS
	'How many of the study''s complete trials ran while the machine was busy (tuner.trial.disturbed)';

COMMENT ON COLUMN tuner.progress.slurm_job IS
	'The Slurm job of a trial of a study with executor slurm; NULL for others';

COMMENT ON COLUMN tuner.progress.slurm_state IS
	'Its job''s state as the worker last saw it: PENDING (queued in Slurm), RUNNING, ...';

COMMENT ON COLUMN tuner.progress.silent_for IS
	'Time since last_seen; a trial without a lease silent for longer than its study''s abandon_after_s is reaped as abandoned';
