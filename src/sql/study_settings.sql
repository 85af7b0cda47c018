-------------------------------------------------------------------------------
-- create_study checks its settings with the function the settings trigger
-- uses (tuner._check_changed_settings), not with a copy of the checks.
--
-- 0.1.0's create_study held its own list of known settings and its own
-- copy of each check; the copy and the trigger's drifted (the trigger
-- knew "sapphire", create_study did not), and a new setting had to be
-- added in both.  The body is 0.1.0's otherwise.
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
