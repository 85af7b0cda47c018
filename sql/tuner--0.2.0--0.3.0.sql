/*
 * tuner--0.2.0--0.3.0.sql.in
 *	  The update from 0.2.0 to 0.3.0 (unreleased until the restructuring
 *	  issue lands).  The Makefile assembles sql/tuner--0.2.0--0.3.0.sql
 *	  from this file: each line "\ir FILE" is replaced by src/sql/FILE.
 *	  Every object lives in one per-feature source there, written once;
 *	  a function changed in 0.3.0 is included from its source, never
 *	  pasted here.  CREATE EXTENSION runs 0.1.0's script and the update
 *	  scripts in turn, so fresh and updated installs are the same
 *	  (tests/upgrade.sh).
 */

-- complain if script is sourced in psql, rather than through ALTER EXTENSION
\echo Use "ALTER EXTENSION tuner UPDATE TO '0.3.0'" to load this file. \quit

-- begin superuser.sql
-- Is the current role a superuser?  The guards let a superuser restore a
-- dump and repair rows in other roles' names, as row-level security does.
CREATE FUNCTION tuner._is_superuser()
RETURNS bool
LANGUAGE sql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT COALESCE((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user), false);
$$;
-- end superuser.sql
-- begin trial_config_guard.sql
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
-- end trial_config_guard.sql
-- begin agent_claim.sql
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
--
-- 0.3.0: the agent's runner is exec'd right after this, so a trial whose
-- configuration is no longer a point of the study's space
-- (tuner._runner_input_problem) is failed here, with the reason, and the
-- next one is claimed; its configuration never reaches the agent.
CREATE OR REPLACE FUNCTION tuner.agent_claim(study text, worker text,
								  OUT trial bigint, OUT number int,
								  OUT input text, OUT timeout_s float8,
								  OUT grace_s float8, OUT lease_s float8)
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
#variable_conflict use_column
DECLARE
	s tuner.study;
	t tuner.trial;
	p_study text := $1;
	p_worker text := $2;
	v_problem text;
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
	LOOP
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
		v_problem := tuner._runner_input_problem(t.id);
		EXIT WHEN v_problem IS NULL;
		PERFORM tuner._finish_trial(t.id, NULL, v_problem, '', '', 0, 'failed', v_problem);
	END LOOP;
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
-- end agent_claim.sql
-- begin study_settings_guard.sql
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
-- end study_settings_guard.sql
-- begin study_settings.sql
-------------------------------------------------------------------------------
-- create_study checks its settings with the function the settings trigger
-- uses (tuner._check_changed_settings), not with a copy of the checks.
--
-- 0.1.0's create_study held its own list of known settings and its own
-- copy of each check; the copy and the trigger's drifted (the trigger
-- knew "sapphire", create_study did not), and a new setting had to be
-- added in both.
--
-- A preset is a row of tuner.preset (presets.sql): create_study looks
-- the name up and hands the row to tuner._preset_prepare and
-- tuner._preset_apply; it names no preset itself.  The body is 0.1.0's
-- otherwise.
-------------------------------------------------------------------------------

-- Create a study; its objective is registered as a metric.
CREATE OR REPLACE FUNCTION tuner.create_study(name text, objective text DEFAULT NULL,
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
	v_seed bigint;
	v_id bigint;
	v_catalog jsonb;
	v_preset jsonb;
BEGIN
	IF p_preset IS NOT NULL THEN
		-- a row of tuner.preset, read by one generic path (presets.sql)
		v_preset := tuner._find_preset(p_preset);
		PERFORM tuner._not_null(p_settings, 'settings');
		IF pg_catalog.jsonb_typeof(p_settings) <> 'object' THEN
			RAISE EXCEPTION 'settings must be a JSON object'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		SELECT r.objective_out, r.direction_out, r.settings_out, r.runner_out, r.catalog
		  INTO p_objective, p_direction, p_settings, p_runner, v_catalog
		  FROM tuner._preset_prepare(p_preset, v_preset, p_objective, p_direction,
									 p_settings, p_runner) r;
	ELSIF p_runner IS NOT NULL THEN
		-- A study with a runner makes the server run programs; the trigger
		-- study_runner_guard checks every route.
		PERFORM tuner._check_program_privilege('create a study that runs programs');
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
	-- The settings' checks are the trigger study_settings_guard's (one
	-- place for them); run here first so that they come before a preset's
	-- work, with the study's future owner.
	PERFORM tuner._check_changed_settings(p_settings, NULL, p_name, CURRENT_USER);
	IF p_runner IS NOT NULL THEN
		PERFORM tuner._find_runner(p_runner);
	END IF;
	IF p_settings ? 'icm_joint' THEN
		-- stored as a number (true is 1)
		p_settings := p_settings || pg_catalog.jsonb_build_object('icm_joint',
			tuner._json_joint_weight(p_settings -> 'icm_joint', 'setting icm_joint'));
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
	IF v_preset IS NOT NULL THEN
		PERFORM tuner._preset_apply(p_preset, v_preset, v_id, p_name, v_catalog);
	END IF;
	RETURN v_id;
END;
$$;
-- end study_settings.sql
-- begin job_guard.sql
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
-- end job_guard.sql
-- begin study_view_guard.sql
-------------------------------------------------------------------------------
-- tuner.study_view names only views of their recorded owner.
--
-- The views tuner.create_view makes are rebuilt when their study gains a
-- parameter or metric and dropped with it, by whoever makes that change,
-- a privileged role or a worker included.  A writer could INSERT a row
-- naming any view (one of a superuser, in another schema) against their
-- own study, and the next rebuild replaced it with a view of their study,
-- keeping its grants; drop_study dropped it.  Now a row names its writer
-- as owner, and a relation that exists must be a view that writer owns
-- (or holds the role of); and rebuilding and dropping touch only a view
-- still owned by the row's owner, whoever runs them.
-------------------------------------------------------------------------------

-- Is schema.name a view owned by role (by name)?
CREATE FUNCTION tuner._is_view_of(view_schema name, view_name name, owner name)
RETURNS bool
LANGUAGE sql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT EXISTS (
	SELECT 1 FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind = 'v'
	   AND c.relowner = pg_catalog.to_regrole(pg_catalog.quote_ident($3)));
$$;

-- Trigger: what a study_view row may name.
CREATE FUNCTION tuner._study_view_guard()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_owner oid;
	v_kind "char";
BEGIN
	IF TG_OP = 'UPDATE' AND (NEW.study_id, NEW.view_schema, NEW.view_name, NEW.owner)
							IS DISTINCT FROM (OLD.study_id, OLD.view_schema, OLD.view_name, OLD.owner) THEN
		RAISE EXCEPTION 'the view of a study cannot be changed'
			USING ERRCODE = 'insufficient_privilege',
				  HINT = 'Use tuner.create_view() to make a view and DROP VIEW to remove one.';
	END IF;
	-- (a superuser restoring a dump writes other roles' rows)
	IF NEW.owner <> current_user
	   AND NOT tuner._is_superuser() THEN
		RAISE EXCEPTION 'a study view must name its maker as owner'
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('The row names %s, the current role is %s.',
											 pg_catalog.quote_ident(NEW.owner), pg_catalog.quote_ident(current_user)),
				  HINT = 'Use tuner.create_view().';
	END IF;
	SELECT c.relowner, c.relkind INTO v_owner, v_kind
	  FROM pg_catalog.pg_class c
	  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
	 WHERE n.nspname = NEW.view_schema AND c.relname = NEW.view_name;
	IF FOUND AND (v_kind <> 'v' OR NOT pg_catalog.pg_has_role(v_owner, 'USAGE')) THEN
		RAISE EXCEPTION 'permission denied to make %.% a view of a study',
			  pg_catalog.quote_ident(NEW.view_schema), pg_catalog.quote_ident(NEW.view_name)
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'It exists and is not a view of the current role.',
				  HINT = 'Pass tuner.create_view() a new name.';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER study_view_guard BEFORE INSERT OR UPDATE ON tuner.study_view
	FOR EACH ROW EXECUTE FUNCTION tuner._study_view_guard();

-- Trigger: a study gained a parameter or metric; rebuild its views.  A
-- view that cannot be rebuilt (dropped, or no longer owned by the role
-- that made it, or with views of its own on it) is reported as a
-- warning: recording a trial never fails because of a view.
CREATE OR REPLACE FUNCTION tuner._refresh_views()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
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
			PERFORM tuner._view_forget(v.view_schema, v.view_name);
			CONTINUE;
		END IF;
		IF NOT tuner._is_view_of(v.view_schema, v.view_name, v.owner) THEN
			RAISE WARNING 'view %.% was not brought up to date: it is not a view of %',
				  pg_catalog.quote_ident(v.view_schema), pg_catalog.quote_ident(v.view_name),
				  pg_catalog.quote_ident(v.owner)
				USING HINT = 'Run tuner.create_view() again under a new name.';
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

-- Trigger: a study is being deleted; drop its views (only those still
-- owned by the role that made them).
CREATE OR REPLACE FUNCTION tuner._drop_views()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v tuner.study_view;
BEGIN
	FOR v IN SELECT * FROM tuner.study_view x WHERE x.study_id = OLD.id
	LOOP
		IF tuner._is_view_of(v.view_schema, v.view_name, v.owner) THEN
			EXECUTE pg_catalog.format('DROP VIEW %I.%I', v.view_schema, v.view_name);
		END IF;
	END LOOP;
	RETURN OLD;
END;
$$;
-- end study_view_guard.sql
-- begin runner_program_safety.sql
-- runner_program_safety.sql
--	  Runner programs must be safe to exec: the server runs them as its own
--	  OS user, so no one else may be able to change the file, a directory
--	  on its path (up to /), or a symbolic link leading to it
--	  (src/exec/program_safety.c has the rule).  Checked when a runner's
--	  program is registered or changed (this trigger), and again by the
--	  server right before every exec (src/pg/runner_exec.c).

-- Raise an error unless the server may exec program, resolved as a worker
-- would (a bare name: PostgreSQL's bindir, then the server's PATH).  A
-- program not found passes: it is checked again before every run.
CREATE FUNCTION tuner._check_program_safe(program text)
RETURNS void
LANGUAGE C STRICT VOLATILE
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_check_program_safe';

-- It tells about the server's file system: only for roles that may make
-- the server run programs.
REVOKE ALL ON FUNCTION tuner._check_program_safe(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION tuner._check_program_safe(text) TO pg_execute_server_program;

-- BEFORE INSERT OR UPDATE OF program on tuner.runner.  A role that may
-- not run programs is refused by the table's policies anyway (after this
-- trigger), and learns nothing about the file system here.
CREATE FUNCTION tuner._runner_program_safe()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
BEGIN
	IF tuner._may_run_programs() THEN
		PERFORM tuner._check_program_safe(NEW.program);
	END IF;
	RETURN NEW;
END
$$;

CREATE TRIGGER runner_program_safe
	BEFORE INSERT OR UPDATE OF program ON tuner.runner
	FOR EACH ROW EXECUTE FUNCTION tuner._runner_program_safe();
-- end runner_program_safety.sql
-- begin reap_own.sql
-------------------------------------------------------------------------------
-- A non-superuser's tuner.reap() reconciles its own jobs and trials after
-- a crash restart (issue 25 a).
--
-- tuner._reconcile took the time of the last (re)start from
-- pg_stat_activity: the later of the postmaster's start and the
-- checkpointer's.  pg_stat_activity hides backend_type and backend_start
-- of other roles' processes (the checkpointer's too) from a role without
-- pg_read_all_stats, so for a tuner_user a crash restart went unseen: its
-- reap left the job of a crashed tuner.run 'running' and called the
-- crashed trial's error 'worker exited'; only a superuser's reap fixed
-- them.  The same hiding made a server process of another role that
-- reused a trial's pid look older than the trial, so its trial was kept
-- running.  Both times now come from the library (src/pg/
-- server_lifetime.c), which reads them for every process and returns
-- only times.  What a caller changes is unchanged: its UPDATEs still go
-- through row-level security, so a role reconciles the jobs and trials of
-- the studies it may write and no other.
-------------------------------------------------------------------------------

-- When the server last started or restarted after a crash (the later of
-- the postmaster's start and the checkpointer's), whoever asks.
CREATE FUNCTION tuner._server_started_at()
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_server_started_at';

-- When the live server process with this pid started; NULL when there is
-- none.  Whoever asks: pg_stat_activity hides it for other roles.
CREATE FUNCTION tuner._backend_started_at(pid int)
RETURNS timestamptz
LANGUAGE C STRICT
SET search_path = pg_catalog, tuner, pg_temp
AS 'MODULE_PATHNAME', 'tuner_backend_started_at';

-- Mark trials whose server process is gone as interrupted: "server
-- restarted" when the trial started before the server last started (or
-- restarted after a crash), "worker exited" otherwise, and queue their
-- retries.  A trial counts as run by the server when it records
-- worker_pid (tuner.run workers and tuner.step); trials of a live process
-- (same pid, started no later than the trial) are never touched.  Jobs
-- left running by an earlier server lifetime are marked as well.  Only
-- rows the caller may write change (row-level security).  Returns how
-- many trials it marked.
CREATE OR REPLACE FUNCTION tuner._reconcile()
RETURNS int
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
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
	-- The backend status snapshot is cached per transaction: take it afresh.
	PERFORM pg_catalog.pg_stat_clear_snapshot();
	v_restart := tuner._server_started_at();
	WITH gone AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted',
			   finished_at = pg_catalog.now(),
			   error = CASE WHEN t.started_at < v_restart
						   THEN 'server restarted' ELSE 'worker exited' END
		 WHERE t.state = 'running' AND t.worker_pid IS NOT NULL
		   AND NOT COALESCE(tuner._backend_started_at(t.worker_pid)
							<= COALESCE(t.started_at, 'infinity'), false)
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(g.id ORDER BY g.id) INTO v_ids FROM gone g;
	n := COALESCE(pg_catalog.cardinality(v_ids), 0);
	PERFORM tuner._queue_retries(v_ids);
	-- jobs started before the restart (bookkeeping_writes.sql)
	PERFORM tuner._job_mark_interrupted();
	RETURN n;
END;
$$;
-- end reap_own.sql
-- begin parameter_limits.sql
-------------------------------------------------------------------------------
-- A parameter's bounds must be representable and samplable, and a study
-- has at most 2000 parameters (issue 25 b).
--
-- Bounds are float8 columns; an int parameter's values are bigint
-- (suggestions, tuner.best, create_view) and a float's are drawn as
-- low + u * (high - low).  So int bounds past bigint failed later with
-- "bigint out of range", float bounds of +-1e308 made high - low
-- infinite and every suggestion the same (the study was "exhausted"
-- after one trial), and a study of more than 1000 parameters got no
-- design point (the scrambled Halton design, src/core/design.c, spanned
-- at most 1000 dimensions), Ceph's washed catalog of 1153 options
-- included.  The design now spans 2000 (MAX_DESIGN_DIMS), and a trigger on
-- tuner.parameter now refuses such rows however they come
-- (add_parameter, the presets and catalog imports, which go through it,
-- a widening soft bound, direct DML), and a soft bound stops widening
-- before its range would become one.
-------------------------------------------------------------------------------

-- Why a float or int range [low, high] cannot be sampled, or NULL when it
-- can: a bound not finite (or, for int, not an integer or outside
-- bigint), high - low not finite (float) or outside bigint (int), a
-- log-scaled low bound not positive.  Other kinds have no range: NULL.
CREATE FUNCTION tuner._bounds_problem(kind text, low float8, high float8, log_scale bool)
RETURNS text
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT CASE
	WHEN $1 NOT IN ('float', 'int') OR $2 IS NULL OR $3 IS NULL THEN NULL
	WHEN $2 IN ('NaN', 'Infinity', '-Infinity') OR $3 IN ('NaN', 'Infinity', '-Infinity')
		THEN 'a bound is not finite'
	WHEN $1 = 'int' AND ($2 <> pg_catalog.trunc($2) OR $3 <> pg_catalog.trunc($3))
		THEN 'a bound is not an integer'
	-- bigint is [-2^63, 2^63 - 1]; 2^63 - 1 itself rounds up to 2^63 in float8
	WHEN $1 = 'int' AND ($2 < '-9223372036854775808'::float8 OR $3 >= '9223372036854775808'::float8)
		THEN 'a bound is outside bigint'
	WHEN $1 = 'int' AND $3 - $2 >= '9223372036854775808'::float8
		THEN 'high - low is outside bigint'
	-- (halved, as high - low itself would raise an overflow)
	WHEN $1 = 'float' AND $3 / 2 - $2 / 2 > '1.7976931348623157e308'::float8 / 2
		THEN 'high - low overflows float8'
	WHEN $4 AND $2 <= 0
		THEN 'the scale is logarithmic and low is not positive'
END;
$$;

-- The most parameters a study may have: the design's dimensions
-- (MAX_DESIGN_DIMS in src/core/design.c).
CREATE FUNCTION tuner._max_parameters()
RETURNS int
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, tuner, pg_temp
AS $$ SELECT 2000 $$;

-- Trigger: a parameter row must be samplable.  Its bounds, and the widest
-- range its soft bounds may reach (up to hard_low and hard_high), pass
-- tuner._bounds_problem; a new row (or one moved to another study) finds
-- fewer than tuner._max_parameters() others in its study.
CREATE FUNCTION tuner._parameter_limits()
RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
AS $$
DECLARE
	v_problem text;
	v_count bigint;
BEGIN
	-- (rows already stored stay updatable in their other columns)
	IF TG_OP = 'UPDATE'
	   AND (NEW.kind, NEW.low, NEW.high, NEW.log_scale, NEW.hard_low, NEW.hard_high)
		   IS NOT DISTINCT FROM (OLD.kind, OLD.low, OLD.high, OLD.log_scale, OLD.hard_low, OLD.hard_high)
	   AND NEW.study_id = OLD.study_id THEN
		RETURN NEW;
	END IF;
	v_problem := tuner._bounds_problem(NEW.kind, NEW.low, NEW.high, NEW.log_scale);
	IF v_problem IS NOT NULL THEN
		RAISE EXCEPTION 'bounds [%, %] of % parameter "%" cannot be sampled',
			  NEW.low, NEW.high, NEW.kind, NEW.name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('In [%s, %s] %s.', NEW.low, NEW.high, v_problem),
				  HINT = CASE WHEN NEW.kind = 'int'
							  THEN 'An int parameter takes bigint values: keep low, high and high - low within bigint (below 9.2e18 in magnitude).'
							  ELSE 'Keep the bounds finite and high - low below 1.7e308; rescale the parameter (for example, tune its logarithm) if it spans more.' END;
	END IF;
	IF NEW.hard_low IS NOT NULL OR NEW.hard_high IS NOT NULL THEN
		v_problem := tuner._bounds_problem(NEW.kind, COALESCE(NEW.hard_low, NEW.low),
										   COALESCE(NEW.hard_high, NEW.high), NEW.log_scale);
		IF v_problem IS NOT NULL THEN
			RAISE EXCEPTION 'hard limits [%, %] of % parameter "%" cannot be sampled',
				  COALESCE(NEW.hard_low::text, 'none'), COALESCE(NEW.hard_high::text, 'none'),
				  NEW.kind, NEW.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Its soft bounds may widen to [%s, %s], and there %s.',
												 COALESCE(NEW.hard_low, NEW.low),
												 COALESCE(NEW.hard_high, NEW.high), v_problem),
					  HINT = 'Hard limits bound the widest range the parameter may reach: they must be samplable as bounds are.';
		END IF;
	END IF;
	IF TG_OP = 'INSERT' OR NEW.study_id IS DISTINCT FROM OLD.study_id THEN
		SELECT pg_catalog.count(*) INTO v_count
		  FROM tuner.parameter p
		 WHERE p.study_id = NEW.study_id AND p.id <> NEW.id;
		IF v_count >= tuner._max_parameters() THEN
			RAISE EXCEPTION 'study "%" cannot have more than % parameters',
				  (SELECT s.name FROM tuner.study s WHERE s.id = NEW.study_id),
				  tuner._max_parameters()
				USING ERRCODE = 'program_limit_exceeded',
					  DETAIL = pg_catalog.format('Parameter "%s" would be number %s; the space-filling design spans at most %s dimensions.',
												 NEW.name, v_count + 1, tuner._max_parameters()),
					  HINT = 'Split the space over several studies, or leave out parameters known not to matter.';
		END IF;
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER parameter_limits BEFORE INSERT OR UPDATE ON tuner.parameter
	FOR EACH ROW EXECUTE FUNCTION tuner._parameter_limits();

-- A soft bound widens (see 0.1.0) only while the range stays samplable.
CREATE OR REPLACE FUNCTION tuner._widen_soft_bounds(s tuner.study, p_trial bigint)
RETURNS void
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
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
			-- never past what can be sampled (tuner._parameter_limits)
			CONTINUE WHEN tuner._bounds_problem(p.kind,
				CASE v_side WHEN 'low' THEN v_new ELSE p.low END,
				CASE v_side WHEN 'high' THEN v_new ELSE p.high END, p.log_scale) IS NOT NULL;

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
-- end parameter_limits.sql
-- begin create_view_schema.sql
-------------------------------------------------------------------------------
-- tuner.create_view with its default name works for a tuner_user
-- (issue 25 c).
--
-- The view went to schema tuner unless the name said otherwise, and only
-- a superuser (or the extension's owner) may create there: README's
-- quickstart, create_view('quickstart'), failed for every tuner_user with
-- "permission denied to create a view in schema tuner".  A name without
-- a schema now goes to tuner when the caller may create there (as before
-- for superusers), else to the caller's own schema (named like the role,
-- as "$user" of the default search_path finds it), else to public, the
-- first of them the caller may create in; with none, the error says so
-- and how to get one.  Not the caller's search_path: the function runs
-- with a fixed one, as every function of the extension does.  Nothing else changes: a
-- schema-qualified name is used as given, CREATE on the schema is still
-- checked (so a tuner_user still cannot create in tuner), and a study is
-- found through row-level security, so only a role that may read it
-- gets a view of it (and only one that may write it registers one: a
-- reader now hears so instead of a row-level security violation).
-------------------------------------------------------------------------------

