-------------------------------------------------------------------------------
-- Grants of a study are made and taken back by grant_study and
-- revoke_study only, through the fixed statements of
-- bookkeeping_writes.sql; the trigger names the study's owner in each
-- grant and refuses a grantee that is not a role, whichever statement
-- writes it.
-------------------------------------------------------------------------------

-- Refuse a name that is not an existing role.
CREATE FUNCTION tuner._check_role_exists(role text)
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
