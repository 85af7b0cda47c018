-- limits_parameter: a parameter whose values cannot be represented or
-- sampled is refused when it is defined, with the reason, whichever way
-- its row comes (tuner.add_parameter, direct DML, an update), and a study
-- has at most 2000 parameters (the space-filling design's dimensions).
-- Before 0.3.0 each of these was accepted and failed later: "bigint out
-- of range" at the first suggestion, a study "exhausted" after one trial,
-- no design point.
\set VERBOSITY default
\set SHOW_CONTEXT never

SELECT tuner.create_study('lim', 'y', 'minimize', '{"seed": 1, "n_initial": 2}') > 0 AS created;

-- int bounds must fit bigint, and so must high - low
SELECT tuner.add_parameter('lim', 'i_high', 'int', 0, 1e19);
SELECT tuner.add_parameter('lim', 'i_low', 'int', -1e19, 0);
-- 9223372036854775807 (bigint's largest) is 2^63 as float8, one past it
SELECT tuner.add_parameter('lim', 'i_max', 'int', 0, 9223372036854775807);
SELECT tuner.add_parameter('lim', 'i_span', 'int', -9e18, 9e18);
SELECT tuner.add_parameter('lim', 'i_log', 'int', 1, 1e19, log_scale => true);

-- float bounds: high - low must be finite
SELECT tuner.add_parameter('lim', 'f_span', 'float', -1e308, 1e308);
SELECT tuner.add_parameter('lim', 'f_span2', 'float', -1.7e308, 1e308);

-- hard limits are the widest range soft bounds reach: the same rules
SELECT tuner.add_parameter('lim', 'i_hard', 'int', 0, 10, soft_bounds => true, hard_high => 1e19);
SELECT tuner.add_parameter('lim', 'f_hard', 'float', 0, 1, soft_bounds => true,
						   hard_low => -1e308, hard_high => 1e308);

-- nothing of these was stored
SELECT count(*) AS parameters FROM tuner.parameter p
  JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'lim';

-- the widest ranges that are samplable are accepted, and sampled
SELECT tuner.add_parameter('lim', 'i_wide', 'int', -4e18, 4e18);
SELECT tuner.add_parameter('lim', 'f_wide', 'float', -8e307, 8e307);
SELECT tuner.add_parameter('lim', 'f_max', 'float', 0, 1.7976931348623157e308);
SELECT tuner.add_parameter('lim', 'f_soft', 'float', 0, 1, soft_bounds => true,
						   hard_low => -8e307, hard_high => 8e307);
SELECT (p ->> 'i_wide')::numeric BETWEEN -4e18 AND 4e18 AS int_in_range,
	   (p ->> 'f_wide')::float8 BETWEEN -8e307 AND 8e307 AS float_in_range
  FROM (SELECT tuner.suggest_next('lim') -> 'params' AS p FROM generate_series(1, 3)) x;
-- three different suggestions, not one repeated (the span is finite)
SELECT count(DISTINCT params) AS distinct_configs FROM tuner.trials WHERE study = 'lim';

-- direct DML goes through the same check: a NaN bound (which the table's
-- CHECK low < high lets through, NaN sorting above every number) and
-- bounds past bigint in an update
SELECT tuner.create_study('lim_dml', 'y') > 0 AS created;
INSERT INTO tuner.parameter (study_id, position, name, kind, low, high)
SELECT id, 1, 'nan_high', 'float', 0, 'NaN' FROM tuner.study WHERE name = 'lim_dml';
INSERT INTO tuner.parameter (study_id, position, name, kind, low, high)
SELECT id, 1, 'n', 'int', 1, 10 FROM tuner.study WHERE name = 'lim_dml';
UPDATE tuner.parameter SET high = 1e19
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'lim_dml');
UPDATE tuner.parameter SET hard_high = 9.3e18, soft_bounds = true
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'lim_dml');
-- an update to samplable bounds goes through
UPDATE tuner.parameter SET high = 20
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'lim_dml');
SELECT name, low, high FROM tuner.parameter
 WHERE study_id = (SELECT id FROM tuner.study WHERE name = 'lim_dml');

-- at most 2000 parameters: the 2001st is refused, whatever its kind (the
-- design spanned 1000 dimensions before 0.3.0, and a 1001st parameter
-- left a study without a design point)
SELECT tuner.create_study('lim_wide', 'y') > 0 AS created;
SELECT count(*) FROM (
	SELECT tuner.add_parameter('lim_wide', 'p' || i, 'float', 0, 1)
	  FROM generate_series(1, 2000) i) x;
SELECT tuner.add_parameter('lim_wide', 'p2001', 'bool');
SELECT count(*) AS parameters FROM tuner.parameter p
  JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'lim_wide';
-- and a study of 2000 gets its design point
SELECT (SELECT count(*) FROM jsonb_object_keys(tuner.suggest_next('lim_wide') -> 'params')) AS parameters_suggested;
SELECT number, state, source FROM tuner.trials WHERE study = 'lim_wide';

-- A soft bound widens (doubling its range on that side) only while the
-- range stays samplable: [0, 5e18] would become [0, 1e19], past bigint.
-- Three model suggestions at the high bound ask for it.
SELECT tuner.create_study('lim_soft', 'y') > 0 AS created;
SELECT tuner.add_parameter('lim_soft', 'n', 'int', 0, 5e18, soft_bounds => true);
SELECT tuner.add_parameter('lim_soft', 'm', 'int', 0, 1e18, soft_bounds => true);
INSERT INTO tuner.trial (study_id, number, config, state, source)
SELECT s.id, i, '{"n": 5000000000000000000, "m": 1000000000000000000}', 'failed', 'model'
  FROM tuner.study s, generate_series(1, 3) i WHERE s.name = 'lim_soft';
SELECT tuner._widen_soft_bounds(s, NULL) FROM tuner.study s WHERE s.name = 'lim_soft';
-- n keeps its range; m (whose doubled range fits) widens
SELECT p.name, p.low, p.high FROM tuner.parameter p
  JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'lim_soft' ORDER BY p.position;
SELECT c.side, c.old_value, c.new_value FROM tuner.bound_change c
  JOIN tuner.study s ON s.id = c.study_id WHERE s.name = 'lim_soft';

SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('lim', 'lim_dml', 'lim_wide', 'lim_soft') ORDER BY name;
