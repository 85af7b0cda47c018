-- Unordered categorical parameters: the GP measures a categorical of three
-- or more choices by whether two trials chose the same label (an overlap
-- distance), not by the distance between the labels' positions, and the
-- acquisition tries every label.  The best label here is in the middle of
-- the list and much better than its neighbours.  Only robust facts are
-- printed, and each model's lengthscale of the categorical parameter.
\set SHOW_CONTEXT never

CREATE FUNCTION pg_temp.objective(params jsonb) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT ((params ->> 'x')::float8 - 0.7) ^ 2
           + CASE params ->> 'engine' WHEN 'alpha' THEN 1.0 WHEN 'beta' THEN 0.9
                                      WHEN 'gamma' THEN 0.0 WHEN 'delta' THEN 1.1
                                      ELSE 0.8 END
           + CASE WHEN (params ->> 'cache')::bool THEN 0.0 ELSE 0.3 END
$$;

-- GP-EI
SELECT tuner.create_study('cat_gp', objective => 'value', direction => 'minimize',
                          settings => '{"seed": 7, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('cat_gp', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('cat_gp', 'engine', 'categorical',
                           choices => ARRAY['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
SELECT tuner.add_parameter('cat_gp', 'cache', 'bool');

DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 20 LOOP
        s := tuner.suggest_next('cat_gp');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('value', pg_temp.objective(s -> 'params')));
    END LOOP;
END
$$;

-- The best trial has the middle label, and the model's steps keep to it.
SELECT b.params ->> 'engine' AS best_engine,
       (b.params ->> 'cache')::bool AS best_cache,
       b.value < 0.02 AS near_optimum
  FROM tuner.best('cat_gp') b;
SELECT count(*) FILTER (WHERE source = 'model') AS model_trials,
       count(*) FILTER (WHERE source = 'model' AND params ->> 'engine' = 'gamma')
         >= 0.6 * count(*) FILTER (WHERE source = 'model') AS mostly_gamma,
       count(DISTINCT params ->> 'engine') AS labels_tried
  FROM tuner.trials WHERE study = 'cat_gp';

-- The model table reports the categorical's lengthscale on the overlap
-- distance: two different labels are at distance 1, so the kernel's
-- correlation between two trials that differ only in the label is
-- k52(1 / lengthscale), whichever two labels they are.
CREATE FUNCTION pg_temp.k52(r float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT (1 + sqrt(5) * r + 5 * r * r / 3) * exp(-sqrt(5) * r)
$$;
SELECT m.n, m.kind,
       round(l::numeric, 2) AS engine_lengthscale,
       round(pg_temp.k52(1 / l)::numeric, 2) AS label_correlation,
       l BETWEEN 0.005 AND 200 AS in_bounds
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 CROSS JOIN LATERAL (SELECT m.lengthscales[array_position(m.parameters, 'engine')]) AS e(l)
 WHERE s.name = 'cat_gp' AND m.n IN (4, 10, 19)
 ORDER BY m.n;

-- ICM with an auxiliary metric that tracks the objective
SELECT tuner.create_study('cat_icm', objective => 'value', direction => 'minimize',
                          settings => '{"seed": 11, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('cat_icm', 'x', 'float', low => 0, high => 1);
SELECT tuner.add_parameter('cat_icm', 'engine', 'categorical',
                           choices => ARRAY['alpha', 'beta', 'gamma', 'delta', 'epsilon']);
SELECT tuner.add_parameter('cat_icm', 'cache', 'bool');
SELECT tuner.add_metric('cat_icm', 'latency') > 0 AS added;
SELECT tuner.set_algorithm('cat_icm', 'icm');

DO $$
DECLARE
    s jsonb;
    v float8;
BEGIN
    FOR i IN 1 .. 16 LOOP
        s := tuner.suggest_next('cat_icm');
        v := pg_temp.objective(s -> 'params');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('value', v, 'latency', 2 * v + 0.1 * (s -> 'params' ->> 'x')::float8));
    END LOOP;
END
$$;

SELECT b.params ->> 'engine' AS best_engine, b.value < 0.1 AS near_optimum
  FROM tuner.best('cat_icm') b;
SELECT m.n, m.kind, m.tasks,
       m.lengthscales[array_position(m.parameters, 'engine')] BETWEEN 0.005 AND 200 AS engine_lengthscale_in_bounds
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'cat_icm' AND m.kind = 'icm'
 ORDER BY m.n DESC LIMIT 1;

SELECT tuner.drop_study('cat_gp');
SELECT tuner.drop_study('cat_icm');