-- Create a typed view of a study's trials: one row per trial, one column
-- per parameter (bigint, double precision, boolean or text) and per metric
-- (double precision).  view_name is an SQL name, possibly qualified
-- ('reports.branin', '"My Study"'); the default is "<study>_trials".  A
-- name without a schema goes to schema tuner when the caller may create
-- there, else to the caller's own schema, else to public (the first the
-- caller may create in).  Returns the view's quoted name.  Called again,
-- it rebuilds the view.
CREATE OR REPLACE FUNCTION tuner.create_view(study text, view_name text DEFAULT NULL)
RETURNS text
LANGUAGE plpgsql
SET search_path = pg_catalog, tuner, pg_temp
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
		v_schema := CASE pg_catalog.cardinality(v_parts) WHEN 2 THEN v_parts[1] END;
		v_name := v_parts[pg_catalog.cardinality(v_parts)];
		IF pg_catalog.octet_length(v_name) > 63 OR pg_catalog.octet_length(v_schema) > 63 THEN
			RAISE EXCEPTION 'view name "%" is too long', view_name
				USING ERRCODE = 'name_too_long',
					  DETAIL = 'Names are at most 63 bytes.';
		END IF;
	END IF;
	IF v_schema IS NULL THEN
		-- tuner when the caller may create there (a superuser, the
		-- extension's owner), else the caller's own schema (the one "$user"
		-- of the default search_path names), else public: the first of
		-- them that exists and that the caller may create in
		SELECT x.nspname INTO v_schema
		  FROM (VALUES (1, 'tuner'::name), (2, current_user), (3, 'public'::name))
			   AS x(ord, nspname)
		  JOIN pg_catalog.pg_namespace n ON n.nspname = x.nspname
		 WHERE pg_catalog.has_schema_privilege(n.oid, 'CREATE')
		 ORDER BY x.ord LIMIT 1;
		IF v_schema IS NULL THEN
			RAISE EXCEPTION 'no schema to create the view of study "%" in', s.name
				USING ERRCODE = 'insufficient_privilege',
					  DETAIL = pg_catalog.format('A view named without a schema goes to schema tuner, %s or public, the first the current role may create in; it may create in none of them.',
												 pg_catalog.quote_ident(current_user)),
					  HINT = pg_catalog.format('Pass view_name => ''schema.name'' with a schema you may create in, or have a schema of your own made: CREATE SCHEMA AUTHORIZATION %s.',
											   pg_catalog.quote_ident(current_user));
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
	-- a registered name now taken by a relation that is not the view its
	-- maker made (tuner.study_view's rule): never replace that
	IF v_other IS NOT NULL AND EXISTS (
		SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = v_schema AND c.relname = v_name)
	   AND NOT tuner._is_view_of(v_schema, v_name,
								 (SELECT v.owner FROM tuner.study_view v
								   WHERE v.view_schema = v_schema AND v.view_name = v_name)) THEN
		RAISE EXCEPTION 'relation %.% already exists and is not the view of study "%"',
			  pg_catalog.quote_ident(v_schema), pg_catalog.quote_ident(v_name), s.name
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
	-- (row-level security would refuse the row below less clearly)
	IF v_other IS NULL AND pg_catalog.row_security_active('tuner.study_view')
	   AND NOT (tuner._has_role(s.owner)
				OR EXISTS (SELECT 1 FROM tuner.study_grant g
							WHERE g.study_id = s.id AND g.privilege = 'write'
							  AND tuner._has_role(g.grantee))) THEN
		RAISE EXCEPTION 'permission denied to create a view of study "%"', s.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'A study''s views are registered with it (tuner.study_view), which only its owner and the roles granted write change.',
				  HINT = 'Ask its owner for a view or for write; tuner.trials shows its trials to every reader.';
	END IF;
	IF v_other IS NULL THEN
		PERFORM tuner._view_insert(s.id, v_schema, v_name);
	END IF;
	PERFORM tuner._build_view(s.id, v_schema, v_name);
	RETURN pg_catalog.format('%I.%I', v_schema, v_name);
END;
$$;
-- end create_view_schema.sql
-- begin strict_metrics.sql
-------------------------------------------------------------------------------
-- The study setting strict_metrics: report refuses a metric name the
-- study does not declare.
--
-- report keeps every metric it is given, and a name it has not seen
-- becomes a new "recorded" metric.  A typo in a constraint's or an
-- auxiliary metric's name was then stored quietly under the wrong name,
-- and the constraint went unreported.  With strict_metrics true, every
-- name must be declared (tuner.add_metric, or the objective); a runner's
-- output goes through report too, so a runner's extra metrics must be
-- declared as well.  The body is 0.1.0's otherwise.
-------------------------------------------------------------------------------

-- Record the metrics a trial measured and mark it complete.  The study's
-- objective must be among them; every metric is kept.
CREATE OR REPLACE FUNCTION tuner.report(trial bigint, metrics jsonb)
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

	-- strict_metrics: a name the study does not declare is a typo, not a
	-- new metric.
	IF COALESCE((s.settings ->> 'strict_metrics')::bool, false) THEN
		SELECT n INTO k FROM pg_catalog.unnest(v_names) AS n
		 WHERE NOT EXISTS (SELECT 1 FROM tuner.metric m
							WHERE m.study_id = s.id AND m.name = n)
		 ORDER BY n LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'metric "%" is not declared in study "%"', k, s.name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('The study''s metrics are %s; its setting strict_metrics refuses others.',
						(SELECT pg_catalog.string_agg(pg_catalog.format('"%s"', m.name), ', ' ORDER BY m.name)
						   FROM tuner.metric m WHERE m.study_id = s.id)),
					  HINT = 'Correct the name, or declare the metric with tuner.add_metric() first.';
		END IF;
	END IF;

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
-- end strict_metrics.sql
-- begin trial_id.sql
-------------------------------------------------------------------------------
-- Trial ids and trial numbers, told apart.
--
-- A trial has an id (unique in the database, what suggest_next returns and
-- every function taking a trial expects) and a number (its place in its
-- study, what progress and the views show first).  Passing a number where
-- an id is expected is an easy mistake, and "trial 7 does not exist" did
-- not say which was meant; with another study's trial 7 present, the call
-- even acted on that trial if the caller could write it.  tuner.trial_id
-- finds the id of a study's trial number, and the error for an unknown id
-- says "trial id" and names the trial with that number when there is one.
-------------------------------------------------------------------------------

-- The id of trial number "number" of a study.
CREATE FUNCTION tuner.trial_id(study text, number int)
RETURNS bigint
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v_id bigint;
	v_last int;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null($2, 'number');
	SELECT t.id INTO v_id FROM tuner.trial t WHERE t.study_id = s.id AND t.number = $2;
	IF NOT FOUND THEN
		SELECT pg_catalog.max(t.number) INTO v_last FROM tuner.trial t WHERE t.study_id = s.id;
		RAISE EXCEPTION 'study "%" has no trial number %', s.name, $2
			USING ERRCODE = 'undefined_object',
				  DETAIL = CASE WHEN v_last IS NULL THEN 'It has no trials yet.'
								ELSE pg_catalog.format('Its trials are numbered 1 to %s.', v_last) END;
	END IF;
	RETURN v_id;
END;
$$;

-- The error for a trial id that matches no trial the caller can see.
CREATE FUNCTION tuner._no_such_trial(trial bigint)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_study text;
	v_id bigint;
	v_hint text := 'Pass the trial''s id, as tuner.suggest_next() returns it in "trial"; tuner.trial_id(study, number) gives the id of a trial number.';
BEGIN
	-- a trial of that number, in a study the caller can see
	SELECT s.name, t.id INTO v_study, v_id
	  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
	 WHERE t.number = $1 AND $1 <= 2147483647
	 ORDER BY t.id DESC LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'trial id % does not exist', $1
			USING ERRCODE = 'undefined_object',
				  DETAIL = pg_catalog.format('Trial number %s of study "%s" has id %s.', $1, v_study, v_id),
				  HINT = v_hint;
	END IF;
	RAISE EXCEPTION 'trial id % does not exist', $1
		USING ERRCODE = 'undefined_object',
			  HINT = v_hint;
END;
$$;

-- The trial row of an id, locked, or the error for a NULL, unknown or
-- finished trial.
CREATE OR REPLACE FUNCTION tuner._open_trial(trial bigint)
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
		PERFORM tuner._no_such_trial(p_trial);
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

-- Renew the lease of a running trial; returns when it now expires.
CREATE OR REPLACE FUNCTION tuner.heartbeat(trial bigint)
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
		PERFORM tuner._no_such_trial(p_trial);
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
-- end trial_id.sql
-- begin conditions.sql
-------------------------------------------------------------------------------
-- Conditions chain: an inactive parent makes its children inactive
-- (issue 26).
--
-- A conditional parameter was active whenever its own condition held on
-- its parent's value, and an inactive parent has its default: with b
-- active when a = 'x' and c active when b > 0.5, c went on varying while
-- a <> 'x' because b's default was above 0.5.  A parameter is now active
-- only when its parent is active too, transitively.  Parents come
-- before their children (tuner.add_parameter takes a condition on an
-- existing parameter only), so one pass in position order decides each
-- parameter after its parent.  This is the rule of space_canonical in
-- src/core/space.c, which the suggestions apply in C (see
-- canonical_suggestions.sql); enqueue, the trial guard and the runner
-- check get it through tuner._complete_config.
-------------------------------------------------------------------------------

-- A configuration with every inactive parameter at its default, in
-- position order (so a condition sees the final value of the parameter
-- it tests): a parameter is inactive when its condition fails or the
-- parameter it tests is inactive.
CREATE OR REPLACE FUNCTION tuner._apply_conditions(study_id bigint, config jsonb)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	c jsonb := $2;
	v_inactive text[] := '{}';
BEGIN
	FOR p IN SELECT * FROM tuner.parameter q
			  WHERE q.study_id = $1 AND q.condition_parameter IS NOT NULL
			  ORDER BY q.position
	LOOP
		IF p.condition_parameter = ANY (v_inactive) OR NOT tuner._condition_holds(p, c) THEN
			c := c || pg_catalog.jsonb_build_object(p.name, p.default_value);
			v_inactive := v_inactive || p.name;
		END IF;
	END LOOP;
	RETURN c;
END;
$$;
-- end conditions.sql
-- begin canonical_suggestions.sql
-------------------------------------------------------------------------------
-- Suggestions in canonical form: the model code applies the conditions
-- (issue 26).
--
-- tuner._suggest_point checked a point against the history before
-- tuner.suggest_next reset its inactive parameters to their defaults, so
-- the stored configuration could be a trial already made: 17 distinct
-- configurations in 25 trials of a study with a conditional parameter
-- and one failure.  The core now receives the conditions (each
-- parameter's parent, operator, the parent's values and its own default,
-- native values: tuner._space_conditions) and compares every
-- configuration in its canonical form (src/core/space.h: values on their
-- grid, inactive parameters at their defaults, conditions applied parents
-- first): the trials' before the model, the fantasies of the running
-- ones and the check for repeats see them, and each design, random or
-- model point before it is checked.  Values on their grid also means no
-- float noise in a configuration (2.5, not 2.4999999999999982).
-- suggest_next still applies tuner._apply_conditions, the same rule in
-- SQL, and raises an internal error if that changes the core's answer.
-- tuner.suggestion keeps the conditions a suggestion saw, and canonical:
-- false for the suggestions of earlier versions, which replay_suggestion
-- replays as they were computed.  suggest_next is 0.2.0's and
-- replay_suggestion 0.1.0's with those changes only.
-------------------------------------------------------------------------------

ALTER TABLE tuner.suggestion
	ADD COLUMN canonical bool NOT NULL DEFAULT false,
	ADD COLUMN condition_parent int[],
	ADD COLUMN condition_op text[],
	ADD COLUMN condition_values float8[],
	ADD COLUMN condition_default float8[];
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

-- A value of a configuration (JSON) as the native value of parameter p
-- (src/core/space.h): a bool's 0 or 1, a categorical's choice index,
-- else the number; NULL for a choice p does not have.
CREATE FUNCTION tuner._native_value(p tuner.parameter, v jsonb)
RETURNS float8
LANGUAGE sql IMMUTABLE
AS $$
SELECT CASE $1.kind
	WHEN 'bool' THEN CASE WHEN ($2)::bool THEN 1 ELSE 0 END
	WHEN 'categorical' THEN pg_catalog.array_position($1.choices, $2 #>> '{}') - 1
	ELSE ($2)::float8 END;
$$;

-- The condition of a modelled parameter p whose condition tests a
-- parameter left out of the model (tuner.enable_parameters), which is
-- fixed at its default: that condition is then always false (a row with
-- op 'never') or always true, and in the latter case p is active exactly
-- when that parent is, so p takes the parent's condition, up to a
-- modelled ancestor (a row: its 1-based position in names, the operator
-- and the ancestor's native values) or none (no row: always active).
CREATE FUNCTION tuner._folded_condition(p tuner.parameter, names text[],
										OUT parent int, OUT op text, OUT vals float8[])
RETURNS SETOF record
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	q tuner.parameter;
	r tuner.parameter := $1;
BEGIN
	WHILE r.condition_parameter IS NOT NULL AND r.condition_parameter <> ALL (names)
	LOOP
		SELECT * INTO q FROM tuner.parameter x
		 WHERE x.study_id = r.study_id AND x.name = r.condition_parameter;
		IF NOT tuner._condition_holds(r, pg_catalog.jsonb_build_object(q.name, q.default_value)) THEN
			parent := 0;
			op := 'never';
			RETURN NEXT;
			RETURN;
		END IF;
		r.condition_parameter := q.condition_parameter;
		r.condition_op := q.condition_op;
		r.condition_values := q.condition_values;
	END LOOP;
	IF r.condition_parameter IS NOT NULL THEN
		SELECT * INTO q FROM tuner.parameter x
		 WHERE x.study_id = r.study_id AND x.name = r.condition_parameter;
		parent := pg_catalog.array_position(names, q.name);
		op := r.condition_op;
		vals := ARRAY(SELECT v FROM pg_catalog.jsonb_array_elements(r.condition_values) WITH ORDINALITY AS e(value, k)
						CROSS JOIN LATERAL tuner._native_value(q, e.value) AS v
					   WHERE v IS NOT NULL ORDER BY e.k);
		RETURN NEXT;
	END IF;
END;
$$;

-- The conditions of the modelled parameters (names, in order) as the
-- core takes them (tuner._suggest_point): per parameter the 1-based
-- position of the parameter it tests (0: none), the operator (NULL: no
-- condition), a row of the parent's native values (NULL-padded; vals is
-- NULL when no condition has values; a choice the parent no longer has
-- matches nothing and is left out) and its native default.  A condition
-- on a parameter left out of the model is folded (tuner._folded_condition).
CREATE FUNCTION tuner._space_conditions(p_study_id bigint, names text[],
										OUT parents int[], OUT ops text[],
										OUT vals float8[], OUT defaults float8[])
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF NOT EXISTS (SELECT 1 FROM tuner.parameter x
					WHERE x.study_id = p_study_id AND x.condition_parameter IS NOT NULL
					  AND x.name = ANY (names)) THEN
		parents := pg_catalog.array_fill(0, ARRAY[pg_catalog.cardinality(names)]);
		ops := pg_catalog.array_fill(NULL::text, ARRAY[pg_catalog.cardinality(names)]);
		defaults := pg_catalog.array_fill(NULL::float8, ARRAY[pg_catalog.cardinality(names)]);
		RETURN;
	END IF;
	WITH n AS (
		SELECT u.name, u.j FROM pg_catalog.unnest(names) WITH ORDINALITY AS u(name, j)
	), c AS (
		SELECT n.j, e.parent, e.op, e.vals,
			   CASE p.kind WHEN 'bool' THEN CASE WHEN p.default_value::bool THEN 1 ELSE 0 END
						   WHEN 'categorical' THEN pg_catalog.array_position(p.choices, p.default_value #>> '{}') - 1
						   ELSE p.default_value::float8 END AS dflt
		  FROM n
		  JOIN tuner.parameter p ON p.study_id = p_study_id AND p.name = n.name
							   AND p.condition_parameter IS NOT NULL
		 CROSS JOIN LATERAL (
			SELECT pn.j::int AS parent, p.condition_op AS op,
				   ARRAY(SELECT x.v
						   FROM pg_catalog.jsonb_array_elements(p.condition_values) WITH ORDINALITY AS e(value, k)
						   CROSS JOIN LATERAL (SELECT CASE q.kind
									WHEN 'bool' THEN CASE WHEN e.value::bool THEN 1 ELSE 0 END
									WHEN 'categorical' THEN pg_catalog.array_position(q.choices, e.value #>> '{}') - 1
									ELSE e.value::float8 END::float8 AS v) x
						  WHERE x.v IS NOT NULL ORDER BY e.k) AS vals
			  FROM n pn
			  JOIN tuner.parameter q ON q.study_id = p_study_id AND q.name = pn.name
			 WHERE pn.name = p.condition_parameter
			UNION ALL
			SELECT f.parent, f.op, f.vals FROM tuner._folded_condition(p, names) f
			 WHERE p.condition_parameter <> ALL (names)) e
	), w AS (
		SELECT COALESCE(pg_catalog.max(pg_catalog.cardinality(c.vals)), 0) AS m FROM c
	)
	SELECT pg_catalog.array_agg(COALESCE(c.parent, 0) ORDER BY n.j),
		   pg_catalog.array_agg(c.op ORDER BY n.j),
		   pg_catalog.array_agg(COALESCE(c.vals, '{}')
								|| pg_catalog.array_fill(NULL::float8, ARRAY[w.m - COALESCE(pg_catalog.cardinality(c.vals), 0)])
								ORDER BY n.j) FILTER (WHERE w.m > 0),
		   pg_catalog.array_agg(c.dflt ORDER BY n.j)
	  INTO parents, ops, vals, defaults
	  FROM n LEFT JOIN c ON c.j = n.j CROSS JOIN w;
END;
$$;

-- The 0.2.0 entry point, with the conditions and canonical added at the end.
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
									 condition_parent int[] DEFAULT NULL,
									 condition_op text[] DEFAULT NULL,
									 condition_values float8[] DEFAULT NULL,
									 condition_default float8[] DEFAULT NULL,
									 canonical bool DEFAULT true,
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
	v_cond record;
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
	v_cond := tuner._space_conditions(s.id, sp.names);

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
			   CASE WHEN pg_catalog.cardinality(v_con_ids) > 0 AND t.state IN ('complete', 'pruned') THEN ARRAY(
					SELECT c.sign * cx.value
					  FROM ROWS FROM (pg_catalog.unnest(v_con_ids), pg_catalog.unnest(v_con_signs)) WITH ORDINALITY AS c(id, sign, k)
					  LEFT JOIN tuner.observation cx
						ON cx.trial_id = t.id AND cx.metric_id = c.id
					 ORDER BY c.k) END AS cons,
			   CASE WHEN pg_catalog.cardinality(v_aux_ids) > 0 AND t.state IN ('complete', 'pruned') THEN ARRAY(
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
			   AND t.state IN ('complete', 'pruned')
			   -- several objectives: observed only with all of them
			   AND (v_mo_ids IS NULL
					OR (SELECT pg_catalog.count(*) FROM tuner.observation mo
						 WHERE mo.trial_id = t.id AND mo.metric_id = ANY (v_mo_ids))
					   = pg_catalog.cardinality(v_mo_ids))
		 WHERE t.study_id = s.id
	)
	-- (a pruned trial counts with the last value it reported, pruning.sql)
	SELECT pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS x_observed,
		   pg_catalog.array_agg(v_sign * n.value ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS y_observed,
		   pg_catalog.array_agg(n.aux ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL AND n.aux IS NOT NULL) AS y_aux,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS x_pending,
		   pg_catalog.array_agg(n.cons ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL AND n.cons IS NOT NULL) AS y_constraint,
		   -- failed trials feed the feasibility model (src/core/feasibility.h)
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'failed') AS x_failed,
		   pg_catalog.array_agg(n.x ORDER BY n.number) FILTER (WHERE n.state = 'interrupted'
																 OR (n.state IN ('complete', 'pruned') AND n.value IS NULL)) AS x_other,
		   pg_catalog.count(*) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS n_observed,
		   pg_catalog.count(*) FILTER (WHERE n.state = 'failed') AS n_failed,
		   -- the trials behind each array, for tuner.replay_suggestion
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('complete', 'pruned') AND n.value IS NOT NULL) AS id_observed,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('running', 'queued')) AS id_pending,
		   pg_catalog.array_agg(n.id ORDER BY n.number) FILTER (WHERE n.state IN ('failed', 'interrupted')
																 OR (n.state IN ('complete', 'pruned') AND n.value IS NULL)) AS id_other
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
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict,
							  v_cond.parents, v_cond.ops, v_cond.vals,
							  v_cond.defaults, true);

	SELECT pg_catalog.jsonb_object_agg(p.name, CASE p.kind
				WHEN 'float' THEN pg_catalog.to_jsonb(r.config[p.i])
				WHEN 'int' THEN pg_catalog.to_jsonb(pg_catalog.round(r.config[p.i])::bigint)
				WHEN 'bool' THEN pg_catalog.to_jsonb(r.config[p.i] <> 0)
				ELSE pg_catalog.to_jsonb(p.choices[pg_catalog.round(r.config[p.i])::int + 1]) END)
	  INTO v_params
	  FROM (SELECT name, kind, choices,
				   pg_catalog.row_number() OVER (ORDER BY position) AS i
			  FROM tuner.parameter WHERE study_id = s.id AND enabled) p;
	-- Disabled parameters keep their defaults; the core put inactive ones
	-- at theirs, as tuner._apply_conditions does.
	v_params := COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
							FROM tuner.parameter p
						   WHERE p.study_id = s.id AND NOT p.enabled), '{}') || v_params;
	IF tuner._apply_conditions(s.id, v_params) <> v_params THEN
		RAISE EXCEPTION 'the suggestion for study "%" is not in canonical form', s.name
			USING ERRCODE = 'internal_error',
				  DETAIL = pg_catalog.format('The model code suggested %s, the conditions make it %s.',
											 v_params, tuner._apply_conditions(s.id, v_params));
	END IF;

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
	PERFORM tuner._suggestion_insert(pg_catalog.jsonb_populate_record(NULL::tuner.suggestion, pg_catalog.to_jsonb(x)))
	  FROM (SELECT v_trial AS trial_id,
				v_algorithm AS algorithm,
				sp.names AS parameters,
				sp.kinds AS kinds,
				sp.lows AS lows,
				sp.highs AS highs,
				sp.log_scales AS log_scales,
				sp.n_choices AS n_choices,
				COALESCE((SELECT pg_catalog.jsonb_object_agg(p.name, p.default_value)
						FROM tuner.parameter p
					   WHERE p.study_id = s.id AND NOT p.enabled), '{}') AS fixed,
				v_objective_id AS objective_metric,
				v_sign AS sign,
				CASE WHEN v_algorithm IN ('icm', 'clustered-icm') AND h.y_aux IS NOT NULL THEN v_aux_ids END AS aux_metrics,
				CASE WHEN h.y_aux IS NOT NULL THEN v_aux_weights END AS aux_weights,
				COALESCE(h.id_observed, '{}') AS observed,
				COALESCE(h.id_pending, '{}') AS pending,
				COALESCE(h.id_other, '{}') AS other,
				v_n_initial AS n_initial,
				(SELECT pg_catalog.count(*)::int FROM tuner.trial t
			  WHERE t.study_id = s.id AND t.source <> 'default' AND t.id <> v_trial) AS design_index,
				v_seed AS seed,
				s.seed AS design_seed,
				(s.settings ->> 'icm_rank')::int AS icm_rank,
				w.id AS warm_model,
				v_cluster_members AS cluster_members,
				v_cluster_metric AS cluster_metric,
				v_wc_tasks AS warm_cluster_tasks,
				v_wc_rank AS warm_cluster_rank,
				v_wc_ls AS warm_cluster_lengthscales,
				v_wc_w AS warm_cluster_loadings,
				v_wc_v AS warm_cluster_variance,
				v_wc_noise AS warm_cluster_noise,
				v_wc_mean AS warm_cluster_mean,
				v_x_transfer IS NOT NULL AS transfer,
				tuner._history_md5(h.y_observed,
							   CASE WHEN v_algorithm IN ('icm', 'clustered-icm') THEN h.y_aux END) AS history_md5,
				v_mo_ids AS objective_metrics,
				v_mo_signs AS objective_signs,
				v_mo_weights AS scalarization_weights,
				true AS canonical,
				v_cond.parents AS condition_parent,
				v_cond.ops AS condition_op,
				v_cond.vals AS condition_values,
				v_cond.defaults AS condition_default) x;

	PERFORM tuner._widen_soft_bounds(s, v_trial);

	IF r.source = 'model' AND v_algorithm = 'clustered-icm' THEN
		-- one row per cluster that was fitted
		FOR c IN 1 .. pg_catalog.cardinality(v_cluster_metric)
		LOOP
			CONTINUE WHEN r.cluster_tasks[c] = 0;
			PERFORM tuner._model_insert(ARRAY(
				SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
				  FROM (SELECT s.id AS study_id,
						v_trial AS trial_id,
						'cluster' AS kind,
						h.n_observed AS n,
						pg_catalog.array_agg(r.cluster_lengthscales[c][j] ORDER BY j) AS lengthscales,
						r.cluster_task_covariance[c][1] AS outputscale,
						r.cluster_task_noise[c][1] AS noise,
						r.cluster_task_mean[c][1] AS mean,
						r.cluster_log_likelihood[c] AS log_likelihood,
						CASE r.cluster_tasks[c] WHEN 2 THEN ARRAY[s.objective, v_cluster_names[c]]
						ELSE ARRAY[s.objective] END AS tasks,
						r.cluster_rank[c] AS rank,
						CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_covariance[c][1], r.cluster_task_covariance[c][2]],
							  [r.cluster_task_covariance[c][3], r.cluster_task_covariance[c][4]]] END AS task_covariance,
						CASE r.cluster_tasks[c] WHEN 2 THEN
						ARRAY[[r.cluster_task_correlation[c][1], r.cluster_task_correlation[c][2]],
							  [r.cluster_task_correlation[c][3], r.cluster_task_correlation[c][4]]] END AS task_correlation,
						ARRAY(SELECT r.cluster_task_noise[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_noise,
						ARRAY(SELECT r.cluster_task_mean[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_mean,
						r.cluster_kronecker[c] = 1 AS kronecker,
						r.fit_ms AS fit_ms,
						pg_catalog.array_agg(sp.names[j] ORDER BY j) AS parameters,
						v_cluster_names[c] AS cluster_metric,
						-- W (tasks x rank) from its row of 4, v from its row of 2
				   (SELECT pg_catalog.array_agg(ARRAY(
							SELECT r.cluster_task_loadings[c][(t - 1) * r.cluster_rank[c] + k]
							  FROM pg_catalog.generate_series(1, r.cluster_rank[c]) AS k
							 ORDER BY k) ORDER BY t)
					  FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t) AS task_loadings,
						ARRAY(SELECT r.cluster_task_variance[c][t]
						   FROM pg_catalog.generate_series(1, r.cluster_tasks[c]) AS t ORDER BY t) AS task_variance
					  FROM pg_catalog.generate_series(1, d) AS j
			 WHERE v_cluster_members[c][j] = 1) x));
		END LOOP;
		-- every combination of the clusters' proposals was tried: the point
		-- came from one GP over every parameter, stored as a row of kind gp
		IF NOT (1 = ANY (r.cluster_used)) THEN
			PERFORM tuner._model_insert(ARRAY(
				SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
				  FROM (SELECT s.id AS study_id,
						v_trial AS trial_id,
						'gp' AS kind,
						h.n_observed AS n,
						r.lengthscales AS lengthscales,
						r.outputscale AS outputscale,
						r.noise AS noise,
						r.mean AS mean,
						r.log_likelihood AS log_likelihood,
						ARRAY[s.objective] AS tasks,
						r.fit_ms AS fit_ms,
						sp.names AS parameters) x));
		END IF;
	ELSIF r.source = 'model' THEN
		-- the tasks the model kept, in its order (tasks_used is 0-based)
		SELECT pg_catalog.array_agg(v_tasks[u.k] ORDER BY u.used) INTO v_tasks
		  FROM pg_catalog.unnest(r.tasks_used) WITH ORDINALITY AS u(used, k)
		 WHERE u.used >= 0;
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					v_trial AS trial_id,
					CASE WHEN r.rank IS NULL THEN 'gp' ELSE 'icm' END AS kind,
					h.n_observed AS n,
					r.lengthscales AS lengthscales,
					r.outputscale AS outputscale,
					r.noise AS noise,
					r.mean AS mean,
					r.log_likelihood AS log_likelihood,
					COALESCE(v_tasks, ARRAY[CASE WHEN v_mo_ids IS NULL THEN s.objective ELSE 'parego' END]) AS tasks,
					r.rank AS rank,
					r.task_loadings AS task_loadings,
					r.task_variance AS task_variance,
					r.task_covariance AS task_covariance,
					r.task_correlation AS task_correlation,
					r.task_noise AS task_noise,
					r.task_mean AS task_mean,
					r.kronecker AS kronecker,
					r.fit_ms AS fit_ms,
					sp.names AS parameters) x));
	END IF;
	-- the feasibility model and each constraint's, when fitted (issue 10)
	IF r.source = 'model' AND r.constraint_n IS NOT NULL THEN
		PERFORM tuner._model_insert(ARRAY(
			SELECT pg_catalog.jsonb_populate_record(NULL::tuner.model, pg_catalog.to_jsonb(x))
			  FROM (SELECT s.id AS study_id,
					v_trial AS trial_id,
					CASE WHEN c = 1 THEN 'feasibility' ELSE 'constraint' END AS kind,
					r.constraint_n[c] AS n,
					ARRAY(SELECT r.constraint_lengthscales[c][j]
					   FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) AS lengthscales,
					r.constraint_outputscale[c] AS outputscale,
					r.constraint_noise[c] AS noise,
					r.constraint_mean[c] AS mean,
					r.constraint_log_likelihood[c] AS log_likelihood,
					CASE WHEN c > 1 THEN ARRAY[v_con_names[c - 1]] END AS tasks,
					sp.names AS parameters,
					r.constraint_y_mean[c] AS outcome_mean,
					r.constraint_y_sd[c] AS outcome_sd,
					r.constraint_bound_std[c] AS bound,
					CASE WHEN c > 1 THEN v_con_names[c - 1] END AS constraint_metric,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN r.constraint_trend_intercept[c] END AS trend_intercept,
					CASE WHEN r.constraint_trend_intercept[c] <> 'NaN' THEN
					ARRAY(SELECT r.constraint_trend_slopes[c][j]
							FROM pg_catalog.generate_series(1, d) AS j ORDER BY j) END AS trend_slopes,
					CASE WHEN r.constraint_calibration_threshold[c] <> 'NaN' THEN r.constraint_calibration_threshold[c] END AS calibration_threshold,
					CASE WHEN r.constraint_calibration_spread[c] <> 'NaN' THEN r.constraint_calibration_spread[c] END AS calibration_spread
				  FROM pg_catalog.generate_series(1, pg_catalog.cardinality(r.constraint_n)) AS c
		 WHERE r.constraint_n[c] > 0) x));
	END IF;

	RETURN pg_catalog.jsonb_build_object('trial', v_trial, 'params', v_params);
