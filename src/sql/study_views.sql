/*
 * study_views.sql
 *	  Typed per-study views (tuner.create_view), kept current as the study
 *	  gains parameters or metrics.
 */

-- An identifier of at most 63 bytes (NAMEDATALEN - 1).  A longer wanted
-- name keeps its beginning and ends in "_" and 8 hex digits of its md5, so
-- that long names differing only at the end stay apart.
CREATE OR REPLACE FUNCTION tuner._identifier(wanted text)
RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v text;
BEGIN
	IF pg_catalog.octet_length(wanted) <= 63 THEN
		RETURN wanted;
	END IF;
	v := pg_catalog.left(wanted, 54);
	WHILE pg_catalog.octet_length(v) > 54 LOOP
		v := pg_catalog.left(v, -1);
	END LOOP;
	RETURN v || '_' || pg_catalog.left(pg_catalog.md5(wanted), 8);
END;
$$;

-- A column name for a parameter or metric: its own name, or with prefix
-- when that is taken (a fixed column, or a parameter of the same name),
-- then with a counter.
CREATE OR REPLACE FUNCTION tuner._view_column(wanted text, prefix text, taken text[])
RETURNS text
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
	v text := tuner._identifier(wanted);
	i int := 1;
BEGIN
	IF v = ANY (taken) THEN
		v := tuner._identifier(prefix || wanted);
	END IF;
	WHILE v = ANY (taken) LOOP
		i := i + 1;
		v := tuner._identifier(prefix || wanted || '_' || i);
	END LOOP;
	RETURN v;
END;
$$;

-- The columns a study's view has after its fixed ones, one per parameter
-- (by position) and per metric (by id) but those a fixed column already
-- shows: their select-list text (cols), the lateral join's aggregate of
-- each metric (aggs) and each column's comment as name, text pairs
-- (comments).  A name already taken gets a prefix (tuner._view_column).
CREATE OR REPLACE FUNCTION tuner._view_columns(s tuner.study, objective_id bigint,
											 OUT cols text, OUT aggs text, OUT comments text[])
RETURNS record
LANGUAGE plpgsql
AS $$
DECLARE
	p tuner.parameter;
	m tuner.metric;
	v_taken text[] := ARRAY['trial', 'number', 'state', 'source', 'created_at',
							'started_at', 'finished_at', 'objective',
							'best_so_far', 'ratio_to_default', 'error'];
	v_col text;
BEGIN
	cols := '';
	aggs := '';
	comments := '{}';
	FOR p IN SELECT * FROM tuner.parameter q WHERE q.study_id = s.id ORDER BY q.position
	LOOP
		v_col := tuner._view_column(p.name, 'param_', v_taken);
		v_taken := v_taken || v_col;
		cols := cols || pg_catalog.format(E',\n       %s AS %I', CASE p.kind
			WHEN 'int' THEN pg_catalog.format('((t.config -> %L)::numeric)::bigint', p.name)
			WHEN 'float' THEN pg_catalog.format('(t.config -> %L)::double precision', p.name)
			WHEN 'bool' THEN pg_catalog.format('(t.config -> %L)::boolean', p.name)
			ELSE pg_catalog.format('t.config ->> %L', p.name) END, v_col);
		comments := comments || ARRAY[v_col, pg_catalog.format('parameter %s: %s%s%s',
			pg_catalog.to_jsonb(p.name), p.kind,
			CASE WHEN p.kind IN ('int', 'float') THEN pg_catalog.format(' in [%s, %s]', p.low, p.high)
				 WHEN p.kind = 'categorical' THEN ' of ' || pg_catalog.array_to_string(p.choices, ', ')
				 ELSE '' END,
			CASE WHEN p.log_scale THEN ', log scale' ELSE '' END)];
	END LOOP;
	FOR m IN SELECT * FROM tuner.metric q WHERE q.study_id = s.id ORDER BY q.id
	LOOP
		aggs := aggs || pg_catalog.format(E',\n                  pg_catalog.max(ob.value) FILTER (WHERE ob.metric_id = %s) AS m%s',
											 m.id, m.id);
		-- the same values as a fixed column already
		CONTINUE WHEN m.name = 'ratio_to_default'
			OR (m.name = 'objective' AND m.id = objective_id);
		v_col := tuner._view_column(m.name, 'metric_', v_taken);
		v_taken := v_taken || v_col;
		cols := cols || pg_catalog.format(E',\n       o.m%s AS %I', m.id, v_col);
		comments := comments || ARRAY[v_col, pg_catalog.format('metric %s (%s%s%s)',
			pg_catalog.to_jsonb(m.name), m.role,
			COALESCE(', ' || m.direction, ''), COALESCE(', unit ' || m.unit, ''))];
	END LOOP;
