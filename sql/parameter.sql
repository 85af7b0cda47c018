-- Parameters: the four kinds, defaults, and every error of add_parameter.
\set SHOW_CONTEXT never

SELECT tuner.create_study('p', 'value', 'minimize', '{"seed": 1}') > 0 AS created;

SELECT tuner.add_parameter('p', 'rate', 'float', low => 0.001, high => 1, log_scale => true, default_value => '0.01');
SELECT tuner.add_parameter('p', 'threads', 'int', low => 1, high => 64, default_value => '8');
SELECT tuner.add_parameter('p', 'compress', 'bool', default_value => 'true');
SELECT tuner.add_parameter('p', 'engine', 'categorical', choices => ARRAY['lsm', 'btree', 'hash'], default_value => 'btree');
SELECT tuner.add_parameter('p', 'ratio', 'float', -1, 1);

SELECT position, name, kind, low, high, log_scale, choices, default_value
  FROM tuner.parameter ORDER BY position;

-- Duplicate names.
SELECT tuner.add_parameter('p', 'threads', 'int', 1, 4);

-- Kind.
SELECT tuner.add_parameter('p', 'x', 'double', 0, 1);
SELECT tuner.add_parameter('p', 'x', NULL, 0, 1);

-- Bounds: missing, low >= high, not finite, int bounds not integers.
SELECT tuner.add_parameter('p', 'x', 'float');
SELECT tuner.add_parameter('p', 'x', 'float', low => 0);
SELECT tuner.add_parameter('p', 'x', 'float', 1, 1);
SELECT tuner.add_parameter('p', 'x', 'float', 2, 1);
SELECT tuner.add_parameter('p', 'x', 'int', 10, 3);
SELECT tuner.add_parameter('p', 'x', 'float', 0, 'Infinity');
SELECT tuner.add_parameter('p', 'x', 'float', 'NaN', 1);
SELECT tuner.add_parameter('p', 'x', 'int', 0.5, 3);

-- Log scale needs low > 0.
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, log_scale => true);
SELECT tuner.add_parameter('p', 'x', 'int', -4, 10, log_scale => true);

-- Defaults outside the bounds, of the wrong type, not a choice.
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, default_value => '2');
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, default_value => '-0.5');
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, default_value => 'abc');
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, default_value => 'NaN');
SELECT tuner.add_parameter('p', 'x', 'int', 0, 10, default_value => '2.5');
SELECT tuner.add_parameter('p', 'x', 'bool', default_value => 'maybe');
SELECT tuner.add_parameter('p', 'x', 'categorical', choices => ARRAY['a', 'b'], default_value => 'c');

-- Categorical choices: missing, empty, NULL, duplicate.
SELECT tuner.add_parameter('p', 'x', 'categorical');
SELECT tuner.add_parameter('p', 'x', 'categorical', choices => '{}');
SELECT tuner.add_parameter('p', 'x', 'categorical', choices => ARRAY['a', NULL]);
SELECT tuner.add_parameter('p', 'x', 'categorical', choices => ARRAY['a', 'b', 'a']);

-- Arguments that do not belong to the kind.
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, choices => ARRAY['a']);
SELECT tuner.add_parameter('p', 'x', 'bool', 0, 1);
SELECT tuner.add_parameter('p', 'x', 'bool', log_scale => true);
SELECT tuner.add_parameter('p', 'x', 'bool', choices => ARRAY['a']);
SELECT tuner.add_parameter('p', 'x', 'categorical', 0, 1, choices => ARRAY['a']);

-- NULL and empty names, NULL study, NULL log_scale.
SELECT tuner.add_parameter('p', NULL, 'float', 0, 1);
SELECT tuner.add_parameter('p', '', 'float', 0, 1);
SELECT tuner.add_parameter(NULL, 'x', 'float', 0, 1);
SELECT tuner.add_parameter('p', 'x', 'float', 0, 1, log_scale => NULL);

-- Nothing was added by the failed calls.
SELECT count(*) FROM tuner.parameter;

-- The space is fixed once a trial exists.
SELECT (tuner.suggest_next('p') -> 'trial') IS NOT NULL AS suggested;
SELECT tuner.add_parameter('p', 'late', 'float', 0, 1);

SELECT tuner.drop_study('p');
