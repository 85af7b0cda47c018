-- Studies: creation, settings, the objective metric, the studies view,
-- drop_study, and every error of create_study.
\set SHOW_CONTEXT never

SELECT tuner.create_study('s1', 'latency', 'minimize', '{"seed": 7}') > 0 AS created;
SELECT tuner.create_study('s2', objective => 'throughput') > 0 AS created;

SELECT name, objective, direction, settings, parameters, trials, complete, best_value
  FROM tuner.studies ORDER BY name;
SELECT seed FROM tuner.studies WHERE name = 's1';

-- The objective is registered as a metric of the study.
SELECT s.name, m.name AS metric, m.role, m.direction
  FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id ORDER BY s.name;

-- A study without a seed gets one that is fixed at creation.
SELECT seed IS NOT NULL AS has_seed FROM tuner.study WHERE name = 's2';

-- Errors: duplicate names, bad direction, bad settings, NULLs, empty names.
SELECT tuner.create_study('s1', 'latency');
SELECT tuner.create_study('s3', 'latency', 'fastest');
SELECT tuner.create_study('s3', 'latency', 'minimize', '{"sed": 1}');
SELECT tuner.create_study('s3', 'latency', 'minimize', '[1, 2]');
SELECT tuner.create_study('s3', 'latency', 'minimize', '{"seed": 1.5}');
SELECT tuner.create_study('s3', 'latency', 'minimize', '{"seed": "42"}');
SELECT tuner.create_study('s3', 'latency', 'minimize', '{"n_initial": 0}');
SELECT tuner.create_study(NULL, 'latency');
SELECT tuner.create_study('s3', NULL);
SELECT tuner.create_study('s3', 'latency', NULL);
SELECT tuner.create_study('s3', 'latency', 'minimize', NULL);
SELECT tuner.create_study('', 'latency');
SELECT tuner.create_study('s3', ' ');

-- drop_study removes the study and everything that belongs to it.
SELECT tuner.drop_study('s2');
SELECT name FROM tuner.studies ORDER BY name;
SELECT count(*) FROM tuner.metric m
 WHERE NOT EXISTS (SELECT 1 FROM tuner.study s WHERE s.id = m.study_id);
SELECT tuner.drop_study('s2');
SELECT tuner.drop_study(NULL);

-- Unknown studies are errors everywhere.
SELECT tuner.add_parameter('nope', 'x', 'float', 0, 1);
SELECT tuner.suggest_next('nope');
SELECT * FROM tuner.best('nope');
SELECT tuner.suggest_next(NULL);

-- The user tables are dumped by pg_dump.
SELECT c.relname
  FROM pg_extension e, unnest(e.extconfig) AS cfg(oid)
  JOIN pg_class c ON c.oid = cfg.oid
 WHERE e.extname = 'tuner' ORDER BY c.relname;

SELECT tuner.drop_study('s1');