END;
$$;

-- P(feasible) of a configuration: the product over the study's latest
-- feasibility and constraint models, each with its stored hyperparameters
-- over every trial finished so far (so trials finished after the fit

-- Compute a trial's suggestion again from what it saw (tuner.suggestion):
-- the same space, conditions, trials, seeds and warm start.  Returns the
-- configuration, which equals the trial's config.  A suggestion of 0.2.0
-- or earlier (canonical false) is computed as it was then.
CREATE OR REPLACE FUNCTION tuner.replay_suggestion(trial bigint)
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
							  v_lin.lin_coef, v_lin.lin_rhs, v_lin.lin_strict,
							  g.condition_parent, g.condition_op,
							  g.condition_values, g.condition_default,
							  g.canonical);

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
-- end canonical_suggestions.sql
-- begin best.sql
-------------------------------------------------------------------------------
-- One definition of a study's best trial (issue 26, item 4).
--
-- tuner.best left out a trial that broke a bounded outcome constraint,
-- but every other "best" computed its own: the best_so_far column of the
-- views of create_view, the convergence plot's step line, the slice
-- plot's highlighted trial, tuner.progress and tuner.studies took the
-- minimum or maximum over every complete trial, and tuner.recommend chose
-- among them all, so a trial that broke p99 <= 10 ms became "the best so
-- far" in a dashboard while best() named another.  Now one function,
-- tuner._trial_outcomes, says for every trial of a study whether it may
-- be the best (feasible: complete, the objective reported, every bounded
-- constraint met, a constraint metric not reported not met) and the best
-- objective value of the feasible trials up to its number, in the study's
-- direction; best, recommend, the views, the plots, progress, studies and
-- the notifications read it.  The typed views of create_view run as their
-- owner and may call no function that reads tables (a reader with SELECT
-- on the view alone may not run it), so _build_view inlines this
-- function's own body (pg_proc.prosrc) into the view: the same text.
--
-- In a study with several objectives the study's own objective (the first)
-- is the one these follow, as before; best and recommend still refuse
-- such a study (its best trials are tuner.pareto_front's).
-------------------------------------------------------------------------------

-- Every trial of a study in number order: its objective value (NULL
-- unless complete), whether it may be the study's best (feasible), and
-- best_so_far, the best value of the feasible trials numbered up to it in
-- the study's direction (NULL before the first).  The body reads tables
-- and calls no function but pg_catalog's, and names the study only as $1:
-- tuner._build_view inlines it into the views of create_view.
CREATE FUNCTION tuner._trial_outcomes(study_id bigint)
RETURNS TABLE (trial bigint, number int, value float8, feasible bool,
			   best_so_far float8)
LANGUAGE sql STABLE
AS $$
SELECT o.trial, o.number, o.value, o.feasible,
       CASE o.direction WHEN 'minimize'
            THEN pg_catalog.min(o.value) FILTER (WHERE o.feasible) OVER w
            ELSE pg_catalog.max(o.value) FILTER (WHERE o.feasible) OVER w END AS best_so_far
  FROM (SELECT t.id AS trial, t.number, st.direction, ob.value,
               t.state = 'complete' AND ob.value IS NOT NULL
               AND NOT EXISTS (
                   SELECT 1
                     FROM tuner.metric mc
                     LEFT JOIN tuner.observation oc ON oc.trial_id = t.id AND oc.metric_id = mc.id
                    WHERE mc.study_id = st.id AND mc.role = 'constraint' AND mc.bound IS NOT NULL
                      AND NOT COALESCE(CASE mc.direction WHEN 'maximize' THEN oc.value >= mc.bound
                                            ELSE oc.value <= mc.bound END, false)) AS feasible
          FROM tuner.study st
          JOIN tuner.trial t ON t.study_id = st.id
          LEFT JOIN tuner.metric mo ON mo.study_id = st.id AND mo.name = st.objective
          LEFT JOIN tuner.observation ob ON ob.trial_id = t.id AND ob.metric_id = mo.id
                AND t.state = 'complete'
         WHERE st.id = $1) o
WINDOW w AS (ORDER BY o.number)
 ORDER BY o.number
$$;

-- The best trial of a study (no row when no trial is feasible): the
-- feasible trial with the best objective value in the study's direction,
-- the lowest number among equal values.
CREATE FUNCTION tuner._best_trial(study_id bigint)
RETURNS TABLE (trial bigint, number int, value float8)
LANGUAGE sql STABLE
AS $$
SELECT o.trial, o.number, o.value
  FROM tuner._trial_outcomes($1) o
  JOIN tuner.study s ON s.id = $1
 WHERE o.feasible
 ORDER BY CASE s.direction WHEN 'minimize' THEN o.value ELSE -o.value END, o.number
 LIMIT 1;
$$;

-- The best complete trial in the study's direction among those that met
-- every outcome constraint (no row if none).
CREATE OR REPLACE FUNCTION tuner.best(study text)
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
	SELECT b.trial, b.value, t.config
	  FROM tuner._best_trial(s.id) b
	  JOIN tuner.trial t ON t.id = b.trial;
END;
$$;

-- The configuration to keep: among the trials best may choose (complete,
-- every outcome constraint met), the one a GP fitted to every complete
-- trial predicts best.  With noisy trials the best single observation
-- (tuner.best) is biased upwards, the winner's curse; the posterior mean
-- pools each trial with its neighbours.  The fit takes every complete
-- trial, a trial that broke a constraint too (its objective was measured
-- like any other), but such a trial is never recommended.  With few trials
-- in many dimensions the likelihood can explain any data without noise
-- (the fit interpolates and the mean is the observation), so a known
-- measurement noise (noise_sd, or the study's setting of that name) is a
-- floor on the fitted noise.  Below three complete trials there is no
-- model to ask: best's trial, predicted NULL.
CREATE OR REPLACE FUNCTION tuner.recommend(study text, noise_sd float8 DEFAULT NULL)
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
	  JOIN tuner._trial_outcomes(s.id) f ON f.trial = o.id AND f.feasible
	 ORDER BY CASE s.direction WHEN 'minimize' THEN g.mean ELSE -g.mean END,
			  t.number
	 LIMIT 1;
END;
$$;

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
	   s.algorithm
  FROM tuner.study s;

COMMENT ON COLUMN tuner.studies.best_value IS
	'The objective value of tuner.best: the best complete trial that met every outcome constraint (the first objective of a multi-objective study)';

-- (Re)build one registered view of a study from its current parameters and
-- metrics.  The view is dropped and created again (its columns may change
-- anywhere), keeping its grants.  It runs with its owner's rights (the
-- role that called create_view, subject to row-level security unless a
-- superuser): granting SELECT on it shares the study's trials, which is
-- what it is for.  best_so_far is tuner._trial_outcomes's, whose body the
-- view holds (a function call would run as the reader).
CREATE OR REPLACE FUNCTION tuner._build_view(p_study_id bigint, p_schema name, p_name name)
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
	v_outcomes text;
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
	-- the body of tuner._trial_outcomes with this study's id for $1
	SELECT pg_catalog.regexp_replace(pg_catalog.rtrim(pg_catalog.btrim(f.prosrc, E' \t\n'), ';'),
									 '\$1(?![0-9])', s.id::text, 'g')
	  INTO v_outcomes
	  FROM pg_catalog.pg_proc f
	 WHERE f.oid = 'tuner._trial_outcomes(bigint)'::pg_catalog.regprocedure;

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
       b.best_so_far,
       COALESCE(%s%s) AS ratio_to_default,
       t.error%s
  FROM tuner.trial t
  LEFT JOIN LATERAL (
           SELECT pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS objective%s
             FROM tuner.observation ob
            WHERE ob.trial_id = t.id) o ON true
  LEFT JOIN (%s) b ON b.trial = t.id
 WHERE t.study_id = %s
 ORDER BY t.number$v$,
		v_qname,
		CASE WHEN v_ratio IS NOT NULL THEN pg_catalog.format('o.m%s', v_ratio) || ', ' END,
		pg_catalog.format(
$v$o.objective / NULLIF((
           SELECT ob.value
             FROM tuner.trial dt
             JOIN tuner.observation ob ON ob.trial_id = dt.id AND ob.metric_id = %s
            WHERE dt.study_id = %s AND dt.state = 'complete'
              AND (dt.source = 'default' OR dt.config = %L::jsonb)
            ORDER BY dt.number LIMIT 1), 0)$v$, v_objective, s.id, COALESCE(v_default::text, 'null')),
		v_cols, v_objective, v_aggs, v_outcomes, s.id);
	EXECUTE v_sql;

	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', v_qname,
		pg_catalog.format('Trials of tuner study %s (%s %s), one row per trial; made by tuner.create_view',
						  pg_catalog.to_jsonb(s.name), s.direction, pg_catalog.to_jsonb(s.objective)));
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.best_so_far IS %L', v_qname,
		'Best objective value, in the study''s direction, of the trials up to this trial number that tuner.best may choose: complete, every outcome constraint met');
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

-- Trigger: a trial finished (complete, failed or interrupted, however it
-- got there: report, fail, a runner, a worker, a restart, copy_trials).
-- NOTIFY tuner_trials with {"study_id", "trial", "number", "state"}, and
-- with tuner.notify = 'full' also "study" (its name), "value" (the
-- objective, null unless complete), "feasible" (whether tuner.best may
-- choose the trial: complete with every outcome constraint met) and
-- "best" (whether it is now tuner.best's trial; null in a study with
-- several objectives, which has no single best).
CREATE OR REPLACE FUNCTION tuner._notify_trial()
RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
	v_mode text := tuner._notify_mode();
	v_payload jsonb;
	v_feasible bool;
	s tuner.study;
BEGIN
	IF v_mode = 'off' THEN
		RETURN NULL;
	END IF;
	v_payload := pg_catalog.jsonb_build_object(
		'study_id', NEW.study_id, 'trial', NEW.id, 'number', NEW.number, 'state', NEW.state);
	IF v_mode = 'full' THEN
		SELECT * INTO s FROM tuner.study x WHERE x.id = NEW.study_id;
		SELECT o.feasible INTO v_feasible
		  FROM tuner._trial_outcomes(s.id) o WHERE o.trial = NEW.id;
		v_payload := v_payload || pg_catalog.jsonb_build_object(
			-- a payload holds at most 8000 bytes
			'study', pg_catalog.left(s.name, 1000),
			'value', (SELECT ob.value FROM tuner.observation ob
						JOIN tuner.metric m ON m.id = ob.metric_id
					   WHERE ob.trial_id = NEW.id AND m.study_id = s.id
						 AND m.name = s.objective),
			'feasible', COALESCE(v_feasible, false),
			'best', CASE WHEN NOT tuner._is_multiobjective(s.id) THEN
						COALESCE(v_feasible AND (SELECT b.trial = NEW.id FROM tuner._best_trial(s.id) b), false)
					END);
	END IF;
	PERFORM pg_catalog.pg_notify('tuner_trials', v_payload::text);
	RETURN NULL;
END;
$$;

-- The views tuner.create_view made before keep their old best_so_far (the
-- best of every complete trial) until rebuilt, which an update script may
-- not do (a view made here would become a member of the extension): name
-- them (a WARNING: an extension script runs with client_min_messages =
-- warning).
DO $$
DECLARE
	v_views text;
BEGIN
	SELECT pg_catalog.string_agg(pg_catalog.format('%I.%I', v.view_schema, v.view_name), ', '
								 ORDER BY v.view_schema, v.view_name)
	  INTO v_views
	  FROM tuner.study_view v;
	IF v_views IS NOT NULL THEN
		RAISE WARNING 'views of tuner.create_view keep the best_so_far of 0.2.0 until rebuilt: %', v_views
			USING DETAIL = 'best_so_far now counts only the trials tuner.best may choose (complete, every outcome constraint met).',
				  HINT = 'Run tuner.create_view(study, view_name) again as each view''s owner, or add a metric or parameter to the study.';
	END IF;
END
$$;

-- copy_trials' filter {"best": n} takes the n best of the trials best()
-- may choose: it ranked every complete trial, so a trial that broke a
-- constraint was copied as one of "the best".  0.1.0's body otherwise.
-- Import the complete trials of another study, with every metric they
-- measured, as complete trials (source copied) of to_study.  Parameters
-- are matched by name: a missing one takes to_study's default, an extra
-- one is dropped, and a trial with a value outside to_study's space (or a
-- missing parameter without default, or no value of to_study's
-- objective) is skipped.  A trial copied before is not copied again.
-- filter: {"numbers": [..]} (trial numbers), {"sources": [..]}, {"best":
-- n} (the n best by from_study's direction, among the trials best() may
-- choose: a trial that broke an outcome constraint is not among them).  Returns {"copied",
-- "skipped", "reasons": {reason: count}, "defaulted": [parameters],
-- "dropped": [parameters]}.
CREATE OR REPLACE FUNCTION tuner.copy_trials(from_study text, to_study text,
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
		   AND (v_best IS NULL
				OR x.id IN (SELECT o.trial FROM tuner._trial_outcomes(f.id) o WHERE o.feasible))
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
-- end best.sql
-- begin abandoned_trials.sql
-------------------------------------------------------------------------------
-- Abandoned ask/tell trials end, and tuner.progress says who is silent
-- (issue 26, item 8).
--
-- A plain suggest_next trial of a study without lease_s holds no lease
-- (an ask/tell client may run a trial for hours without heartbeats), so
-- nothing ever ended one whose client went away: tuner.progress listed it
-- forever, with alive = false like a crashed worker's, and its
-- configuration counted as running in every later suggestion.  The study
-- setting abandon_after_s (seconds, no default: never) now ends such a
-- trial: reap marks a running trial without a lease whose last sign of
-- life (its start, or its last heartbeat) is older than that interrupted,
-- error "abandoned", and queues its retry as it does for an expired
-- lease.  tuner.progress leaves out what reap would end, shows alive NULL
-- for a trial no server process runs (there is no process to ask), and
-- gains last_seen and silent_for (the time since the last sign of life),
-- so a silent trial stands out with or without the setting.  Its
-- best_value is tuner.best's (src/sql/best.sql).
-------------------------------------------------------------------------------

-- The check of one setting that is a number of seconds: a JSON number
-- above 0 (or at least 0 with zero_ok) and at most high; hint, when not
-- NULL, goes with the error for a value that is not a number.
CREATE FUNCTION tuner._check_seconds_setting(settings jsonb, name text,
											 zero_ok bool, high int,
											 hint text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v float8;
BEGIN
	IF NOT settings ? name THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(settings -> name) IS DISTINCT FROM 'number' THEN
		IF hint IS NULL THEN
			RAISE EXCEPTION 'setting % must be a number of seconds', name
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', settings -> name);
		END IF;
		RAISE EXCEPTION 'setting % must be a number of seconds', name
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> name),
				  HINT = hint;
	END IF;
	v := (settings -> name)::float8;
	IF v < 0 OR (v = 0 AND NOT zero_ok) OR v > high THEN
		RAISE EXCEPTION 'setting % must be between 0 and % seconds', name, high
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> name);
	END IF;
END;
$$;

-- Check the settings that control how trials are run: trial_timeout_s,
-- kill_grace_s (seconds, numbers), the lease and retry settings lease_s,
-- max_retries and abandon_after_s, and runner (an object passed to the
-- runner as "_settings").  create_study and every change of a study's
-- settings (tuner._check_changed_settings) call it.
CREATE OR REPLACE FUNCTION tuner._check_run_settings(settings jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	PERFORM tuner._check_seconds_setting(settings, 'trial_timeout_s', false, 1000000);
	PERFORM tuner._check_seconds_setting(settings, 'kill_grace_s', true, 3600);
	-- Leases and retries (tuner.heartbeat, tuner.reap).
	PERFORM tuner._check_seconds_setting(settings, 'lease_s', false, 1000000,
		'A running trial not renewed by tuner.heartbeat() for this long is interrupted; the default is 300.');
	PERFORM tuner._check_seconds_setting(settings, 'abandon_after_s', false, 1000000,
		'A running trial without a lease that shows no sign of life for this long is interrupted by tuner.reap(); without the setting it runs until reported.');
	IF settings ? 'max_retries' THEN
		PERFORM tuner._json_int(settings -> 'max_retries', 'setting max_retries', 0, 100);
	END IF;
	-- How busy the machine may be during a trial (measurement_context.sql).
	IF settings ? 'max_disturbance' AND (pg_catalog.jsonb_typeof(settings -> 'max_disturbance') IS DISTINCT FROM 'number'
		OR (settings ->> 'max_disturbance')::float8 <= 0 OR (settings ->> 'max_disturbance')::float8 > 1) THEN
		RAISE EXCEPTION 'setting max_disturbance must be a number above 0 and at most 1'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'max_disturbance'),
				  HINT = 'It is the share of the machine''s CPU other processes may use while a trial runs before the trial counts as disturbed; the default is 0.25.';
	END IF;
	-- Early stopping (pruning.sql).
	PERFORM tuner._check_pruning(settings -> 'pruning');
	IF settings ? 'retry_disturbed' AND pg_catalog.jsonb_typeof(settings -> 'retry_disturbed') IS DISTINCT FROM 'boolean' THEN
		RAISE EXCEPTION 'setting retry_disturbed must be true or false'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'retry_disturbed');
	END IF;
	IF settings ? 'runner' AND pg_catalog.jsonb_typeof(settings -> 'runner') IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'setting runner must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', settings -> 'runner'),
				  HINT = 'It holds the runner''s own settings, for example {"runner": {"duration": 30}}; name the runner with create_study(runner => ...) or tuner.set_runner().';
	END IF;
END;
$$;

-- The last sign of life of a running trial: its last heartbeat, else its
-- start (else its creation).
CREATE FUNCTION tuner._last_seen(t tuner.trial)
RETURNS timestamptz
LANGUAGE sql STABLE
AS $$
SELECT COALESCE(GREATEST(t.heartbeat_at, t.started_at), t.created_at);
$$;

-- Is a running trial abandoned: without a lease, of a study that sets
-- abandon_after_s, and silent for longer than that (on the clock now,
-- hence volatile)?
CREATE FUNCTION tuner._is_abandoned(t tuner.trial, settings jsonb)
RETURNS bool
LANGUAGE sql VOLATILE
AS $$
SELECT t.state = 'running' AND t.lease_expires_at IS NULL
   AND COALESCE(pg_catalog.clock_timestamp() - tuner._last_seen(t)
				> pg_catalog.make_interval(secs => (settings ->> 'abandon_after_s')::float8), false);
$$;

