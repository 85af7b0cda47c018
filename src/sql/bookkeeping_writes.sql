/*
 * bookkeeping_writes.sql
 *	  tuner's own bookkeeping (jobs, views, grants, models, suggestion records,
 *	  progress rows, presets) is written only through these fixed statements
 *	  (src/pg/bookkeeping_write.c); a trigger refuses every other write by a
 *	  non-superuser.
 */

-------------------------------------------------------------------------------
-- A study's jobs, views, grants, models and suggestion records, and the
-- presets, are written by tuner's functions only.
--
-- tuner's functions run as their caller, so a role that may call them
-- also held the table privileges to write these tables directly, and a
-- direct statement skipped what only the functions checked: a job
-- inserted by hand needed no right to run programs, a grant could name a
-- role that does not exist.  Now each function writes through one of the
-- fixed statements of src/pg/bookkeeping_write.c, named by the functions
-- below, and the guard trigger refuses any other write to the three
-- tables.  What a row may say is still checked by each table's own
-- triggers and policies, as the caller, whichever statement writes it.
-------------------------------------------------------------------------------

-- Is one of the fixed bookkeeping statements running in this backend?
CREATE OR REPLACE FUNCTION tuner._in_bookkeeping_write()
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_in_bookkeeping_write'
LANGUAGE C STABLE;

-- The fixed statements; each returns the new row's id (the study's, for a
-- view or a grant) or how many rows it changed.
CREATE OR REPLACE FUNCTION tuner._job_insert(study_id bigint, trials int, parallel int)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._job_set_launched(job bigint, launched int)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._job_request_stop(study_id bigint)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._job_count_claim(job bigint)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._job_count_worker_done(job bigint, error text)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._job_mark_interrupted()
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._view_insert(study_id bigint, view_schema name, view_name name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._view_forget(view_schema name, view_name name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._grant_insert(study_id bigint, grantee name, privilege text)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._grant_forget(study_id bigint, grantee name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._model_insert(models tuner.model[])
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._suggestion_insert(suggestion tuner.suggestion)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._progress_insert(trial bigint, step float8, metrics jsonb)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._preset_insert(name text, definition jsonb)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

CREATE OR REPLACE FUNCTION tuner._preset_delete(name text, owner name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

-- Trigger: refuse a write that is not one of the statements above.  A
-- superuser may (restoring a dump, repairing rows; and the cascades that
-- delete a study's rows with it run as the tables' owner).
CREATE OR REPLACE FUNCTION tuner._bookkeeping_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
BEGIN
	IF NOT tuner._in_bookkeeping_write() AND NOT tuner._is_superuser() THEN
		RAISE EXCEPTION 'tuner.% is written by tuner''s functions only', TG_TABLE_NAME
			USING ERRCODE = 'insufficient_privilege',
				  HINT = CASE TG_TABLE_NAME
						 WHEN 'job' THEN 'Start a job with tuner.run() and stop it with tuner.stop().'
						 WHEN 'study_view' THEN 'Make a view with tuner.create_view() and remove it with DROP VIEW.'
						 WHEN 'preset' THEN 'Use tuner.create_preset() and tuner.drop_preset().'
						 WHEN 'trial_progress' THEN 'Report intermediate results with tuner.report_progress().'
						 WHEN 'model' THEN 'tuner.suggest_next() records the models it fits.'
						 WHEN 'suggestion' THEN 'tuner.suggest_next() records what each suggestion was computed from.'
						 ELSE 'Use tuner.grant_study() and tuner.revoke_study().' END;
	END IF;
	RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END;
$$;

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.job
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.study_view
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.study_grant
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.preset
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.model
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.suggestion
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();

-- Was the trial's row written by this transaction?
CREATE OR REPLACE FUNCTION tuner._trial_made_here(trial bigint)
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_trial_made_here'
LANGUAGE C STABLE;

-- Trigger: a suggestion's record and its models are written by the
-- suggestion that made the trial, in its transaction, for the trial's
-- own study; so no later call can add a model or rewrite the record of
-- what a suggestion saw (a warm start reads the latest model).
CREATE OR REPLACE FUNCTION tuner._suggestion_record_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_ok bool;
BEGIN
	IF tuner._is_superuser() THEN
		RETURN NEW;
	END IF;
	v_ok := tuner._trial_made_here(NEW.trial_id);
	-- (NEW has a study only in tuner.model)
	IF v_ok AND TG_TABLE_NAME = 'model' THEN
		v_ok := EXISTS (SELECT 1 FROM tuner.trial t
						 WHERE t.id = NEW.trial_id AND t.study_id = NEW.study_id);
	END IF;
	IF NOT v_ok THEN
		RAISE EXCEPTION 'tuner.% rows are written by the suggestion that made their trial', TG_TABLE_NAME
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Trial %s was not made by this transaction, for this study.', NEW.trial_id),
				  HINT = 'tuner.suggest_next() records them.';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER suggestion_record_guard BEFORE INSERT ON tuner.model
	FOR EACH ROW EXECUTE FUNCTION tuner._suggestion_record_guard();

CREATE TRIGGER suggestion_record_guard BEFORE INSERT ON tuner.suggestion
	FOR EACH ROW EXECUTE FUNCTION tuner._suggestion_record_guard();

CREATE TRIGGER bookkeeping_guard BEFORE INSERT OR UPDATE OR DELETE ON tuner.trial_progress
	FOR EACH ROW EXECUTE FUNCTION tuner._bookkeeping_guard();
