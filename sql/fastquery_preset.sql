-- fastquery_preset: tuner.create_study(..., preset => 'fastquery') gives
-- the parallel I/O space of tuner_fastquery_runner (no striping on a
-- non-Lustre file system), total_s minimized with read/index/write times
-- as auxiliary metrics, and the fastquery runner; its settings are checked.
\set SHOW_CONTEXT never

SELECT tuner.create_study('fq', preset => 'fastquery') > 0 AS created;
-- (max_ranks, this host's processors, is checked below)
SELECT objective, direction, runner, settings #- '{runner,max_ranks}' AS settings
  FROM tuner.study WHERE name = 'fq';
-- ranks and cb_nodes go up to the runner setting max_ranks, by default
-- the processors of the host (MPICH's ranks busy-wait: a rank without a
-- core of its own slows all of them)
SELECT s.settings -> 'runner' -> 'max_ranks' = pg_catalog.to_jsonb(LEAST(tuner._host_cpus(), 64)) AS host_max_ranks,
	   pg_catalog.array_agg(p.name ORDER BY p.name) FILTER (WHERE p.high = LEAST(tuner._host_cpus(), 64)) AS bounded_by_it
  FROM tuner.study s JOIN tuner.parameter p ON p.study_id = s.id
 WHERE s.name = 'fq' GROUP BY s.settings;
SELECT tuner._host_cpus() >= 1 AS counted;
SELECT name, program, args FROM tuner.runner WHERE name = 'fastquery';
SELECT p.position, p.name, p.kind, p.low, p.high, p.log_scale, p.choices, p.default_value
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'fq' AND p.name NOT IN ('ranks', 'cb_nodes') ORDER BY p.position;
SELECT count(*) AS striping_parameters FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'fq' AND p.name LIKE 'striping%';
SELECT m.name, m.role, m.direction, m.unit, m.cluster, m.cluster_source
  FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fq' ORDER BY m.id;
SELECT c.expression, c.source FROM tuner.parameter_constraint c
  JOIN tuner.study s ON s.id = c.study_id WHERE s.name = 'fq';

-- The first suggestion is the default configuration.
SELECT tuner.suggest_next('fq') -> 'params' AS first;

-- Overrides: test-sized runner settings merged into the preset's, another
-- time objective (still minimized).
SELECT tuner.create_study('fq2', 'build_s', preset => 'fastquery',
						  settings => '{"seed": 5, "runner": {"particles": 1048576, "data_dir": "/tmp/fq"}}') > 0 AS created;
SELECT objective, direction, settings #- '{runner,max_ranks}' AS settings FROM tuner.study WHERE name = 'fq2';

-- An explicit max_ranks (an agent's host): the bound of ranks and
-- cb_nodes, with their constraint; 1 leaves both out, and their names
-- out of the metrics' clusters.
SELECT tuner.create_study('fq_ranks8', preset => 'fastquery',
						  settings => '{"runner": {"max_ranks": 8}}') > 0 AS created;
SELECT p.name, p.low, p.high, p.log_scale FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'fq_ranks8' AND p.name IN ('ranks', 'cb_nodes', 'threads') ORDER BY p.position;
SELECT tuner.create_study('fq_ranks1', preset => 'fastquery',
						  settings => '{"runner": {"max_ranks": 1}}') > 0 AS created;
SELECT count(*) AS parameters, count(*) FILTER (WHERE p.name IN ('ranks', 'cb_nodes')) AS rank_parameters
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'fq_ranks1';
SELECT m.name, m.cluster FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fq_ranks1' AND m.cluster IS NOT NULL ORDER BY m.name;
SELECT count(*) AS constraints FROM tuner.parameter_constraint c JOIN tuner.study s ON s.id = c.study_id
 WHERE s.name = 'fq_ranks1';
SELECT tuner.suggest_next('fq_ranks1') -> 'params' AS first;
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"max_ranks": 0}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"max_ranks": 65}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"max_ranks": "all"}}');

-- Errors.
SELECT tuner.create_study('fq3', preset => 'fastquerry');
SELECT tuner.create_study('fq', preset => 'fastquery');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '[]');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => NULL);
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": [1]}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"particles": 10}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"particles": "many"}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"timeout_s": 0}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"timeout_s": "1h"}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"data_dir": "tmp/fq"}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"cold": "yes"}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"queries": ""}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"random_queries": -1}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"runner": {"striping_factor": 4}}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"n_initial": 0}');
SELECT tuner.create_study('fq3', preset => 'fastquery', settings => '{"trial_timout_s": 5}');
SELECT count(*) AS studies_named_fq3 FROM tuner.study WHERE name = 'fq3';

-- Paired runs (bench/fastquery): objective speedup_vs_default is maximized
-- whatever direction the caller passes, turns the runner's paired on and
-- is a ratio; repeats and paired are checked.
SELECT tuner.create_study('fq_paired', 'speedup_vs_default', 'minimize', preset => 'fastquery',
						  settings => '{"runner": {"particles": 1048576, "repeats": 3}}') > 0 AS created;
SELECT objective, direction, settings -> 'runner' - 'max_ranks' AS runner FROM tuner.study WHERE name = 'fq_paired';
SELECT m.name, m.role, m.direction, m.unit FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id
 WHERE s.name = 'fq_paired' AND m.role = 'objective';
SELECT tuner.create_study('fq_paired2', 'speedup_vs_default', preset => 'fastquery',
						  settings => '{"runner": {"paired": true, "repeats": 16}}') > 0 AS created;
SELECT objective, direction, settings -> 'runner' - 'max_ranks' AS runner FROM tuner.study WHERE name = 'fq_paired2';
-- total_s with paired runs: the mean of the trial's runs, still minimized
SELECT tuner.create_study('fq_paired3', preset => 'fastquery',
						  settings => '{"runner": {"paired": true, "repeats": 1}}') > 0 AS created;
SELECT objective, direction, settings -> 'runner' - 'max_ranks' AS runner FROM tuner.study WHERE name = 'fq_paired3';
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"paired": "yes"}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"paired": 1}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"paired": null}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"repeats": 0}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"repeats": 17}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"repeats": 2.5}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"repeats": "two"}}');
SELECT tuner.create_study('fq4', preset => 'fastquery', settings => '{"runner": {"repeats": null}}');
SELECT tuner.create_study('fq4', 'speedup_vs_default', preset => 'fastquery',
						  settings => '{"runner": {"paired": false}}');
SELECT tuner.create_study('fq4', 'total_s_default', preset => 'fastquery',
						  settings => '{"runner": {"paired": false, "repeats": 2}}');
SELECT tuner.create_study('fq4', 'speedup_vs_default', preset => 'fastquery',
						  settings => '{"runner": {"paired": true, "repeats": 0}}');
SELECT count(*) AS studies_named_fq4 FROM tuner.study WHERE name = 'fq4';

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('fq', 'fq2', 'fq_paired', 'fq_paired2', 'fq_paired3', 'fq_ranks1', 'fq_ranks8') ORDER BY name;
SELECT tuner.drop_runner('fastquery');
