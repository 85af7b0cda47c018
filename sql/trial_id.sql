-- trial ids and trial numbers
\set SHOW_CONTEXT never
-- (ids above every other test's, so that the trial named below is this
-- study's whatever ran before)
SELECT setval('tuner.trial_id_seq', 90000, false) IS NOT NULL AS restarted;
SELECT tuner.create_study('tid', 'y', 'minimize', '{"seed": 2}') > 0 AS created;
SELECT tuner.add_parameter('tid', 'x', 'float', 0, 1);
SELECT (tuner.suggest_next('tid') ->> 'trial')::bigint AS t1 \gset
SELECT (tuner.suggest_next('tid') ->> 'trial')::bigint AS t2 \gset
SELECT tuner.trial_id('tid', 2) = :t2 AS same_id;
SELECT tuner.trial_id('tid', 3);
SELECT tuner.trial_id('tid', NULL);
SELECT tuner.trial_id('nope', 1);
-- a number passed where an id is expected: the error says which trial has it
SELECT tuner.report(2, '{"y": 1}');
SELECT tuner.fail(2);
SELECT tuner.heartbeat(2);
SELECT tuner.report(99, '{"y": 1}');
SELECT tuner.report(tuner.trial_id('tid', 1), '{"y": 1}');
SELECT tuner.report(:t1, '{"y": 1}');
SELECT tuner.drop_study('tid');
SELECT tuner.create_study('tid_empty', 'y') > 0 AS created;
SELECT tuner.trial_id('tid_empty', 1);
SELECT tuner.drop_study('tid_empty');
