-- warmstart: tuner.enqueue (configurations tried next, checked like the
-- study's own) and tuner.copy_trials (earlier observations imported when
-- the spaces match or partly match, every skip counted with its reason).
\set SHOW_CONTEXT never
SELECT setval('tuner.trial_id_seq', 8000, false) IS NOT NULL AS restarted;

SELECT tuner.create_study('ws', 'y', 'minimize', '{"seed": 11, "n_initial": 4}') > 0 AS created;
SELECT tuner.add_parameter('ws', 'n', 'int', 1, 100, default_value => '10');
SELECT tuner.add_parameter('ws', 'f', 'float', 0.5, 2, default_value => '1');
SELECT tuner.add_parameter('ws', 'mode', 'categorical', choices => ARRAY['a', 'b', 'c']);
SELECT tuner.add_parameter('ws', 'on', 'bool', default_value => 'true');
SELECT tuner.add_parameter('ws', 'depth', 'int', 1, 5, default_value => '2', condition => 'mode = b');

-- Queued configurations come first, in order, before the default and the
-- design; missing parameters take their defaults, an int given as 7.0 is
-- stored as 7, an inactive conditional parameter is set to its default.
SELECT tuner.enqueue('ws', '{"n": 7.0, "mode": "c", "depth": 4}') - 8000 AS q1;
SELECT tuner.enqueue('ws', '{"n": 100, "f": 0.5, "mode": "b", "on": false, "depth": 5}') - 8000 AS q2;
SELECT number, state, source, config, started_at IS NULL AS not_started
  FROM tuner.trial t JOIN tuner.study s ON s.id = t.study_id WHERE s.name = 'ws' ORDER BY number;
SELECT tuner.suggest_next('ws') ->> 'params' AS first;
SELECT tuner.suggest_next('ws') ->> 'params' AS second;
SELECT number, state, source FROM tuner.trials WHERE study = 'ws' ORDER BY number;

-- Errors of enqueue: unknown parameter, out of bounds, wrong types, an
-- unknown choice, a parameter without value or default.
SELECT tuner.enqueue('ws', '{"mode": "a", "z": 1}');
SELECT tuner.enqueue('ws', '{"mode": "a", "n": 0}');
SELECT tuner.enqueue('ws', '{"mode": "a", "n": 101}');
SELECT tuner.enqueue('ws', '{"mode": "a", "f": 2.5}');
SELECT tuner.enqueue('ws', '{"mode": "a", "n": 2.5}');
SELECT tuner.enqueue('ws', '{"mode": "a", "n": "7"}');
SELECT tuner.enqueue('ws', '{"mode": "a", "f": "NaN"}');
SELECT tuner.enqueue('ws', '{"mode": "a", "f": 1e400}');
SELECT tuner.enqueue('ws', '{"mode": "a", "on": 1}');
SELECT tuner.enqueue('ws', '{"mode": "d"}');
SELECT tuner.enqueue('ws', '{"mode": 1}');
SELECT tuner.enqueue('ws', '{"n": 5}');
SELECT tuner.enqueue('ws', '{"mode": null}');
SELECT tuner.enqueue('ws', '[1]');
SELECT tuner.enqueue('ws', NULL);
SELECT tuner.enqueue(NULL, '{}');
SELECT tuner.enqueue('nope', '{}');
SELECT tuner.create_study('ws_empty', 'y') > 0 AS created;
SELECT tuner.enqueue('ws_empty', '{}');

-- A queued trial may also be reported directly.
SELECT tuner.enqueue('ws', '{"mode": "a"}') AS q3 \gset
SELECT tuner.report(:q3, '{"y": 3}');
SELECT number, state, source, params FROM tuner.trials WHERE trial = :q3;

