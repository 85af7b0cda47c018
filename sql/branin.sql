-- A small tuning study driven from SQL: Branin on [-5, 10] x [0, 15]
-- (minimum 0.397887), 15 trials with a fixed seed.  Only robust facts are
-- printed: the model phase improves on the initial design.
\set SHOW_CONTEXT never

SELECT tuner.create_study('branin', objective => 'value', direction => 'minimize',
                          settings => '{"seed": 42}') > 0 AS created;
SELECT tuner.add_parameter('branin', 'x1', 'float', low => -5, high => 10);
SELECT tuner.add_parameter('branin', 'x2', 'float', low => 0, high => 15);

CREATE FUNCTION pg_temp.branin(x1 float8, x2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT (x2 - 5.1 / (4 * pi() ^ 2) * x1 ^ 2 + 5 / pi() * x1 - 6) ^ 2
           + 10 * (1 - 1 / (8 * pi())) * cos(x1) + 10
$$;

DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 15 LOOP
        s := tuner.suggest_next('branin');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('value', pg_temp.branin((s -> 'params' ->> 'x1')::float8,
                                                       (s -> 'params' ->> 'x2')::float8)));
    END LOOP;
END
$$;

SELECT count(*) AS trials,
       count(*) FILTER (WHERE state = 'complete') AS complete,
       count(*) FILTER (WHERE source = 'design') AS design,
       count(*) FILTER (WHERE source = 'model') AS model,
       count(DISTINCT params) AS distinct_configs,
       bool_and((params ->> 'x1')::float8 BETWEEN -5 AND 10
                AND (params ->> 'x2')::float8 BETWEEN 0 AND 15) AS in_bounds
  FROM tuner.trials WHERE study = 'branin';

-- The model phase finds a better point than the space-filling design, and
-- the best value is within a few units of the optimum.
SELECT min(value) FILTER (WHERE source = 'model') < min(value) FILTER (WHERE source = 'design') AS model_improves,
       (SELECT value FROM tuner.best('branin')) < 5 AS best_below_5,
       (SELECT value FROM tuner.best('branin')) = min(value) AS best_is_min
  FROM tuner.trials WHERE study = 'branin';

-- The model table holds one fit per model suggestion.
SELECT count(*) = (SELECT count(*) FROM tuner.trials WHERE study = 'branin' AND source = 'model') AS one_fit_per_model_trial,
       bool_and(cardinality(lengthscales) = 2 AND outputscale > 0 AND noise > 0) AS fits_ok
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'branin';

SELECT tuner.drop_study('branin');