END;
$$;

-- The comments of a study's view: the view's, its fixed columns' and, from
-- tuner._view_columns, those of its parameters and metrics.
CREATE OR REPLACE FUNCTION tuner._comment_view(qualified_name text, s tuner.study, has_ratio bool, column_comments text[])
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	i int;
BEGIN
	EXECUTE pg_catalog.format('COMMENT ON VIEW %s IS %L', qualified_name,
		pg_catalog.format('Trials of tuner study %s (%s %s), one row per trial; made by tuner.create_view',
						  pg_catalog.to_jsonb(s.name), s.direction, pg_catalog.to_jsonb(s.objective)));
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.best_so_far IS %L', qualified_name,
		'Best objective value, in the study''s direction, of the trials up to this trial number that tuner.best may choose: complete, every outcome constraint met');
	EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.ratio_to_default IS %L', qualified_name,
		CASE WHEN has_ratio THEN 'The trial''s own ratio_to_default metric (measured paired with the default), else objective / objective of the default configuration''s trial'
			 ELSE 'objective / objective of the default configuration''s trial' END);
	FOR i IN 1 .. pg_catalog.array_length(column_comments, 1) / 2
	LOOP
		EXECUTE pg_catalog.format('COMMENT ON COLUMN %s.%I IS %L', qualified_name,
								  column_comments[2 * i - 1], column_comments[2 * i]);
	END LOOP;
END;
$$;

-- Give a rebuilt view the grants it had (acl and owner: the dropped
-- view's relacl and relowner): its owner granted them, so can again.
CREATE OR REPLACE FUNCTION tuner._regrant_view(qualified_name text, acl aclitem[], owner oid)
RETURNS void
LANGUAGE plpgsql
AS $$
DECLARE
	g record;
BEGIN
	FOR g IN
		SELECT a.grantee, a.privilege_type, a.is_grantable
		  FROM pg_catalog.aclexplode(acl) a
		 WHERE a.grantee <> owner
	LOOP
		EXECUTE pg_catalog.format('GRANT %s ON %s TO %s%s', g.privilege_type, qualified_name,
			CASE g.grantee WHEN 0 THEN 'PUBLIC'
				 ELSE pg_catalog.quote_ident(pg_catalog.pg_get_userbyid(g.grantee)) END,
			CASE WHEN g.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
	END LOOP;
END;
$$;

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
	v_rel oid;
	v_qname text := pg_catalog.format('%I.%I', p_schema, p_name);
	v_acl aclitem[];
	v_owner oid;
	v_objective bigint;
	v_ratio bigint;
	v_default jsonb;
	v_outcomes text;
	v_cols text;
	v_aggs text;
	v_comments text[];
	v_sql text;
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

	SELECT c.cols, c.aggs, c.comments INTO v_cols, v_aggs, v_comments
	  FROM tuner._view_columns(s, v_objective) c;

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

	PERFORM tuner._comment_view(v_qname, s, v_ratio IS NOT NULL, v_comments);

	PERFORM tuner._regrant_view(v_qname, v_acl, v_owner);
END;
$$;

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

CREATE TRIGGER parameter_views AFTER INSERT ON tuner.parameter
	FOR EACH ROW EXECUTE FUNCTION tuner._refresh_views();

CREATE TRIGGER metric_views AFTER INSERT ON tuner.metric
	FOR EACH ROW EXECUTE FUNCTION tuner._refresh_views();

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

CREATE TRIGGER study_drop_views BEFORE DELETE ON tuner.study
	FOR EACH ROW EXECUTE FUNCTION tuner._drop_views();

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
CREATE OR REPLACE FUNCTION tuner._is_view_of(view_schema name, view_name name, owner name)
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
CREATE OR REPLACE FUNCTION tuner._study_view_guard()
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
