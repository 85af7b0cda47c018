-- preset: tuner.create_study(..., preset => 'rocksdb') gives the paper's
-- Table 1 space (scaled), its metrics with cluster hints and the rocksdb
-- runner; one real trial through tuner.step with a short db_bench run.
\set SHOW_CONTEXT never

SELECT tuner.create_study('rdb', preset => 'rocksdb') > 0 AS created;
SELECT objective, direction, runner, settings FROM tuner.study WHERE name = 'rdb';
SELECT name, program, args FROM tuner.runner WHERE name = 'rocksdb';
SELECT p.position, p.name, p.kind, p.low, p.high, p.log_scale, p.default_value
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'rdb' ORDER BY p.position;
SELECT m.name, m.role, m.direction, m.unit, m.cluster
  FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'rdb' ORDER BY m.id;

-- The first suggestion is the default configuration.
SELECT tuner.suggest_next('rdb') -> 'params' AS first;
SELECT state, source FROM tuner.trials WHERE study = 'rdb';

-- Overrides: another objective, settings merged into the preset's.
SELECT tuner.create_study('rdb2', 'ops_per_sec', preset => 'rocksdb',
						  settings => '{"seed": 5, "runner": {"duration_s": 2}}') > 0 AS created;
SELECT objective, settings FROM tuner.study WHERE name = 'rdb2';
SELECT m.name, m.role, m.direction FROM tuner.metric m
  JOIN tuner.study s ON s.id = m.study_id WHERE s.name = 'rdb2' ORDER BY m.id;

-- Errors.
SELECT tuner.create_study('rdb3', preset => 'postgres');
SELECT tuner.create_study('rdb', preset => 'rocksdb');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '[]');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"duration_s": "long"}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"duration_s": 0}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"paired": "yes"}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"work_dir": "tmp"}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"durration_s": 5}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"segments": 0}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": {"segments": 17}}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"runner": [1]}');
SELECT tuner.create_study('rdb3', preset => 'rocksdb', settings => '{"n_initial": 0}');
SELECT count(*) AS studies_named_rdb3 FROM tuner.study WHERE name = 'rdb3';
-- the paired run's segments (drift-robust pairing) are a runner setting
SELECT tuner.create_study('rdb_seg', preset => 'rocksdb',
						  settings => '{"runner": {"segments": 2}}') > 0 AS created;
SELECT settings -> 'runner' AS runner_settings FROM tuner.study WHERE name = 'rdb_seg';

-- One real trial: db_bench mixgraph on a small pre-filled DB, 2 s, not
-- paired, through the worker's runner machinery.
SELECT tuner.create_study('rdb_e2e', preset => 'rocksdb',
						  settings => '{"seed": 1, "trial_timeout_s": 300,
										"runner": {"duration_s": 2, "paired": false,
												   "num_keys": 20000, "direct_io": false}}',
						  objective => 'ops_per_sec') > 0 AS created;
SELECT (tuner.step('rdb_e2e') ->> 'state') AS state;
SELECT number, state, source, value > 0 AS throughput_measured,
	   metrics ? 'write_amp' AS has_write_amp,
	   (metrics ->> 'flush_count')::float8 >= 1 AS flushed,
	   details ? '_effective' AS has_effective_options,
	   details -> '_effective' -> 'effective' ->> 'level0_slowdown_writes_trigger' AS effective_slowdown
  FROM tuner.trials WHERE study = 'rdb_e2e';

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('rdb', 'rdb2', 'rdb_e2e', 'rdb_seg') ORDER BY name;
SELECT tuner.drop_runner('rocksdb');
