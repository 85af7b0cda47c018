-- function_size: no plpgsql function of the extension is longer than 150
-- lines and no function takes more than 12 arguments (issue 27, "Done
-- when"); a function that grows past that is split into internal helpers
-- of one idea each (tuner._name), as import_catalog, add_parameter,
-- lasso_rank, _preset_check_definition, _build_view, copy_trials and
-- suggest_next were, or takes a record (tuner.suggestion) instead of its
-- fields.  A line is a line of the body (pg_proc.prosrc); arguments are
-- the input ones (pg_proc.pronargs).

-- the functions the check looks at (so it cannot pass by seeing none)
SELECT count(*) > 100 AS plpgsql_functions_seen
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace = 'tuner'::regnamespace AND l.lanname = 'plpgsql';

-- the offenders: none
SELECT p.oid::regprocedure AS too_long,
	   array_length(string_to_array(p.prosrc, E'\n'), 1) AS lines
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace = 'tuner'::regnamespace AND l.lanname = 'plpgsql'
   AND array_length(string_to_array(p.prosrc, E'\n'), 1) > 150
 ORDER BY 1;

-- suggest_next itself: under ~120 lines, the policy lives in src/core
SELECT array_length(string_to_array(p.prosrc, E'\n'), 1) <= 120 AS suggest_next_short
  FROM pg_proc p WHERE p.oid = 'tuner.suggest_next(text)'::regprocedure;

-- too many arguments: none
SELECT p.oid::regprocedure AS too_many_arguments, p.pronargs
  FROM pg_proc p
 WHERE p.pronamespace = 'tuner'::regnamespace AND p.pronargs > 12
 ORDER BY 1;
