/*
 * catalog.sql
 *	  Importing a system's option catalog (Sapphire's washing and pruning)
 *	  into a study's space.
 */

-- A number in a catalog field (a JSON number or a numeric string), NULL
-- when the field is absent, null or empty.
CREATE OR REPLACE FUNCTION tuner._catalog_number(value jsonb, option text, field text)
RETURNS numeric
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v numeric;
BEGIN
	IF value IS NULL OR pg_catalog.jsonb_typeof(value) = 'null'
	   OR value = '""'::jsonb THEN
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(value) NOT IN ('number', 'string') THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'Use a JSON number or a string holding one; "" or null means none.';
	END IF;
	BEGIN
		v := (value #>> '{}')::numeric;
	EXCEPTION WHEN invalid_text_representation THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'Use a JSON number or a string holding one; "" or null means none.';
	END;
	IF v = 'NaN'::numeric THEN
		RAISE EXCEPTION '% of option "%" is not a number', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = 'NaN is not a bound or a default.';
	END IF;
	RETURN v;
END;
$$;

-- The strings of a JSON array field of an option ('{}' when absent).
CREATE OR REPLACE FUNCTION tuner._catalog_strings(value jsonb, option text, field text)
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
	IF value IS NULL OR pg_catalog.jsonb_typeof(value) = 'null' THEN
		RETURN '{}';
	END IF;
	IF pg_catalog.jsonb_typeof(value) <> 'array'
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(value) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION '% of option "%" is not an array of strings', field, option
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', value),
				  HINT = pg_catalog.format('Write it as Ceph does, e.g. "%s": [], or leave it out.', field);
	END IF;
	RETURN ARRAY(SELECT pg_catalog.jsonb_array_elements_text(value));
END;
$$;

-- The strings of an array-valued key of import_catalog's options, checked
-- against allowed (NULL: any string); NULL when the key is absent.
CREATE OR REPLACE FUNCTION tuner._catalog_option_list(options jsonb, key text, allowed text[])
RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
DECLARE
	v jsonb := options -> key;
	bad text;
	r text[];
BEGIN
	IF v IS NULL THEN
		RETURN NULL;
	END IF;
	IF pg_catalog.jsonb_typeof(v) <> 'array'
	   OR EXISTS (SELECT 1 FROM pg_catalog.jsonb_array_elements(v) e
				   WHERE pg_catalog.jsonb_typeof(e) <> 'string') THEN
		RAISE EXCEPTION 'option "%" must be an array of strings', key
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', v),
				  HINT = pg_catalog.format('Write e.g. {"%s": ["%s"]}.', key,
										   CASE key WHEN 'services' THEN 'osd'
													WHEN 'levels' THEN 'advanced'
													WHEN 'apply' THEN 'runtime'
													ELSE '^osd_' END);
	END IF;
	r := ARRAY(SELECT pg_catalog.jsonb_array_elements_text(v));
	IF allowed IS NOT NULL THEN
		SELECT x INTO bad FROM pg_catalog.unnest(r) x
		 WHERE x <> ALL (allowed) LIMIT 1;
		IF FOUND THEN
			RAISE EXCEPTION 'invalid value "%" in option "%"', bad, key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use some of %s.', pg_catalog.array_to_string(allowed, ', '));
		END IF;
	ELSE
		-- patterns: each must be a valid regular expression
		FOREACH bad IN ARRAY r LOOP
			BEGIN
				PERFORM '' ~ bad;
			EXCEPTION WHEN invalid_regular_expression THEN
				RAISE EXCEPTION 'invalid regular expression "%" in option "%"', bad, key
					USING ERRCODE = 'invalid_regular_expression',
						  DETAIL = SQLERRM,
						  HINT = 'include and exclude take POSIX regular expressions matched against option names.';
			END;
		END LOOP;
	END IF;
	RETURN r;
END;
$$;

-- import_catalog's options, checked: the catalog system (system); the
-- module selectors given (selectors: {selector: value}) and the option
-- prefixes their values prune (prunes: [{"prefix", "detail"}]); the
-- filters services, levels, apply, include and exclude (NULL when not
-- given); and what to do with an option of invalid bounds (invalid).
CREATE OR REPLACE FUNCTION tuner._catalog_import_options(options jsonb,
	OUT system text, OUT selectors jsonb, OUT prunes jsonb,
	OUT services text[], OUT levels text[], OUT apply text[],
	OUT include text[], OUT exclude text[], OUT invalid text)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	p_options jsonb := $1;
	known_keys constant text[] := ARRAY['system', 'services', 'levels', 'apply',
										'include', 'exclude', 'invalid'];
	v_system text := 'ceph';
	v_invalid text := 'error';
	v_selectors jsonb := '{}';
	v_prunes jsonb := '[]';
	v_key text;
	v_val jsonb;
BEGIN
	IF pg_catalog.jsonb_typeof(p_options) <> 'object' THEN
		RAISE EXCEPTION 'options must be a JSON object'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got %s.', p_options),
				  HINT = 'Write e.g. {"osd_objectstore": "bluestore", "services": ["osd"]}.';
	END IF;
	IF p_options ? 'system' THEN
		IF pg_catalog.jsonb_typeof(p_options -> 'system') <> 'string' THEN
			RAISE EXCEPTION 'option "system" must be a string'
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = 'Write e.g. {"system": "ceph"}.';
		END IF;
		v_system := p_options ->> 'system';
	END IF;
	IF NOT EXISTS (SELECT 1 FROM tuner.catalog_type ct WHERE ct.system = v_system) THEN
		RAISE EXCEPTION 'unknown catalog system "%"', v_system
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Systems are defined by the rows of tuner.catalog_type; "ceph" is built in.';
	END IF;
	FOR v_key, v_val IN SELECT * FROM pg_catalog.jsonb_each(p_options) ORDER BY 1 LOOP
		CONTINUE WHEN v_key = ANY (known_keys);
		IF NOT EXISTS (SELECT 1 FROM tuner.catalog_module m
						WHERE m.system = v_system AND m.selector = v_key) THEN
			RAISE EXCEPTION 'unknown option "%"', v_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use %s, or a module selector of %s: %s.',
											   pg_catalog.array_to_string(known_keys, ', '), v_system,
											   (SELECT pg_catalog.string_agg(DISTINCT m.selector, ', ' ORDER BY m.selector)
												  FROM tuner.catalog_module m WHERE m.system = v_system));
		END IF;
		IF pg_catalog.jsonb_typeof(v_val) <> 'string'
		   OR NOT EXISTS (SELECT 1 FROM tuner.catalog_module m
						   WHERE m.system = v_system AND m.selector = v_key
							 AND m.value = v_val #>> '{}') THEN
			RAISE EXCEPTION 'unknown value % for module selector "%"', v_val, v_key
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('Use one of %s (tuner.catalog_module).',
											   (SELECT pg_catalog.string_agg(m.value, ', ' ORDER BY m.value)
												  FROM tuner.catalog_module m
												 WHERE m.system = v_system AND m.selector = v_key));
		END IF;
		v_selectors := v_selectors || pg_catalog.jsonb_build_object(v_key, v_val);
		v_prunes := v_prunes || (SELECT COALESCE(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
									 'prefix', x, 'detail', pg_catalog.format('%s = %s prunes %s*', v_key, v_val #>> '{}', x))
									 ORDER BY x), '[]')
								   FROM tuner.catalog_module m, pg_catalog.unnest(m.prunes) x
								  WHERE m.system = v_system AND m.selector = v_key
									AND m.value = v_val #>> '{}');
	END LOOP;
	system := v_system;
	selectors := v_selectors;
	prunes := v_prunes;
	services := tuner._catalog_option_list(p_options, 'services', NULL);
	levels := tuner._catalog_option_list(p_options, 'levels', ARRAY['basic', 'advanced', 'dev']);
	apply := tuner._catalog_option_list(p_options, 'apply', ARRAY['runtime', 'restart', 'create']);
	include := tuner._catalog_option_list(p_options, 'include', NULL);
	exclude := tuner._catalog_option_list(p_options, 'exclude', NULL);
	IF p_options ? 'invalid' THEN
		v_invalid := p_options ->> 'invalid';
		IF pg_catalog.jsonb_typeof(p_options -> 'invalid') <> 'string'
		   OR v_invalid NOT IN ('error', 'drop') THEN
			RAISE EXCEPTION 'option "invalid" must be "error" or "drop"'
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', p_options -> 'invalid'),
					  HINT = 'Invalid bounds are never clamped: "error" (the default) stops the import, "drop" records the option with the reason invalid_bounds.';
		END IF;
	END IF;
	invalid := v_invalid;
END;
$$;

-- Check a catalog's options (items, a JSON array) for import into a
-- study: each an object with a name and a type of the system's
-- (tuner.catalog_type), each name once.
CREATE OR REPLACE FUNCTION tuner._catalog_check_items(items jsonb, system text)
RETURNS void
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_items jsonb := $1;
	v_system text := $2;
	r record;
	v_bad text;
BEGIN
	IF pg_catalog.jsonb_typeof(v_items) <> 'array' THEN
		RAISE EXCEPTION 'catalog must be a JSON array of options'
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = pg_catalog.format('Got a JSON %s.', pg_catalog.jsonb_typeof(v_items)),
				  HINT = 'Pass an array of option objects as printed by "ceph config help NAME -f json", or an object with such an array under "options".';
	END IF;
	FOR r IN SELECT e.value AS o, e.ordinality AS i
			   FROM pg_catalog.jsonb_array_elements(v_items) WITH ORDINALITY e LOOP
		IF pg_catalog.jsonb_typeof(r.o) <> 'object' THEN
			RAISE EXCEPTION 'element % of the catalog is not an object', r.i
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', pg_catalog.left(r.o::text, 100)),
					  HINT = 'Each element is one option, e.g. {"name": "osd_max_backfills", "type": "uint", "default": 1}.';
		END IF;
		IF pg_catalog.jsonb_typeof(r.o -> 'name') IS DISTINCT FROM 'string'
		   OR pg_catalog.btrim(r.o ->> 'name') = '' THEN
			RAISE EXCEPTION 'element % of the catalog has no name', r.i
				USING ERRCODE = 'invalid_parameter_value',
					  DETAIL = pg_catalog.format('Got %s.', pg_catalog.left(r.o::text, 100)),
					  HINT = 'Every option needs a non-empty string "name".';
		END IF;
		IF pg_catalog.jsonb_typeof(r.o -> 'type') IS DISTINCT FROM 'string'
		   OR NOT EXISTS (SELECT 1 FROM tuner.catalog_type ct
						   WHERE ct.system = v_system AND ct.type = r.o ->> 'type') THEN
			RAISE EXCEPTION 'option "%" has an unknown type %', r.o ->> 'name',
				COALESCE((r.o -> 'type')::text, 'NULL')
				USING ERRCODE = 'invalid_parameter_value',
					  HINT = pg_catalog.format('The types of %s are %s (tuner.catalog_type).', v_system,
											   (SELECT pg_catalog.string_agg(ct.type, ', ' ORDER BY ct.type)
												  FROM tuner.catalog_type ct WHERE ct.system = v_system));
		END IF;
	END LOOP;
	SELECT e ->> 'name' INTO v_bad FROM pg_catalog.jsonb_array_elements(v_items) e
	 GROUP BY e ->> 'name' HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'option "%" appears more than once in the catalog', v_bad
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Option names must be unique; remove the duplicate.';
	END IF;
END;
$$;

-- What a zero default is scaled by, for every option of a catalog (items):
-- each option's type (types) and numeric default (defaults) by name, and
-- the options whose see_also names it (backrefs), as JSON objects.
CREATE OR REPLACE FUNCTION tuner._catalog_links(items jsonb,
	OUT types jsonb, OUT defaults jsonb, OUT backrefs jsonb)
RETURNS record
LANGUAGE plpgsql IMMUTABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_items jsonb := $1;
BEGIN
	SELECT COALESCE(pg_catalog.jsonb_object_agg(e ->> 'name', e -> 'type'), '{}'),
		   COALESCE(pg_catalog.jsonb_object_agg(e ->> 'name', e -> 'default')
					FILTER (WHERE pg_catalog.jsonb_typeof(e -> 'default') IN ('number', 'string')), '{}')
	  INTO types, defaults
	  FROM pg_catalog.jsonb_array_elements(v_items) e;
	SELECT COALESCE(pg_catalog.jsonb_object_agg(x.target, x.sources), '{}')
	  INTO backrefs
	  FROM (SELECT sa.target, pg_catalog.jsonb_agg(e ->> 'name') AS sources
			  FROM pg_catalog.jsonb_array_elements(v_items) e,
				   pg_catalog.jsonb_array_elements_text(
					   CASE pg_catalog.jsonb_typeof(e -> 'see_also') WHEN 'array'
					   THEN e -> 'see_also' ELSE '[]' END) sa(target)
			 GROUP BY sa.target) x;
END;
$$;

-- The fields of catalog option o that decide whether and how it is
-- imported, each checked (t: the catalog type of o's type): its name,
-- type and level, its flags, tags, services and enum_values (arrays of
-- strings, '{}' when absent) and how a change of it takes effect
-- (apply_as: runtime, restart or create).
CREATE OR REPLACE FUNCTION tuner._catalog_option_fields(o jsonb, t tuner.catalog_type,
	OUT name text, OUT type text, OUT level text, OUT flags text[], OUT tags text[],
	OUT services text[], OUT enum_values text[], OUT apply_as text)
RETURNS record
LANGUAGE plpgsql IMMUTABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_name text := o ->> 'name';
	v_flags text[];
	v_runtime bool;
BEGIN
	name := v_name;
	type := o ->> 'type';
	level := CASE WHEN pg_catalog.jsonb_typeof(o -> 'level') = 'string'
				   THEN o ->> 'level' END;
	v_flags := tuner._catalog_strings(o -> 'flags', v_name, 'flags');
	tags := tuner._catalog_strings(o -> 'tags', v_name, 'tags');
	services := tuner._catalog_strings(o -> 'services', v_name, 'services');
	enum_values := tuner._catalog_strings(o -> 'enum_values', v_name, 'enum_values');
	flags := v_flags;

	-- How a change takes effect: Ceph's Option::can_update_at_runtime
	-- when the catalog gives it, else the same rule from the flags.
	IF pg_catalog.jsonb_typeof(o -> 'can_update_at_runtime') = 'boolean' THEN
		v_runtime := (o ->> 'can_update_at_runtime')::bool;
	ELSE
		v_runtime := ('runtime' = ANY (v_flags) OR t.kind IN ('int', 'float', 'bool'))
					 AND NOT v_flags && ARRAY['startup', 'create', 'cluster_create'];
	END IF;
	apply_as := CASE WHEN 'create' = ANY (v_flags) THEN 'create'
					   WHEN v_runtime THEN 'runtime' ELSE 'restart' END;
END;
$$;

-- Why catalog option fields (tuner._catalog_option_fields, of catalog type
-- t) is dropped rather than imported with import_options
-- (tuner._catalog_import_options): the first reason that applies, in the
-- documented order (docs), and a detail; NULL when none applies (its
-- bounds are checked next, by tuner._catalog_number_space).
CREATE OR REPLACE FUNCTION tuner._catalog_drop_reason(fields record, t tuner.catalog_type,
	import_options record, OUT reason text, OUT detail text)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_system text := import_options.system;
	v_exclude text[] := import_options.exclude;
	v_include text[] := import_options.include;
	v_levels text[] := import_options.levels;
	v_services text[] := import_options.services;
	v_selectors jsonb := import_options.selectors;
	v_prunes jsonb := import_options.prunes;
	v_apply text[] := import_options.apply;
	v_name text := fields.name;
	v_type text := fields.type;
	v_level text := fields.level;
	v_flags text[] := fields.flags;
	v_tags text[] := fields.tags;
	v_opt_services text[] := fields.services;
	v_enum text[] := fields.enum_values;
	v_apply_as text := fields.apply_as;
	v_reason text;
	v_detail text;
BEGIN
	IF v_exclude IS NOT NULL THEN
		SELECT 'excluded', pg_catalog.format('matches "%s"', x) INTO v_reason, v_detail
		  FROM pg_catalog.unnest(v_exclude) x WHERE v_name ~ x LIMIT 1;
	END IF;
	IF v_reason IS NULL AND v_include IS NOT NULL
	   AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(v_include) x WHERE v_name ~ x) THEN
		v_reason := 'not_included';
	END IF;
	IF v_reason IS NULL AND v_levels IS NOT NULL
	   AND (v_level IS NULL OR v_level <> ALL (v_levels)) THEN
		v_reason := 'level';
		v_detail := pg_catalog.format('level %s', COALESCE(v_level, 'missing'));
	END IF;
	IF v_reason IS NULL AND v_services IS NOT NULL
	   AND pg_catalog.cardinality(v_opt_services) > 0
	   AND NOT v_opt_services && (v_services || 'common'::text) THEN
		v_reason := 'service';
		v_detail := pg_catalog.format('services %s', pg_catalog.array_to_string(v_opt_services, ', '));
	END IF;
	IF v_reason IS NULL AND v_selectors ? v_name THEN
		v_reason := 'selector';
		v_detail := pg_catalog.format('fixed to %s by the options', v_selectors ->> v_name);
	END IF;
	IF v_reason IS NULL THEN
		SELECT 'module', x ->> 'detail' INTO v_reason, v_detail
		  FROM pg_catalog.jsonb_array_elements(v_prunes) x
		 WHERE pg_catalog.starts_with(v_name, x ->> 'prefix') LIMIT 1;
	END IF;
	IF v_reason IS NULL AND 'cluster_create' = ANY (v_flags) THEN
		v_reason := 'cluster_create';
		v_detail := 'takes effect only when the cluster is created';
	END IF;
	IF v_reason IS NULL AND 'no_mon_update' = ANY (v_flags) THEN
		v_reason := 'no_mon_update';
		v_detail := 'cannot be set through the monitors'' configuration database';
	END IF;
	IF v_reason IS NULL AND t.drop_reason IS NOT NULL THEN
		v_reason := t.drop_reason;
		v_detail := pg_catalog.format('type %s', v_type);
	END IF;
	IF v_reason IS NULL THEN
		SELECT w.reason, pg_catalog.format('%s matches "%s"', w.field, w.pattern)
		  INTO v_reason, v_detail
		  FROM tuner.catalog_wash_rule w
		 WHERE w.system = v_system
		   AND (NOT w.free_strings_only
				OR (t.kind = 'categorical' AND pg_catalog.cardinality(v_enum) = 0))
		   AND CASE w.field
			   WHEN 'name' THEN v_name ~ w.pattern
			   WHEN 'tag' THEN EXISTS (SELECT 1 FROM pg_catalog.unnest(v_tags) g WHERE g ~ w.pattern)
			   ELSE false END
		 ORDER BY w.id LIMIT 1;
	END IF;
	IF v_reason IS NULL AND t.kind = 'categorical'
	   AND pg_catalog.cardinality(v_enum) = 0 THEN
		v_reason := 'free_string';
		v_detail := 'a string without enum_values';
	END IF;
	IF v_reason IS NULL AND v_apply IS NOT NULL AND v_apply_as <> ALL (v_apply) THEN
		v_reason := 'apply';
		v_detail := pg_catalog.format('takes effect at %s', v_apply_as);
	END IF;
	reason := v_reason;
	detail := v_detail;
END;
$$;

-- The largest positive default of the options linked to catalog option o
-- (option_name, of catalog type t of system) through see_also, either way
-- (links: tuner._catalog_links), among those of the same kind: the scale
-- of a zero default.  NULL when there is none.
CREATE OR REPLACE FUNCTION tuner._catalog_sibling_default(o jsonb, option_name text, t tuner.catalog_type,
	system text, links record)
RETURNS numeric
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_name text := $2;
	v_system text := $4;
	v_types jsonb := links.types;
	v_defaults jsonb := links.defaults;
	v_backrefs jsonb := links.backrefs;
	v_scale numeric;
BEGIN
	SELECT pg_catalog.max(n) INTO v_scale
	  FROM (SELECT tuner._catalog_number(v_defaults -> x, x, 'default') AS n
			  FROM (SELECT pg_catalog.unnest(tuner._catalog_strings(o -> 'see_also', v_name, 'see_also'))
					UNION
					SELECT pg_catalog.jsonb_array_elements_text(
							   COALESCE(v_backrefs -> v_name, '[]'))) l(x)
			 WHERE EXISTS (SELECT 1 FROM tuner.catalog_type ct
							WHERE ct.system = v_system AND ct.type = v_types ->> x
							  AND ct.kind = t.kind)) sib
	 WHERE n > 0;
	RETURN v_scale;
END;
$$;

-- The space of a numeric catalog option o (option_name, of int or float catalog
-- type t) that no reason dropped (tuner._catalog_drop_reason): its bounds
-- as the catalog gives them (min_value, max_value, NULL for none), the
-- range to search (low, high: a missing bound derived from the default,
-- or from the defaults of the options linked to a zero default, links of
-- tuner._catalog_links; the rule in bound_rule), log_scale, the lowest
-- value its type allows (hard_low) and the default as text; or why it is
-- dropped after all (reason, detail).  Invalid bounds stop the import
-- unless import_options say {"invalid": "drop"}.
CREATE OR REPLACE FUNCTION tuner._catalog_number_space(o jsonb, option_name text, t tuner.catalog_type,
	import_options record, links record,
	OUT reason text, OUT detail text, OUT low numeric, OUT high numeric,
	OUT min_value numeric, OUT max_value numeric, OUT hard_low numeric, OUT bound_rule text,
	OUT log_scale bool, OUT default_text text, OUT choices text[], OUT removed_choices text[],
	OUT note text)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_name text := $2;
	v_system text := import_options.system;
	v_invalid text := import_options.invalid;
	v_default numeric;
	v_sibling numeric;
	v_reason text;
	v_detail text;
	v_low numeric;
	v_high numeric;
	v_min numeric;
	v_max numeric;
	v_hard_low numeric;
	v_rule text;
	v_log bool := false;
	v_default_text text;
	v_choices text[];
	v_removed text[];
	v_note text;
BEGIN
	v_default := tuner._catalog_number(o -> 'default', v_name, 'default');
	v_min := tuner._catalog_number(o -> 'min', v_name, 'min');
	v_max := tuner._catalog_number(o -> 'max', v_name, 'max');
	IF v_min > v_max THEN
		v_reason := 'invalid_bounds';
		v_detail := pg_catalog.format('min %s is greater than max %s', v_min, v_max);
	ELSIF v_default < v_min OR v_default > v_max THEN
		v_reason := 'invalid_bounds';
		v_detail := pg_catalog.format('default %s is outside [%s, %s]', v_default,
									  COALESCE(v_min::text, '-inf'), COALESCE(v_max::text, 'inf'));
	END IF;
	IF v_reason = 'invalid_bounds' AND v_invalid = 'error' THEN
		RAISE EXCEPTION 'option "%" has invalid bounds: %', v_name, v_detail
			USING ERRCODE = 'invalid_parameter_value',
				  HINT = 'Fix the catalog, leave the option out with {"exclude": [...]}, or pass {"invalid": "drop"} to drop such options.';
	END IF;
	IF v_reason IS NULL THEN
		v_hard_low := GREATEST(v_min, t.hard_low::numeric);
		v_low := v_min;
		v_high := v_max;
		IF v_default IS NULL AND (v_low IS NULL OR v_high IS NULL) THEN
			v_reason := 'no_bounds';
			v_detail := 'no default to derive the missing bound from';
		ELSIF v_default < 0 AND (v_low IS NULL OR v_high IS NULL) THEN
			v_reason := 'no_bounds';
			v_detail := pg_catalog.format('negative default %s (a sentinel) and no min/max', v_default);
		ELSIF v_low IS NULL OR v_high IS NULL THEN
			IF v_default > 0 THEN
				v_low := COALESCE(v_low, GREATEST(v_default / 10, v_hard_low));
				v_high := COALESCE(v_high, v_default * 10);
				v_rule := 'default/10, default*10';
			ELSE
				-- A zero default usually means "off" or "use the _hdd/_ssd
				-- variant": scale by the positive defaults of the options
				-- linked to it through see_also (either way), of the same
				-- kind, else by the type's zero_default_high.
				v_sibling := tuner._catalog_sibling_default(o, v_name, t, v_system, links);
				v_low := COALESCE(v_low, 0);
				IF v_sibling IS NOT NULL THEN
					v_high := COALESCE(v_high, v_sibling * 10);
					v_rule := 'zero default: 0, 10 * see_also default';
				ELSE
					v_high := COALESCE(v_high, t.zero_default_high::numeric);
					v_rule := 'zero default: 0, type scale';
				END IF;
			END IF;
		END IF;
		-- Log scale for a positive range of two decades or more (so
		-- always for default/10..default*10), decided before integer
		-- rounding narrows it.
		v_log := v_reason IS NULL AND v_low > 0 AND v_high >= 100 * v_low;
		IF v_reason IS NULL AND t.kind = 'int' THEN
			v_low := pg_catalog.ceil(v_low);
			v_high := pg_catalog.floor(v_high);
		END IF;
		IF v_reason IS NULL AND v_low >= v_high THEN
			v_reason := CASE WHEN v_min = v_max THEN 'fixed_range' ELSE 'no_bounds' END;
			v_detail := pg_catalog.format('range [%s, %s] is empty', v_low, v_high);
		ELSIF v_reason IS NULL AND GREATEST(abs(v_low), abs(v_high)) > 9007199254740992 THEN
			v_reason := 'no_bounds';
			v_detail := pg_catalog.format('range [%s, %s] exceeds 2^53', v_low, v_high);
		END IF;
		IF v_reason IS NULL THEN
			IF v_default IS NOT NULL THEN
				v_default_text := v_default::text;
				IF t.kind = 'int' AND v_default <> pg_catalog.trunc(v_default) THEN
					v_reason := 'invalid_bounds';
					v_detail := pg_catalog.format('default %s of an integer option', v_default);
					IF v_invalid = 'error' THEN
						RAISE EXCEPTION 'option "%" has invalid bounds: %', v_name, v_detail
							USING ERRCODE = 'invalid_parameter_value',
								  HINT = 'Fix the catalog, leave the option out with {"exclude": [...]}, or pass {"invalid": "drop"} to drop such options.';
					END IF;
				END IF;
			END IF;
		END IF;
	END IF;
	reason := v_reason;
	detail := v_detail;
	low := v_low;
	high := v_high;
	min_value := v_min;
	max_value := v_max;
	hard_low := v_hard_low;
	bound_rule := v_rule;
	log_scale := v_log;
	default_text := v_default_text;
	choices := v_choices;
	removed_choices := v_removed;
	note := v_note;
END;
$$;

-- The space of a bool or categorical catalog option o (of catalog type
-- t, with enum_values) that no reason dropped: its default as text (a
-- note when it cannot be one) and, for a categorical one, its choices,
-- less those a wash rule of the system removes (removed_choices); or why
-- it is dropped after all (fewer than two choices left).  The same
-- columns as tuner._catalog_number_space's.
CREATE OR REPLACE FUNCTION tuner._catalog_choice_space(o jsonb, enum_values text[], t tuner.catalog_type,
	system text,
	OUT reason text, OUT detail text, OUT low numeric, OUT high numeric,
	OUT min_value numeric, OUT max_value numeric, OUT hard_low numeric, OUT bound_rule text,
	OUT log_scale bool, OUT default_text text, OUT choices text[], OUT removed_choices text[],
	OUT note text)
RETURNS record
LANGUAGE plpgsql STABLE
AS $$
#variable_conflict use_variable
DECLARE
	v_enum text[] := $2;
	v_system text := $4;
	v_reason text;
	v_detail text;
	v_low numeric;
	v_high numeric;
	v_min numeric;
	v_max numeric;
	v_hard_low numeric;
	v_rule text;
	v_log bool := false;
	v_default_text text;
	v_choices text[];
	v_removed text[];
	v_note text;
BEGIN
	IF t.kind = 'bool' THEN
		IF pg_catalog.jsonb_typeof(o -> 'default') = 'boolean' THEN
			v_default_text := o ->> 'default';
		ELSIF pg_catalog.jsonb_typeof(o -> 'default') = 'string'
			  AND pg_catalog.lower(o ->> 'default') IN ('true', 'false') THEN
			v_default_text := pg_catalog.lower(o ->> 'default');
		ELSIF o -> 'default' IS NOT NULL AND pg_catalog.jsonb_typeof(o -> 'default') <> 'null' THEN
			v_note := pg_catalog.format('default %s is not a boolean', o -> 'default');
		END IF;
	ELSIF t.kind = 'categorical' THEN
		SELECT pg_catalog.array_agg(c ORDER BY i) FILTER (WHERE NOT m),
			   pg_catalog.array_agg(c ORDER BY i) FILTER (WHERE m)
		  INTO v_choices, v_removed
		  FROM (SELECT c, pg_catalog.min(i) AS i,
					   EXISTS (SELECT 1 FROM tuner.catalog_wash_rule w
								WHERE w.system = v_system AND w.field = 'choice'
								  AND c ~ w.pattern) AS m
				  FROM pg_catalog.unnest(v_enum) WITH ORDINALITY u(c, i)
				 GROUP BY c) ch;
		IF COALESCE(pg_catalog.cardinality(v_choices), 0) < 2 THEN
			v_reason := 'fixed_range';
			v_detail := pg_catalog.format('%s choice(s) left', COALESCE(pg_catalog.cardinality(v_choices), 0));
		ELSIF pg_catalog.jsonb_typeof(o -> 'default') = 'string' THEN
			IF (o ->> 'default') = ANY (v_choices) THEN
				v_default_text := o ->> 'default';
			ELSE
				v_note := pg_catalog.format('default "%s" is not one of the choices', o ->> 'default');
			END IF;
		END IF;
	END IF;
	reason := v_reason;
	detail := v_detail;
	low := v_low;
	high := v_high;
	min_value := v_min;
	max_value := v_max;
	hard_low := v_hard_low;
	bound_rule := v_rule;
	log_scale := v_log;
	default_text := v_default_text;
	choices := v_choices;
	removed_choices := v_removed;
	note := v_note;
END;
$$;

-- Add catalog option o, kept (fields: tuner._catalog_option_fields, t
-- its catalog type, space: tuner._catalog_number_space's or
-- _catalog_choice_space's), to study s as a parameter, with where it came
-- from (tuner.parameter_source, of catalog_import).
CREATE OR REPLACE FUNCTION tuner._catalog_keep_option(s tuner.study, catalog_import bigint, o jsonb,
	fields record, t tuner.catalog_type, space record)
RETURNS void
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	v_import bigint := catalog_import;
	v_name text := fields.name;
	v_type text := fields.type;
	v_level text := fields.level;
	v_flags text[] := fields.flags;
	v_opt_services text[] := fields.services;
	v_apply_as text := fields.apply_as;
	v_low numeric := space.low;
	v_high numeric := space.high;
	v_min numeric := space.min_value;
	v_max numeric := space.max_value;
	v_hard_low numeric := space.hard_low;
	v_rule text := space.bound_rule;
	v_log bool := space.log_scale;
	v_default_text text := space.default_text;
	v_choices text[] := space.choices;
	v_removed text[] := space.removed_choices;
	v_note text := space.note;
	v_soft bool;
	v_param bigint;
BEGIN
	-- A bound the catalog does not give is a guess: soft, so the study
	-- may widen it (tuner.bound_change), within the catalog's and the
	-- type's limits.
	v_soft := t.kind IN ('int', 'float') AND (v_min IS NULL OR v_max IS NULL);
	PERFORM tuner.add_parameter(s.name, v_name, t.kind, v_low::float8, v_high::float8,
								v_default_text, v_log, v_choices,
								soft_bounds => v_soft,
								hard_low => CASE WHEN NOT v_soft THEN NULL
												 WHEN v_min IS NOT NULL THEN v_low::float8
												 WHEN v_log AND v_hard_low <= 0 THEN NULL
												 ELSE LEAST(v_hard_low, v_low)::float8 END,
								hard_high => CASE WHEN v_soft AND v_max IS NOT NULL THEN v_high::float8 END);
	SELECT p.id INTO v_param FROM tuner.parameter p
	 WHERE p.study_id = s.id AND p.name = v_name;
	INSERT INTO tuner.parameter_source (parameter_id, import_id, source_type, level,
										source_default, source_min, source_max,
										hard_low, hard_high, soft_low, soft_high,
										bound_rule, needs_restart, apply, flags,
										services, removed_choices, note, description)
	VALUES (v_param, v_import, v_type, v_level, o -> 'default', v_min, v_max,
			v_hard_low, v_max,
			t.kind IN ('int', 'float') AND v_min IS NULL,
			t.kind IN ('int', 'float') AND v_max IS NULL,
			v_rule, v_apply_as <> 'runtime', v_apply_as, v_flags, v_opt_services,
			v_removed, v_note, NULLIF(o ->> 'desc', ''));
	-- A kept option forgets an earlier import's drop of the same name.
	DELETE FROM tuner.catalog_drop d WHERE d.study_id = s.id AND d.name = v_name;
END;
$$;

-- Import option o of a catalog (catalog_import, options import_options,
-- links: tuner._catalog_links) into study s: record why it is dropped
-- (tuner.catalog_drop) and return false, or add it as a parameter and
-- return true.
CREATE OR REPLACE FUNCTION tuner._catalog_import_option(s tuner.study, catalog_import bigint, o jsonb,
	import_options record, links record)
RETURNS bool
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	v_import bigint := catalog_import;
	t tuner.catalog_type;
	fields record;
	space record;
	v_name text;
	v_type text;
	v_level text;
	v_reason text;
	v_detail text;
BEGIN
	SELECT * INTO t FROM tuner.catalog_type ct
	 WHERE ct.system = import_options.system AND ct.type = o ->> 'type';
	SELECT * INTO fields FROM tuner._catalog_option_fields(o, t);
	v_name := fields.name;
	v_type := fields.type;
	v_level := fields.level;
	SELECT r.reason, r.detail INTO v_reason, v_detail
	  FROM tuner._catalog_drop_reason(fields, t, import_options) r;
	IF v_reason IS NULL THEN
		IF t.kind IN ('int', 'float') THEN
			SELECT * INTO space FROM tuner._catalog_number_space(o, v_name, t, import_options, links);
		ELSE
			SELECT * INTO space FROM tuner._catalog_choice_space(o, fields.enum_values, t, import_options.system);
		END IF;
		v_reason := space.reason;
		v_detail := space.detail;
	END IF;

	IF v_reason IS NOT NULL THEN
		INSERT INTO tuner.catalog_drop AS d (study_id, import_id, name, reason, detail, source_type, level)
		VALUES (s.id, v_import, v_name, v_reason, v_detail, v_type, v_level)
		ON CONFLICT (study_id, name) DO UPDATE
		   SET import_id = EXCLUDED.import_id, reason = EXCLUDED.reason,
			   detail = EXCLUDED.detail, source_type = EXCLUDED.source_type,
			   level = EXCLUDED.level;
		RETURN false;
	END IF;

	PERFORM tuner._catalog_keep_option(s, v_import, o, fields, t, space);
	RETURN true;
END;
$$;

-- Import a catalog of options into a study's search space, washed and
-- pruned (README.md, "Importing a catalog").  catalog is a JSON array of
-- option objects in Ceph's schema, or an object with such an array under
-- "options" (the admin socket's dump, or tests/ceph/catalog-16.2.json).
-- Returns a summary: counts of options, kept and dropped ones by reason.
CREATE OR REPLACE FUNCTION tuner.import_catalog(study text, catalog jsonb,
									 options jsonb DEFAULT '{}')
RETURNS jsonb
LANGUAGE plpgsql
AS $$
#variable_conflict use_variable
DECLARE
	s tuner.study;
	p_catalog jsonb := $2;
	p_options jsonb := $3;
	v_import_options record;
	v_items jsonb;
	v_version text;
	v_links record;
	v_import bigint;
	v_bad text;
	r record;
	v_total int := 0;
	v_kept int := 0;
	v_dropped int := 0;
BEGIN
	s := tuner._find_study($1);
	PERFORM tuner._not_null(p_catalog, 'catalog');
	PERFORM tuner._not_null(p_options, 'options');
	SELECT * INTO v_import_options FROM tuner._catalog_import_options(p_options);

	-- The catalog: an array of options, or {"options": [...], ...}.
	v_items := p_catalog;
	IF pg_catalog.jsonb_typeof(p_catalog) = 'object' AND p_catalog ? 'options' THEN
		v_items := p_catalog -> 'options';
		IF pg_catalog.jsonb_typeof(p_catalog -> 'version') = 'string' THEN
			v_version := p_catalog ->> 'version';
		END IF;
	END IF;
	PERFORM tuner._catalog_check_items(v_items, v_import_options.system);

	-- The study: no trials yet, and none of these names in its space.
	PERFORM 1 FROM tuner.study WHERE id = s.id FOR UPDATE;
	IF EXISTS (SELECT 1 FROM tuner.trial WHERE study_id = s.id) THEN
		RAISE EXCEPTION 'cannot import a catalog into study "%" because it has trials', s.name
			USING ERRCODE = 'object_not_in_prerequisite_state',
				  HINT = 'Import the catalog before the first tuner.suggest_next(), or create a new study.';
	END IF;
	SELECT p.name INTO v_bad
	  FROM tuner.parameter p
	  JOIN pg_catalog.jsonb_array_elements(v_items) e ON e ->> 'name' = p.name
	 WHERE p.study_id = s.id ORDER BY p.position LIMIT 1;
	IF FOUND THEN
		RAISE EXCEPTION 'parameter "%" already exists in study "%"', v_bad, s.name
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Leave it out of the catalog or with {"exclude": [...]}, or import into a new study.';
	END IF;

	SELECT * INTO v_links FROM tuner._catalog_links(v_items);

	INSERT INTO tuner.catalog_import (study_id, system, version, options)
	VALUES (s.id, v_import_options.system, v_version, p_options)
	RETURNING id INTO v_import;

	FOR r IN SELECT e.value AS o, e.ordinality AS i
			   FROM pg_catalog.jsonb_array_elements(v_items) WITH ORDINALITY e
			  ORDER BY e.ordinality LOOP
		v_total := v_total + 1;
		IF tuner._catalog_import_option(s, v_import, r.o, v_import_options, v_links) THEN
			v_kept := v_kept + 1;
		ELSE
			v_dropped := v_dropped + 1;
		END IF;
	END LOOP;

	UPDATE tuner.catalog_import
	   SET total = v_total, kept = v_kept, dropped = v_dropped
	 WHERE id = v_import;

	RETURN pg_catalog.jsonb_build_object(
		'import', v_import, 'options', v_total, 'kept', v_kept, 'dropped', v_dropped,
		'reasons', (SELECT COALESCE(pg_catalog.jsonb_object_agg(x.reason, x.n), '{}')
					  FROM (SELECT d.reason, pg_catalog.count(*) AS n
							  FROM tuner.catalog_drop d
							 WHERE d.import_id = v_import
							 GROUP BY d.reason) x));
END;
$$;
