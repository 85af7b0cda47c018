-------------------------------------------------------------------------------
-- Study settings are checked wherever they change.
--
-- create_study and set_algorithm check the settings they write, but an
-- UPDATE of tuner.study.settings by a write grantee went unchecked: a
-- trial_timeout_s of 1e9, or a transfer_from naming a study its owner may
-- not read, whose trials the next privileged suggestion would then fit and
-- show.  A trigger now checks every setting an INSERT or UPDATE adds or
-- changes, with the functions create_study uses, and transfer_from against
-- both the writer's and the study owner's privileges; the use in a
-- suggestion checks the owner's again (tuner._transfer_rows), so that a
-- grant revoked later also stops the transfer.
-------------------------------------------------------------------------------

-- May role (by name) read study study_id, as row-level security would
-- decide for it: its owner (or a member of the owner), tuner_reader, or
-- a grantee.  False for a role that does not exist.
CREATE FUNCTION tuner._role_may_read_study(role name, study_id bigint)
RETURNS bool
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_role oid := pg_catalog.to_regrole(pg_catalog.quote_ident($1));
	v_owner name;
BEGIN
	IF v_role IS NULL THEN
		RETURN false;
	END IF;
	SELECT s.owner INTO v_owner FROM tuner.study s WHERE s.id = $2;
	IF NOT FOUND THEN
		RETURN false;
	END IF;
	RETURN COALESCE(pg_catalog.pg_has_role(v_role,
					pg_catalog.to_regrole(pg_catalog.quote_ident(v_owner)), 'USAGE'), false)
		OR pg_catalog.pg_has_role(v_role, 'tuner_reader', 'USAGE')
		OR EXISTS (SELECT 1 FROM tuner.study_grant g
					WHERE g.study_id = $2
					  AND COALESCE(pg_catalog.pg_has_role(v_role,
							pg_catalog.to_regrole(pg_catalog.quote_ident(g.grantee)), 'USAGE'), false));
END;
$$;

-- Refuse a transfer source the study's owner may not read (study: the
-- target's name and owner; source: the source's id and name).
CREATE FUNCTION tuner._check_transfer_source(study text, owner name, source bigint, source_name text)
RETURNS bool
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
BEGIN
	IF NOT tuner._role_may_read_study($2, $3) THEN
		RAISE EXCEPTION 'permission denied to transfer from study "%"', $4
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Study %s transfers from it, but its owner %s may not read it.',
											 pg_catalog.to_jsonb($1), pg_catalog.quote_ident($2)),
				  HINT = 'The source''s owner can grant it with tuner.grant_study(source, owner, ''read''), or remove it from transfer_from.';
	END IF;
	RETURN true;
END;
$$;

-- Check the settings of a study that an INSERT or UPDATE adds or changes
-- (old: the settings before, NULL for a new study).  The checks and
-- errors are create_study's and set_algorithm's.
CREATE FUNCTION tuner._check_changed_settings(settings jsonb, old jsonb, study text, owner name)
RETURNS void
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	k text;
	v jsonb;
	v_changed jsonb := '{}';
	v_source record;
	v_known text[] := ARRAY['seed', 'n_initial', 'trial_timeout_s', 'kill_grace_s',
		'runner', 'icm_rank', 'icm_joint', 'transfer_from', 'bound_margin',
		'bound_hits', 'noise_sd', 'lease_s', 'max_retries', 'abandon_after_s',
		'sapphire', 'strict_metrics', 'max_disturbance', 'retry_disturbed', 'pruning'];
