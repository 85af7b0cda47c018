-- render_constrained.sql: the second study tests/plots/test_render.sh
-- draws, made to put data where a careless legend goes.  A maximised
-- throughput that grows with the trial number (so the best-so-far steps
-- and the highest points end in the top right corner), an outcome
-- constraint p99 <= 10 ms that the two highest trials break (so the best
-- trial of tuner.best is not the highest point), a categorical parameter
-- whose "hash" trials all measure the same throughput (eight trials at one
-- value: drawn at one x they are one dot), and a memory metric rising with
-- throughput (the pareto plot's points run to the top right).  The 24
-- configurations are queued, so no model chooses them; then only engine
-- and threads stay enabled and the default and model steps follow until
-- a GP is fitted without cache (an importance plot with a parameter the
-- model left out).  No randomness: every run draws the same study.
\set ON_ERROR_STOP on
CREATE EXTENSION IF NOT EXISTS tuner;

SELECT tuner.create_study('constrained', objective => 'throughput', direction => 'maximize',
                          settings => '{"seed": 11, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_metric('constrained', 'throughput', 'objective', unit => 'ops/s') > 0 AS declared;
SELECT tuner.add_metric('constrained', 'p99', 'constraint', 'minimize', unit => 'ms', bound => 10) > 0 AS declared;
SELECT tuner.add_metric('constrained', 'memory', 'auxiliary', 'minimize', unit => 'MB') > 0 AS declared;
SELECT tuner.add_parameter('constrained', 'engine', 'categorical',
                           choices => ARRAY['lsm', 'btree', 'hash'], default_value => 'lsm');
SELECT tuner.add_parameter('constrained', 'threads', 'int', low => 1, high => 64, default_value => '8');
SELECT tuner.add_parameter('constrained', 'cache', 'float', low => 1, high => 1024,
                           log_scale => true, default_value => '64');

-- Trial i: engine lsm, btree, hash in turn; hash always 1500 ops/s.
CREATE FUNCTION pg_temp.engine(i int) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT (ARRAY['lsm', 'btree', 'hash'])[(i - 1) % 3 + 1] $$;
CREATE FUNCTION pg_temp.throughput(i int) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN pg_temp.engine(i) = 'hash' THEN 1500
                ELSE 1000 + 80 * i + 60 * sin(i) END
$$;

DO $$
DECLARE
    s jsonb;
    i int;
BEGIN
    FOR i IN 1 .. 24 LOOP
        PERFORM tuner.enqueue('constrained', jsonb_build_object(
            'engine', pg_temp.engine(i), 'threads', 1 + (i * 37) % 64,
            'cache', round((2 ^ (i % 10))::numeric, 1)));
    END LOOP;
    FOR i IN 1 .. 24 LOOP
        s := tuner.suggest_next('constrained');
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
            'throughput', pg_temp.throughput(i),
            'p99', CASE WHEN i IN (22, 23) THEN 14 ELSE 4 + (i % 5) END,
            'memory', 100 + 0.2 * pg_temp.throughput(i) + 40 * cos(3 * i)));
    END LOOP;
    -- then the default and model steps over two of the three parameters,
    -- until a GP has been fitted
    PERFORM tuner.enable_parameters('constrained', ARRAY['engine', 'threads']);
    FOR i IN 1 .. 8 LOOP
        s := tuner.suggest_next('constrained');
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object(
            'throughput', 900 + 10 * (s -> 'params' ->> 'threads')::int,
            'p99', 5, 'memory', 300));
        EXIT WHEN EXISTS (SELECT 1 FROM tuner.model m JOIN tuner.study st ON st.id = m.study_id
                           WHERE st.name = 'constrained' AND m.kind = 'gp');
    END LOOP;
END
$$;

SELECT count(*) FILTER (WHERE state = 'complete') AS complete,
       count(*) FILTER (WHERE constraints_met IS FALSE) AS broke_constraint,
       round(max(value)::numeric, 1) AS highest
  FROM tuner.trials WHERE study = 'constrained';
SELECT t.number, round(b.value::numeric, 1) AS best
  FROM tuner.best('constrained') b JOIN tuner.trials t ON t.trial = b.trial;
