/*
 * presets.sql
 *	  Presets are data: one generic path reads a tuner.preset row, checks it
 *	  and applies it to a new study.
 */

-- Raise an error whose detail and hint may be absent (NULL): a preset's
-- texts for its own errors are optional.
CREATE OR REPLACE FUNCTION tuner._preset_raise(sqlstate text, message text, detail text, hint text)
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
CREATE OR REPLACE FUNCTION tuner._find_preset(preset text)
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
CREATE OR REPLACE FUNCTION tuner._preset_check_runner_settings(preset text, known jsonb, runner jsonb)
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
CREATE OR REPLACE FUNCTION tuner._preset_read_catalog(spec jsonb, runner jsonb)
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
CREATE OR REPLACE FUNCTION tuner._preset_runs_programs(def jsonb)
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
CREATE OR REPLACE FUNCTION tuner._preset_prepare(preset text, def jsonb, objective text, direction text,
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
CREATE OR REPLACE FUNCTION tuner._preset_number(value jsonb, runner jsonb, what text)
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
CREATE OR REPLACE FUNCTION tuner._preset_cluster(study_id bigint, metric text, cluster jsonb, left_out text[])
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
CREATE OR REPLACE FUNCTION tuner._preset_apply(preset text, def jsonb, study_id bigint, study text,
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
CREATE OR REPLACE FUNCTION tuner._preset_keys(value jsonb, what text, known text[])
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
CREATE OR REPLACE FUNCTION tuner._preset_type(value jsonb, what text, type text, required bool DEFAULT false)
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

-- The objectives a preset offers and its default objective among them
-- (a part of tuner._preset_check_definition, which checks the whole).
CREATE OR REPLACE FUNCTION tuner._preset_check_objectives(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
	v jsonb;
BEGIN
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
END;
$$;

-- The runner a preset registers: its program's form and its settings'
-- declarations (names, types, limits; each name once).
CREATE OR REPLACE FUNCTION tuner._preset_check_runner(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	e jsonb;
	v_dup text;
BEGIN
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
END;
$$;

-- A preset's parameters: known keys and JSON types of each, each name
-- once (what they mean is add_parameter's to check, in the dry run).
CREATE OR REPLACE FUNCTION tuner._preset_check_parameters(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	e jsonb;
	v_dup text;
BEGIN
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
END;
$$;

-- A preset's constraints and metrics: JSON types, each metric name once.
CREATE OR REPLACE FUNCTION tuner._preset_check_metrics(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	e jsonb;
	v_dup text;
BEGIN
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
END;
$$;

-- Where a preset finds its catalog: a file name in an absolute default
-- directory, or one a runner setting of type path chooses, and the
-- import's options.
CREATE OR REPLACE FUNCTION tuner._preset_check_catalog(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	k text;
BEGIN
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
END;
$$;

-- The shape of a preset's definition (docs/presets.md, "Defining a
-- preset"): known keys, JSON types, names.  What the parts mean
-- (parameters' kinds, bounds and defaults, settings, constraints,
-- metrics, the algorithm) is checked by the dry run of
-- tuner._preset_guard, with the API's own checks.
CREATE OR REPLACE FUNCTION tuner._preset_check_definition(def jsonb)
RETURNS void
LANGUAGE plpgsql IMMUTABLE
AS $$
BEGIN
	PERFORM tuner._preset_keys(def, 'the definition', ARRAY['description', 'objective',
		'objectives', 'other_objectives', 'objectives_hint', 'runner', 'settings',
		'parameters', 'constraints', 'metrics', 'catalog', 'algorithm']);
	PERFORM tuner._preset_type(def -> 'description', 'description', 'string');
	PERFORM tuner._preset_type(def -> 'objective', 'objective', 'string', true);
	PERFORM tuner._preset_type(def -> 'other_objectives', 'other_objectives', 'boolean');
	PERFORM tuner._preset_type(def -> 'objectives_hint', 'objectives_hint', 'string');
	PERFORM tuner._preset_check_objectives(def);
	PERFORM tuner._preset_check_runner(def);
	PERFORM tuner._preset_type(def -> 'settings', 'settings', 'object');
	PERFORM tuner._preset_check_parameters(def);
	PERFORM tuner._preset_check_metrics(def);
	PERFORM tuner._preset_check_catalog(def);
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
CREATE OR REPLACE FUNCTION tuner._preset_check(name text, def jsonb)
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
CREATE OR REPLACE FUNCTION tuner._preset_guard()
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
CREATE OR REPLACE FUNCTION tuner.create_preset(name text, definition jsonb)
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
CREATE OR REPLACE FUNCTION tuner.drop_preset(name text, owner name DEFAULT current_user)
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