BEGIN
	IF pg_catalog.jsonb_typeof(settings) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'settings must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(settings));
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(settings) e
	LOOP
		CONTINUE WHEN old IS NOT NULL AND (old -> k) IS NOT DISTINCT FROM v;
		v_changed := v_changed || pg_catalog.jsonb_build_object(k, v);
		IF k <> ALL (v_known) THEN
			RAISE EXCEPTION 'unknown study setting "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known settings: ' || pg_catalog.array_to_string(v_known, ', ')
						|| ' (sapphire is set by tuner.set_algorithm).';
		END IF;
	END LOOP;
	PERFORM tuner._check_run_settings(v_changed);
	IF v_changed ? 'seed' THEN
		PERFORM tuner._json_int(v_changed -> 'seed', 'setting seed',
								-9223372036854775808, 9223372036854775807);
	END IF;
	IF v_changed ? 'n_initial' THEN
		PERFORM tuner._json_int(v_changed -> 'n_initial', 'setting n_initial', 1, 1000);
	END IF;
	IF v_changed ? 'icm_rank' THEN
		PERFORM tuner._json_int(v_changed -> 'icm_rank', 'setting icm_rank', 1, 100);
	END IF;
	IF v_changed ? 'bound_hits' THEN
		PERFORM tuner._json_int(v_changed -> 'bound_hits', 'setting bound_hits', 1, 1000);
	END IF;
	IF v_changed ? 'noise_sd' THEN
		PERFORM tuner._check_noise_sd(v_changed -> 'noise_sd', 'setting noise_sd');
	END IF;
	IF v_changed ? 'icm_joint' THEN
		PERFORM tuner._json_joint_weight(v_changed -> 'icm_joint', 'setting icm_joint');
	END IF;
	IF v_changed ? 'bound_margin' AND (pg_catalog.jsonb_typeof(v_changed -> 'bound_margin') <> 'number'
									   OR (v_changed ->> 'bound_margin')::float8 <= 0
									   OR (v_changed ->> 'bound_margin')::float8 >= 0.5) THEN
		RAISE EXCEPTION 'setting bound_margin must be a number between 0 and 0.5'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', v_changed -> 'bound_margin'),
				  HINT = 'It is the share of a parameter''s range next to a soft bound, e.g. 0.05.';
	END IF;
	IF v_changed ? 'strict_metrics'
	   AND pg_catalog.jsonb_typeof(v_changed -> 'strict_metrics') IS DISTINCT FROM 'boolean' THEN
		RAISE EXCEPTION 'setting strict_metrics must be true or false'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', v_changed -> 'strict_metrics'),
				  HINT = 'With true, tuner.report() refuses a metric not declared with tuner.add_metric().';
	END IF;
	IF v_changed ? 'sapphire' THEN
		v := v_changed -> 'sapphire';
		IF pg_catalog.jsonb_typeof(v) IS DISTINCT FROM 'object'
		   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_object_keys(v) j
					   WHERE j <> ALL (ARRAY['explore', 'top_k', 'model'])) THEN
			RAISE EXCEPTION 'setting sapphire must be an object of the sapphire options'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v),
					  HINT = 'Set it with tuner.set_algorithm(study, ''sapphire'', options): explore, top_k, model.';
		END IF;
		IF v ? 'explore' THEN
			PERFORM tuner._json_int(v -> 'explore', 'sapphire option explore', 5, 100000);
		END IF;
		IF v ? 'top_k' THEN
			PERFORM tuner._json_int(v -> 'top_k', 'sapphire option top_k', 1, 100000);
		END IF;
		IF v ? 'model' AND (pg_catalog.jsonb_typeof(v -> 'model') <> 'string'
							OR (v ->> 'model') <> ALL (ARRAY['gp-ei', 'icm'])) THEN
			RAISE EXCEPTION 'sapphire option model must be "gp-ei" or "icm"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v -> 'model');
		END IF;
	END IF;
	IF v_changed ? 'transfer_from' THEN
		-- the writer must see each source (row-level security) ...
		PERFORM tuner._check_transfer_from(v_changed -> 'transfer_from', study);
		-- ... and the study's owner must be allowed to read it
		FOR v_source IN
			SELECT s.id, s.name FROM pg_catalog.jsonb_array_elements_text(v_changed -> 'transfer_from') e(name)
			  JOIN tuner.study s ON s.name = e.name
		LOOP
			PERFORM tuner._check_transfer_source(study, owner, v_source.id, v_source.name);
		END LOOP;
	END IF;
END;
$$;

-- Trigger: the settings an INSERT or UPDATE of tuner.study adds or
-- changes.  A running job's trials are bounded by its study's timeouts,
-- so while another role's job runs only that role (or a superuser) may
-- raise them.
CREATE FUNCTION tuner._study_settings_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	k text;
	v_default float8;
	v_job tuner.job;
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.settings IS NOT DISTINCT FROM OLD.settings THEN
		RETURN NEW;
	END IF;
	PERFORM tuner._check_changed_settings(NEW.settings,
		CASE WHEN TG_OP = 'UPDATE' THEN OLD.settings END,
		NEW.name, NEW.owner);
	IF TG_OP = 'INSERT'
	   OR tuner._is_superuser() THEN
		RETURN NEW;
	END IF;
	-- the defaults of tuner._trial_launch and tuner._lease_s
	FOR k, v_default IN VALUES ('trial_timeout_s', 600), ('kill_grace_s', 5), ('lease_s', 300)
	LOOP
		CONTINUE WHEN COALESCE((NEW.settings ->> k)::float8, v_default)
					  <= COALESCE((OLD.settings ->> k)::float8, v_default);
		SELECT * INTO v_job FROM tuner.job j
		 WHERE j.study_id = NEW.id AND j.state = 'running' AND NOT tuner._has_role(j.owner)
		 ORDER BY j.id LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'permission denied to raise setting % of study "%"', k, NEW.name
				USING ERRCODE = 'insufficient_privilege',
					  DETAIL = pg_catalog.format('Job %s of role %s is running; only its starter may raise its timeouts.',
												 v_job.id, pg_catalog.quote_ident(v_job.owner)),
					  HINT = 'Wait for the job to end, or stop it with tuner.stop().';
		END IF;
	END LOOP;
	RETURN NEW;
END;
$$;

CREATE TRIGGER study_settings_guard BEFORE INSERT OR UPDATE OF settings ON tuner.study
	FOR EACH ROW EXECUTE FUNCTION tuner._study_settings_guard();

-- The trials of the transfer sources, as suggest_next fits them; each
-- source is checked against the study owner's privileges at use, since
-- the caller may be a privileged session or a worker that sees every
-- study.  (0.1.0's body, with that check in src.)
CREATE OR REPLACE FUNCTION tuner._transfer_rows(study_id bigint, sources text[],
									 OUT x float8[], OUT y float8[])
RETURNS SETOF record
LANGUAGE sql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
WITH src AS (
	SELECT st.id, st.objective, st.direction, o.k
	  FROM pg_catalog.unnest($2) WITH ORDINALITY AS o(name, k)
	  JOIN tuner.study st ON st.name = o.name AND st.id <> $1
	  JOIN tuner.study target ON target.id = $1
	 WHERE tuner._check_transfer_source(target.name, target.owner, st.id, st.name)
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
