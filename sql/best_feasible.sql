-- best_feasible: every "best" of tuner agrees with tuner.best on a study
-- with outcome constraints (issue 26, item 4): the best_so_far of the
-- views of create_view, tuner.studies and tuner.progress, tuner.recommend,
-- the convergence, slice and pareto plots, and the NOTIFY payload.  The
-- trial with the lowest latency broke a constraint; so did three others,
-- one by not reporting a constraint metric.  The reference for each row
-- is computed here from tuner.trials.constraints_met (its own
-- implementation).  Then the importance plot of a study with a disabled
-- parameter (item 3).
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 12000, false) IS NOT NULL AS restarted;
SELECT setval('tuner.study_id_seq', 12000, false) IS NOT NULL AS restarted;
-- earlier tests' stale trials are settled now, not in the listener
SELECT tuner._reconcile() >= 0 AS reconciled;

CREATE FUNCTION pg_temp.occurrences(haystack text, needle text) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
    SELECT (length(haystack) - length(replace(haystack, needle, ''))) / length(needle)
$$;

SELECT tuner.create_study('agree', 'latency', 'minimize', '{"seed": 4}') > 0 AS created;
SELECT tuner.add_metric('agree', 'errors', 'constraint', 'minimize', bound => 1) > 0 AS declared;
SELECT tuner.add_metric('agree', 'qps', 'constraint', 'maximize', bound => 100) > 0 AS declared;
SELECT tuner.add_parameter('agree', 'x', 'float', 0, 10);
SELECT tuner.add_parameter('agree', 'mode', 'categorical', choices => ARRAY['a', 'b']);

-- number: x, mode -> latency, errors, qps
--  1: 5, a -> 50, 0, 200      feasible
--  2: 1, a -> 10, 5, 200      broke errors <= 1 (the lowest latency)
--  3: 3, b -> 30, 0, 150      feasible: the best
--  4: 2, b -> 20, 0, 50       broke qps >= 100
--  5: 7, a    failed
--  6: 2.5, a -> 25, -, 200    did not report errors: not met
--  7: 8, b -> 80, 0, 300      feasible
--  8: 1.2, b -> 12, 3, 180    broke errors <= 1
DO $$
DECLARE
    r record;
    s jsonb;
BEGIN
    FOR r IN SELECT * FROM (VALUES
        (5, 'a', '{"latency": 50, "errors": 0, "qps": 200}'::jsonb),
        (1, 'a', '{"latency": 10, "errors": 5, "qps": 200}'),
        (3, 'b', '{"latency": 30, "errors": 0, "qps": 150}'),
        (2, 'b', '{"latency": 20, "errors": 0, "qps": 50}'),
        (7, 'a', NULL),
        (2.5, 'a', '{"latency": 25, "qps": 200}'),
        (8, 'b', '{"latency": 80, "errors": 0, "qps": 300}'),
        (1.2, 'b', '{"latency": 12, "errors": 3, "qps": 180}')) v(x, mode, metrics)
    LOOP
        PERFORM tuner.enqueue('agree', jsonb_build_object('x', r.x, 'mode', r.mode));
        s := tuner.suggest_next('agree');
        IF r.metrics IS NULL THEN
            PERFORM tuner.fail((s ->> 'trial')::bigint, 'crashed');
        ELSE
            PERFORM tuner.report((s ->> 'trial')::bigint, r.metrics);
        END IF;
    END LOOP;
END
$$;

SELECT number, state, value, constraints_met FROM tuner.trials WHERE study = 'agree' ORDER BY number;
SELECT t.number, b.value FROM tuner.best('agree') b JOIN tuner.trials t ON t.trial = b.trial;

-- The view's best_so_far: at each trial the best latency of the trials up
-- to it that met every constraint.
SELECT tuner.create_view('agree');
SELECT v.number, v.objective, v.best_so_far,
       v.best_so_far IS NOT DISTINCT FROM (
           SELECT min(t.value) FROM tuner.trials t
            WHERE t.study = 'agree' AND t.number <= v.number AND t.state = 'complete'
              AND t.constraints_met IS NOT FALSE) AS agrees
  FROM tuner.agree_trials v ORDER BY v.number;
SELECT (SELECT best_so_far FROM tuner.agree_trials ORDER BY number DESC LIMIT 1)
       = (SELECT value FROM tuner.best('agree')) AS view_ends_at_best;

-- tuner.studies and tuner.progress (a trial left running)
SELECT best_value, best_value = (SELECT value FROM tuner.best('agree')) AS agrees
  FROM tuner.studies WHERE name = 'agree';
SELECT (tuner.suggest_next('agree') ->> 'trial')::bigint AS running \gset
SELECT number, best_value, best_value = (SELECT value FROM tuner.best('agree')) AS agrees
  FROM tuner.progress WHERE study = 'agree';

-- tuner.recommend keeps a trial best may choose: the GP fitted to every
-- complete trial predicts lowest near x = 1, where trials 2 and 8 broke
-- the errors constraint
SELECT t.number, t.constraints_met IS NOT FALSE AS met_constraints
  FROM tuner.recommend('agree') r JOIN tuner.trials t ON t.trial = r.trial;

