/*
 * security.sql
 *	  Who may see and change a study: its owner, the roles it was granted to
 *	  (tuner.grant_study) and superusers.  The row-level security policies
 *	  (privileges.sql) call these helpers.
 */

-- Does the current role have the privileges of role (by name)?  False for
-- a role that no longer exists (owner and grantee are names, not oids).
-- The policies call it as the querying role, so its body is an SQL-standard
-- one (RETURN), parsed here, once: a body in quotes would be parsed with
-- the caller's search_path, and an operator "=" of the caller's own
-- schema would decide who owns what.  It is still inlined.
CREATE OR REPLACE FUNCTION tuner._has_role(role name)
RETURNS bool
LANGUAGE sql STABLE
RETURN role OPERATOR(pg_catalog.=) CURRENT_USER
	OR COALESCE(pg_catalog.pg_has_role(
		pg_catalog.to_regrole(pg_catalog.quote_ident(role))::oid, 'USAGE'), false);

-- May the current role make the server run programs?  (RETURN: as above.)
CREATE OR REPLACE FUNCTION tuner._may_run_programs()
RETURNS bool
LANGUAGE sql STABLE
RETURN pg_catalog.pg_has_role('pg_execute_server_program', 'USAGE');

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

CREATE TRIGGER study_grant_owner BEFORE INSERT ON tuner.study_grant
	FOR EACH ROW EXECUTE FUNCTION tuner._study_grant_owner();

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

-- Is the current role a superuser?  The guards let a superuser restore a
-- dump and repair rows in other roles' names, as row-level security does.
CREATE OR REPLACE FUNCTION tuner._is_superuser()
RETURNS bool
LANGUAGE sql STABLE
SET search_path = pg_catalog, tuner, pg_temp
AS $$
SELECT COALESCE((SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.rolname = current_user), false);
$$;

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
CREATE OR REPLACE FUNCTION tuner._role_may_read_study(role name, study_id bigint)
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

-------------------------------------------------------------------------------
-- Grants of a study are made and taken back by grant_study and
-- revoke_study only, through the fixed statements of
-- bookkeeping_writes.sql; the trigger names the study's owner in each
-- grant and refuses a grantee that is not a role, whichever statement
-- writes it.
-------------------------------------------------------------------------------

-- Refuse a name that is not an existing role.
CREATE OR REPLACE FUNCTION tuner._check_role_exists(role text)
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