-- Mark the running trials that the infrastructure lost as interrupted, of
-- one study or (NULL) of all, and queue their retries: those whose lease
-- expired ("lease expired"), those without a lease silent for longer than
-- their study's abandon_after_s ("abandoned"; trials locked by a report
-- or heartbeat in progress are left to it) and, of every study, those
-- whose server process is gone (tuner._reconcile).  Returns how many
-- trials it interrupted.
CREATE OR REPLACE FUNCTION tuner.reap(study text DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	v_study_id bigint;
	v_ids bigint[];
	v_abandoned bigint[];
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
	WITH silent AS (
		SELECT t.id FROM tuner.trial t
		  JOIN tuner.study s ON s.id = t.study_id
		 WHERE t.state = 'running' AND t.lease_expires_at IS NULL
		   AND s.settings ? 'abandon_after_s'
		   AND tuner._is_abandoned(t, s.settings)
		   AND (v_study_id IS NULL OR t.study_id = v_study_id)
		 ORDER BY t.id
		   FOR NO KEY UPDATE OF t SKIP LOCKED
	), reaped AS (
		UPDATE tuner.trial t
		   SET state = 'interrupted', error = 'abandoned',
			   finished_at = pg_catalog.clock_timestamp()
		  FROM silent e
		 WHERE t.id = e.id AND t.state = 'running' AND t.lease_expires_at IS NULL
		RETURNING t.id
	)
	SELECT pg_catalog.array_agg(r.id ORDER BY r.id) INTO v_abandoned FROM reaped r;
	v_ids := COALESCE(v_ids, '{}') || COALESCE(v_abandoned, '{}');
	PERFORM tuner._queue_retries(v_ids);
	RETURN n + pg_catalog.cardinality(v_ids);
END;
$$;

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
	   pg_catalog.clock_timestamp() - tuner._last_seen(t) AS silent_for
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
 WHERE t.state = 'running'
   AND (SELECT tuner._reap_if_writable()) IS NOT NULL
   AND (t.lease_expires_at IS NULL OR t.lease_expires_at >= pg_catalog.clock_timestamp())
   AND NOT tuner._is_abandoned(t, s.settings);

COMMENT ON VIEW tuner.progress IS
	'Running trials that can still finish: study, worker, elapsed time, the last sign of life and the study''s best value (tuner.best''s)';
COMMENT ON COLUMN tuner.progress.alive IS
	'Whether the server process running the trial still exists; NULL for a trial no server process runs (ask/tell, a remote agent)';
COMMENT ON COLUMN tuner.progress.last_seen IS
	'The trial''s last sign of life: its last heartbeat, else its start';
COMMENT ON COLUMN tuner.progress.silent_for IS
	'Time since last_seen; a trial without a lease silent for longer than its study''s abandon_after_s is reaped as abandoned';
-- end abandoned_trials.sql
-- begin plots.sql
-------------------------------------------------------------------------------
-- Plots show tuner.best's trials and hide no data (issue 26, items 3-5).
--
-- The convergence plot drew its best-so-far line through every complete
-- trial and the slice plot highlighted the best value of them all, a
-- trial that broke an outcome constraint too; the pareto plot put such a
-- trial on the front.  They now take tuner._trial_outcomes's feasible
-- flags and best so far (src/sql/best.sql): a trial that broke a
-- constraint is a ring and never the best, the slice plot's best trial is
-- tuner.best's, and the front is that of the feasible trials, as
-- tuner.pareto_front's is.  The C entry points of the old signatures stay
-- for an older extension script (src/pg/plot_glue.c); these are new.
--
-- The importance plot failed on a study with a disabled parameter (after
-- select_top or enable_parameters): the model has no length-scale for
-- it, the plot passed Infinity, and the array check refused it.  It now
-- passes NULL, and the plot writes "not in the model" on that row.
--
-- The legend no longer covers data: the drawing (src/core/plot_frame.c)
-- puts it in a corner of the plot area no data falls into, else in a
-- strip above it; a categorical slice spreads the trials of a label
-- across its column (tests/plots/test_render.sh checks both on the
-- rendered SVG of every kind).
-------------------------------------------------------------------------------

DROP FUNCTION tuner._plot_convergence(text, text, float8[], float8[], float8[],
									  float8, bool, bool, int, int);
DROP FUNCTION tuner._plot_slice(text, text, text, float8[], float8[], float8[],
								text[], bool, bool, bool, int, int);
DROP FUNCTION tuner._plot_pareto(text, text, text, float8[], float8[], float8[],
								 bool, bool, int, int);

-- Not STRICT: NULL marks an absent optional part (the default line, the
-- categories, no best trial yet); the C side rejects NULL where it is
-- required.  feasible: the trials tuner.best may choose; best: the best so
-- far at each trial (NULL before the first feasible one).
CREATE FUNCTION tuner._plot_convergence(title text, y_label text,
										numbers float8[], "values" float8[],
										feasible bool[], best float8[],
										failed float8[], default_value float8,
										minimize bool, log_y bool,
										width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_convergence_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- best_number: the number of tuner.best's trial (NULL: none).
CREATE FUNCTION tuner._plot_slice(title text, x_label text, y_label text,
								  x float8[], y float8[], numbers float8[],
								  feasible bool[], best_number float8,
								  categories text[], x_log bool, log_y bool,
								  minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_slice_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION tuner._plot_pareto(title text, x_label text, y_label text,
								   x float8[], y float8[], numbers float8[],
								   feasible bool[], x_minimize bool,
								   y_minimize bool, width int, height int)
RETURNS text
AS 'MODULE_PATHNAME', 'tuner_plot_pareto_0_3'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Convergence: each complete trial's objective, whether tuner.best may
-- choose it, and the best so far by trial number (tuner._trial_outcomes),
-- the default's value, failed trials.
CREATE OR REPLACE FUNCTION tuner._plot_convergence_of(s tuner.study, o record)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_numbers float8[];
	v_values float8[];
	v_feasible bool[];
	v_best float8[];
	v_failed float8[];
	v_default float8;
BEGIN
	PERFORM tuner._plot_require_trials(s);
	SELECT pg_catalog.array_agg(r.number::float8 ORDER BY r.number),
		   pg_catalog.array_agg(r.value ORDER BY r.number),
		   pg_catalog.array_agg(r.feasible ORDER BY r.number),
		   pg_catalog.array_agg(r.best_so_far ORDER BY r.number)
	  INTO v_numbers, v_values, v_feasible, v_best
	  FROM tuner._trial_outcomes(s.id) r
	 WHERE r.value IS NOT NULL;
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
		v_numbers, v_values, v_feasible, v_best, v_failed, v_default,
		s.direction = 'minimize', o.log_y, o.width, o.height);
END;
$$;

-- Slice: the objective against one parameter's value in each complete
-- trial (its default where the trial's config lacks it), which trials
-- tuner.best may choose and its trial.
CREATE OR REPLACE FUNCTION tuner._plot_slice_of(s tuner.study, o record, p_name text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	p tuner.parameter;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
	v_feasible bool[];
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
		   pg_catalog.array_agg(q.number::float8 ORDER BY q.number),
		   pg_catalog.array_agg(q.feasible ORDER BY q.number)
	  INTO v_x, v_y, v_numbers, v_feasible
	  FROM (SELECT r.number, r.value, r.feasible,
				   CASE WHEN v_categories IS NULL THEN (v.v)::float8
						ELSE (pg_catalog.array_position(v_categories, v.v) - 1)::float8 END AS x
			  FROM tuner._trial_outcomes(s.id) r
			  JOIN tuner.trial t ON t.id = r.trial
			 CROSS JOIN LATERAL (SELECT COALESCE(t.config ->> p.name, p.default_value #>> '{}') AS v) v
			 WHERE r.value IS NOT NULL) q
	 WHERE q.x IS NOT NULL;
	IF v_x IS NULL THEN
		RAISE EXCEPTION 'no complete trial of study "%" has a value for parameter "%"', s.name, p.name
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	RETURN tuner._plot_slice(
		COALESCE(o.title, pg_catalog.format('%s: %s against %s', s.name, s.objective, p.name)),
		p.name || CASE WHEN p.log_scale THEN ' (log scale)' ELSE '' END,
		tuner._plot_metric_label(s.id, s.objective),
		v_x, v_y, v_numbers, v_feasible,
		(SELECT b.number::float8 FROM tuner._best_trial(s.id) b),
		v_categories, p.log_scale, o.log_y,
		s.direction = 'minimize', o.width, o.height);
END;
$$;

-- Pareto: two metrics of every complete trial that reported both, and
-- which of them tuner.best's definition admits (only those compete for
-- the front, as in tuner.pareto_front).
CREATE OR REPLACE FUNCTION tuner._plot_pareto_of(s tuner.study, o record, p_x text, p_y text)
RETURNS text
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	mx tuner.metric;
	my tuner.metric;
	v_x float8[];
	v_y float8[];
	v_numbers float8[];
	v_feasible bool[];
BEGIN
	mx := tuner._plot_metric(s, p_x);
	my := tuner._plot_metric(s, p_y);
	IF mx.id = my.id THEN
		RAISE EXCEPTION 'a pareto plot needs two different metrics, got "%" twice', p_x
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT pg_catalog.array_agg(ox.value ORDER BY t.number),
		   pg_catalog.array_agg(oy.value ORDER BY t.number),
		   pg_catalog.array_agg(t.number::float8 ORDER BY t.number),
		   pg_catalog.array_agg(r.feasible ORDER BY t.number)
	  INTO v_x, v_y, v_numbers, v_feasible
	  FROM tuner.trial t
	  JOIN tuner._trial_outcomes(s.id) r ON r.trial = t.id
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
		v_x, v_y, v_numbers, v_feasible, mx.direction = 'minimize', my.direction = 'minimize',
		o.width, o.height);
END;
$$;

-- Importance: the Lasso ranking (tuner.lasso_rank) and/or the GP
-- length-scales of the latest single- or multi-task model.  method 'auto'
-- shows what is available: Lasso when it can rank (enough complete
-- trials, a varying objective), length-scales when a model exists.
CREATE OR REPLACE FUNCTION tuner._plot_importance_of(s tuner.study, o record, p_method text)
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
		-- a parameter the model left out (disabled) has no length-scale:
		-- NULL, drawn as "not in the model"
		v_ls := ARRAY(SELECT m.lengthscales[pg_catalog.array_position(m.parameters, u.name)]
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
-- end plots.sql
-- begin ranking.sql
-------------------------------------------------------------------------------
-- Ranking with few trials: a second signal fills what the Lasso leaves
-- (issue 26, item 6).
--
-- With 16-32 explored trials the cross-validated Lasso of lasso_rank often
-- keeps one parameter or none (every coefficient zero at the chosen
-- lambda), and 0.2.0 then ranked the rest by their entry on the lambda
-- path: select_top filled its slots with parameters of importance 0 even
-- when the trials showed another parameter mattered (a non-monotone
-- effect has no linear trend for the Lasso to find).  Now a Gaussian
-- process fitted to the same trials measures its evidence for each
-- parameter the Lasso left at zero (src/core/relevance.h: the drop of the
-- log marginal likelihood when a refit leaves the parameter out), and the
-- ranking puts the Lasso's evidence first, the GP's next and parameters
-- without evidence last (in path order, as before).  Each row says which
-- signal ranked it.  The policy lives in C (tuner._rank_parameters).
--
-- lasso_rank and select_top gain columns, so they are dropped and made
-- again; nothing in the extension uses their row types (_sapphire_phase
-- and the importance plot read them by column name).
-------------------------------------------------------------------------------

-- The ranking policy: rank and signal per parameter from the Lasso's
-- importance and path entry (0 for never), and the GP's evidence over the
-- trials x (n x p, the GP's coordinates; NULL: no GP) and y.
CREATE FUNCTION tuner._rank_parameters(importance float8[], entered_at int[],
									   x float8[], y float8[],
									   categories int[], seed bigint,
									   OUT rank int[], OUT signal text[],
									   OUT gp_evidence float8[])
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_rank_parameters'
LANGUAGE C STABLE PARALLEL SAFE;

DROP FUNCTION tuner.select_top(text, int, jsonb);
DROP FUNCTION tuner.lasso_rank(text, jsonb);

-- Rank a study's parameters by their effect on the objective (Sapphire):
-- a cross-validated Lasso over its complete trials, and where it finds
-- nothing, a Gaussian process over the same trials.  Lasso features:
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
-- (NULL if never).
--
-- The GP (option fill "gp", the default) sees one coordinate per
-- parameter: ln(value) for log-scale numbers, the value for others, 0/1
-- for bools and two-choice categoricals, the choice's bin for other
-- categoricals (the overlap metric of the suggestion models); y as above.
-- It is fitted when some parameter has importance 0, and gp_evidence is
-- its evidence for those (NULL for the others): the log-likelihood drop
-- when a refit leaves the parameter out, >= 3 counting as evidence.
-- rank: parameters with a non-zero Lasso coefficient first, by importance
-- (signal 'lasso'); then those with GP evidence, by gp_evidence ('gp');
-- then the rest, without evidence, by entered_at ('none').  Ties go to the
-- earlier entry, then the earlier position.  fill "none" skips the GP
-- (the ranking of 0.2.0, every zero 'none').  Options: folds (5),
-- n_lambdas, eps, tol, max_iter, lambdas, rule ("min" or "1se": which
-- lambda to rank at), solver (as tuner.lasso_cv), fill.
CREATE FUNCTION tuner.lasso_rank(study text, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, coefficient float8, importance float8,
			   rank int, entered_at int, signal text, gp_evidence float8)
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
	grows float8[][];			-- the GP's coordinates, one per parameter
	colp int[] := '{}';			-- parameter position of each column
	xmat float8[];
	val text;
	num float8;
	rowv float8[];
	growv float8[];
	kept int[] := '{}';			-- columns with variance
	r record;
	std_coef float8[];
	entered int[];
	fit jsonb;
	v_fill text := 'gp';
	v_names text[];
	v_imp float8[];
	v_coef float8[];
	v_entered int[];
	v_cats int[];
	rk record;
BEGIN
	s := tuner._find_study($1);
	o := tuner._lasso_options($2, 'lasso_rank',
							  ARRAY['folds', 'n_lambdas', 'eps', 'tol',
									'max_iter', 'lambdas', 'rule', 'solver',
									'fill']);
	IF $2 ? 'fill' THEN
		IF $2 -> 'fill' NOT IN ('"gp"', '"none"') THEN
			RAISE EXCEPTION 'lasso_rank option fill must be "gp" or "none"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', $2 -> 'fill'),
					  HINT = '"gp" ranks what the Lasso leaves at zero by a Gaussian process''s evidence, "none" by the order of entry on the Lasso path.';
		END IF;
		v_fill := $2 ->> 'fill';
	END IF;
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

	-- one row of features (and of GP coordinates) per trial, in trial order
	FOR t IN
		SELECT tr.config, ob.value
		  FROM tuner.trial tr
		  JOIN tuner.observation ob ON ob.trial_id = tr.id
		  JOIN tuner.metric m ON m.id = ob.metric_id AND m.name = s.objective
		 WHERE tr.study_id = s.id AND tr.state = 'complete'
		 ORDER BY tr.number
	LOOP
		rowv := '{}';
		growv := '{}';
		FOR p IN SELECT * FROM tuner.parameter WHERE study_id = s.id ORDER BY position
		LOOP
			val := COALESCE(t.config ->> p.name, p.default_value #>> '{}');
			IF p.kind IN ('int', 'float') THEN
				num := COALESCE(val::float8, p.low);
				IF p.log_scale THEN
					rowv := rowv || pg_catalog.ln(GREATEST(num, p.low));
					growv := growv || pg_catalog.ln(GREATEST(num, p.low));
				ELSE
					rowv := rowv || pg_catalog.ln(1 + GREATEST(num - LEAST(p.low, 0), 0));
					growv := growv || num;
				END IF;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSIF p.kind = 'bool' THEN
				rowv := rowv || CASE WHEN COALESCE(val::bool, false) THEN 1 ELSE 0 END::float8;
				growv := growv || CASE WHEN COALESCE(val::bool, false) THEN 1 ELSE 0 END::float8;
				IF ys IS NULL THEN colp := colp || p.position; END IF;
			ELSE
				rowv := rowv || ARRAY(SELECT CASE WHEN c = COALESCE(val, p.choices[1]) THEN 1 ELSE 0 END::float8
										FROM pg_catalog.unnest(p.choices) WITH ORDINALITY AS u(c, i) ORDER BY i);
				-- the choice's index from 0 (a choice no longer listed: the first)
				num := COALESCE(pg_catalog.array_position(p.choices, COALESCE(val, p.choices[1])), 1) - 1;
				growv := growv || CASE WHEN pg_catalog.cardinality(p.choices) >= 3
									   THEN (num + 0.5) / pg_catalog.cardinality(p.choices)
									   ELSE num END;
				IF ys IS NULL THEN
					colp := colp || ARRAY(SELECT p.position FROM pg_catalog.generate_series(1, pg_catalog.cardinality(p.choices)));
				END IF;
			END IF;
		END LOOP;
		xrows := xrows || ARRAY[rowv];
		grows := grows || ARRAY[growv];
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

	-- the Lasso per parameter, in position order
	WITH col AS (
		SELECT colp[k.c] AS position, std_coef[k.j] AS b, NULLIF(entered[k.j], 0) AS e
		  FROM pg_catalog.unnest(kept) WITH ORDINALITY AS k(c, j)
	), agg AS (
		SELECT pr.name, pr.position, pr.kind, pr.choices,
			   pg_catalog.sum(pg_catalog.abs(col.b)) AS imp,
			   pg_catalog.min(col.e) AS e,
			   pg_catalog.sum(col.b) AS b
		  FROM tuner.parameter pr
		  LEFT JOIN col ON col.position = pr.position
		 WHERE pr.study_id = s.id
		 GROUP BY pr.name, pr.position, pr.kind, pr.choices
	)
	SELECT pg_catalog.array_agg(agg.name ORDER BY agg.position),
		   pg_catalog.array_agg(COALESCE(agg.imp, 0)::float8 ORDER BY agg.position),
		   pg_catalog.array_agg(CASE WHEN agg.kind = 'categorical' AND pg_catalog.cardinality(agg.choices) > 1 THEN NULL
									 ELSE COALESCE(agg.b, 0) END::float8 ORDER BY agg.position),
		   pg_catalog.array_agg(COALESCE(agg.e, 0)::int ORDER BY agg.position),
		   pg_catalog.array_agg(CASE WHEN agg.kind = 'categorical' AND pg_catalog.cardinality(agg.choices) >= 3
									 THEN pg_catalog.cardinality(agg.choices) ELSE 0 END ORDER BY agg.position)
	  INTO v_names, v_imp, v_coef, v_entered, v_cats
	  FROM agg;

	rk := tuner._rank_parameters(v_imp, v_entered,
								 CASE WHEN v_fill = 'gp' THEN grows END, ys,
								 v_cats, s.seed);

	RETURN QUERY
	SELECT u.name, v_coef[u.i], v_imp[u.i], rk.rank[u.i], NULLIF(v_entered[u.i], 0),
		   rk.signal[u.i], rk.gp_evidence[u.i]
	  FROM pg_catalog.unnest(v_names) WITH ORDINALITY AS u(name, i)
	 ORDER BY rk.rank[u.i];
END;
$$;

-- Tune only the K parameters ranked highest over the complete trials
-- (tuner.lasso_rank: the Lasso, then the GP's evidence); the others are
-- fixed at their defaults.  signal says which ranked each parameter.
CREATE FUNCTION tuner.select_top(study text, k int, options jsonb DEFAULT '{}')
RETURNS TABLE (parameter text, rank int, importance float8, enabled bool,
			   signal text, gp_evidence float8)
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
															  'entered_at', r.entered_at,
															  'signal', r.signal,
															  'gp_evidence', r.gp_evidence) ORDER BY r.rank)
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
		   (e ->> 'rank')::int <= $2, e ->> 'signal', (e ->> 'gp_evidence')::float8
	  FROM pg_catalog.jsonb_array_elements(v_ranked) e
	 ORDER BY (e ->> 'rank')::int;
END;
$$;
-- end ranking.sql
-- begin presets.sql
-------------------------------------------------------------------------------
-- Presets are data (issue 27, item 3).
--
-- 0.1.0 held the rocksdb, ceph and fastquery presets as functions of the
-- extension (their settings, runner-settings checks, parameters, metrics
-- and catalog import), and create_study named the three: adding a preset
-- or changing one (0.2.0 changed fastquery's MPI ranks) took a new
-- extension version.  A preset is now a row of tuner.preset: a JSON
-- definition read by one generic path, tuner._preset_prepare (the study's
-- objective, direction, settings and runner, before the study exists) and
-- tuner._preset_apply (its space, metrics, catalog and algorithm, through
-- add_parameter, add_constraint, add_metric, import_catalog and
-- set_algorithm).  The built-in presets are rows with no owner, inserted
-- by presets_data.sql; a change to one is an UPDATE in an update script.
-- A role's own presets are made with tuner.create_preset and dropped with
-- tuner.drop_preset; the definition format is docs/presets.md's.
--
-- Trust: tuner's functions run as their caller, so tuner_user holds
-- INSERT and DELETE on tuner.preset as it does on tuner.study; row-level
-- security keeps a role to the built-ins and its own presets, and the
-- trigger preset_guard runs create_preset's checks (the whole definition,
-- by a dry run through the API on a scratch study that is rolled back) on
-- every row a role other than a superuser inserts, by whatever route.  A preset that names a
-- runner or runner settings decides what the server runs: making one and
-- using one both need pg_execute_server_program, and create_study's
-- runner checks (and the trigger study_runner_guard) apply to the study a
-- preset makes.  create_study finds only the caller's own presets and the
-- built-ins, never another role's (even one a superuser can see).
-------------------------------------------------------------------------------

-- The old presets' functions: their content is presets_data.sql's rows.
DROP FUNCTION tuner._apply_rocksdb_preset(bigint, text);
DROP FUNCTION tuner._rocksdb_preset_settings();
DROP FUNCTION tuner._check_rocksdb_runner_settings(jsonb);
DROP FUNCTION tuner._apply_ceph_preset(text, jsonb);
DROP FUNCTION tuner._ceph_preset_prepare(text, jsonb);
DROP FUNCTION tuner._ceph_preset_settings();
DROP FUNCTION tuner._ceph_preset_objectives();
DROP FUNCTION tuner._ceph_preset_import_options();
DROP FUNCTION tuner._ceph_preset_include();
DROP FUNCTION tuner._check_ceph_runner_settings(jsonb);
DROP FUNCTION tuner._ceph_read_catalog(text);
DROP FUNCTION tuner._ceph_cluster_dir(jsonb);
DROP FUNCTION tuner._apply_fastquery_preset(bigint, text);
DROP FUNCTION tuner._fastquery_preset_settings(jsonb, text);
DROP FUNCTION tuner._check_fastquery_runner_settings(jsonb);

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

ALTER TABLE tuner.preset ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON tuner.preset TO tuner_user, tuner_reader;
-- (written by create_preset and drop_preset, which run as their caller;
-- never changed in place)
GRANT INSERT (name, owner, definition), DELETE ON tuner.preset TO tuner_user;
CREATE POLICY preset_read ON tuner.preset FOR SELECT
	USING (owner IS NULL OR tuner._has_role(owner));
CREATE POLICY preset_insert ON tuner.preset FOR INSERT
	WITH CHECK (owner IS NOT NULL AND tuner._has_role(owner));
CREATE POLICY preset_delete ON tuner.preset FOR DELETE
	USING (owner IS NOT NULL AND tuner._has_role(owner));

-- The presets a role may use, one row each.
CREATE VIEW tuner.presets WITH (security_invoker = true) AS
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
GRANT SELECT ON tuner.presets TO tuner_user, tuner_reader;

-- Raise an error whose detail and hint may be absent (NULL): a preset's
-- texts for its own errors are optional.
CREATE FUNCTION tuner._preset_raise(sqlstate text, message text, detail text, hint text)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF detail IS NOT NULL AND hint IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail, HINT = hint;
	ELSIF detail IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, DETAIL = detail;
	ELSIF hint IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message, HINT = hint;
	END IF;
	RAISE EXCEPTION USING ERRCODE = sqlstate, MESSAGE = message;
END;
$$;

-- The preset create_study(preset => name) uses: the caller's own, else
-- the built-in.
CREATE FUNCTION tuner._find_preset(preset text)
RETURNS jsonb
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	v_def jsonb;
BEGIN
	PERFORM tuner._not_null(preset, 'preset');
	SELECT p.definition INTO v_def
	  FROM tuner.preset p
	 WHERE p.name = preset AND (p.owner IS NULL OR p.owner = current_user)
	 ORDER BY p.owner IS NULL
	 LIMIT 1;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'unknown preset "%"', preset
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Known presets: ' || COALESCE((
					SELECT pg_catalog.string_agg(DISTINCT p.name, ', ')
					  FROM tuner.preset p
					 WHERE p.owner IS NULL OR p.owner = current_user), 'none')
					|| ' (tuner.presets lists them).';
	END IF;
	RETURN v_def;
END;
$$;

-- Check runner settings against a preset's list of them (definition's
-- runner.settings: name, type, and for numbers min, max or above), so
-- that a typo fails when the study is created and not in every trial.
CREATE FUNCTION tuner._preset_check_runner_settings(preset text, known jsonb, runner jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v jsonb;
	s jsonb;
	what text;
BEGIN
	IF pg_catalog.jsonb_typeof(runner) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'setting runner must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(runner) e
	LOOP
		SELECT e INTO s FROM pg_catalog.jsonb_array_elements(known) e WHERE e ->> 'name' = k;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'unknown runner setting "%" for the % preset', k, preset
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known: ' || (SELECT pg_catalog.string_agg(e ->> 'name', ', ' ORDER BY o)
											 FROM pg_catalog.jsonb_array_elements(known) WITH ORDINALITY a(e, o)) || '.';
		END IF;
		what := 'runner setting ' || k;
		CASE s ->> 'type'
			WHEN 'int' THEN
				PERFORM tuner._json_int(v, what, (s ->> 'min')::numeric, (s ->> 'max')::numeric);
			WHEN 'number' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'number'
				   OR (s ? 'min' AND v::text::numeric < (s ->> 'min')::numeric)
				   OR (s ? 'max' AND v::text::numeric > (s ->> 'max')::numeric)
				   OR (s ? 'above' AND v::text::numeric <= (s ->> 'above')::numeric) THEN
					RAISE EXCEPTION '% must be %', what,
						CASE WHEN s ->> 'above' = '0' AND NOT s ? 'max' THEN 'a positive number'
							 ELSE 'a number' || COALESCE(' of ' || (s ->> 'unit'), '')
								|| COALESCE(' above ' || (s ->> 'above'), '')
								|| CASE WHEN s ? 'min' AND s ? 'max'
										THEN pg_catalog.format(' between %s and %s', s ->> 'min', s ->> 'max')
										ELSE COALESCE(' of at least ' || (s ->> 'min'), '')
											|| COALESCE(' of at most ' || (s ->> 'max'), '') END END
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'bool' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'boolean' THEN
					RAISE EXCEPTION '% must be true or false', what
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'path' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR pg_catalog.left(v #>> '{}', 1) <> '/' THEN
					RAISE EXCEPTION '% must be an absolute path', what
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'string' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'string' OR v #>> '{}' = '' THEN
					RAISE EXCEPTION '% must be a non-empty string', what
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			WHEN 'object' THEN
				IF pg_catalog.jsonb_typeof(v) <> 'object' THEN
					RAISE EXCEPTION '% must be a JSON object', what
						USING ERRCODE = 'invalid_parameter_value',
							  DETAIL = pg_catalog.format('Got %s.', v);
				END IF;
			ELSE
				-- (tuner._preset_check_definition allows only the above)
				RAISE EXCEPTION 'runner setting % of the % preset has an unknown type', k, preset;
		END CASE;
	END LOOP;
END;
$$;

-- The catalog a preset imports: the server file definition.catalog.file
-- in the directory the runner setting catalog.dir_setting names, by
-- default catalog.default_dir ("{uid}" in it is the server process's user
-- id, from /proc).  Read with the caller's privileges.
CREATE FUNCTION tuner._preset_read_catalog(spec jsonb, runner jsonb)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	v_dir text;
	v_uid text;
	v_path text;
	v_size bigint;
	v_text text;
	v_catalog jsonb;
	v_what text := COALESCE(spec ->> 'what', 'catalog');
BEGIN
	v_dir := runner ->> (spec ->> 'dir_setting');
	IF v_dir IS NULL THEN
		v_dir := spec ->> 'default_dir';
		IF pg_catalog.strpos(v_dir, '{uid}') > 0 THEN
			v_uid := pg_catalog.substring(pg_catalog.pg_read_file('/proc/self/status'),
										  E'\\nUid:\\s+([0-9]+)');
			IF v_uid IS NULL THEN
				RAISE EXCEPTION 'could not find the server''s user id in /proc/self/status'
					USING ERRCODE = 'object_not_in_prerequisite_state',
						  HINT = pg_catalog.format('Set the runner setting %s.', spec ->> 'dir_setting');
			END IF;
			v_dir := pg_catalog.replace(v_dir, '{uid}', v_uid);
		END IF;
	END IF;
	v_path := v_dir || '/' || (spec ->> 'file');
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
		PERFORM tuner._preset_raise('58P01', pg_catalog.format('no %s at "%s"', v_what, v_path),
									spec ->> 'missing_detail', spec ->> 'missing_hint');
	END IF;
	v_text := pg_catalog.pg_read_file(v_path, 0, v_size);
	BEGIN
		v_catalog := v_text::jsonb;
	EXCEPTION WHEN invalid_text_representation THEN
		PERFORM tuner._preset_raise('22023', pg_catalog.format('the %s "%s" is not valid JSON', v_what, v_path),
									NULL, spec ->> 'invalid_hint');
	END;
	RETURN v_catalog;
END;
$$;

-- Does a preset decide what the server runs: a runner, or runner
-- settings in its settings or an objective's?
CREATE FUNCTION tuner._preset_runs_programs(def jsonb)
RETURNS bool
LANGUAGE sql IMMUTABLE
AS $$
SELECT def ? 'runner' OR COALESCE(def -> 'settings' ? 'runner', false)
	OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_each(
					CASE WHEN pg_catalog.jsonb_typeof(def -> 'objectives') = 'object'
						 THEN def -> 'objectives' ELSE '{}' END) o
				WHERE pg_catalog.jsonb_typeof(o.value) = 'object' AND COALESCE(o.value -> 'settings' ? 'runner', false));
$$;

-- A preset's study before it exists: its objective (the caller's, else
-- the preset's), direction (the objective's in the preset, else the
-- caller's), settings (the preset's, then its objective's, then the
-- caller's; "runner" merged by key) and runner (the caller's, else the
-- preset's, registered if missing), and the catalog it imports.  Checks
-- the caller's privileges first.  check_only (create_preset's dry run):
-- no privilege checks, no runner registered, no catalog read.
CREATE FUNCTION tuner._preset_prepare(preset text, def jsonb, objective text, direction text,
									  settings jsonb, runner text, check_only bool DEFAULT false,
									  OUT objective_out text, OUT direction_out text,
									  OUT settings_out jsonb, OUT runner_out text, OUT catalog jsonb)
LANGUAGE plpgsql
AS $$
DECLARE
	v_obj jsonb;
	v_base jsonb := COALESCE(def -> 'settings', '{}');
	v_runner jsonb;
	v_known jsonb := COALESCE(def -> 'runner' -> 'settings', '[]');
	k text;
	v jsonb;
BEGIN
	IF NOT check_only THEN
		-- A study with a runner or runner settings makes the server run
		-- programs (the trigger study_runner_guard checks every route).
		IF tuner._preset_runs_programs(def) OR runner IS NOT NULL OR settings ? 'runner' THEN
			PERFORM tuner._check_program_privilege('create a study that runs programs');
		END IF;
		-- the catalog is a server file
		IF def ? 'catalog' AND (
			NOT pg_catalog.pg_has_role(current_user, 'pg_read_server_files', 'USAGE')
			OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_read_file(text)', 'EXECUTE')
			OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_read_file(text, bigint, bigint)', 'EXECUTE')
			OR NOT pg_catalog.has_function_privilege('pg_catalog.pg_stat_file(text, boolean)', 'EXECUTE')) THEN
			RAISE EXCEPTION 'permission denied to create a study with the % preset', preset
				USING ERRCODE = 'insufficient_privilege',
					  DETAIL = 'The preset reads its catalog, a server file, with pg_stat_file and pg_read_file.',
					  HINT = pg_catalog.format('A superuser can run GRANT pg_read_server_files TO %1$s and GRANT EXECUTE on pg_read_file(text), pg_read_file(text, bigint, bigint) and pg_stat_file(text, boolean) to it.',
											   pg_catalog.quote_ident(current_user));
		END IF;
	END IF;
	objective_out := COALESCE(objective, def ->> 'objective');
	IF def -> 'other_objectives' = 'false'
	   AND NOT COALESCE(def -> 'objectives' ? objective_out, false) THEN
		RAISE EXCEPTION 'unknown objective "%" for the % preset', objective_out, preset
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = COALESCE(def ->> 'objectives_hint',
					'Known: ' || (SELECT pg_catalog.string_agg(o, ', ')
									FROM pg_catalog.jsonb_object_keys(def -> 'objectives') o) || '.');
	END IF;
	v_obj := COALESCE(def -> 'objectives' -> objective_out, '{}');
	direction_out := COALESCE(v_obj ->> 'direction', direction);

	-- The preset's runner settings; "$host_cpus" is the database host's
	-- processors, at most the setting's max.
	v_runner := COALESCE(v_base -> 'runner', '{}') || COALESCE(v_obj -> 'settings' -> 'runner', '{}');
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(v_runner) e
	LOOP
		IF v = '"$host_cpus"' THEN
			v_runner := v_runner || pg_catalog.jsonb_build_object(k, LEAST(tuner._host_cpus(),
				COALESCE((SELECT (e ->> 'max')::int FROM pg_catalog.jsonb_array_elements(v_known) e
						   WHERE e ->> 'name' = k), 2147483647)));
		END IF;
	END LOOP;
	IF settings ? 'runner' THEN
		IF pg_catalog.jsonb_typeof(settings -> 'runner') <> 'object' THEN
			RAISE EXCEPTION 'setting runner must be a JSON object'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		v_runner := v_runner || (settings -> 'runner');
	END IF;
	settings_out := v_base || COALESCE(v_obj -> 'settings', '{}') || settings;
	IF v_runner <> '{}' OR settings_out ? 'runner' THEN
		settings_out := settings_out || pg_catalog.jsonb_build_object('runner', v_runner);
	END IF;
	IF def ? 'runner' THEN
		PERFORM tuner._preset_check_runner_settings(preset, v_known, v_runner);
	END IF;
	-- what the objective needs of the runner (e.g. paired runs for a ratio)
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(COALESCE(v_obj -> 'requires', '{}')) e
	LOOP
		IF (v_runner -> k) IS DISTINCT FROM v THEN
			PERFORM tuner._preset_raise('22023',
				pg_catalog.format('objective %s needs the runner setting %s = %s', objective_out, k, v),
				v_obj ->> 'detail', v_obj ->> 'hint');
		END IF;
	END LOOP;

	runner_out := COALESCE(runner, def -> 'runner' ->> 'name');
	IF NOT check_only THEN
		IF runner_out = def -> 'runner' ->> 'name' AND NOT EXISTS (
			SELECT 1 FROM tuner.runner r WHERE r.name = runner_out) THEN
			PERFORM tuner.register_runner(runner_out, def -> 'runner' ->> 'program');
		END IF;
		IF def ? 'catalog' THEN
			catalog := tuner._preset_read_catalog(def -> 'catalog', v_runner);
		END IF;
	END IF;
END;
$$;

-- A number of a preset's parameter: a JSON number, or "$runner.<setting>"
-- (the study's runner setting).
CREATE FUNCTION tuner._preset_number(value jsonb, runner jsonb, what text)
RETURNS float8
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF value IS NULL OR value = 'null' THEN
		RETURN NULL;
	ELSIF pg_catalog.jsonb_typeof(value) = 'number'
		  AND pg_catalog.abs(value::text::numeric) <= 1e300 THEN
		RETURN value::text::float8;
	ELSIF pg_catalog.jsonb_typeof(value) = 'string' AND value #>> '{}' LIKE '$runner.%'
		  AND pg_catalog.jsonb_typeof(runner -> pg_catalog.substr(value #>> '{}', 9)) = 'number' THEN
		RETURN (runner -> pg_catalog.substr(value #>> '{}', 9))::text::float8;
	END IF;
	RAISE EXCEPTION '% must be a finite number or "$runner.<setting>" naming a numeric runner setting', what
		USING ERRCODE = 'invalid_parameter_value',
			  DETAIL = pg_catalog.format('Got %s.', value);
END;
$$;

-- A metric's cluster from a preset: names of the preset's parameters,
-- those left out of this study dropped.
CREATE FUNCTION tuner._preset_cluster(study_id bigint, metric text, cluster jsonb, left_out text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	v_cluster text[];
	v_unknown text;
BEGIN
	IF pg_catalog.jsonb_typeof(cluster) IS DISTINCT FROM 'array'
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(cluster) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION 'the cluster of metric "%" must be an array of parameter names', metric
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', cluster);
	END IF;
	SELECT u.c INTO v_unknown
	  FROM pg_catalog.jsonb_array_elements_text(cluster) u(c)
	 WHERE u.c <> ALL (left_out)
	   AND NOT EXISTS (SELECT 1 FROM tuner.parameter p WHERE p.study_id = $1 AND p.name = u.c)
	 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'the cluster of metric "%" names "%", not a parameter of the preset', metric, v_unknown
			USING ERRCODE = 'undefined_object';
	END IF;
	SELECT pg_catalog.array_agg(u.c ORDER BY u.o) INTO v_cluster
	  FROM pg_catalog.jsonb_array_elements_text(cluster) WITH ORDINALITY u(c, o)
	 WHERE u.c <> ALL (left_out);
	UPDATE tuner.metric m
	   SET cluster = v_cluster,
		   cluster_source = CASE WHEN v_cluster IS NOT NULL THEN 'preset' END
	 WHERE m.study_id = $1 AND m.name = metric;
END;
$$;

-- A preset's study once it exists: its parameters (a range that the
-- runner settings collapse to one value leaves the parameter out, with
-- the constraints naming it and its place in clusters), constraints,
-- catalog import, metrics with their clusters, and algorithm.  Every part
-- goes through the function a user would call.  check_only: no catalog
-- (create_preset's dry run has none to read) and so no algorithm.
CREATE FUNCTION tuner._preset_apply(preset text, def jsonb, study_id bigint, study text,
									catalog jsonb, check_only bool DEFAULT false)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	p jsonb;
	v_runner jsonb;
	v_low float8;
	v_high float8;
	v_log bool;
	v_left_out text[] := '{}';
	v_obj jsonb;
	c text;
	v_kept int;
	v_options jsonb;
BEGIN
	SELECT * INTO STRICT s FROM tuner.study x WHERE x.id = $3;
	v_runner := COALESCE(s.settings -> 'runner', '{}');
	FOR p IN SELECT e FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'parameters', '[]')) e
	LOOP
		v_low := tuner._preset_number(p -> 'low', v_runner,
			pg_catalog.format('low of parameter %s', p -> 'name'));
		v_high := tuner._preset_number(p -> 'high', v_runner,
			pg_catalog.format('high of parameter %s', p -> 'name'));
		IF v_low = v_high THEN
			v_left_out := v_left_out || (p ->> 'name');
			CONTINUE;
		END IF;
		v_log := CASE pg_catalog.jsonb_typeof(p -> 'log')
					  WHEN 'boolean' THEN (p -> 'log')::text::bool
					  WHEN 'object' THEN v_high >= (p -> 'log' ->> 'high_at_least')::float8
					  ELSE false END;
		PERFORM tuner.add_parameter(study, p ->> 'name', p ->> 'type',
									low => v_low, high => v_high,
									default_value => p ->> 'default', log_scale => v_log,
									choices => (SELECT pg_catalog.array_agg(x ORDER BY o)
												  FROM pg_catalog.jsonb_array_elements_text(p -> 'choices')
													   WITH ORDINALITY a(x, o)),
									condition => p ->> 'condition');
	END LOOP;
	FOR c IN SELECT e FROM pg_catalog.jsonb_array_elements_text(COALESCE(def -> 'constraints', '[]')) e
	LOOP
		CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.unnest(v_left_out) n
							   WHERE c ~ ('(^|[^[:alnum:]_])'
										  || pg_catalog.regexp_replace(n, '([^[:alnum:]_])', '\\\1', 'g')
										  || '($|[^[:alnum:]_])'));
		PERFORM tuner.add_constraint(study, c, 'preset');
	END LOOP;
	IF def ? 'catalog' AND NOT check_only THEN
		PERFORM tuner.import_catalog(study, catalog, COALESCE(def -> 'catalog' -> 'import', '{}'));
		SELECT pg_catalog.count(*) INTO v_kept FROM tuner.parameter x WHERE x.study_id = $3;
		IF v_kept < COALESCE((def -> 'catalog' ->> 'min_parameters')::int, 1) THEN
			RAISE EXCEPTION 'the % left % parameters for the % preset',
				COALESCE(def -> 'catalog' ->> 'what', 'catalog'), v_kept, preset
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = COALESCE(def -> 'catalog' ->> 'few_hint',
									  'tuner.catalog_dropped says why options were left out.');
		END IF;
	END IF;

	-- The metrics; one of them may be the study's objective: it keeps its
	-- role and direction.
	FOR p IN SELECT e FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'metrics', '[]')) e
	LOOP
		IF p ->> 'name' = s.objective THEN
			PERFORM tuner.add_metric(study, p ->> 'name', 'objective', NULL, p ->> 'unit');
		ELSE
			PERFORM tuner.add_metric(study, p ->> 'name', 'auxiliary', p ->> 'direction', p ->> 'unit');
		END IF;
		IF p ? 'cluster' THEN
			PERFORM tuner._preset_cluster($3, p ->> 'name', p -> 'cluster', v_left_out);
		END IF;
	END LOOP;
	v_obj := def -> 'objectives' -> s.objective;
	IF v_obj ? 'unit' THEN
		PERFORM tuner.add_metric(study, s.objective, 'objective', NULL, v_obj ->> 'unit');
	END IF;
	IF v_obj ? 'cluster' THEN
		PERFORM tuner._preset_cluster($3, s.objective, v_obj -> 'cluster', v_left_out);
	END IF;

	-- The algorithm; top_k at most the parameters there are.
	IF def ? 'algorithm' AND NOT (check_only AND def ? 'catalog') THEN
		v_options := COALESCE(def -> 'algorithm' -> 'options', '{}');
		IF pg_catalog.jsonb_typeof(v_options -> 'top_k') = 'number' THEN
			v_options := v_options || pg_catalog.jsonb_build_object('top_k',
				LEAST((v_options ->> 'top_k')::numeric,
					  (SELECT pg_catalog.count(*) FROM tuner.parameter x WHERE x.study_id = $3)));
		END IF;
		PERFORM tuner.set_algorithm(study, def -> 'algorithm' ->> 'name', v_options);
	END IF;
END;
$$;

-- The keys a definition, or a part of it, may have (else an error naming
-- the unknown key).
CREATE FUNCTION tuner._preset_keys(value jsonb, what text, known text[])
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
BEGIN
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION '% must be a JSON object', what
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', COALESCE(value, 'null'));
	END IF;
	SELECT j INTO k FROM pg_catalog.jsonb_object_keys(value) j WHERE j <> ALL (known) LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'unknown key "%" in %', k, what
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Known: ' || pg_catalog.array_to_string(known, ', ') || '.';
	END IF;
END;
$$;

-- Check that value (a part of a definition) is of JSON type type
-- ('string' is a non-empty one); NULL (absent) passes unless required.
CREATE FUNCTION tuner._preset_type(value jsonb, what text, type text, required bool DEFAULT false)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	IF value IS NULL AND NOT required THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(value) IS DISTINCT FROM type
	   OR (type = 'string' AND pg_catalog.btrim(value #>> '{}') = '') THEN
		RAISE EXCEPTION '% must be %', what,
			CASE type WHEN 'string' THEN 'a non-empty string' WHEN 'boolean' THEN 'true or false'
					  WHEN 'number' THEN 'a number' WHEN 'array' THEN 'a JSON array'
					  ELSE 'a JSON ' || type END
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = CASE WHEN value IS NULL THEN 'It is missing.'
								ELSE pg_catalog.format('Got %s.', value) END;
	END IF;
END;
$$;

-- The shape of a preset's definition (docs/presets.md, "Defining a
-- preset"): known keys, JSON types, names.  What the parts mean
-- (parameters' kinds, bounds and defaults, settings, constraints,
-- metrics, the algorithm) is checked by the dry run of
-- tuner._preset_guard, with the API's own checks.
CREATE FUNCTION tuner._preset_check_definition(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	e jsonb;
	k text;
	v jsonb;
	v_names text[];
	v_dup text;
BEGIN
	PERFORM tuner._preset_keys(def, 'the definition', ARRAY['description', 'objective',
		'objectives', 'other_objectives', 'objectives_hint', 'runner', 'settings',
		'parameters', 'constraints', 'metrics', 'catalog', 'algorithm']);
	PERFORM tuner._preset_type(def -> 'description', 'description', 'string');
	PERFORM tuner._preset_type(def -> 'objective', 'objective', 'string', true);
	PERFORM tuner._preset_type(def -> 'other_objectives', 'other_objectives', 'boolean');
	PERFORM tuner._preset_type(def -> 'objectives_hint', 'objectives_hint', 'string');
	IF def ? 'objectives' THEN
		PERFORM tuner._preset_type(def -> 'objectives', 'objectives', 'object');
		FOR k, v IN SELECT x.key, x.value FROM pg_catalog.jsonb_each(def -> 'objectives') x
		LOOP
			PERFORM tuner._preset_keys(v, pg_catalog.format('objective %s', pg_catalog.to_jsonb(k)),
				ARRAY['direction', 'unit', 'cluster', 'settings', 'requires', 'detail', 'hint']);
			IF v ? 'direction' AND v ->> 'direction' IS DISTINCT FROM 'minimize'
			   AND v ->> 'direction' IS DISTINCT FROM 'maximize' THEN
				RAISE EXCEPTION 'invalid direction % of objective %', v -> 'direction', pg_catalog.to_jsonb(k)
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use "minimize" or "maximize".';
			END IF;
			PERFORM tuner._preset_type(v -> 'unit', 'unit of objective ' || k, 'string');
			PERFORM tuner._preset_type(v -> 'settings', 'settings of objective ' || k, 'object');
			PERFORM tuner._preset_type(v -> 'requires', 'requires of objective ' || k, 'object');
			PERFORM tuner._preset_type(v -> 'detail', 'detail of objective ' || k, 'string');
			PERFORM tuner._preset_type(v -> 'hint', 'hint of objective ' || k, 'string');
		END LOOP;
	END IF;
	IF def -> 'other_objectives' = 'false'
	   AND NOT COALESCE(def -> 'objectives' ? (def ->> 'objective'), false) THEN
		RAISE EXCEPTION 'objective "%" is not one of the preset''s objectives', def ->> 'objective'
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'With "other_objectives": false, list the default objective under "objectives".';
	END IF;

	IF def ? 'runner' THEN
		PERFORM tuner._preset_keys(def -> 'runner', 'runner', ARRAY['name', 'program', 'settings']);
		PERFORM tuner._preset_type(def -> 'runner' -> 'name', 'runner name', 'string', true);
		PERFORM tuner._preset_type(def -> 'runner' -> 'program', 'runner program', 'string', true);
		-- (register_runner's checks, which run when a study registers it)
		IF def -> 'runner' ->> 'program' LIKE '%/%' AND def -> 'runner' ->> 'program' NOT LIKE '/%'
		   OR pg_catalog.strpos(def -> 'runner' ->> 'program', pg_catalog.chr(10)) > 0 THEN
			RAISE EXCEPTION 'runner program % must be an absolute path or a bare program name', def -> 'runner' -> 'program'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'A bare name is looked up in PostgreSQL''s bindir, then in the server''s PATH.';
		END IF;
		PERFORM tuner._preset_type(def -> 'runner' -> 'settings', 'runner settings', 'array');
		FOR e IN SELECT x FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'runner' -> 'settings', '[]')) x
		LOOP
			PERFORM tuner._preset_keys(e, 'a runner setting', ARRAY['name', 'type', 'min', 'max', 'above', 'unit']);
			PERFORM tuner._preset_type(e -> 'name', 'runner setting name', 'string', true);
			IF e ->> 'type' IS NULL OR e ->> 'type' NOT IN ('int', 'number', 'bool', 'path', 'string', 'object') THEN
				RAISE EXCEPTION 'invalid type % of runner setting %', COALESCE(e -> 'type', 'null'), e -> 'name'
					USING ERRCODE = 'invalid_parameter_value',
						  HINT = 'Use "int", "number", "bool", "path" (absolute), "string" (non-empty) or "object".';
			END IF;
			IF e ->> 'type' = 'int' AND NOT (e ? 'min' AND e ? 'max') THEN
				RAISE EXCEPTION 'runner setting % of type "int" needs min and max', e -> 'name'
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			IF (e ? 'min' OR e ? 'max' OR e ? 'above') AND e ->> 'type' NOT IN ('int', 'number')
			   OR e ? 'unit' AND e ->> 'type' <> 'number' THEN
				RAISE EXCEPTION 'runner setting % of type % takes no min, max, above or unit', e -> 'name', e -> 'type'
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
			PERFORM tuner._preset_type(e -> 'min', 'min of runner setting ' || (e ->> 'name'), 'number');
			PERFORM tuner._preset_type(e -> 'max', 'max of runner setting ' || (e ->> 'name'), 'number');
			PERFORM tuner._preset_type(e -> 'above', 'above of runner setting ' || (e ->> 'name'), 'number');
			PERFORM tuner._preset_type(e -> 'unit', 'unit of runner setting ' || (e ->> 'name'), 'string');
			IF (e ->> 'min')::numeric > (e ->> 'max')::numeric THEN
				RAISE EXCEPTION 'runner setting %: min % is above max %', e -> 'name', e -> 'min', e -> 'max'
					USING ERRCODE = 'invalid_parameter_value';
			END IF;
		END LOOP;
		SELECT x ->> 'name' INTO v_dup FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'runner' -> 'settings', '[]')) x
		 GROUP BY 1 HAVING pg_catalog.count(*) > 1 LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'runner setting "%" is listed twice', v_dup
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
	END IF;
	PERFORM tuner._preset_type(def -> 'settings', 'settings', 'object');

	PERFORM tuner._preset_type(def -> 'parameters', 'parameters', 'array');
	FOR e IN SELECT x FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'parameters', '[]')) x
	LOOP
		PERFORM tuner._preset_keys(e, 'a parameter', ARRAY['name', 'type', 'low', 'high', 'default',
			'log', 'choices', 'condition']);
		PERFORM tuner._preset_type(e -> 'name', 'parameter name', 'string', true);
		PERFORM tuner._preset_type(e -> 'type', 'type of parameter ' || (e ->> 'name'), 'string', true);
		IF pg_catalog.jsonb_typeof(e -> 'default') IN ('object', 'array') THEN
			RAISE EXCEPTION 'default of parameter % must be a number, a string, true or false', e ->> 'name'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', e -> 'default');
		END IF;
		IF e ? 'log' AND pg_catalog.jsonb_typeof(e -> 'log') <> 'boolean'
		   AND NOT (pg_catalog.jsonb_typeof(e -> 'log') = 'object'
					AND (SELECT pg_catalog.array_agg(j) FROM pg_catalog.jsonb_object_keys(e -> 'log') j) = '{high_at_least}'
					AND pg_catalog.jsonb_typeof(e -> 'log' -> 'high_at_least') = 'number') THEN
			RAISE EXCEPTION 'log of parameter % must be true, false or {"high_at_least": n}', e ->> 'name'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', e -> 'log');
		END IF;
		IF e ? 'choices' AND (pg_catalog.jsonb_typeof(e -> 'choices') <> 'array'
			OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(e -> 'choices') c
						WHERE pg_catalog.jsonb_typeof(c) <> 'string')) THEN
			RAISE EXCEPTION 'choices of parameter % must be an array of strings', e ->> 'name'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', e -> 'choices');
		END IF;
		PERFORM tuner._preset_type(e -> 'condition', 'condition of parameter ' || (e ->> 'name'), 'string');
	END LOOP;
	SELECT x ->> 'name' INTO v_dup FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'parameters', '[]')) x
	 GROUP BY 1 HAVING pg_catalog.count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" is listed twice', v_dup
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	PERFORM tuner._preset_type(def -> 'constraints', 'constraints', 'array');
	FOR e IN SELECT x FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'constraints', '[]')) x
	LOOP
		PERFORM tuner._preset_type(e, 'a constraint', 'string');
	END LOOP;

	PERFORM tuner._preset_type(def -> 'metrics', 'metrics', 'array');
	FOR e IN SELECT x FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'metrics', '[]')) x
	LOOP
		PERFORM tuner._preset_keys(e, 'a metric', ARRAY['name', 'direction', 'unit', 'cluster']);
		PERFORM tuner._preset_type(e -> 'name', 'metric name', 'string', true);
		IF pg_catalog.jsonb_typeof(e -> 'unit') NOT IN ('string', 'null') THEN
			PERFORM tuner._preset_type(e -> 'unit', 'unit of metric ' || (e ->> 'name'), 'string');
		END IF;
	END LOOP;
	SELECT x ->> 'name' INTO v_dup FROM pg_catalog.jsonb_array_elements(COALESCE(def -> 'metrics', '[]')) x
	 GROUP BY 1 HAVING pg_catalog.count(*) > 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'metric "%" is listed twice', v_dup
			USING ERRCODE = 'invalid_parameter_value';
	END IF;

	IF def ? 'catalog' THEN
		PERFORM tuner._preset_keys(def -> 'catalog', 'catalog', ARRAY['what', 'file', 'dir_setting',
			'default_dir', 'import', 'min_parameters', 'missing_detail', 'missing_hint',
			'invalid_hint', 'few_hint']);
		PERFORM tuner._preset_type(def -> 'catalog' -> 'file', 'catalog file', 'string', true);
		IF pg_catalog.strpos(def -> 'catalog' ->> 'file', '/') > 0 THEN
			RAISE EXCEPTION 'catalog file must be a file name, without "/"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', def -> 'catalog' -> 'file');
		END IF;
		PERFORM tuner._preset_type(def -> 'catalog' -> 'default_dir', 'catalog default_dir', 'string', true);
		IF pg_catalog.left(def -> 'catalog' ->> 'default_dir', 1) <> '/' THEN
			RAISE EXCEPTION 'catalog default_dir must be an absolute path'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', def -> 'catalog' -> 'default_dir');
		END IF;
		-- the directory a caller may choose is a runner setting of type path
		IF def -> 'catalog' ? 'dir_setting' AND NOT EXISTS (
			SELECT 1 FROM pg_catalog.jsonb_array_elements(def -> 'runner' -> 'settings') x
			 WHERE x ->> 'name' = def -> 'catalog' ->> 'dir_setting' AND x ->> 'type' = 'path') THEN
			RAISE EXCEPTION 'catalog dir_setting % is not a runner setting of type path', def -> 'catalog' -> 'dir_setting'
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
		PERFORM tuner._preset_type(def -> 'catalog' -> 'import', 'catalog import', 'object');
		IF def -> 'catalog' ? 'min_parameters' THEN
			PERFORM tuner._json_int(def -> 'catalog' -> 'min_parameters', 'catalog min_parameters', 1, 10000);
		END IF;
		FOREACH k IN ARRAY ARRAY['what', 'missing_detail', 'missing_hint', 'invalid_hint', 'few_hint']
		LOOP
			PERFORM tuner._preset_type(def -> 'catalog' -> k, 'catalog ' || k, 'string');
		END LOOP;
	END IF;
	IF def ? 'algorithm' THEN
		PERFORM tuner._preset_keys(def -> 'algorithm', 'algorithm', ARRAY['name', 'options']);
		PERFORM tuner._preset_type(def -> 'algorithm' -> 'name', 'algorithm name', 'string', true);
		PERFORM tuner._preset_type(def -> 'algorithm' -> 'options', 'algorithm options', 'object');
	END IF;
