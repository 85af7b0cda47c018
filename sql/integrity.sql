-- The trial state machine and the immutability of finished trials hold on
-- the tables themselves, whoever writes to them.
\set SHOW_CONTEXT never
\set VERBOSITY default
SELECT setval('tuner.trial_id_seq', 900, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('sm', 'y', 'minimize', '{"seed": 5}') > 0 AS created;
SELECT tuner.add_parameter('sm', 'x', 'float', 0, 1);
CREATE TEMP TABLE t AS
SELECT i, (tuner.suggest_next('sm') ->> 'trial')::bigint AS id FROM generate_series(1, 4) i;
SELECT tuner.report(id, '{"y": 1.5, "cpu": 3}') FROM t WHERE i = 1;
SELECT tuner.fail(id, 'crashed') FROM t WHERE i = 2;

-- Reporting or failing a finished trial again is an error.
SELECT tuner.report(id, '{"y": 0.5}') FROM t WHERE i = 1;
SELECT tuner.fail(id) FROM t WHERE i = 2;

-- A finished trial cannot change, even by a direct UPDATE.
UPDATE tuner.trial SET state = 'running' WHERE id = (SELECT id FROM t WHERE i = 1);
UPDATE tuner.trial SET config = '{"x": 0.9}' WHERE id = (SELECT id FROM t WHERE i = 1);
UPDATE tuner.trial SET finished_at = now() WHERE id = (SELECT id FROM t WHERE i = 2);
UPDATE tuner.trial SET state = 'complete' WHERE id = (SELECT id FROM t WHERE i = 2);
-- Its runner details may be added.
UPDATE tuner.trial SET details = '{"exit": "killed"}' WHERE id = (SELECT id FROM t WHERE i = 2);
SELECT details FROM tuner.trial WHERE id = (SELECT id FROM t WHERE i = 2);

-- Its observations are fixed.  Finished history can still be inserted, as
-- pg_restore does, but never onto a failed trial.
UPDATE tuner.observation SET value = 0 WHERE trial_id = (SELECT id FROM t WHERE i = 1);
DELETE FROM tuner.observation WHERE trial_id = (SELECT id FROM t WHERE i = 1);
SELECT tuner.add_metric('sm', 'mem', role => 'auxiliary') > 0 AS added;
INSERT INTO tuner.observation (trial_id, metric_id, value)
SELECT (SELECT id FROM t WHERE i = 1), id, 7 FROM tuner.metric WHERE name = 'mem'
   AND study_id = (SELECT id FROM tuner.study WHERE name = 'sm');
INSERT INTO tuner.observation (trial_id, metric_id, value)
SELECT (SELECT id FROM t WHERE i = 2), id, 1 FROM tuner.metric WHERE name = 'y'
   AND study_id = (SELECT id FROM tuner.study WHERE name = 'sm');

-- A running trial: its configuration and identity are fixed, it cannot go
-- back to queued, and it completes only with its objective.
UPDATE tuner.trial SET config = '{"x": 0.5}' WHERE id = (SELECT id FROM t WHERE i = 3);
UPDATE tuner.trial SET number = 99 WHERE id = (SELECT id FROM t WHERE i = 3);
UPDATE tuner.trial SET state = 'queued' WHERE id = (SELECT id FROM t WHERE i = 3);
UPDATE tuner.trial SET state = 'complete' WHERE id = (SELECT id FROM t WHERE i = 3);
-- The other transitions are allowed.
UPDATE tuner.trial SET worker = 'w1' WHERE id = (SELECT id FROM t WHERE i = 3);
UPDATE tuner.trial SET state = 'interrupted', finished_at = now() WHERE id = (SELECT id FROM t WHERE i = 3);
SELECT tuner.report(id, '{"y": 2}') FROM t WHERE i = 3;

-- Observations of a running trial may be written before it completes.
INSERT INTO tuner.observation (trial_id, metric_id, value)
SELECT (SELECT id FROM t WHERE i = 4), id, 0.25 FROM tuner.metric WHERE name = 'y'
   AND study_id = (SELECT id FROM tuner.study WHERE name = 'sm');
UPDATE tuner.trial SET state = 'complete', finished_at = now() WHERE id = (SELECT id FROM t WHERE i = 4);

SELECT number, state, value, error FROM tuner.trials WHERE study = 'sm' ORDER BY number;

-- Dropping the study removes everything (the cascades pass the guards).
SELECT tuner.drop_study('sm');
SELECT count(*) AS left_over FROM tuner.observation o
 WHERE o.trial_id IN (SELECT id FROM t);
