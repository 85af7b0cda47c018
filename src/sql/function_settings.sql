/*
 * function_settings.sql
 *	  Last: pins the search_path and extra_float_digits of every function
 *	  made before it, so no function depends on its caller's settings.
 */

-- Last: it pins the search_path and extra_float_digits of every function
-- made above.
-------------------------------------------------------------------------------
-- Every function runs with fixed settings: search_path and
-- extra_float_digits.  Runs last in the update, so it covers every
-- function the update made; a function added later is created with the
-- clauses (sql/trust_boundary.sql and sql/replay_sessions.sql check that
-- none lacks them).  The two functions whose SQL-standard bodies were
-- parsed once at creation, which the row-level security policies inline,
-- are left alone: they look nothing up and make no text of numbers.
--
-- search_path = pg_catalog, tuner, pg_temp.  tuner's functions and
-- triggers run as their caller, and an unqualified operator or function
-- in their bodies was looked up in the caller's search_path: with "=" and
-- "<>" for text in an own schema ahead of pg_catalog, a write grantee
-- made the integrity triggers pass a rewrite of a finished trial.
-- pg_temp comes last, so a caller's temporary objects never stand in for
-- tuner's.
--
-- extra_float_digits = 1.  A float8 becomes text (and so JSON) through
-- float8out, which follows the session's extra_float_digits: 1 (the
-- default) gives the shortest exact digits, 3 gives 17 digits, 0 or less
-- rounds to 15 digits or fewer.  A suggestion's configuration, stored as
-- JSON, therefore depended on the client that asked for it (drivers set 0
-- or 3), and so did the md5 of the history a suggestion records: a replay
-- from a session with another setting reported "the study changed", or
-- gave the same numbers with other digits.  Now what tuner stores and
-- compares is the shortest exact form.
-------------------------------------------------------------------------------

DO $$
DECLARE
	f regprocedure;
	s record;
BEGIN
	FOR s IN VALUES ('search_path', 'pg_catalog, tuner, pg_temp'),
					('extra_float_digits', '1')
	LOOP
		FOR f IN
			SELECT p.oid::regprocedure
			  FROM pg_catalog.pg_proc p
			  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass
				AND d.objid = p.oid AND d.deptype = 'e'
				AND d.refclassid = 'pg_catalog.pg_extension'::regclass
			  JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'tuner'
			 WHERE p.prosqlbody IS NULL
			   AND NOT EXISTS (SELECT 1 FROM pg_catalog.unnest(p.proconfig) c
								WHERE c = s.column1 || '=' || s.column2)
			 ORDER BY p.oid
		LOOP
			EXECUTE pg_catalog.format('ALTER FUNCTION %s SET %I = %s', f, s.column1, s.column2);
		END LOOP;
	END LOOP;
END
$$;