END;
$$;

-- Check a preset of a role's own whole before it is stored: the shape
-- first, then a dry run for the default objective and each listed one:
-- the study create_study would make (its settings and runner settings
-- checked) and the preset applied to it through the API, in a
-- subtransaction rolled back.  A preset naming a runner or runner
-- settings needs the privilege to run programs.
CREATE FUNCTION tuner._preset_check(name text, def jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	v_objective text;
	r record;
	v_study text := name || ' (preset check)';
	v_id bigint;
	v_state text;
	v_msg text;
	v_detail text;
	v_hint text;
BEGIN
	IF EXISTS (SELECT 1 FROM tuner.preset p WHERE p.name = $1 AND p.owner IS NULL) THEN
		RAISE EXCEPTION 'preset "%" is built in', name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Choose another name for your own preset.';
	END IF;
	BEGIN
		PERFORM tuner._preset_check_definition(def);
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT,
								v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
		PERFORM tuner._preset_raise(v_state, pg_catalog.format('invalid preset "%s": %s', name, v_msg),
									NULLIF(v_detail, ''), NULLIF(v_hint, ''));
	END;
	IF tuner._preset_runs_programs(def) THEN
		PERFORM tuner._check_program_privilege('create a preset that runs programs');
	END IF;
	FOR v_objective IN
		SELECT def ->> 'objective'
		UNION ALL
		SELECT o FROM pg_catalog.jsonb_object_keys(COALESCE(def -> 'objectives', '{}')) o
		 WHERE o <> def ->> 'objective'
	LOOP
		BEGIN
			SELECT * INTO r FROM tuner._preset_prepare(name, def, v_objective,
													   'maximize', '{}', NULL, true);
			v_id := tuner.create_study(v_study, r.objective_out, r.direction_out, r.settings_out);
			PERFORM tuner._preset_apply(name, def, v_id, v_study, NULL, true);
			RAISE EXCEPTION USING ERRCODE = 'TUP00', MESSAGE = 'preset checked';
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS v_state = RETURNED_SQLSTATE, v_msg = MESSAGE_TEXT,
									v_detail = PG_EXCEPTION_DETAIL, v_hint = PG_EXCEPTION_HINT;
			IF v_state <> 'TUP00' THEN
				PERFORM tuner._preset_raise(v_state,
					pg_catalog.format('invalid preset "%s" (objective %s): %s', name, v_objective, v_msg),
					NULLIF(v_detail, ''), NULLIF(v_hint, ''));
			END IF;
		END;
	END LOOP;
END;
$$;

-- Trigger: a role's preset is checked whole (tuner._preset_check) by
-- whatever route it is inserted.  Rows a superuser writes are trusted as
-- in every table (the extension's built-ins, pg_restore: there a dry run
-- would take ids the restore has not yet moved its sequences past);
-- create_preset checks a superuser's itself.
CREATE FUNCTION tuner._preset_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.owner IS NOT NULL AND pg_catalog.current_setting('is_superuser') <> 'on' THEN
		PERFORM tuner._preset_check(NEW.name, NEW.definition);
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER preset_guard BEFORE INSERT ON tuner.preset
	FOR EACH ROW EXECUTE FUNCTION tuner._preset_guard();

-- Make a preset of one's own (definition: docs/presets.md, "Defining a
-- preset"), checked whole (tuner._preset_check).  Use it with
-- tuner.create_study(name, preset => ...).
CREATE FUNCTION tuner.create_preset(name text, definition jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	p_name text := $1;
	p_def jsonb := $2;
BEGIN
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_def, 'definition');
	IF pg_catalog.btrim(p_name) = '' THEN
		RAISE EXCEPTION 'preset name must not be empty'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- (the trigger preset_guard checks other roles' rows)
	IF pg_catalog.current_setting('is_superuser') = 'on' THEN
		PERFORM tuner._preset_check(p_name, p_def);
	END IF;
	BEGIN
		PERFORM tuner._preset_insert(p_name, p_def);
	EXCEPTION WHEN unique_violation THEN
		RAISE EXCEPTION 'preset "%" already exists', p_name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Choose another name, or drop the old preset with tuner.drop_preset().';
	END;
END;
$$;

-- Drop one of one's own presets (owner: whose; a superuser or a member
-- of the owner role may drop another's).  Studies made with it stay.
CREATE FUNCTION tuner.drop_preset(name text, owner name DEFAULT current_user)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_column
DECLARE
	p_name text := $1;
	p_owner name := $2;
BEGIN
	PERFORM tuner._not_null(p_name, 'name');
	PERFORM tuner._not_null(p_owner, 'owner');
	IF tuner._preset_delete(p_name, p_owner) > 0 THEN
		RETURN;
	END IF;
	IF EXISTS (SELECT 1 FROM tuner.preset p WHERE p.name = p_name AND p.owner IS NULL) THEN
		RAISE EXCEPTION 'permission denied to drop preset "%"', p_name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = 'It is built in; it changes only with the extension.';
	END IF;
	-- (another's preset is as unknown as a missing one: row-level
	-- security hides it)
	RAISE EXCEPTION 'preset "%" of % does not exist', p_name, pg_catalog.quote_ident(p_owner)
		USING ERRCODE = 'undefined_object',
			  HINT = 'tuner.presets lists your presets.';
END;
$$;
-- end presets.sql
-- begin presets_data.sql
-------------------------------------------------------------------------------
-- The built-in presets, as rows of tuner.preset (presets.sql; the format
-- is docs/presets.md's "Defining a preset").  Their content is exactly
-- what 0.2.0's preset functions did (sql/preset.sql, ceph_preset.sql and
-- fastquery_preset.sql check the studies they make).  To change a
-- built-in later, UPDATE its row in that version's update script; no
-- function changes.
-------------------------------------------------------------------------------

-- "rocksdb": the RocksDB paper's Table 1 on the scaled db_bench mixgraph
-- workload of tuner_rocksdb (src/runners/rocksdb/README.md).
--
-- Settings: every trial is measured paired with the default configuration
-- (the objective is the ratio to it), 30 s per run; a trial is two runs
-- plus restoring the DB and the final compaction, so 600 s is a generous
-- timeout.  Budgets are about 10 trials (the paper's): the default, two
-- space-filling points, then the model (the generic d + 1 = 11 would
-- leave a 10-trial study without a single model trial; the paper starts
-- its models from one observation).  noise_sd is the paired ratio's
-- measured spread with the runner's default direct I/O (sd 0.235 in 6
-- default-vs-default pairs, CV 13-22% in a second set; see
-- src/runners/rocksdb/README.md), for tuner.recommend; it belongs to
-- objective ratio_to_default only.
--
-- Parameters: ranges are Table 1's, scaled like the workload (store,
-- cache and write buffers about 256x smaller): the write buffer spans
-- [64 KiB (RocksDB's floor), 1.5e8 / 256].  Table 1's parameters are all
-- ordinal integers; those spanning more than a decade are searched in log
-- space.  The slowdown trigger's default is passed as 20: Table 1 lists
-- 0, which RocksDB does not read as its default.
--
-- Constraints: RocksDB's own orderings (its options sanitizer rewrites a
-- configuration that breaks them, so such a trial would not measure what
-- it says): L0 compaction <= slowdown <= stop triggers, and fewer
-- memtables merged than may exist.
--
-- Metrics: the auxiliary metrics of the paper, and raw throughput; each
-- with the parameters that drive it most (our reading of RocksDB: flushes
-- and the L0 triggers for compaction time, the LSM shape for write
-- amplification, block size and the LSM depth for block reads).
INSERT INTO tuner.preset (name, owner, definition) VALUES ('rocksdb', NULL, $json$
{
	"description": "RocksDB, db_bench mixgraph (the RocksDB paper's Table 1, scaled)",
	"objective": "ratio_to_default",
	"objectives": {
		"ratio_to_default": {
			"unit": "ratio",
			"cluster": ["write_buffer_size", "max_write_buffer_number", "level0_file_num_compaction_trigger",
						"level0_slowdown_writes_trigger", "level0_stop_writes_trigger", "max_background_compactions"],
			"settings": {"noise_sd": 0.2}
		}
	},
	"runner": {
		"name": "rocksdb",
		"program": "tuner_rocksdb",
		"settings": [
			{"name": "duration_s", "type": "int", "min": 1, "max": 86400},
			{"name": "paired", "type": "bool"},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "num_keys", "type": "int", "min": 1000, "max": 1000000000},
			{"name": "seed", "type": "int", "min": 0, "max": 2147483647},
			{"name": "direct_io", "type": "bool"},
			{"name": "keep_db", "type": "bool"},
			{"name": "work_dir", "type": "path"},
			{"name": "db_bench", "type": "path"},
			{"name": "default_config", "type": "object"}
		]
	},
	"settings": {"n_initial": 3, "trial_timeout_s": 600, "runner": {"duration_s": 30, "paired": true}},
	"parameters": [
		{"name": "max_background_compactions", "type": "int", "low": 1, "high": 16, "default": "1", "log": false},
		{"name": "max_background_flushes", "type": "int", "low": 1, "high": 10, "default": "1", "log": false},
		{"name": "write_buffer_size", "type": "int", "low": 65536, "high": 585937, "default": "262144", "log": true},
		{"name": "max_write_buffer_number", "type": "int", "low": 1, "high": 128, "default": "2", "log": true},
		{"name": "min_write_buffer_number_to_merge", "type": "int", "low": 1, "high": 32, "default": "1", "log": true},
		{"name": "max_bytes_for_level_multiplier", "type": "int", "low": 5, "high": 15, "default": "10", "log": false},
		{"name": "block_size", "type": "int", "low": 256, "high": 500000, "default": "4096", "log": true},
		{"name": "level0_file_num_compaction_trigger", "type": "int", "low": 1, "high": 256, "default": "4", "log": true},
		{"name": "level0_slowdown_writes_trigger", "type": "int", "low": 1, "high": 1024, "default": "20", "log": true},
		{"name": "level0_stop_writes_trigger", "type": "int", "low": 1, "high": 1024, "default": "36", "log": true}
	],
	"constraints": [
		"level0_file_num_compaction_trigger <= level0_slowdown_writes_trigger",
		"level0_slowdown_writes_trigger <= level0_stop_writes_trigger",
		"min_write_buffer_number_to_merge < max_write_buffer_number"
	],
	"metrics": [
		{"name": "ops_per_sec", "direction": "maximize", "unit": "ops/s",
		 "cluster": ["max_write_buffer_number", "max_background_flushes", "level0_slowdown_writes_trigger", "level0_stop_writes_trigger"]},
		{"name": "write_amp", "direction": "minimize", "unit": null,
		 "cluster": ["max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger", "write_buffer_size", "min_write_buffer_number_to_merge"]},
		{"name": "p99_block_read_us", "direction": "minimize", "unit": "us",
		 "cluster": ["block_size", "max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger"]},
		{"name": "p99_l0_l1_compaction_ms", "direction": "minimize", "unit": "ms",
		 "cluster": ["max_background_compactions", "level0_file_num_compaction_trigger", "write_buffer_size", "level0_slowdown_writes_trigger", "level0_stop_writes_trigger"]}
	]
}
$json$);

-- "ceph": the live Ceph test cluster's option catalog through the
-- Sapphire washing and pruning, tuned with the Sapphire pipeline by the
-- tuner_ceph runner (src/runners/ceph/README.md).
--
-- Settings: a trial is a paired measurement (the default configuration
-- interleaved: two runs of three 3 s phases, plus OSD restarts when a
-- restart-only option changes, ~10 s each here), and "restore" puts the
-- cluster back to its defaults after every trial, so it is at them
-- whenever the study ends or is stopped.  600 s is a generous timeout.
-- Random reads of small objects measure IOPS (object_size 4096); the
-- *_ratio objectives are the paired ratio to the default configuration.
--
-- Catalog: the one the running cluster's `cluster.sh start` writes into
-- its directory (runner setting cluster_dir; by default cluster.sh's
-- default for the OS user the server runs as, /var/tmp/tuner-ceph-<uid>).
-- The part of it searched ("include", regular expressions on the option
-- name): the OSD's client data path (op shards and threads, client message
-- throttles), BlueStore's write throttles, deferred writes and caches,
-- the messenger and the client's objecter throttles -- options that apply
-- at runtime or by an OSD restart.  Random exploration over the whole
-- catalog would set heartbeat grace times, op thread timeouts, full ratios
-- or pool defaults that take the single-host OSD down or make its pool
-- unwritable, which measures nothing; creation-time options are refused
-- by the runner anyway.  The import keeps BlueStore, the wpq queue and the
-- posix messenger (the test cluster's; they prune the other modules'
-- options), no developer options, nothing fixed at OSD creation; options
-- whose catalog bounds are inconsistent are dropped rather than failing.
--
-- Algorithm: trial 1 is the default configuration (every imported option
-- has a default).  The exploration takes 20 trials (at ~30 s a paired
-- trial, ~10 minutes here) and the model then works on the top 5: a
-- 40-trial study fits in about 20 minutes on this 2-core machine.
-- tuner.set_algorithm changes them.
INSERT INTO tuner.preset (name, owner, definition) VALUES ('ceph', NULL, $json$
{
	"description": "a local single-host Ceph 16.2 test cluster, its option catalog through Sapphire",
	"objective": "write_mbps",
	"other_objectives": false,
	"objectives_hint": "Use write_mbps (4 MiB objects, the default) or rand_read_iops (4 KiB objects), or their paired ratios to the default configuration, write_ratio and rand_read_ratio.",
	"objectives": {
		"write_mbps": {},
		"rand_read_iops": {"settings": {"runner": {"object_size": 4096}}},
		"write_ratio": {"requires": {"paired": true},
						"hint": "Leave \"paired\" at true, or choose write_mbps or rand_read_iops."},
		"rand_read_ratio": {"settings": {"runner": {"object_size": 4096}}, "requires": {"paired": true},
							"hint": "Leave \"paired\" at true, or choose write_mbps or rand_read_iops."}
	},
	"runner": {
		"name": "ceph",
		"program": "tuner_ceph",
		"settings": [
			{"name": "cluster_dir", "type": "path"},
			{"name": "conf", "type": "path"},
			{"name": "keyring", "type": "path"},
			{"name": "client_name", "type": "string"},
			{"name": "pool", "type": "string"},
			{"name": "cluster_script", "type": "path"},
			{"name": "state_file", "type": "path"},
			{"name": "object_size", "type": "int", "min": 1, "max": 67108864},
			{"name": "concurrency", "type": "int", "min": 1, "max": 1024},
			{"name": "duration_s", "type": "number", "min": 0.1, "max": 3600, "unit": "seconds"},
			{"name": "seed", "type": "int", "min": 0, "max": 9007199254740992},
			{"name": "apply_timeout_s", "type": "int", "min": 1, "max": 600},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "paired", "type": "bool"},
			{"name": "restore", "type": "bool"}
		]
	},
	"settings": {"trial_timeout_s": 600, "runner": {"duration_s": 3, "paired": true, "restore": true}},
	"catalog": {
		"what": "Ceph catalog",
		"file": "catalog.json",
		"dir_setting": "cluster_dir",
		"default_dir": "/var/tmp/tuner-ceph-{uid}",
		"import": {
			"osd_objectstore": "bluestore", "osd_op_queue": "wpq", "ms_type": "async+posix",
			"levels": ["basic", "advanced"], "apply": ["runtime", "restart"],
			"include": ["^osd_op_num_shards$", "^osd_op_num_threads_per_shard$",
						"^osd_client_message_(size_)?cap$",
						"^ms_async_op_threads$", "^ms_dispatch_throttle_bytes$", "^ms_tcp_nodelay$", "^ms_tcp_rcvbuf$",
						"^objecter_inflight_op(s|_bytes)$",
						"^bluestore_throttle_(bytes|deferred_bytes|cost_per_io)$",
						"^bluestore_deferred_batch_ops$", "^bluestore_prefer_deferred_size$",
						"^bluestore_cache_(size|autotune|meta_ratio|kv_ratio)$", "^bluestore_csum_type$",
						"^rocksdb_cache_size$"],
			"invalid": "drop"
		},
		"min_parameters": 2,
		"missing_detail": "The ceph preset imports the option catalog of the running cluster, which tests/ceph/cluster.sh start writes there.",
		"missing_hint": "Start the cluster as the server's OS user: runuser -u postgres -- tests/ceph/cluster.sh start (add TUNER_CEPH_DIR=... and the runner setting cluster_dir for another directory).",
		"invalid_hint": "Restart the cluster with tests/ceph/cluster.sh start, which rewrites it.",
		"few_hint": "The catalog should be the running cluster's (tests/ceph/cluster.sh start writes it); tuner.catalog_dropped says why options were left out."
	},
	"algorithm": {"name": "sapphire", "options": {"explore": 20, "top_k": 5}}
}
$json$);

