-------------------------------------------------------------------------------
-- Every function runs with a fixed search_path.
--
-- tuner's functions and triggers run as their caller, and an unqualified
-- operator or function in their bodies was looked up in the caller's
-- search_path: with "=" and "<>" for text in an own schema ahead of
-- pg_catalog, a write grantee made the integrity triggers pass a rewrite
-- of a finished trial.  Each function of the extension now carries
-- search_path = pg_catalog, tuner, pg_temp (pg_temp last, so a caller's
-- temporary objects never stand in for tuner's), except the two whose
-- SQL-standard bodies were parsed once at creation, which the row-level
-- security policies inline.  This runs last in the update, so it covers
-- every function the update made; a function added later is created
-- with the clause (sql/security.sql checks that none lacks it).
-------------------------------------------------------------------------------

DO $$
DECLARE
	f regprocedure;
BEGIN
	FOR f IN
		SELECT p.oid::regprocedure
		  FROM pg_catalog.pg_proc p
		  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass
			AND d.objid = p.oid AND d.deptype = 'e'
			AND d.refclassid = 'pg_catalog.pg_extension'::regclass
		  JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'tuner'
		 WHERE p.prosqlbody IS NULL
		   AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) c
							WHERE c = 'search_path=pg_catalog, tuner, pg_temp')
		 ORDER BY p.oid
	LOOP
		EXECUTE pg_catalog.format('ALTER FUNCTION %s SET search_path = pg_catalog, tuner, pg_temp', f);
	END LOOP;
END
$$;
