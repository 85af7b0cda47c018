-- suggest_next: the default trial, value types, bounds, seeded
-- reproducibility, pending trials, exhaustion, and its errors.
\set SHOW_CONTEXT never

-- Every parameter has a default: trial 1 is the default configuration.
SELECT tuner.create_study('d', 'score', 'maximize', '{"seed": 11}') > 0 AS created;
SELECT tuner.add_parameter('d', 'rate', 'float', 0.001, 1, default_value => '0.01', log_scale => true);
SELECT tuner.add_parameter('d', 'threads', 'int', 1, 64, default_value => '8');
SELECT tuner.add_parameter('d', 'compress', 'bool', default_value => 'false');
SELECT tuner.add_parameter('d', 'engine', 'categorical', choices => ARRAY['lsm', 'btree', 'hash'], default_value => 'btree');

CREATE TEMP TABLE first AS SELECT tuner.suggest_next('d') AS s;
SELECT s -> 'params' AS params FROM first;
SELECT (SELECT (s ->> 'trial')::bigint FROM first) = t.id AS trial_is_id, t.config
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'd';
SELECT number, state, source, seed IS NOT NULL AS has_seed, started_at IS NOT NULL AS started
  FROM tuner.trials WHERE study = 'd' ORDER BY number;

-- Later trials are not the default; ints come back as JSON integers,
-- categoricals as labels, bools as JSON booleans, all inside the bounds.
CREATE TEMP TABLE sugg AS
SELECT i, tuner.suggest_next('d') AS s FROM generate_series(1, 12) i;
SELECT count(*) AS n,
       bool_and(jsonb_typeof(s -> 'params' -> 'rate') = 'number') AS rate_number,
       bool_and((s -> 'params' ->> 'rate')::float8 BETWEEN 0.001 AND 1) AS rate_in_bounds,
       bool_and(jsonb_typeof(s -> 'params' -> 'threads') = 'number'
                AND (s -> 'params' ->> 'threads') ~ '^[0-9]+$') AS threads_integer,
       bool_and((s -> 'params' ->> 'threads')::int BETWEEN 1 AND 64) AS threads_in_bounds,
       bool_and(jsonb_typeof(s -> 'params' -> 'compress') = 'boolean') AS compress_boolean,
       bool_and(s -> 'params' ->> 'engine' IN ('lsm', 'btree', 'hash')) AS engine_label,
       count(DISTINCT s -> 'params') AS distinct_configs
  FROM sugg;

-- Pending (running) trials are taken into account: all 13 differ.
SELECT count(DISTINCT params) AS distinct_running, count(*) AS running
  FROM tuner.trials WHERE study = 'd' AND state = 'running';
SELECT source, count(*) FROM tuner.trials WHERE study = 'd' GROUP BY source ORDER BY source;

