-- Is the current role a superuser?  The guards let a superuser restore a
-- dump and repair rows in other roles' names, as row-level security does.
CREATE FUNCTION tuner._is_superuser()
RETURNS bool
LANGUAGE sql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT COALESCE((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user), false);
$$;