-- An earlier study to copy from: a wider space, an extra parameter, a
-- parameter the new study lacks, failed and out-of-space trials.
SELECT tuner.create_study('old', 'y', 'minimize', '{"seed": 12}') > 0 AS created;
SELECT tuner.add_parameter('old', 'n', 'int', 1, 500);
SELECT tuner.add_parameter('old', 'mode', 'categorical', choices => ARRAY['a', 'b', 'c', 'd']);
SELECT tuner.add_parameter('old', 'extra', 'float', 0, 1);
SELECT tuner.enqueue('old', v::jsonb) - 8000 AS queued
  FROM unnest(ARRAY['{"n": 5, "mode": "a", "extra": 0.1}',
                    '{"n": 50, "mode": "b", "extra": 0.2}',
                    '{"n": 400, "mode": "a", "extra": 0.3}',
                    '{"n": 60, "mode": "d", "extra": 0.4}',
                    '{"n": 70, "mode": "c", "extra": 0.5}',
                    '{"n": 80, "mode": "c", "extra": 0.6}',
                    '{"n": 90, "mode": "c", "extra": 0.7}']) WITH ORDINALITY AS u(v, k) ORDER BY k;
SELECT tuner.report((tuner.suggest_next('old') ->> 'trial')::bigint,
                    jsonb_build_object('y', v, 'cpu', v * 10))
  FROM unnest(ARRAY[5.0, 4.0, 3.0, 2.0]) WITH ORDINALITY AS u(v, k) ORDER BY k;
SELECT tuner.fail((tuner.suggest_next('old') ->> 'trial')::bigint, 'crash');
SELECT tuner.report((tuner.suggest_next('old') ->> 'trial')::bigint, '{"y": 1.5}');
SELECT number, state, params, value FROM tuner.trials WHERE study = 'old' ORDER BY number;

-- Copy: n=400 and mode d are outside the new space, the failed trial is
-- not complete; extra is dropped, f and on take their
-- defaults, depth its default (mode is not b) or its value.
SELECT tuner.copy_trials('old', 'ws');
SELECT number, state, source, params, value, metrics, details -> 'copied_from' -> 'number' AS from_number
  FROM tuner.trials WHERE study = 'ws' AND source = 'copied' ORDER BY number;
-- Again: nothing new.
SELECT tuner.copy_trials('old', 'ws');
-- They count as observations: with n_initial 4 the model comes next.
SELECT (tuner.suggest_next('ws') ->> 'trial')::bigint AS next \gset
SELECT source FROM tuner.trial WHERE id = :next;

-- Filters.
SELECT tuner.create_study('ws2', 'y', 'minimize', '{"seed": 13}') > 0 AS created;
SELECT tuner.add_parameter('ws2', 'n', 'int', 1, 500);
SELECT tuner.copy_trials('old', 'ws2', '{"best": 2}');
SELECT tuner.copy_trials('old', 'ws2', '{"numbers": [1, 3, 99]}');
SELECT tuner.copy_trials('old', 'ws2', '{"sources": ["design"]}');
SELECT number, params, value FROM tuner.trials WHERE study = 'ws2' ORDER BY number;
-- A study with another objective: no trial of old measured it.
SELECT tuner.create_study('ws3', 'latency', 'minimize') > 0 AS created;
SELECT tuner.add_parameter('ws3', 'n', 'int', 1, 500);
SELECT tuner.copy_trials('old', 'ws3');

-- Errors of copy_trials.
SELECT tuner.copy_trials('old', 'old');
SELECT tuner.copy_trials(NULL, 'ws');
SELECT tuner.copy_trials('old', NULL);
SELECT tuner.copy_trials('nope', 'ws');
SELECT tuner.copy_trials('old', 'nope');
SELECT tuner.copy_trials('old', 'ws', NULL);
SELECT tuner.copy_trials('old', 'ws', '[]');
SELECT tuner.copy_trials('old', 'ws', '{"limit": 3}');
SELECT tuner.copy_trials('old', 'ws', '{"numbers": 3}');
SELECT tuner.copy_trials('old', 'ws', '{"numbers": [1.5]}');
SELECT tuner.copy_trials('old', 'ws', '{"sources": [1]}');
SELECT tuner.copy_trials('old', 'ws', '{"best": 0}');
SELECT tuner.copy_trials('old', 'ws_empty');

SELECT tuner.drop_study(s) FROM unnest(ARRAY['ws', 'ws2', 'ws3', 'ws_empty', 'old']) s;
