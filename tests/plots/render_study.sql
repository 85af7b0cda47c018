-- render_study.sql: the small real study tests/plots/test_render.sh draws.
-- Branin on [-5, 10] x [0, 15] (minimum 0.397887) plus a log-scaled
-- parameter "step" that adds 10 (log10 step + 3), 0 at its lowest value:
-- an effect monotone enough for the Lasso panel of the importance plot
-- to show over 19 trials (with (log10 step)^2 the Lasso kept nothing once
-- the failure-handling changes moved the trials), and an auxiliary metric
-- "cost" (seconds) that prefers a small step: a second objective for the
-- pareto plot and a second task for the multi-task (ICM) model whose task
-- correlations the heat map shows.  Trial 1 is the default; trial 5
-- fails.  Seeded, so every run draws the same study.
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS tuner;

SELECT tuner.create_study('branin', objective => 'value', direction => 'minimize',
                          settings => '{"seed": 42, "n_initial": 6}') > 0 AS created;
SELECT tuner.add_metric('branin', 'value', 'objective', unit => 'branin units');
SELECT tuner.add_metric('branin', 'cost', 'auxiliary', 'minimize', unit => 's');
SELECT tuner.add_parameter('branin', 'x1', 'float', low => -5, high => 10, default_value => '0');
SELECT tuner.add_parameter('branin', 'x2', 'float', low => 0, high => 15, default_value => '7.5');
SELECT tuner.add_parameter('branin', 'step', 'float', low => 0.001, high => 10,
                           log_scale => true, default_value => '1');
SELECT tuner.set_algorithm('branin', 'icm');

CREATE FUNCTION pg_temp.branin(x1 float8, x2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT (x2 - 5.1 / (4 * pi() ^ 2) * x1 ^ 2 + 5 / pi() * x1 - 6) ^ 2
           + 10 * (1 - 1 / (8 * pi())) * cos(x1) + 10
$$;

DO $$
DECLARE
    s jsonb;
    x1 float8;
    x2 float8;
    step float8;
BEGIN
    FOR i IN 1 .. 20 LOOP
        s := tuner.suggest_next('branin');
        IF i = 5 THEN
            PERFORM tuner.fail((s ->> 'trial')::bigint, 'simulated crash');
            CONTINUE;
        END IF;
        x1 := (s -> 'params' ->> 'x1')::float8;
        x2 := (s -> 'params' ->> 'x2')::float8;
        step := (s -> 'params' ->> 'step')::float8;
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
            'value', pg_temp.branin(x1, x2) + 10 * (log(step) + 3),
            'cost', 1 + 2 * (log(step) + 3) + 0.1 * x2));
    END LOOP;
END
$$;

SELECT count(*) FILTER (WHERE state = 'complete') AS complete,
       count(*) FILTER (WHERE state = 'failed') AS failed,
       round(min(value)::numeric, 3) AS best
  FROM tuner.trials WHERE study = 'branin';

-- Learning curves for the progress plot: eight trials whose loss falls as
-- final + 5 / step over ten steps; the eighth is pruned at step 3.
SELECT tuner.create_study('curves', 'loss', 'minimize', '{"seed": 9}') > 0 AS created;
SELECT tuner.add_parameter('curves', 'lr', 'float', 0, 1);
DO $$
DECLARE
    s jsonb;
    t bigint;
    final float8;
BEGIN
    FOR i IN 1 .. 8 LOOP
        s := tuner.suggest_next('curves');
        t := (s ->> 'trial')::bigint;
        final := 1 + abs((s -> 'params' ->> 'lr')::float8 - 0.3) * 4;
        FOR k IN 1 .. CASE WHEN i = 8 THEN 3 ELSE 10 END LOOP
            PERFORM tuner.report_progress(t, k, jsonb_build_object('loss', final + 5.0 / k));
        END LOOP;
        IF i = 8 THEN
            PERFORM tuner.prune(t, 'worst at step 3');
        ELSE
            PERFORM tuner.report(t, jsonb_build_object('loss', final + 0.5));
        END IF;
    END LOOP;
END
$$;
