-- branin_study.sql: a complete tuning study driven from SQL.
--
-- Minimize the Branin function on x1 in [-5, 10], x2 in [0, 15] (global
-- minimum 0.397887 at three points) with 30 trials: each iteration asks
-- tuner.suggest_next() for a configuration, "runs" it by evaluating Branin
-- in SQL, and reports the result.  Run it in a database where
-- CREATE EXTENSION tuner was done:
--     psql -f examples/branin_study.sql

\set ON_ERROR_STOP on
\set QUIET on
\pset border 1

-- The study: minimize Branin over two float parameters, with a fixed seed.
DO $$
BEGIN
    PERFORM tuner.drop_study(name) FROM tuner.study WHERE name = 'branin';
    PERFORM tuner.create_study('branin', objective => 'value', direction => 'minimize',
                               settings => '{"seed": 2024}');
    PERFORM tuner.add_parameter('branin', 'x1', 'float', low => -5, high => 10);
    PERFORM tuner.add_parameter('branin', 'x2', 'float', low => 0, high => 15);
END
$$;
\echo 'Study "branin": minimize Branin(x1, x2), x1 in [-5, 10], x2 in [0, 15], seed 2024, 30 trials'

-- The "system" under test.
CREATE FUNCTION pg_temp.branin(x1 float8, x2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT (x2 - 5.1 / (4 * pi() ^ 2) * x1 ^ 2 + 5 / pi() * x1 - 6) ^ 2
           + 10 * (1 - 1 / (8 * pi())) * cos(x1) + 10
$$;

-- The tuning loop: suggest, measure, report.  Each trial is its own
-- transaction, as it would be with a real system.
CREATE PROCEDURE pg_temp.tune(budget int)
LANGUAGE plpgsql AS $$
DECLARE
    s jsonb;
    v float8;
BEGIN
    FOR i IN 1 .. budget LOOP
        s := tuner.suggest_next('branin');
        v := pg_temp.branin((s -> 'params' ->> 'x1')::float8,
                            (s -> 'params' ->> 'x2')::float8);
        PERFORM tuner.report((s ->> 'trial')::bigint,
                             jsonb_build_object('value', v, 'distance_to_optimum', v - 0.397887));
        COMMIT;
    END LOOP;
END
$$;

\timing on
CALL pg_temp.tune(30);
\timing off
\set QUIET off

\echo
\echo 'Trials (tuner.trials):'
SELECT number,
       state,
       source,
       round((params ->> 'x1')::numeric, 4) AS x1,
       round((params ->> 'x2')::numeric, 4) AS x2,
       round(value::numeric, 4) AS value,
       round(predicted_mean::numeric, 3) AS predicted,
       round(predicted_sd::numeric, 3) AS sd,
       round(acquisition::numeric, 3) AS log_ei,
       round(min(value) OVER (ORDER BY number)::numeric, 4) AS best_so_far
  FROM tuner.trials
 WHERE study = 'branin'
 ORDER BY number;

\echo 'Best configuration (tuner.best):'
SELECT trial, round(value::numeric, 6) AS value, params
  FROM tuner.best('branin');

\echo 'Last model fit (tuner.model, unit-cube lengthscales):'
SELECT n, lengthscales::numeric(10,4)[] AS lengthscales,
       round(outputscale::numeric, 4) AS outputscale,
       round(noise::numeric, 6) AS noise,
       round(log_likelihood::numeric, 3) AS log_likelihood
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'branin' ORDER BY m.id DESC LIMIT 1;