-- A study whose parameters do not all have defaults starts with the design.
SELECT tuner.create_study('nodefault', 'v', 'minimize', '{"seed": 3}') > 0 AS created;
SELECT tuner.add_parameter('nodefault', 'a', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('nodefault', 'b', 'float', 0, 1);
SELECT (tuner.suggest_next('nodefault') -> 'params') ->> 'b' IS NOT NULL AS has_b;
SELECT number, source FROM tuner.trials WHERE study = 'nodefault';

-- Same seed, same history: the same suggestions, in the model phase too.
-- The objective is a smooth function of the parameters, so that both
-- studies see exactly the same reports.
SELECT tuner.create_study('r1', 'y', 'minimize', '{"seed": 99, "n_initial": 4}') > 0 AS created;
SELECT tuner.create_study('r2', 'y', 'minimize', '{"seed": 99, "n_initial": 4}') > 0 AS created;
SELECT tuner.create_study('r3', 'y', 'minimize', '{"seed": 100, "n_initial": 4}') > 0 AS created;
DO $$
DECLARE
    st text;
    s jsonb;
    a float8;
    b int;
BEGIN
    FOREACH st IN ARRAY ARRAY['r1', 'r2', 'r3'] LOOP
        PERFORM tuner.add_parameter(st, 'a', 'float', -2, 2);
        PERFORM tuner.add_parameter(st, 'b', 'int', 0, 20);
        PERFORM tuner.add_parameter(st, 'c', 'categorical', choices => ARRAY['x', 'y', 'z']);
        FOR i IN 1 .. 8 LOOP
            s := tuner.suggest_next(st);
            a := (s -> 'params' ->> 'a')::float8;
            b := (s -> 'params' ->> 'b')::int;
            PERFORM tuner.report((s ->> 'trial')::bigint,
                jsonb_build_object('y', (a - 0.3) ^ 2 + ((b - 7) / 10.0) ^ 2
                                        + CASE s -> 'params' ->> 'c' WHEN 'y' THEN 0 ELSE 0.5 END));
        END LOOP;
    END LOOP;
END
$$;
SELECT count(*) AS compared,
       count(*) FILTER (WHERE t1.params = t2.params AND t1.seed = t2.seed) AS identical,
       count(*) FILTER (WHERE t1.source = 'model') AS model_trials
  FROM tuner.trials t1 JOIN tuner.trials t2 USING (number)
 WHERE t1.study = 'r1' AND t2.study = 'r2';
-- Another seed gives other suggestions.
SELECT count(*) FILTER (WHERE t1.params <> t3.params) > 0 AS differs
  FROM tuner.trials t1 JOIN tuner.trials t3 USING (number)
 WHERE t1.study = 'r1' AND t3.study = 'r3';

-- Model trials record what the model predicted and a model row.
SELECT number, source,
       predicted_mean IS NOT NULL AS has_mean,
       predicted_sd >= 0 AS sd_ok,
       acquisition IS NOT NULL AS has_acq
  FROM tuner.trials WHERE study = 'r1' ORDER BY number;
SELECT m.kind, m.n, cardinality(m.lengthscales) AS dims,
       m.outputscale > 0 AS outputscale_ok, m.noise > 0 AS noise_ok,
       m.trial_id = t.id AS for_trial
  FROM tuner.model m JOIN tuner.trial t ON t.id = m.trial_id
  JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'r1' ORDER BY m.id;

-- Pending trials in the model phase: three suggestions without reports
-- are three different configurations, each different from the history.
CREATE TEMP TABLE pending AS
SELECT i, tuner.suggest_next('r1') AS s FROM generate_series(1, 3) i;
SELECT count(DISTINCT s -> 'params') AS distinct_pending,
       bool_and(NOT EXISTS (SELECT 1 FROM tuner.trials t
                             WHERE t.study = 'r1' AND t.state = 'complete'
                               AND t.params = p.s -> 'params')) AS all_new
  FROM pending p;
SELECT source, state, count(*) FROM tuner.trials
 WHERE study = 'r1' AND number > 8 GROUP BY source, state;

-- For a maximized objective the prediction is in the objective's units.
SELECT tuner.create_study('maxi', 'ops', 'maximize', '{"seed": 5, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('maxi', 'a', 'float', 0, 1);
DO $$
DECLARE s jsonb;
BEGIN
    FOR i IN 1 .. 7 LOOP
        s := tuner.suggest_next('maxi');
        PERFORM tuner.report((s ->> 'trial')::bigint,
            jsonb_build_object('ops', 1000 + 100 * sin(6 * (s -> 'params' ->> 'a')::float8)));
    END LOOP;
END
$$;
SELECT number, source, predicted_mean BETWEEN 700 AND 1300 AS mean_in_units
  FROM tuner.trials WHERE study = 'maxi' AND source = 'model' ORDER BY number;

-- A finite space runs out: one bool has two configurations.
SELECT tuner.create_study('tiny', 'v', 'minimize', '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('tiny', 'flag', 'bool');
SELECT jsonb_typeof(tuner.suggest_next('tiny') -> 'params' -> 'flag');
SELECT jsonb_typeof(tuner.suggest_next('tiny') -> 'params' -> 'flag');
SELECT count(DISTINCT params) FROM tuner.trials WHERE study = 'tiny';
SELECT tuner.suggest_next('tiny');

-- Failed trials are never suggested again either.
SELECT tuner.create_study('tiny2', 'v', 'minimize', '{"seed": 1}') > 0 AS created;
SELECT tuner.add_parameter('tiny2', 'mode', 'categorical', choices => ARRAY['a', 'b']);
SELECT tuner.fail((tuner.suggest_next('tiny2') ->> 'trial')::bigint, 'crashed');
SELECT tuner.fail((tuner.suggest_next('tiny2') ->> 'trial')::bigint, 'crashed');
SELECT tuner.suggest_next('tiny2');

-- A study needs parameters.
SELECT tuner.create_study('empty', 'v') > 0 AS created;
SELECT tuner.suggest_next('empty');

-- Only this test's studies: the tests run in any order (sql/*.sql).
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('d', 'empty', 'maxi', 'nodefault', 'r1', 'r2', 'r3', 'tiny', 'tiny2') ORDER BY name;