-- The plots: the best-so-far line ends at best's value; the four trials
-- that broke a constraint are rings, the failed one a cross; the slice
-- plot's best trial is best's; no trial that broke a constraint is on the
-- pareto front.
WITH p AS (SELECT tuner.plot('agree', 'convergence') AS svg)
SELECT svg LIKE '%best so far: 30</title>%' AS best_line_at_best,
       pg_temp.occurrences(svg, '(broke a constraint)</title>') AS rings,
       pg_temp.occurrences(svg, 'failed</title>') AS crosses
  FROM p;
WITH p AS (SELECT tuner.plot('agree', 'slice', '{"parameter": "x"}') AS svg)
SELECT svg LIKE '%r="5.50" fill="#d62728"><title>trial 3: %' AS best_trial_highlighted,
       pg_temp.occurrences(svg, 'r="5.50"') AS highlighted,
       pg_temp.occurrences(svg, '(broke a constraint)</title>') AS rings
  FROM p;
WITH p AS (SELECT tuner.plot('agree', 'slice', '{"parameter": "mode"}') AS svg)
SELECT svg LIKE '%r="5.50" fill="#d62728"><title>trial 3: %' AS best_trial_highlighted
  FROM p;
WITH p AS (SELECT tuner.plot('agree', 'pareto', '{"x": "latency", "y": "qps"}') AS svg)
SELECT pg_temp.occurrences(svg, '(non-dominated)') AS front,
       svg LIKE '%trial 1 (non-dominated)%' AND svg LIKE '%trial 3 (non-dominated)%'
           AND svg LIKE '%trial 7 (non-dominated)%' AS feasible_front,
       pg_temp.occurrences(svg, '(broke a constraint)</title>') AS rings
  FROM p;

-- NOTIFY (tuner.notify = full): "feasible" and "best" as tuner.best
-- decides.  A second session listens (sql/best_feasible_listen.psql).
SELECT (tuner.suggest_next('agree') ->> 'trial')::bigint AS low \gset
\setenv TUNER_DB :DBNAME
\setenv TUNER_TRIALS :running,:low
\! psql -X -q -d "$TUNER_DB" -f sql/best_feasible_listen.psql 2>&1 | sed -E 's/PID [0-9]+/PID N/'
SELECT t.number, b.value FROM tuner.best('agree') b JOIN tuner.trials t ON t.trial = b.trial;
SELECT best_so_far FROM tuner.agree_trials ORDER BY number DESC LIMIT 1;

-- copy_trials' {"best": 2}: the two best feasible trials (9 and 3;
-- not 2, 8 or 4, whose latencies are as low or lower but broke a constraint)
SELECT tuner.create_study('agree_copy', 'latency', 'minimize', '{"seed": 4}') > 0 AS created;
SELECT tuner.add_parameter('agree_copy', 'x', 'float', 0, 10);
SELECT tuner.add_parameter('agree_copy', 'mode', 'categorical', choices => ARRAY['a', 'b']);
SELECT tuner.copy_trials('agree', 'agree_copy', '{"best": 2}') ->> 'copied' AS copied;
SELECT t.details -> 'copied_from' ->> 'number' AS from_number
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id
 WHERE s.name = 'agree_copy' ORDER BY t.number;
SELECT tuner.drop_study('agree_copy');

DROP VIEW tuner.agree_trials;
SELECT tuner.drop_study('agree');

-- Item 3: the importance plot of a study with a disabled parameter.  The
-- model of the last suggestion was fitted without c (enable_parameters),
-- so c has no length-scale: "not in the model", not an error.
SELECT tuner.create_study('narrowed', 'y', 'minimize', '{"seed": 9, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('narrowed', 'a', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('narrowed', 'b', 'float', 0, 1, default_value => '0.5');
SELECT tuner.add_parameter('narrowed', 'c', 'float', 0, 1, default_value => '0.5');
DO $$
DECLARE
    s jsonb;
BEGIN
    FOR i IN 1 .. 10 LOOP
        IF i = 8 THEN
            PERFORM tuner.enable_parameters('narrowed', ARRAY['a', 'b']);
        END IF;
        s := tuner.suggest_next('narrowed');
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object('y',
            ((s -> 'params' ->> 'a')::float8 - 0.3) ^ 2 + 0.5 * (s -> 'params' ->> 'b')::float8
            + 0.1 * (s -> 'params' ->> 'c')::float8));
    END LOOP;
END
$$;
SELECT m.parameters FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'narrowed' AND m.kind = 'gp' ORDER BY m.id DESC LIMIT 1;
WITH p AS (SELECT tuner.plot('narrowed', 'importance', '{"method": "lengthscale"}') AS svg)
SELECT pg_temp.occurrences(svg, '>not in the model</text>') AS left_out,
       pg_temp.occurrences(svg, '<rect') - 1 AS bars
  FROM p;
SELECT tuner.plot('narrowed', 'importance') LIKE '%>not in the model</text>%' AS auto_method_too;
SELECT tuner.drop_study('narrowed');
