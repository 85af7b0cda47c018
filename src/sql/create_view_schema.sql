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
