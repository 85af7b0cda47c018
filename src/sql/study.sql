/*
 * study.sql
 *	  Studies: creating, configuring and dropping one, its settings and their
 *	  checks, and transfer of trials from another study.
 */

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
	-- Where trials run: executor and slurm (slurm.sql).
	PERFORM tuner._check_executor_settings(settings);
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

-- Raise the error for a NULL argument.
CREATE OR REPLACE FUNCTION tuner._not_null(value anyelement, what text)
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
CREATE OR REPLACE FUNCTION tuner._check_transfer_from(value jsonb, study text)
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
CREATE OR REPLACE FUNCTION tuner._json_joint_weight(value jsonb, what text)
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
CREATE OR REPLACE FUNCTION tuner._find_study(study text)
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
CREATE OR REPLACE FUNCTION tuner._json_int(value jsonb, what text, lo numeric, hi numeric)
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

-- Drop a study with its parameters, trials, observations and models.
CREATE OR REPLACE FUNCTION tuner.drop_study(study text)
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

-- Refuse a transfer source the study's owner may not read (study: the
-- target's name and owner; source: the source's id and name).
CREATE OR REPLACE FUNCTION tuner._check_transfer_source(study text, owner name, source bigint, source_name text)
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

-- Choose how a study's next trials are suggested: 'gp-ei' (a GP of the
-- objective), 'icm' (a multi-task GP of the objective and its auxiliary
-- metrics), 'clustered-icm' or 'random'.  Options: for icm and
-- clustered-icm, {"rank": k}, the rank of the learned task covariance
-- (setting icm_rank); for icm, {"joint": w}, the weight of the auxiliary
-- metrics with a direction in the target the acquisition optimises
-- (setting icm_joint; 0 = the objective alone, true = 1).  Options not
-- given keep their setting.  Applies from the next tuner.suggest_next().
CREATE OR REPLACE FUNCTION tuner.set_algorithm(study text, algorithm text,
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

-- The fingerprint of the values a suggestion saw.
CREATE OR REPLACE FUNCTION tuner._history_md5(y_observed float8[], y_aux float8[])
RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
SELECT pg_catalog.md5(COALESCE($1::text, '') || '|' || COALESCE($2::text, ''));
$$;

-- Check the settings of a study that an INSERT or UPDATE adds or changes
-- (old: the settings before, NULL for a new study).  The checks and
-- errors are create_study's and set_algorithm's.
CREATE OR REPLACE FUNCTION tuner._check_changed_settings(settings jsonb, old jsonb, study text, owner name)
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
		'sapphire', 'strict_metrics', 'max_disturbance', 'retry_disturbed', 'pruning', 'executor', 'slurm'];
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
CREATE OR REPLACE FUNCTION tuner._study_settings_guard()
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
CREATE OR REPLACE FUNCTION tuner._check_seconds_setting(settings jsonb, name text,
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
