-------------------------------------------------------------------------------
-- A job is its starter's.
--
-- tuner.run inserts a job row and its background workers, running as the
-- role that called it, claim trials until the job's count is reached.  A
-- write grantee of the study could UPDATE that row (trials 2 -> 1,000,000,
-- or claimed back to 0) and the starter's workers kept going.  Now only
-- the starter (a member of its owner role) or a superuser changes a job's
-- counts; anyone who may write the study may still stop it, as tuner.stop
-- does, and end it, as tuner.reap does after a crash.  Who started it and
-- for which study never change, and a new row names its own starter.
-- A new job is checked as tuner.run checks it (the right to run programs,
-- a study with a runner and parameters, trials and parallel in range),
-- whichever statement inserts it.
-------------------------------------------------------------------------------

CREATE FUNCTION tuner._job_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_superuser bool := tuner._is_superuser();
	v_study text;
BEGIN
	IF TG_OP = 'INSERT' THEN
		IF NEW.owner <> current_user AND NOT v_superuser THEN
			RAISE EXCEPTION 'a job must name its starter as owner'
				USING ERRCODE = 'insufficient_privilege',
					  DETAIL = pg_catalog.format('The job names %s, the current role is %s.',
												 pg_catalog.quote_ident(NEW.owner), pg_catalog.quote_ident(current_user)),
					  HINT = 'Start jobs with tuner.run().';
		END IF;
		IF NEW.trials < 1 THEN
			RAISE EXCEPTION 'trials must be at least 1'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', NEW.trials);
		END IF;
		IF NEW.parallel < 1 OR NEW.parallel > 64 THEN
			RAISE EXCEPTION 'parallel must be between 1 and 64'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', NEW.parallel);
		END IF;
		-- what tuner.run may start: a job runs the study's runner (a
		-- superuser restoring a dump may insert the jobs of any study)
		IF NOT v_superuser THEN
			PERFORM tuner._check_program_privilege('run a runner');
			SELECT s.name INTO v_study FROM tuner.study s WHERE s.id = NEW.study_id;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'study % does not exist', NEW.study_id
					USING ERRCODE = 'undefined_object';
			END IF;
			PERFORM tuner._study_with_runner(v_study);
		END IF;
		RETURN NEW;
	END IF;
	IF v_superuser THEN
		RETURN NEW;
	END IF;
	IF NEW.id <> OLD.id OR NEW.study_id <> OLD.study_id OR NEW.owner <> OLD.owner
	   OR NEW.created_at <> OLD.created_at THEN
		RAISE EXCEPTION 'the identity of job % cannot change', OLD.id
			USING ERRCODE = 'integrity_constraint_violation',
				  HINT = 'A job keeps its id, study, starter and start time.';
	END IF;
	IF tuner._has_role(OLD.owner) THEN
		RETURN NEW;
	END IF;
	-- Others may only stop the job or record that it ended.
	IF NEW.trials <> OLD.trials OR NEW.parallel <> OLD.parallel
	   OR NEW.launched <> OLD.launched OR NEW.claimed <> OLD.claimed
	   OR NEW.workers_done <> OLD.workers_done
	   OR (OLD.stop_requested AND NOT NEW.stop_requested)
	   OR (NEW.state IS DISTINCT FROM OLD.state AND OLD.state <> 'running')
	   OR (NEW.error IS DISTINCT FROM OLD.error AND OLD.error IS NOT NULL)
	   OR (NEW.finished_at IS DISTINCT FROM OLD.finished_at AND OLD.finished_at IS NOT NULL) THEN
		RAISE EXCEPTION 'permission denied to change job % of role %', OLD.id, OLD.owner
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'Only the role that started a job (or a superuser) changes its counts; others may stop it.',
				  HINT = 'Stop it with tuner.stop(study) and start a job of your own with tuner.run().';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER job_guard BEFORE INSERT OR UPDATE ON tuner.job
	FOR EACH ROW EXECUTE FUNCTION tuner._job_guard();