-- "fastquery": the FastQuery-style bitmap index build and a fixed query
-- set over parallel HDF5 / MPI-IO (tuner_fastquery_runner, see
-- src/runners/fastquery/README.md).
--
-- Settings: 2^24 particles (470 MB of data) is the benchmark's size;
-- tests pass 2^20.  The runner's own timeout is below the worker's, so
-- that the runner kills mpiexec's tree itself and says which step ran too
-- long; the worker's timeout stays as the backstop.  Five initial trials:
-- the default and four space-filling points, then the model.  The
-- objectives speedup_vs_default and total_s_default exist only in paired
-- runs: they turn paired on, and paired off with them is an error rather
-- than trials that all fail.  Pairing doubles a trial's runs and repeats
-- multiplies them; the timeouts stay the caller's to raise (they depend
-- on the size and the machine).  max_ranks defaults to this host's
-- processors (the background workers run trials here; an agent elsewhere
-- passes its own).  Time objectives are minimized and the speedup
-- maximized, whatever direction the caller passes.
--
-- Parameters: defaults are tuner_fastquery's and ROMIO's own (one rank,
-- one thread, 64 bins, contiguous data, collective I/O, ROMIO's automatic
-- data sieving and collective buffering, its 16 MiB collective buffer,
-- one aggregator), so trial 1 measures the untuned program.  Left out:
-- striping_factor and striping_unit.  On this machine's ext4 ROMIO uses
-- its generic UFS driver, which drops striping_factor from the file's info
-- (reported "honored": false by tuner_fastquery) and keeps striping_unit
-- without acting on it; tuning them here would present noise as a
-- parameter.  A Lustre deployment would add them.  cb_nodes comes with
-- cb_config_list "*:*" from the runner (ROMIO's default allows one
-- aggregator per host) and is at most ranks (ROMIO clamps it: a larger
-- value would measure the clamped configuration under another name).
-- ranks and cb_nodes go up to the runner setting max_ranks (the trial
-- host's processors): MPICH's ranks busy-wait, so a rank without a core of
-- its own slows every rank down (measured at 2^20 particles on 2 cores:
-- query_s 0.62/0.36/3.67/3.32 s for 1/2/3/4 ranks), and such
-- configurations would only cost the study trials.  With max_ranks 1 both
-- are left out (every trial runs one rank), with their constraint and
-- their places in the clusters.  The HDF5 alignment is a choice of three
-- values because every value needs its own cached data file.
--
-- Metrics: the build's parts for the multi-task model, each with the
-- parameters that act on it (our reading of the program: reads go through
-- the data layout and ROMIO's read path, indexing through bins and
-- parallelism, writes through ROMIO's write path and the alignment).
INSERT INTO tuner.preset (name, owner, definition) VALUES ('fastquery', NULL, $json$
{
	"description": "a FastQuery-style bitmap indexer over parallel HDF5 and MPI-IO",
	"objective": "total_s",
	"objectives": {
		"total_s": {"direction": "minimize", "unit": "s"},
		"build_s": {"direction": "minimize"},
		"query_s": {"direction": "minimize"},
		"read_s": {"direction": "minimize"},
		"index_s": {"direction": "minimize"},
		"write_s": {"direction": "minimize"},
		"cpu_s": {"direction": "minimize"},
		"total_s_default": {"direction": "minimize", "unit": "s",
			"settings": {"runner": {"paired": true}}, "requires": {"paired": true},
			"detail": "The runner reports it only when it runs the default configuration beside each trial.",
			"hint": "Leave paired out (the objective turns it on) or set it to true."},
		"speedup_vs_default": {"direction": "maximize", "unit": "ratio",
			"settings": {"runner": {"paired": true}}, "requires": {"paired": true},
			"detail": "The runner reports it only when it runs the default configuration beside each trial.",
			"hint": "Leave paired out (the objective turns it on) or set it to true."}
	},
	"runner": {
		"name": "fastquery",
		"program": "tuner_fastquery_runner",
		"settings": [
			{"name": "particles", "type": "int", "min": 1000, "max": 2147483647},
			{"name": "data_dir", "type": "path"},
			{"name": "timeout_s", "type": "number", "above": 0},
			{"name": "queries", "type": "string"},
			{"name": "random_queries", "type": "int", "min": 0, "max": 1000},
			{"name": "query_seed", "type": "int", "min": 0, "max": 2147483647},
			{"name": "cold", "type": "bool"},
			{"name": "paired", "type": "bool"},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "max_ranks", "type": "int", "min": 1, "max": 64},
			{"name": "program", "type": "path"},
			{"name": "mpiexec", "type": "string"}
		]
	},
	"settings": {"n_initial": 5, "trial_timeout_s": 900,
				 "runner": {"particles": 16777216, "timeout_s": 840, "max_ranks": "$host_cpus"}},
	"parameters": [
		{"name": "bins", "type": "int", "low": 8, "high": 512, "default": "64", "log": true},
		{"name": "layout", "type": "categorical", "choices": ["contiguous", "chunked"], "default": "contiguous"},
		{"name": "io", "type": "categorical", "choices": ["collective", "independent"], "default": "collective"},
		{"name": "romio_ds_read", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "romio_cb_read", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "romio_cb_write", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "cb_buffer_size", "type": "int", "low": 65536, "high": 67108864, "default": "16777216", "log": true},
		{"name": "ranks", "type": "int", "low": 1, "high": "$runner.max_ranks", "default": "1", "log": {"high_at_least": 16}},
		{"name": "cb_nodes", "type": "int", "low": 1, "high": "$runner.max_ranks", "default": "1", "log": {"high_at_least": 16}},
		{"name": "threads", "type": "int", "low": 1, "high": 4, "default": "1"},
		{"name": "overlap", "type": "bool", "default": "false"},
		{"name": "align", "type": "categorical", "choices": ["0", "65536", "1048576"], "default": "0"}
	],
	"constraints": ["cb_nodes <= ranks"],
	"metrics": [
		{"name": "read_s", "direction": "minimize", "unit": "s",
		 "cluster": ["layout", "io", "romio_ds_read", "romio_cb_read", "cb_buffer_size", "cb_nodes", "ranks"]},
		{"name": "index_s", "direction": "minimize", "unit": "s",
		 "cluster": ["bins", "threads", "ranks", "overlap"]},
		{"name": "write_s", "direction": "minimize", "unit": "s",
		 "cluster": ["bins", "io", "romio_cb_write", "cb_buffer_size", "cb_nodes", "align"]}
	]
}
$json$);
-- end presets_data.sql
-- begin jobs.sql
-------------------------------------------------------------------------------
-- tuner.run, tuner.stop and the workers change jobs through the fixed
-- statements of bookkeeping_writes.sql; what a new job may be (a study
-- with a runner, the right to run programs, trials and parallel in
-- range) is checked by the job_guard trigger, whichever statement
-- inserts it.
-------------------------------------------------------------------------------

-- tuner.run: check the study, reconcile, and insert the job row (the
-- trigger checks the counts); returns the job id.  Its workers are
-- launched by tuner.run (C).
CREATE OR REPLACE FUNCTION tuner._run_prepare(study text, trials int, parallel int)
RETURNS bigint
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._study_with_runner($1);
	PERFORM tuner._not_null(trials, 'trials');
	PERFORM tuner._not_null(parallel, 'parallel');
	PERFORM tuner._reconcile();
	RETURN tuner._job_insert(s.id, trials, parallel);
END;
$$;

-- Ask the background workers of a study to stop.  Each one interrupts its
-- running trial (reason "stopped", its runner is killed) within about a
-- second and exits.  Returns the number of jobs asked to stop.
CREATE OR REPLACE FUNCTION tuner.stop(study text)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
BEGIN
	s := tuner._find_study($1);
	RETURN tuner._job_request_stop(s.id);
END;
$$;

-- Worker: claim the next trial of a job (suggest it and record the
-- worker), or NULL when the job is done or asked to stop.
CREATE OR REPLACE FUNCTION tuner._claim_trial(job bigint, worker text)
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
	PERFORM tuner._job_count_claim(j.id);
	SELECT name INTO v_study FROM tuner.study WHERE id = j.study_id;
	v_trial := (tuner.suggest_next(v_study) ->> 'trial')::bigint;
	UPDATE tuner.trial
	   SET worker = $2, worker_pid = pg_catalog.pg_backend_pid(), job_id = j.id
	 WHERE id = v_trial;
	RETURN v_trial;
END;
$$;

-- Worker: one worker of a job has finished (error: why it ended early).
-- The last one marks the job finished, stopped or failed.
CREATE OR REPLACE FUNCTION tuner._job_worker_done(job bigint, error text)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
	PERFORM tuner._job_count_worker_done($1, $2);
END;
$$;
-- end jobs.sql
-- begin study_grants.sql
-------------------------------------------------------------------------------
-- Grants of a study are made and taken back by grant_study and
-- revoke_study only, through the fixed statements of
-- bookkeeping_writes.sql; the trigger names the study's owner in each
-- grant and refuses a grantee that is not a role, whichever statement
-- writes it.
-------------------------------------------------------------------------------

-- Refuse a name that is not an existing role.
CREATE FUNCTION tuner._check_role_exists(role text)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
BEGIN
	IF pg_catalog.octet_length($1) > 63
	   OR pg_catalog.to_regrole(pg_catalog.quote_ident($1)) IS NULL THEN
		RAISE EXCEPTION 'role "%" does not exist', $1
			USING ERRCODE = 'undefined_object';
	END IF;
END;
$$;

-- Trigger: a grant names its study's owner and an existing role.
CREATE OR REPLACE FUNCTION tuner._study_grant_owner()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	SELECT s.owner INTO NEW.owner FROM tuner.study s WHERE s.id = NEW.study_id;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'study % does not exist', NEW.study_id
			USING ERRCODE = 'undefined_object';
	END IF;
	PERFORM tuner._check_role_exists(NEW.grantee);
	RETURN NEW;
END;
$$;

-- Grant a study to a role: privilege 'read' (see it) or 'write' (also
-- suggest, report, change it).  Only the study's owner may grant; granting
-- again replaces the privilege.
CREATE OR REPLACE FUNCTION tuner.grant_study(study text, role text, privilege text DEFAULT 'read')
RETURNS void
LANGUAGE plpgsql
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
	PERFORM tuner._check_role_exists(p_role);
	IF NOT tuner._has_role(s.owner) THEN
		RAISE EXCEPTION 'permission denied to grant study "%"', s.name
			USING ERRCODE = 'insufficient_privilege',
				  DETAIL = pg_catalog.format('Only its owner %s may grant it.', pg_catalog.quote_ident(s.owner));
	END IF;
	PERFORM tuner._grant_forget(s.id, p_role);
	PERFORM tuner._grant_insert(s.id, p_role, p_privilege);
END;
$$;

-- Take a grant of a study back; returns whether there was one.  Only the
-- study's owner may revoke.
CREATE OR REPLACE FUNCTION tuner.revoke_study(study text, role text)
RETURNS bool
LANGUAGE plpgsql
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
	RETURN tuner._grant_forget(s.id, p_role) > 0;
END;
$$;
-- end study_grants.sql
-- begin confirm.sql
-------------------------------------------------------------------------------
-- Confirmation runs (issue 29).
--
-- A single trial is one noisy measurement: on a busy machine the main job
-- printed a 35.5 % improvement that the model, right below, did not
-- believe.  tuner.confirm queues repeated runs of one configuration
-- against the study's baseline, run by the same workers, agents or step
-- as any queued trial, and tuner.confirmation reports their geometric
-- mean ratio with its 95 % t interval and p-value, so what tuner tells a
-- user about an improvement is a confirmed figure, never one trial.
--
-- Two kinds of objective:
--   paired: each trial's objective is already a ratio to the baseline
--     measured in the same trial (tuner_rocksdb and tuner_fastquery with
--     their "paired" setting); a confirmation pair is one more run of the
--     configuration (source 'confirm').
--   plain: a confirmation pair is one run of the baseline (source
--     'baseline', the study's default configuration) and one of the
--     configuration (source 'confirm'), in ABBA order so that a steady
--     drift of the machine cancels out of the mean; the pair's ratio is
--     configuration / baseline.
-- Confirmation runs are complete trials like any other, so the model also
-- learns from them as repeats.
-------------------------------------------------------------------------------

ALTER TABLE tuner.trial DROP CONSTRAINT trial_source_check;
ALTER TABLE tuner.trial ADD CONSTRAINT trial_source_check
	CHECK (source IN ('default', 'design', 'model', 'random', 'manual', 'copied',
					  'confirm', 'baseline'));
ALTER TABLE tuner.trial
	ADD COLUMN confirms bigint REFERENCES tuner.trial (id) ON DELETE SET NULL,
	ADD COLUMN confirm_pair int CHECK (confirm_pair >= 1);
CREATE INDEX trial_confirms_idx ON tuner.trial (confirms);

COMMENT ON COLUMN tuner.trial.confirms IS
	'The trial whose configuration this confirmation run measures (tuner.confirm)';
COMMENT ON COLUMN tuner.trial.confirm_pair IS
	'Which pair of that confirmation this run belongs to (1, 2, ...)';

-- The t interval and test of a mean (src/core/mean_interval.c).
CREATE FUNCTION tuner._mean_interval(x float8[], level float8,
									 OUT n int, OUT mean float8, OUT sd float8,
									 OUT low float8, OUT high float8,
									 OUT p_value float8)
RETURNS record
AS 'MODULE_PATHNAME', 'tuner_mean_interval_sql'
LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Trigger: a confirmation run names a trial of its own study.
CREATE FUNCTION tuner._trial_confirms_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.confirms IS NOT NULL AND NOT EXISTS (
		SELECT 1 FROM tuner.trial t
		 WHERE t.id = NEW.confirms AND t.study_id = NEW.study_id) THEN
		RAISE EXCEPTION 'trial % is not a trial of the same study', NEW.confirms
			USING ERRCODE = 'foreign_key_violation',
				  HINT = 'Queue confirmation runs with tuner.confirm().';
	END IF;
	IF (NEW.confirms IS NULL) <> (NEW.confirm_pair IS NULL)
	   OR (NEW.confirms IS NOT NULL) <> (NEW.source IN ('confirm', 'baseline')) THEN
		RAISE EXCEPTION 'a confirmation run names the trial it confirms and its pair, and only a confirmation run does'
			USING ERRCODE = 'check_violation',
				  HINT = 'Queue confirmation runs with tuner.confirm().';
	END IF;
	RETURN NEW;
END;
$$;

CREATE TRIGGER trial_confirms_guard
	BEFORE INSERT OR UPDATE OF confirms, confirm_pair, source ON tuner.trial
	FOR EACH ROW EXECUTE FUNCTION tuner._trial_confirms_guard();

-- Queue confirmation runs of a trial's configuration (default: the one
-- tuner.recommend picks): pairs of them, each paired with the baseline
-- (see above; paired NULL: as the study's runner setting "paired" says).
-- Returns how many trials it queued; tuner.run(study, that number), step
-- or agents run them, and tuner.confirmation reports the result.
CREATE FUNCTION tuner.confirm(study text, trial bigint DEFAULT NULL,
							  pairs int DEFAULT 5, paired bool DEFAULT NULL)
RETURNS int
LANGUAGE plpgsql
AS $$
DECLARE
	s tuner.study;
	t tuner.trial;
	sp record;
	c record;
	v_paired bool;
	v_baseline jsonb;
	v_number int;
	v_target bigint := $2;
	v_first_pair int;
	v_earlier_plain bool;
	n int := 0;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(pairs, 'pairs');
	IF pairs < 2 OR pairs > 100 THEN
		RAISE EXCEPTION 'pairs must be between 2 and 100'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pairs),
				  HINT = 'An interval needs at least 2 pairs; 3 to 10 are usual.';
	END IF;
	IF tuner._is_multiobjective(s.id) THEN
		RAISE EXCEPTION 'study "%" has several objectives, which a confirmation cannot compare', s.name
			USING ERRCODE = 'feature_not_supported',
				  HINT = 'Confirm a study with one objective.';
	END IF;
	-- the same lock as suggest_next and enqueue: trial numbers are max + 1
	PERFORM 1 FROM tuner.study x WHERE x.id = s.id FOR NO KEY UPDATE;
	IF v_target IS NULL THEN
		SELECT r.trial INTO v_target FROM tuner.recommend(s.name) r;
		IF v_target IS NULL THEN
			RAISE EXCEPTION 'study "%" has no complete trial to confirm', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  HINT = 'Report trials first, or pass the trial to confirm.';
		END IF;
	END IF;
	SELECT * INTO t FROM tuner.trial x WHERE x.id = v_target;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial(v_target);
	END IF;
	IF t.study_id <> s.id THEN
		RAISE EXCEPTION 'trial % is not a trial of study "%"', v_target, s.name
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'tuner.trial_id(study, number) gives the id of a trial number.';
	END IF;
	-- a confirmation run (recommend may pick one) stands for the trial it
	-- confirms; a baseline run measures the baseline, nothing to confirm
	IF t.source = 'confirm' THEN
		SELECT * INTO t FROM tuner.trial x WHERE x.id = t.confirms;
	ELSIF t.source = 'baseline' THEN
		RAISE EXCEPTION 'trial % is a baseline run of a confirmation', t.id
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Confirm the study''s default trial to compare the baseline with itself.';
	END IF;
	IF t.state <> 'complete' THEN
		RAISE EXCEPTION 'trial % is %, not complete', t.id, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Confirm a trial that ran to the end.';
	END IF;
	-- the configuration as the study's space has it now (select_top or
	-- add_parameter may have changed the space since)
	c := tuner._complete_config(s.id, t.config);
	IF c.problem IS NOT NULL OR pg_catalog.cardinality(c.dropped) > 0 THEN
		RAISE EXCEPTION 'the configuration of trial % no longer fits study "%"', t.id, s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  DETAIL = COALESCE(c.problem[2],
									pg_catalog.format('Parameter "%s" is no longer in the study.', c.dropped[1]));
	END IF;
	v_paired := COALESCE(paired, (s.settings #>> '{runner,paired}')::bool, false);
	IF NOT v_paired THEN
		-- the baseline: the study's default configuration, as measured by
		-- its default trial, or as its parameters' defaults give it
		SELECT x.config INTO v_baseline FROM tuner.trial x
		 WHERE x.study_id = s.id AND x.source = 'default' ORDER BY x.number LIMIT 1;
		IF v_baseline IS NULL THEN
			sp := tuner._space(s.id);
			IF sp.all_defaults THEN
				v_baseline := sp.default_config;
			END IF;
		END IF;
		IF v_baseline IS NULL THEN
			RAISE EXCEPTION 'study "%" has no baseline configuration to confirm against', s.name
				USING ERRCODE = 'object_not_in_prerequisite_state',
					  DETAIL = 'Not every parameter has a default, and no trial measured the default configuration.',
					  HINT = 'Give every parameter a default (tuner.add_parameter''s default_value), or pass paired => true when each trial''s objective is already a ratio to a baseline.';
		END IF;
		v_baseline := (tuner._complete_config(s.id, v_baseline)).config;
	END IF;
	-- confirming again adds pairs to the earlier ones, of the same kind
	SELECT COALESCE(pg_catalog.max(x.confirm_pair), 0),
		   pg_catalog.bool_or(x.source = 'baseline')
	  INTO v_first_pair, v_earlier_plain
	  FROM tuner.trial x WHERE x.study_id = s.id AND x.confirms = t.id;
	IF v_earlier_plain IS NOT NULL AND v_earlier_plain = v_paired THEN
		RAISE EXCEPTION 'trial % was confirmed % before', t.id,
			  CASE WHEN v_earlier_plain THEN 'against baseline runs' ELSE 'paired' END
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = pg_catalog.format('Pass paired => %s to add pairs of the same kind.',
										 CASE WHEN v_earlier_plain THEN 'false' ELSE 'true' END);
	END IF;
	SELECT COALESCE(pg_catalog.max(x.number), 0) INTO v_number
	  FROM tuner.trial x WHERE x.study_id = s.id;
	FOR i IN v_first_pair + 1 .. v_first_pair + pairs
	LOOP
		-- ABBA: odd pairs run the baseline first, even pairs second
		IF NOT v_paired AND i % 2 = 1 THEN
			v_number := v_number + 1;
			INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
			VALUES (s.id, v_number, v_baseline, 'queued', 'baseline', t.id, i);
		END IF;
		v_number := v_number + 1;
		INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
		VALUES (s.id, v_number, c.config, 'queued', 'confirm', t.id, i);
		IF NOT v_paired AND i % 2 = 0 THEN
			v_number := v_number + 1;
			INSERT INTO tuner.trial (study_id, number, config, state, source, confirms, confirm_pair)
			VALUES (s.id, v_number, v_baseline, 'queued', 'baseline', t.id, i);
		END IF;
		n := n + CASE WHEN v_paired THEN 1 ELSE 2 END;
	END LOOP;
	RETURN n;
END;
$$;

-- Per confirmed trial: its complete pairs, their geometric mean ratio
-- (configuration / baseline) with the 95 % t interval on the log ratios,
-- the p-value against no change, the change in percent with its interval,
-- and the verdict in the study's direction: 'improvement' or
-- 'regression' when the interval excludes no change, 'no change shown'
-- when it does not, 'too few pairs' below 2.  Runs still queued or
-- running count as pending, failed and interrupted ones as lost (a retry
-- of an interrupted run takes its place); disturbed counts the pairs with
-- a run during which the machine was busy (measurement_context.sql).  A ratio needs positive values:
-- a pair with a value <= 0 is counted as unusable.
CREATE FUNCTION tuner.confirmation(study text)
RETURNS TABLE (trial bigint, number int, pairs int, ratio float8,
			   ratio_low float8, ratio_high float8, p_value float8,
			   change_pct float8, change_low_pct float8,
			   change_high_pct float8, verdict text, pending int, lost int,
			   unusable int, disturbed int)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
	s tuner.study;
	v record;
	mi record;
	v_logs float8[];
BEGIN
	s := tuner._find_study($1);
	FOR v IN
		SELECT t.id, t.number FROM tuner.trial t
		 WHERE t.id IN (SELECT x.confirms FROM tuner.trial x WHERE x.study_id = s.id)
		 ORDER BY t.number
	LOOP
		trial := v.id;
		number := v.number;
		WITH runs AS (
			SELECT x.source, x.state, x.confirm_pair AS pair, o.value
			  FROM tuner.trial x
			  LEFT JOIN tuner._trial_outcomes(s.id) o ON o.trial = x.id
			 WHERE x.study_id = s.id AND x.confirms = v.id
		), per_pair AS (
			SELECT r.pair,
				   pg_catalog.max(r.value) FILTER (WHERE r.source = 'confirm' AND r.state = 'complete') AS a,
				   pg_catalog.max(r.value) FILTER (WHERE r.source = 'baseline' AND r.state = 'complete') AS b,
				   pg_catalog.bool_or(r.source = 'baseline') AS plain
			  FROM runs r GROUP BY r.pair
		)
		SELECT pg_catalog.array_agg(pg_catalog.ln(CASE WHEN p.plain THEN p.a / p.b ELSE p.a END) ORDER BY p.pair)
				   FILTER (WHERE p.a > 0 AND (NOT p.plain OR p.b > 0)),
			   pg_catalog.count(*) FILTER (WHERE p.a IS NOT NULL AND (NOT p.plain OR p.b IS NOT NULL)
											AND NOT (p.a > 0 AND (NOT p.plain OR p.b > 0)))::int
		  INTO v_logs, unusable
		  FROM per_pair p;
		SELECT pg_catalog.count(*) FILTER (WHERE x.state IN ('queued', 'running'))::int,
			   pg_catalog.count(*) FILTER (WHERE x.state IN ('failed', 'interrupted'))::int,
			   pg_catalog.count(DISTINCT x.confirm_pair) FILTER (WHERE x.state = 'complete' AND x.disturbed)::int
		  INTO pending, lost, disturbed
		  FROM tuner.trial x WHERE x.study_id = s.id AND x.confirms = v.id;
		pairs := COALESCE(pg_catalog.cardinality(v_logs), 0);
		ratio := NULL; ratio_low := NULL; ratio_high := NULL; p_value := NULL;
		change_pct := NULL; change_low_pct := NULL; change_high_pct := NULL;
		IF pairs = 1 THEN
			ratio := pg_catalog.exp(v_logs[1]);
			change_pct := 100 * (ratio - 1);
		ELSIF pairs >= 2 THEN
			mi := tuner._mean_interval(v_logs, 0.95);
			ratio := pg_catalog.exp(mi.mean);
			ratio_low := pg_catalog.exp(mi.low);
			ratio_high := pg_catalog.exp(mi.high);
			p_value := mi.p_value;
			change_pct := 100 * (ratio - 1);
			change_low_pct := 100 * (ratio_low - 1);
			change_high_pct := 100 * (ratio_high - 1);
		END IF;
		verdict := CASE
			WHEN pairs < 2 THEN 'too few pairs'
			WHEN ratio_low <= 1 AND ratio_high >= 1 THEN 'no change shown'
			WHEN (ratio > 1) = (s.direction = 'maximize') THEN 'improvement'
			ELSE 'regression' END;
		RETURN NEXT;
	END LOOP;
END;
$$;

-- A retry of an interrupted confirmation run stays in its pair.
CREATE OR REPLACE FUNCTION tuner._queue_retries(trials bigint[])
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
			INSERT INTO tuner.trial (study_id, number, config, state, source, seed, retry_of,
									 confirms, confirm_pair)
			VALUES (v_old.study_id, v_number, v_old.config, 'queued', v_old.source,
					v_old.seed, v_old.id, v_old.confirms, v_old.confirm_pair);
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END;
$$;
-- end confirm.sql
-- begin measurement_context.sql
-------------------------------------------------------------------------------
-- How busy the machine was while each trial ran (issue 29).
--
-- On a busy machine one trial's measurement can be off by a third, and
-- nothing in a trial said so.  Whoever runs a runner (a background worker,
-- tuner.step, tuner-agent) now measures, over the run, the CPU time of the
-- runner's processes and of everything else on the machine, the CPU
-- stolen by a hypervisor, the busiest disk's busy time and the load
-- average (src/exec/measure_context.c), and records them in the trial's
-- details as "context".  A trial during which other processes used more
-- than the study setting max_disturbance of the machine's CPU (default
-- 0.25) is marked disturbed; with the setting retry_disturbed it is run
-- again (as an interrupted trial is, within max_retries).
-------------------------------------------------------------------------------

ALTER TABLE tuner.trial ADD COLUMN disturbed bool;
COMMENT ON COLUMN tuner.trial.disturbed IS
	'Other processes used more than the study''s max_disturbance of the machine''s CPU while it ran (NULL: not measured)';

-- The keys of a context and the range of each number.
CREATE FUNCTION tuner._check_context(context jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v jsonb;
	x float8;
	v_max float8;
BEGIN
	IF pg_catalog.jsonb_typeof(context) IS DISTINCT FROM 'object' THEN
		RAISE EXCEPTION 'a trial''s context must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', COALESCE(context::text, 'NULL'));
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(context) e
	LOOP
		IF k = 'io_device' THEN
			IF pg_catalog.jsonb_typeof(v) <> 'string' OR pg_catalog.length(v #>> '{}') > 31 THEN
				RAISE EXCEPTION 'context key io_device must be a device name'
					USING ERRCODE = 'invalid_parameter_value',
						  DETAIL = pg_catalog.format('Got %s.', v);
			END IF;
			CONTINUE;
		END IF;
		v_max := CASE k WHEN 'elapsed_s' THEN 1e9 WHEN 'runner_cpu_s' THEN 1e12
					   WHEN 'cpus' THEN 1e6 WHEN 'load1' THEN 1e6
					   WHEN 'others_cpu_share' THEN 1 WHEN 'steal_share' THEN 1
					   WHEN 'io_busy_share' THEN 1 END;
		IF v_max IS NULL THEN
			RAISE EXCEPTION 'unknown context key "%"', k
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Known: elapsed_s, runner_cpu_s, cpus, others_cpu_share, steal_share, io_busy_share, io_device, load1.';
		END IF;
		IF pg_catalog.jsonb_typeof(v) <> 'number' THEN
			RAISE EXCEPTION 'context key % must be a number', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
		x := (v #>> '{}')::float8;
		IF x < 0 OR x > v_max THEN
			RAISE EXCEPTION 'context key % must be between 0 and %', k, v_max
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
	END LOOP;
END;
$$;

-- Record the context of a finished trial (as the worker, step and
-- tuner-agent do right after its outcome): into its details, its
-- disturbed flag, and a retry when the study asks for one.  Returns
-- whether the trial was disturbed (NULL: other processes' CPU unknown).
CREATE FUNCTION tuner._record_context(trial bigint, context jsonb)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_disturbed bool;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._check_context(context);
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1 FOR NO KEY UPDATE;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial($1);
	END IF;
	IF t.state IN ('queued', 'running') THEN
		RAISE EXCEPTION 'trial % is %: its context is recorded when it has finished', t.id, t.state
			USING ERRCODE = 'object_not_in_prerequisite_state';
	END IF;
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	v_disturbed := (context ->> 'others_cpu_share')::float8
				   > COALESCE((s.settings ->> 'max_disturbance')::float8, 0.25);
	UPDATE tuner.trial x
	   SET details = COALESCE(x.details, '{}') || pg_catalog.jsonb_build_object('context', context),
		   disturbed = v_disturbed
	 WHERE x.id = t.id;
	IF v_disturbed AND t.state = 'complete'
	   AND COALESCE((s.settings ->> 'retry_disturbed')::bool, false) THEN
		PERFORM tuner._queue_retries(ARRAY[t.id]);
	END IF;
	RETURN v_disturbed;
END;
$$;

-- tuner-agent's outcome with the context it measured (the 9-argument
-- form stays for agents that measure none).
CREATE FUNCTION tuner.agent_finish(trial bigint, worker text, exit_code int,
								   exit_text text, stdout text,
								   stderr_tail text, elapsed_s float8,
								   forced_state text, forced_reason text,
								   context jsonb)
RETURNS jsonb
LANGUAGE plpgsql
AS $$
DECLARE
	v_result jsonb;
BEGIN
	IF context IS NOT NULL THEN
		PERFORM tuner._check_context(context);
	END IF;
	v_result := tuner.agent_finish($1, $2, $3, $4, $5, $6, $7, $8, $9);
	IF context IS NOT NULL AND (v_result ->> 'recorded')::bool THEN
		PERFORM tuner._record_context($1, context);
	END IF;
	RETURN v_result;
END;
$$;

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
	   t.disturbed
  FROM tuner.trial t
  JOIN tuner.study s ON s.id = t.study_id
  LEFT JOIN LATERAL (
	SELECT pg_catalog.jsonb_object_agg(m.name, ob.value) AS metrics,
		   pg_catalog.max(ob.value) FILTER (WHERE m.name = s.objective) AS value
	  FROM tuner.observation ob
	  JOIN tuner.metric m ON m.id = ob.metric_id
	 WHERE ob.trial_id = t.id
  ) o ON true;
-- end measurement_context.sql
-- begin pruning.sql
-------------------------------------------------------------------------------
-- Intermediate results and early stopping (issue 30, the ask/tell part).
--
-- A long trial that is clearly worse than the others early on need not
-- run to its end.  A client reports intermediate results of a running
-- trial (tuner.report_progress: a monotone step and metrics), asks
-- tuner.should_stop whether the study's pruning rule would stop it, and
-- stops it with tuner.prune, as Optuna's report / should_prune /
-- TrialPruned.  The rules (study setting "pruning", off by default) are
-- src/core/pruning.c:
--   {"rule": "median", "warmup_steps": w, "min_trials": k}
--     stop a trial whose best value so far, at its latest step past w, is
--     worse than the median of the complete trials' values at that step
--     (each one's last value at or before it), once k of them have one;
--   {"rule": "halving", "min_step": r, "reduction": eta, "min_trials": k}
--     successive halving as ASHA does it: at each rung r * eta^i a trial
--     continues only among the best 1/eta of the trials that reached the
--     rung (each one's first value at or past it), once k trials have.
-- A pruned trial (state 'pruned') keeps its intermediate results; its
-- last value of the objective becomes its observation, so the model
-- learns from it (for a value that only improves with more steps, a
-- pessimistic one) and does not propose it again, but no "best" counts
-- it: tuner.best and tuner.recommend read complete trials only.
-------------------------------------------------------------------------------

ALTER TABLE tuner.trial DROP CONSTRAINT trial_state_check;
ALTER TABLE tuner.trial ADD CONSTRAINT trial_state_check
	CHECK (state IN ('queued', 'running', 'complete', 'failed', 'interrupted', 'pruned'));

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

-- Read with the trial's study, written (through report_progress only,
-- bookkeeping_writes.sql) by its writers.
ALTER TABLE tuner.trial_progress ENABLE ROW LEVEL SECURITY;
GRANT SELECT ON tuner.trial_progress TO tuner_user, tuner_reader;
GRANT INSERT ON tuner.trial_progress TO tuner_user;
CREATE POLICY trial_progress_read ON tuner.trial_progress FOR SELECT
	USING (trial_id IN (SELECT x.id FROM tuner.trial x));
CREATE POLICY trial_progress_insert ON tuner.trial_progress FOR INSERT
	WITH CHECK (trial_id IN (SELECT x.id FROM tuner.trial x WHERE x.study_id IN (
		SELECT s.id FROM tuner.study s
		 WHERE tuner._has_role(s.owner)
			OR EXISTS (SELECT 1 FROM tuner.study_grant g WHERE g.study_id = s.id
						  AND g.privilege = 'write' AND tuner._has_role(g.grantee)))));

-- The most steps one trial may report (a flood fails nothing else).
CREATE FUNCTION tuner._max_progress_steps()
RETURNS int
LANGUAGE sql IMMUTABLE
AS 'SELECT 10000';

-- Check a study's "pruning" setting; NULL passes.
CREATE FUNCTION tuner._check_pruning(pruning jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v_rule text;
BEGIN
	IF pruning IS NULL THEN
		RETURN;
	END IF;
	IF pg_catalog.jsonb_typeof(pruning) <> 'object' THEN
		RAISE EXCEPTION 'setting pruning must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning),
				  HINT = 'For example {"rule": "median", "warmup_steps": 10, "min_trials": 5}.';
	END IF;
	v_rule := pruning ->> 'rule';
	IF v_rule IS NULL OR v_rule NOT IN ('median', 'halving') THEN
		RAISE EXCEPTION 'setting pruning needs a rule: median or halving'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', COALESCE(pruning -> 'rule', 'null'::jsonb));
	END IF;
	FOR k IN SELECT pg_catalog.jsonb_object_keys(pruning)
	LOOP
		IF k NOT IN ('rule', 'min_trials', 'warmup_steps', 'min_step', 'reduction')
		   OR (v_rule = 'median' AND k IN ('min_step', 'reduction'))
		   OR (v_rule = 'halving' AND k = 'warmup_steps') THEN
			RAISE EXCEPTION 'unknown key "%" in setting pruning for rule %', k, v_rule
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = CASE v_rule WHEN 'median' THEN 'The median rule takes warmup_steps and min_trials.'
							 ELSE 'Successive halving takes min_step, reduction and min_trials.' END;
		END IF;
	END LOOP;
	IF pruning ? 'min_trials' THEN
		PERFORM tuner._json_int(pruning -> 'min_trials', 'pruning min_trials', 1, 100000);
	END IF;
	IF pruning ? 'warmup_steps' AND (pg_catalog.jsonb_typeof(pruning -> 'warmup_steps') <> 'number'
									 OR (pruning ->> 'warmup_steps')::float8 < 0) THEN
		RAISE EXCEPTION 'pruning warmup_steps must be a number, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'warmup_steps');
	END IF;
	IF pruning ? 'min_step' AND (pg_catalog.jsonb_typeof(pruning -> 'min_step') <> 'number'
								 OR (pruning ->> 'min_step')::float8 <= 0) THEN
		RAISE EXCEPTION 'pruning min_step must be a number above 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'min_step');
	END IF;
	IF pruning ? 'reduction' AND (pg_catalog.jsonb_typeof(pruning -> 'reduction') <> 'number'
								  OR (pruning ->> 'reduction')::float8 <= 1
								  OR (pruning ->> 'reduction')::float8 > 100) THEN
		RAISE EXCEPTION 'pruning reduction must be a number above 1 and at most 100'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', pruning -> 'reduction');
	END IF;
END;
$$;

-- The pruning rules (src/core/pruning.c).
CREATE FUNCTION tuner._prune_decision(rule text, others float8[], value float8,
									  maximize bool, min_trials int,
									  reduction float8)
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_prune_decision'
LANGUAGE C IMMUTABLE;

-- Record an intermediate result of a running trial: a step greater than
-- its last one (seconds, operations, a phase index) and its metrics (an
-- object of finite numbers; null for a metric without a value this
-- time).  Readers of the study see it in tuner.trial_progress, and
-- listeners on tuner_trials get {"trial", "step"}.
CREATE FUNCTION tuner.report_progress(trial bigint, step float8, metrics jsonb)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	v_last float8;
	v_count int;
	k text;
	v jsonb;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	PERFORM tuner._not_null(step, 'step');
	PERFORM tuner._not_null(metrics, 'metrics');
	IF step = 'NaN' OR step < 0 OR step = 'Infinity' THEN
		RAISE EXCEPTION 'step must be a finite number, at least 0'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', step);
	END IF;
	IF pg_catalog.jsonb_typeof(metrics) <> 'object' THEN
		RAISE EXCEPTION 'metrics must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(metrics)),
				  HINT = 'Pass {"metric": value, ...}.';
	END IF;
	FOR k, v IN SELECT e.key, e.value FROM pg_catalog.jsonb_each(metrics) e
	LOOP
		IF pg_catalog.jsonb_typeof(v) NOT IN ('number', 'null') THEN
			RAISE EXCEPTION 'metric "%" must be a number or null', k
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', v);
		END IF;
	END LOOP;
	t := tuner._open_trial($1);
	SELECT pg_catalog.max(p.step), pg_catalog.count(*) INTO v_last, v_count
	  FROM tuner.trial_progress p WHERE p.trial_id = t.id;
	IF v_last IS NOT NULL AND step <= v_last THEN
		RAISE EXCEPTION 'step % of trial % is not after its last step %', step, t.id, v_last
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Steps only increase: seconds, operations or a phase index.';
	END IF;
	IF v_count >= tuner._max_progress_steps() THEN
		RAISE EXCEPTION 'trial % has reported % steps, the most a trial may', t.id, v_count
			USING ERRCODE = 'program_limit_exceeded',
				  HINT = 'Report progress less often.';
	END IF;
	PERFORM tuner._progress_insert(t.id, step, metrics);
	PERFORM pg_catalog.pg_notify('tuner_trials',
		pg_catalog.jsonb_build_object('trial', t.id, 'step', step)::text);
END;
$$;

-- Would the study's pruning rule stop this running trial now?  false
-- without a rule, before its warm-up, or without enough finished trials
-- to compare with; see the header for the rules.
CREATE FUNCTION tuner.should_stop(trial bigint)
RETURNS bool
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_rule jsonb;
	v_step float8;
	v_value float8;
	v_rung float8;
	v_others float8[];
	v_max bool;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	SELECT * INTO t FROM tuner.trial x WHERE x.id = $1;
	IF NOT FOUND THEN
		PERFORM tuner._no_such_trial($1);
	END IF;
	IF t.state <> 'running' THEN
		RETURN t.state = 'pruned';
	END IF;
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	v_rule := s.settings -> 'pruning';
	IF v_rule IS NULL THEN
		RETURN false;
	END IF;
	v_max := s.direction = 'maximize';
	SELECT pg_catalog.max(p.step) INTO v_step
	  FROM tuner.trial_progress p
	 WHERE p.trial_id = t.id AND p.metrics ? s.objective
	   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number';
	IF v_step IS NULL THEN
		RETURN false;
	END IF;
	IF v_rule ->> 'rule' = 'median' THEN
		IF v_step < COALESCE((v_rule ->> 'warmup_steps')::float8, 0) THEN
			RETURN false;
		END IF;
		-- the trial's best so far; the complete trials' last value at or
		-- before its step, of those that got that far
		SELECT CASE WHEN v_max THEN pg_catalog.max(x.v) ELSE pg_catalog.min(x.v) END INTO v_value
		  FROM (SELECT (p.metrics ->> s.objective)::float8 AS v
				  FROM tuner.trial_progress p
				 WHERE p.trial_id = t.id AND p.step <= v_step
				   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number') x;
		SELECT pg_catalog.array_agg(o.v) INTO v_others
		  FROM tuner.trial c
		  CROSS JOIN LATERAL (
			SELECT (p.metrics ->> s.objective)::float8 AS v
			  FROM tuner.trial_progress p
			 WHERE p.trial_id = c.id AND p.step <= v_step
			   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
			 ORDER BY p.step DESC LIMIT 1) o
		 WHERE c.study_id = s.id AND c.state = 'complete' AND c.id <> t.id
		   AND EXISTS (SELECT 1 FROM tuner.trial_progress q
						WHERE q.trial_id = c.id AND q.step >= v_step);
	ELSE
		v_rung := tuner._prune_rung(v_step, COALESCE((v_rule ->> 'min_step')::float8, 1),
									COALESCE((v_rule ->> 'reduction')::float8, 3));
		IF v_rung < 0 THEN
			RETURN false;
		END IF;
		-- each trial's first value at or past the rung
		SELECT (p.metrics ->> s.objective)::float8 INTO v_value
		  FROM tuner.trial_progress p
		 WHERE p.trial_id = t.id AND p.step >= v_rung
		   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
		 ORDER BY p.step LIMIT 1;
		SELECT pg_catalog.array_agg(o.v) INTO v_others
		  FROM tuner.trial c
		  CROSS JOIN LATERAL (
			SELECT (p.metrics ->> s.objective)::float8 AS v
			  FROM tuner.trial_progress p
			 WHERE p.trial_id = c.id AND p.step >= v_rung
			   AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
			 ORDER BY p.step LIMIT 1) o
		 WHERE c.study_id = s.id AND c.state IN ('running', 'complete', 'pruned')
		   AND c.id <> t.id;
	END IF;
	RETURN tuner._prune_decision(v_rule ->> 'rule', COALESCE(v_others, '{}'), v_value, v_max,
								 COALESCE((v_rule ->> 'min_trials')::int, 5),
								 (v_rule ->> 'reduction')::float8);
END;
$$;

-- The rung of a step (src/core/pruning.c), -1 below the first.
CREATE FUNCTION tuner._prune_rung(step float8, min_step float8, reduction float8)
RETURNS float8
AS 'MODULE_PATHNAME', 'tuner_prune_rung_sql'
LANGUAGE C IMMUTABLE STRICT;

-- Stop a running trial early: state 'pruned', the reason as its error,
-- and its last reported value of the objective as its observation (so the
-- model learns from it); without one, nothing is observed.
CREATE FUNCTION tuner.prune(trial bigint, reason text DEFAULT NULL)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	t tuner.trial;
	s tuner.study;
	v_last jsonb;
BEGIN
	PERFORM tuner._not_null($1, 'trial');
	t := tuner._open_trial($1);
	SELECT * INTO s FROM tuner.study x WHERE x.id = t.study_id;
	SELECT p.metrics INTO v_last
	  FROM tuner.trial_progress p
	 WHERE p.trial_id = t.id AND pg_catalog.jsonb_typeof(p.metrics -> s.objective) = 'number'
	 ORDER BY p.step DESC LIMIT 1;
	-- (observations are accepted while the trial runs)
	IF v_last IS NOT NULL THEN
		INSERT INTO tuner.observation (trial_id, metric_id, value)
		SELECT t.id, m.id, (v_last ->> m.name)::float8
		  FROM tuner.metric m
		 WHERE m.study_id = s.id AND pg_catalog.jsonb_typeof(v_last -> m.name) = 'number';
	END IF;
	UPDATE tuner.trial x
	   SET state = 'pruned', finished_at = pg_catalog.now(),
		   error = COALESCE(reason, 'pruned'), lease_expires_at = NULL
	 WHERE x.id = t.id;
END;
$$;

-- Trigger: a trial keeps its identity; a finished one (complete, failed,
-- interrupted, pruned) never changes; a running one keeps its
-- configuration and never goes back to queued.
CREATE OR REPLACE FUNCTION tuner._trial_guard()
RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
	IF NEW.id <> OLD.id OR NEW.study_id <> OLD.study_id OR NEW.number <> OLD.number THEN
		RAISE EXCEPTION 'the identity of trial % cannot change', OLD.id
			USING ERRCODE = 'integrity_constraint_violation',
				  HINT = 'A trial keeps its id, study and number.';
	END IF;
	IF OLD.state IN ('complete', 'failed', 'interrupted', 'pruned') THEN
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
				  HINT = 'A running trial ends as complete, failed, interrupted or pruned.';
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
-- end pruning.sql
-- begin bookkeeping_writes.sql
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
CREATE FUNCTION tuner._in_bookkeeping_write()
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_in_bookkeeping_write'
LANGUAGE C STABLE;

-- The fixed statements; each returns the new row's id (the study's, for a
-- view or a grant) or how many rows it changed.
CREATE FUNCTION tuner._job_insert(study_id bigint, trials int, parallel int)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._job_set_launched(job bigint, launched int)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._job_request_stop(study_id bigint)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._job_count_claim(job bigint)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._job_count_worker_done(job bigint, error text)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._job_mark_interrupted()
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._view_insert(study_id bigint, view_schema name, view_name name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._view_forget(view_schema name, view_name name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._grant_insert(study_id bigint, grantee name, privilege text)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._grant_forget(study_id bigint, grantee name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._model_insert(models tuner.model[])
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._suggestion_insert(suggestion tuner.suggestion)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._progress_insert(trial bigint, step float8, metrics jsonb)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._preset_insert(name text, definition jsonb)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;
CREATE FUNCTION tuner._preset_delete(name text, owner name)
RETURNS bigint AS 'MODULE_PATHNAME', 'tuner_bookkeeping_write' LANGUAGE C;

-- Trigger: refuse a write that is not one of the statements above.  A
-- superuser may (restoring a dump, repairing rows; and the cascades that
-- delete a study's rows with it run as the tables' owner).
CREATE FUNCTION tuner._bookkeeping_guard()
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
CREATE FUNCTION tuner._trial_made_here(trial bigint)
RETURNS bool
AS 'MODULE_PATHNAME', 'tuner_trial_made_here'
LANGUAGE C STABLE;

-- Trigger: a suggestion's record and its models are written by the
-- suggestion that made the trial, in its transaction, for the trial's
-- own study; so no later call can add a model or rewrite the record of
-- what a suggestion saw (a warm start reads the latest model).
CREATE FUNCTION tuner._suggestion_record_guard()
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
-- end bookkeeping_writes.sql
-- begin privileges.sql
-------------------------------------------------------------------------------
-- tuner_user keeps only the table privileges tuner's own functions use.
--
-- tuner's functions run as their caller, so tuner_user holds the table
-- privileges they need, and row-level security narrows them to the
-- studies a role may write.  It held more than that: UPDATE and DELETE on
-- tables that no function ever changes, so a write grantee could delete
-- another's trials, rewrite the record of what a suggestion saw, or
-- remove the event log.  Those go: what remains is what the API itself
-- writes, each guarded by its trigger.  Rows still go with their study,
-- trial or parameter: foreign-key cascades run as the tables' owner.
-------------------------------------------------------------------------------

-- Written once, never changed or removed by a function: the record of
-- what happened.
REVOKE UPDATE, DELETE ON tuner.observation, tuner.model, tuner.suggestion,
	tuner.study_event, tuner.bound_change, tuner.parameter_source
	FROM tuner_user;
-- Changed, never removed, by a function: trials, jobs, parameters,
-- metrics, catalog imports.
REVOKE DELETE ON tuner.trial, tuner.job, tuner.parameter, tuner.metric,
	tuner.catalog_import, tuner.parameter_constraint
	FROM tuner_user;
-- Made and forgotten, never changed: a study's views; a runner is
-- registered and dropped, never changed in place.
REVOKE UPDATE ON tuner.study_view, tuner.runner FROM tuner_user;
-- end privileges.sql

-- Last: it pins the search_path and extra_float_digits of every function
-- made above.
-- begin function_settings.sql
-------------------------------------------------------------------------------
-- Every function runs with fixed settings: search_path and
-- extra_float_digits.  Runs last in the update, so it covers every
-- function the update made; a function added later is created with the
-- clauses (sql/trust_boundary.sql and sql/replay_sessions.sql check that
-- none lacks them).  The two functions whose SQL-standard bodies were
-- parsed once at creation, which the row-level security policies inline,
-- are left alone: they look nothing up and make no text of numbers.
--
-- search_path = pg_catalog, tuner, pg_temp.  tuner's functions and
-- triggers run as their caller, and an unqualified operator or function
-- in their bodies was looked up in the caller's search_path: with "=" and
-- "<>" for text in an own schema ahead of pg_catalog, a write grantee
-- made the integrity triggers pass a rewrite of a finished trial.
-- pg_temp comes last, so a caller's temporary objects never stand in for
-- tuner's.
--
-- extra_float_digits = 1.  A float8 becomes text (and so JSON) through
-- float8out, which follows the session's extra_float_digits: 1 (the
-- default) gives the shortest exact digits, 3 gives 17 digits, 0 or less
-- rounds to 15 digits or fewer.  A suggestion's configuration, stored as
-- JSON, therefore depended on the client that asked for it (drivers set 0
-- or 3), and so did the md5 of the history a suggestion records: a replay
-- from a session with another setting reported "the study changed", or
-- gave the same numbers with other digits.  Now what tuner stores and
-- compares is the shortest exact form.
-------------------------------------------------------------------------------

DO $$
DECLARE
	f regprocedure;
	s record;
BEGIN
	FOR s IN VALUES ('search_path', 'pg_catalog, tuner, pg_temp'),
					('extra_float_digits', '1')
	LOOP
		FOR f IN
			SELECT p.oid::regprocedure
			  FROM pg_catalog.pg_proc p
			  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass
				AND d.objid = p.oid AND d.deptype = 'e'
				AND d.refclassid = 'pg_catalog.pg_extension'::regclass
			  JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'tuner'
			 WHERE p.prosqlbody IS NULL
			   AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) c
								WHERE c = s.column1 || '=' || s.column2)
			 ORDER BY p.oid
		LOOP
			EXECUTE pg_catalog.format('ALTER FUNCTION %s SET %I = %s', f, s.column1, s.column2);
		END LOOP;
	END LOOP;
END
$$;
-- end function_settings.sql
