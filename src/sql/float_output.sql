-------------------------------------------------------------------------------
-- Every function writes floating-point numbers as text the same way,
-- whatever the caller's extra_float_digits.
--
-- A float8 becomes text (and so JSON) through float8out, which follows
-- the session's extra_float_digits: 1 (the default) gives the shortest
-- exact digits, 3 gives 17 digits, 0 or less rounds to 15 digits or
-- fewer.  A suggestion's configuration, stored as JSON, therefore
-- depended on the client that asked for it (drivers set 0 or 3), and so
-- did the md5 of the history a suggestion records: a replay from a
-- session with another setting reported "the study changed", or gave
-- the same numbers with other digits, so that replay_suggestion = config
-- was false.  Each function of the extension now runs with
-- extra_float_digits = 1, so what tuner stores and compares is the
-- shortest exact form.  Runs last, with search_path.sql, for the same
-- functions (the two SQL-standard bodies that the row-level security
-- policies inline make no text of numbers).
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
							WHERE c = 'extra_float_digits=1')
		 ORDER BY p.oid
	LOOP
		EXECUTE pg_catalog.format('ALTER FUNCTION %s SET extra_float_digits = 1', f);
	END LOOP;
END
$$;
