-- strict_metrics: report refuses metric names the study does not declare
\set SHOW_CONTEXT never
SELECT tuner.create_study('sm', 'y', 'minimize', '{"seed": 1, "strict_metrics": true}') > 0 AS created;
SELECT tuner.add_parameter('sm', 'x', 'float', 0, 1);
SELECT tuner.add_metric('sm', 'latency_ms', 'constraint', 'minimize', bound => 5) > 0 AS declared;
SELECT (tuner.suggest_next('sm') ->> 'trial')::bigint AS t1 \gset
-- a typo of the constraint's name
SELECT tuner.report(:t1, '{"y": 1, "latncy_ms": 3}');
-- nothing was stored, the trial is still open
SELECT count(*) FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'sm';
SELECT state FROM tuner.trial WHERE id = :t1;
SELECT tuner.report(:t1, '{"y": 1, "latency_ms": 3}');
SELECT state FROM tuner.trial WHERE id = :t1;
-- without the setting (the default), a new name is a new recorded metric
UPDATE tuner.study SET settings = settings - 'strict_metrics' WHERE name = 'sm';
SELECT (tuner.suggest_next('sm') ->> 'trial')::bigint AS t2 \gset
SELECT tuner.report(:t2, '{"y": 2, "extra": 3}');
SELECT m.name, m.role FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'sm' ORDER BY m.name;
-- the setting is checked wherever it is set
SELECT tuner.create_study('sm2', 'y', 'minimize', '{"strict_metrics": "yes"}');
UPDATE tuner.study SET settings = settings || '{"strict_metrics": 1}' WHERE name = 'sm';
SELECT tuner.create_study('sm3', 'y', 'minimize', '{"strict_metric": true}');
SELECT tuner.drop_study('sm');
