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
