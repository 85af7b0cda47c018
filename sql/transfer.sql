-- Transfer: the trials of earlier studies enter the multi-task model as
-- tasks of their own; the settings' errors.
\set SHOW_CONTEXT never

-- An earlier study on "other hardware": throughput, maximised, on another
-- scale; 20 random trials.
SELECT tuner.create_study('old_hw', 'tput', 'maximize', '{"seed": 4}') > 0 AS created;
SELECT tuner.add_parameter('old_hw', 'a', 'float', 0, 1);
SELECT tuner.add_parameter('old_hw', 'b', 'float', 0, 1);
SELECT tuner.add_parameter('old_hw', 'mode', 'categorical', choices => ARRAY['x', 'y']);
SELECT tuner.set_algorithm('old_hw', 'random');
DO $$
DECLARE
    s jsonb;
    p jsonb;
BEGIN
    FOR i IN 1 .. 20 LOOP
        s := tuner.suggest_next('old_hw');
        p := s -> 'params';
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object('tput',
            500 - 300 * (((p ->> 'a')::float8 - 0.3) ^ 2 + ((p ->> 'b')::float8 - 0.7) ^ 2)
                - CASE p ->> 'mode' WHEN 'x' THEN 0 ELSE 20 END));
    END LOOP;
END;
$$;

-- The new study: latency, minimised; a narrower range of a, a new
-- parameter c (with a default, which the earlier trials take), mode
-- without the choice 'y'.
SELECT tuner.create_study('new_hw', 'lat', 'minimize',
                          '{"seed": 6, "transfer_from": ["old_hw"]}') > 0 AS created;
SELECT tuner.add_parameter('new_hw', 'a', 'float', 0, 0.8);
SELECT tuner.add_parameter('new_hw', 'b', 'float', 0, 1);
SELECT tuner.add_parameter('new_hw', 'c', 'int', 1, 8, default_value => '4');
SELECT tuner.add_parameter('new_hw', 'mode', 'categorical', choices => ARRAY['x']);

-- The earlier trials that fit this space: a <= 0.8 and mode 'x'.
SELECT count(*) AS rows,
       bool_and(y[1] IS NOT NULL) AS objective_present,
       bool_and(x[3] = 4) AS default_filled,
       (SELECT count(*) FROM tuner.trials WHERE study = 'old_hw'
         AND (params ->> 'a')::float8 <= 0.8 AND params ->> 'mode' = 'x') AS expected
  FROM tuner._transfer_rows((SELECT id FROM tuner.study WHERE name = 'new_hw'), ARRAY['old_hw']);

-- Six trials: the model starts after two, with the earlier study as a
-- task (n_initial defaults to 2 with transfer).
DO $$
DECLARE
    s jsonb;
    p jsonb;
BEGIN
    FOR i IN 1 .. 6 LOOP
        s := tuner.suggest_next('new_hw');
        p := s -> 'params';
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object('lat',
            2 + ((p ->> 'a')::float8 - 0.3) ^ 2 + ((p ->> 'b')::float8 - 0.7) ^ 2
              + 0.01 * (p ->> 'c')::int));
    END LOOP;
END;
$$;
SELECT number, source FROM tuner.trials WHERE study = 'new_hw' ORDER BY number;
SELECT m.kind, m.n, m.tasks, m.kronecker
  FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'new_hw' ORDER BY m.id;
-- the earlier throughput (negated: minimised) tracks this latency
SELECT metric, other_metric, correlation > 0.8 AS tracks
  FROM tuner.task_correlation('new_hw') WHERE metric <> other_metric ORDER BY metric;

-- Under icm with an auxiliary metric too, the tasks are objective,
-- auxiliary metrics, earlier studies (cpu from its second value on).
SELECT tuner.add_metric('new_hw', 'cpu') > 0 AS declared;
SELECT tuner.set_algorithm('new_hw', 'icm');
DO $$
DECLARE
    s jsonb;
    p jsonb;
BEGIN
    FOR i IN 1 .. 4 LOOP
        s := tuner.suggest_next('new_hw');
        p := s -> 'params';
        PERFORM tuner.report((s ->> 'trial')::bigint, jsonb_build_object('lat',
            2 + ((p ->> 'a')::float8 - 0.3) ^ 2 + ((p ->> 'b')::float8 - 0.7) ^ 2,
            'cpu', 10 * (p ->> 'b')::float8));
    END LOOP;
END;
$$;
SELECT m.tasks FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'new_hw' ORDER BY m.id DESC LIMIT 1;

-- An earlier study dropped later: its task is empty and left out (with
-- ten trials of its own, the study's icm models its own metrics).
SELECT tuner.drop_study('old_hw');
SELECT (tuner.suggest_next('new_hw') ->> 'trial') IS NOT NULL AS suggested;
SELECT m.tasks FROM tuner.model m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'new_hw' ORDER BY m.id DESC LIMIT 1;

-- Errors.
SELECT tuner.create_study('t_bad', 'y', settings => '{"transfer_from": "new_hw"}');
SELECT tuner.create_study('t_bad', 'y', settings => '{"transfer_from": []}');
SELECT tuner.create_study('t_bad', 'y', settings => '{"transfer_from": [1]}');
SELECT tuner.create_study('t_bad', 'y', settings => '{"transfer_from": ["t_bad"]}');
SELECT tuner.create_study('t_bad', 'y', settings => '{"transfer_from": ["nope"]}');

SELECT tuner.drop_study('new_hw');
