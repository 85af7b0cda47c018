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
CREATE FUNCTION tuner._runner_input_problem(trial bigint)
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

-- Trigger: a queued or running trial's configuration, on insert or change.
CREATE FUNCTION tuner._trial_config_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	c record;
BEGIN
	IF NEW.state <> ALL (ARRAY['queued', 'running'])
	   OR (TG_OP = 'UPDATE'
		   AND NEW.config IS NOT DISTINCT FROM OLD.config) THEN
		RETURN NEW;
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.study s WHERE s.id = NEW.study_id) THEN
		RETURN NEW;		-- a study the caller cannot see: row-level security refuses
	END IF;
	c := tuner._complete_config(NEW.study_id, NEW.config);
	IF pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'parameter "%" is not in study "%"', c.dropped[1],
			  (SELECT s.name FROM tuner.study s WHERE s.id = NEW.study_id)
			USING ERRCODE = 'undefined_object',
				  HINT = 'tuner.parameter lists the study''s parameters.';
	END IF;
	IF c.problem IS NOT NULL THEN
		RAISE EXCEPTION '%', c.problem[2]
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = CASE c.problem[1] WHEN 'missing_parameter' THEN 'Give it a value.'
							  ELSE 'Give a value the parameter''s kind, bounds or choices allow.' END;
	END IF;
	NEW.config := c.config;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_config_guard BEFORE INSERT OR UPDATE OF config ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_config_guard();
