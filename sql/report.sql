-- report and fail: every metric is kept, the objective is required, and
-- every error; best() in both directions; the tuner.trials view.
\set SHOW_CONTEXT never
-- Trial ids appear in error messages: make them independent of other tests.
SELECT setval('tuner.trial_id_seq', 100, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('lat', 'latency_ms', 'minimize', '{"seed": 21}') > 0 AS created;
SELECT tuner.add_parameter('lat', 'x', 'float', 0, 10);
SELECT tuner.create_study('ops', 'ops', 'maximize', '{"seed": 22}') > 0 AS created;
SELECT tuner.add_parameter('ops', 'x', 'float', 0, 10);

CREATE TEMP TABLE t AS
SELECT study, i, (tuner.suggest_next(study) ->> 'trial')::bigint AS id
  FROM (VALUES ('lat'), ('ops')) v(study), generate_series(1, 4) i;

-- Reports with several metrics; the same numbers for both studies.
SELECT tuner.report(id, jsonb_build_object(
           CASE study WHEN 'lat' THEN 'latency_ms' ELSE 'ops' END,
           (ARRAY[5.5, 2.25, 9.0, 2.25])[i],
           'cpu', i * 10, 'p99_ms', i + 0.5))
  FROM t WHERE i <= 3 ORDER BY study, i;
SELECT tuner.fail(id, 'out of memory') FROM t WHERE i = 4 ORDER BY study;

SELECT study, number, state, value, metrics, error,
       started_at IS NOT NULL AS started, finished_at >= started_at AS finished
  FROM tuner.trials ORDER BY study, number;

-- Every metric is kept, in long format; new metrics are registered.
SELECT s.name, m.name AS metric, m.role, count(o.*) AS observations
  FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
  LEFT JOIN tuner.observation o ON o.metric_id = m.id
 GROUP BY s.name, m.name, m.role ORDER BY s.name, m.name;

-- best() respects the direction.
SELECT b.trial = (SELECT id FROM t WHERE study = 'lat' AND i = 2) AS is_trial_2, b.value
  FROM tuner.best('lat') b;
SELECT b.trial = (SELECT id FROM t WHERE study = 'ops' AND i = 3) AS is_trial_3, b.value
  FROM tuner.best('ops') b;
SELECT (SELECT params FROM tuner.best('lat')) =
       (SELECT params FROM tuner.trials WHERE trial = (SELECT id FROM t WHERE study = 'lat' AND i = 2)) AS params_match;
SELECT name, best_value, trials, complete FROM tuner.studies ORDER BY name;

-- A study without complete trials has no best.
SELECT tuner.create_study('none', 'v') > 0 AS created;
SELECT * FROM tuner.best('none');

-- Errors of report: unknown and finished trials, NULLs, missing
-- objective, non-numeric, NaN, infinite and out-of-range values.
SELECT (tuner.suggest_next('lat') ->> 'trial')::bigint AS open_trial \gset
SELECT tuner.report(-1, '{"latency_ms": 1}');
SELECT tuner.report((SELECT id FROM t WHERE study = 'lat' AND i = 1), '{"latency_ms": 1}');
SELECT tuner.report((SELECT id FROM t WHERE study = 'lat' AND i = 4), '{"latency_ms": 1}');
SELECT tuner.report(NULL, '{"latency_ms": 1}');
SELECT tuner.report(:open_trial, NULL);
SELECT tuner.report(:open_trial, '[1, 2]');
SELECT tuner.report(:open_trial, '5');
SELECT tuner.report(:open_trial, '{}');
SELECT tuner.report(:open_trial, '{"cpu": 3}');
SELECT tuner.report(:open_trial, '{"latency_ms": "fast"}');
SELECT tuner.report(:open_trial, '{"latency_ms": null}');
SELECT tuner.report(:open_trial, '{"latency_ms": [1]}');
SELECT tuner.report(:open_trial, '{"latency_ms": 1, "cpu": true}');
SELECT tuner.report(:open_trial, '{"latency_ms": "NaN"}');
SELECT tuner.report(:open_trial, '{"latency_ms": "Infinity"}');
SELECT tuner.report(:open_trial, jsonb_build_object('latency_ms', 'NaN'::float8));
SELECT tuner.report(:open_trial, '{"latency_ms": 1, "cpu": "-inf"}');
SELECT tuner.report(:open_trial, '{"latency_ms": 1e400}');
SELECT tuner.report(:open_trial, '{"latency_ms": 1, "": 2}');

-- The failed calls changed nothing.
SELECT state, metrics FROM tuner.trials WHERE trial = :open_trial;

-- Errors of fail.
SELECT tuner.fail(-1, 'x');
SELECT tuner.fail(NULL, 'x');
SELECT tuner.fail((SELECT id FROM t WHERE study = 'lat' AND i = 1), 'late');
SELECT tuner.fail((SELECT id FROM t WHERE study = 'lat' AND i = 4), 'again');

-- fail without a reason, then report on the failed trial.
SELECT tuner.fail(:open_trial);
SELECT tuner.report(:open_trial, '{"latency_ms": 1}');
SELECT state, error FROM tuner.trials WHERE trial = :open_trial;

-- The view's stable columns.
SELECT column_name FROM information_schema.columns
 WHERE table_schema = 'tuner' AND table_name = 'trials' ORDER BY ordinal_position;

SELECT tuner.drop_study(name) FROM tuner.study ORDER BY name;
