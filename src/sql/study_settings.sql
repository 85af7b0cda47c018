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
