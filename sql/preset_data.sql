-- preset_data: presets are rows of tuner.preset read by one generic path
-- (issue 27, item 3).  The built-ins' definitions make the same studies
-- as a role's own copy of them (which also puts them through
-- create_preset's checks); preset.sql, ceph_preset.sql and
-- fastquery_preset.sql check those studies against 0.2.0's.  A role's own
-- presets: made, used and dropped; every check of a definition; privacy
-- between roles; runner presets need the privilege to run programs.
-- Roles regress_tuner_pd_*, dropped at the end.
\set SHOW_CONTEXT never

-- Run a statement; its SQLSTATE and message if it fails.
CREATE FUNCTION public.regress_tuner_pd_try(statement text)
RETURNS text
LANGUAGE plpgsql
AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE statement;
	GET DIAGNOSTICS n = ROW_COUNT;
	RETURN 'ok, ' || n || ' rows';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END;
$$;

-- A study's space, metrics and settings, as rows to compare.
CREATE FUNCTION public.regress_tuner_pd_study(study text)
RETURNS SETOF text
LANGUAGE sql
AS $$
SELECT pg_catalog.format('study %s %s %s %s %s', s.objective, s.direction, s.runner, s.algorithm,
						 s.settings #- '{runner,cluster_dir}')
  FROM tuner.study s WHERE s.name = $1
UNION ALL
SELECT pg_catalog.format('parameter %s %s %s %s %s %s %s %s %s %s', p.position, p.name, p.kind, p.low, p.high,
						 p.log_scale, p.choices, p.default_value, p.condition, p.soft_bounds)
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = $1
UNION ALL
SELECT pg_catalog.format('constraint %s %s', c.expression, c.source)
  FROM tuner.parameter_constraint c JOIN tuner.study s ON s.id = c.study_id WHERE s.name = $1
UNION ALL
SELECT pg_catalog.format('metric %s %s %s %s %s %s', m.name, m.role, m.direction, m.unit, m.cluster, m.cluster_source)
  FROM tuner.metric m JOIN tuner.study s ON s.id = m.study_id WHERE s.name = $1;
$$;

-- The built-ins, and the rows pg_dump keeps (the roles' own).
SELECT name, built_in, owner, description, objective, runner, parameters, from_catalog
  FROM tuner.presets ORDER BY name;
SELECT cfg.condition FROM pg_extension e,
	   unnest(e.extconfig, e.extcondition) AS cfg(oid, condition)
 WHERE e.extname = 'tuner' AND cfg.oid = 'tuner.preset'::regclass;

-- Each built-in copied into a preset of one's own (checked whole on the
-- way in) makes the same study as the built-in.
SELECT tuner.create_preset('pd_' || name, definition) FROM tuner.preset
 WHERE owner IS NULL ORDER BY name;
SELECT name, built_in, owner = current_user AS mine FROM tuner.presets ORDER BY name;
\! rm -rf /tmp/tuner_regress_preset_data && mkdir -p /tmp/tuner_regress_preset_data && cp tests/ceph/catalog-16.2.json /tmp/tuner_regress_preset_data/catalog.json && chmod -R a+rX /tmp/tuner_regress_preset_data
SELECT p AS preset, o AS objective,
	   tuner.create_study('pd_b_' || p || COALESCE(o, ''), o, preset => p, settings => s) > 0 AS built_in,
	   tuner.create_study('pd_m_' || p || COALESCE(o, ''), o, preset => 'pd_' || p, settings => s) > 0 AS own
  FROM (VALUES ('rocksdb', NULL, '{}'::jsonb), ('rocksdb', 'ops_per_sec', '{"runner": {"duration_s": 2}}'),
			   ('fastquery', NULL, '{"runner": {"max_ranks": 4}}'), ('fastquery', 'speedup_vs_default', '{"runner": {"max_ranks": 1}}'),
			   ('fastquery', 'read_s', '{"runner": {"max_ranks": 16}}'),
			   ('ceph', NULL, '{"runner": {"cluster_dir": "/tmp/tuner_regress_preset_data"}}'),
			   ('ceph', 'rand_read_ratio', '{"runner": {"cluster_dir": "/tmp/tuner_regress_preset_data"}}'))
	   AS v(p, o, s);
SELECT b.name AS study, (SELECT count(*) FROM regress_tuner_pd_study(b.name)) AS rows,
	   (SELECT count(*) FROM (SELECT * FROM regress_tuner_pd_study(b.name)
							  EXCEPT SELECT * FROM regress_tuner_pd_study('pd_m_' || substr(b.name, 6))) d) AS differ,
	   (SELECT count(*) FROM (SELECT * FROM regress_tuner_pd_study('pd_m_' || substr(b.name, 6))
							  EXCEPT SELECT * FROM regress_tuner_pd_study(b.name)) d) AS differ_back
  FROM tuner.study b WHERE b.name LIKE 'pd\_b\_%' ORDER BY b.name;
SELECT tuner.drop_study(name) FROM tuner.study WHERE name LIKE 'pd\_%' ORDER BY name;
SELECT tuner.drop_preset(name) FROM tuner.preset WHERE name LIKE 'pd\_%' ORDER BY name;
-- (a superuser's preset is checked whole too)
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('pd_bad', '{"objective": "y", "settings": {"n_initial": 0}}')$$);
\! rm -rf /tmp/tuner_regress_preset_data

-- A role's own preset, without a runner: made, used and dropped by a
-- role that may not run programs.
CREATE ROLE regress_tuner_pd_alice LOGIN IN ROLE tuner_user;
CREATE ROLE regress_tuner_pd_bob LOGIN IN ROLE tuner_user;
CREATE ROLE regress_tuner_pd_runs LOGIN IN ROLE tuner_user, pg_execute_server_program;
GRANT EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb) TO regress_tuner_pd_runs;
SET ROLE regress_tuner_pd_alice;
SELECT tuner.create_preset('toy', $$
{
	"description": "a toy service",
	"objective": "latency_ms",
	"objectives": {"latency_ms": {"direction": "minimize", "unit": "ms", "cluster": ["x", "mode"]},
				   "throughput": {"direction": "maximize", "settings": {"noise_sd": 0.1}}},
	"settings": {"n_initial": 2},
	"parameters": [
		{"name": "x", "type": "float", "low": 0, "high": 1, "default": 0.5},
		{"name": "mode", "type": "categorical", "choices": ["a", "b"], "default": "a"},
		{"name": "depth", "type": "int", "low": 1, "high": 1000, "default": 10, "log": true, "condition": "mode = b"},
		{"name": "cache", "type": "bool", "default": true}
	],
	"constraints": ["x <= 0.9"],
	"metrics": [{"name": "throughput", "direction": "maximize", "unit": "ops/s", "cluster": ["x", "depth"]},
				{"name": "errors", "direction": "minimize"}],
	"algorithm": {"name": "icm", "options": {"rank": 1}}
}$$);
SELECT name, built_in, owner, description, objective, runner, parameters FROM tuner.presets ORDER BY name;
SELECT tuner.create_study('toy1', preset => 'toy', settings => '{"seed": 3}') > 0 AS created;
SELECT * FROM regress_tuner_pd_study('toy1') ORDER BY 1;
SELECT tuner.create_study('toy2', 'throughput', 'minimize', preset => 'toy') > 0 AS created;
SELECT * FROM regress_tuner_pd_study('toy2') WHERE left(regress_tuner_pd_study, 6) IN ('study ', 'metric') ORDER BY 1;
SELECT tuner.suggest_next('toy1') -> 'params' AS first;
-- a study made with a preset stays when the preset goes
SELECT tuner.drop_preset('toy');
SELECT count(*) AS studies FROM tuner.study WHERE name IN ('toy1', 'toy2');
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('toy3', preset => 'toy')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.drop_preset('toy')$$);
SELECT tuner.drop_study('toy1'), tuner.drop_study('toy2');

-- Every check of a definition.
CREATE TEMP TABLE bad (what text, def jsonb);
INSERT INTO bad VALUES
	('not an object', '[1]'),
	('unknown key', '{"objective": "y", "params": []}'),
	('no objective', '{"parameters": []}'),
	('empty objective', '{"objective": " "}'),
	('description', '{"objective": "y", "description": 5}'),
	('objectives', '{"objective": "y", "objectives": []}'),
	('objective key', '{"objective": "y", "objectives": {"y": {"sense": "up"}}}'),
	('objective direction', '{"objective": "y", "objectives": {"y": {"direction": "up"}}}'),
	('closed list', '{"objective": "y", "other_objectives": false, "objectives": {"z": {}}}'),
	('settings', '{"objective": "y", "settings": [1]}'),
	('unknown setting', '{"objective": "y", "settings": {"n_inital": 2}}'),
	('setting value', '{"objective": "y", "settings": {"n_initial": 0}}'),
	('objective setting', '{"objective": "y", "objectives": {"z": {"settings": {"noise_sd": -1}}}}'),
	('parameters', '{"objective": "y", "parameters": {"x": 1}}'),
	('parameter key', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1, "step": 0.1}]}'),
	('parameter name', '{"objective": "y", "parameters": [{"type": "float", "low": 0, "high": 1}]}'),
	('parameter type', '{"objective": "y", "parameters": [{"name": "x", "type": "real", "low": 0, "high": 1}]}'),
	('NaN bound', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": "NaN", "high": 1}]}'),
	('infinite bound', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1e400}]}'),
	('bounds', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 2, "high": 1}]}'),
	('default', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1, "default": 2}]}'),
	('default type', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1, "default": [0]}]}'),
	('duplicate parameter', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1}, {"name": "x", "type": "int", "low": 0, "high": 5}]}'),
	('choices', '{"objective": "y", "parameters": [{"name": "c", "type": "categorical", "choices": [1, 2]}]}'),
	('log', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 1, "high": 10, "log": "yes"}]}'),
	('log of a negative range', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": -1, "high": 10, "log": true}]}'),
	('runner setting bound', '{"objective": "y", "parameters": [{"name": "x", "type": "int", "low": 1, "high": "$runner.cores"}]}'),
	('condition', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1, "condition": "z = 1"}]}'),
	('constraints', '{"objective": "y", "constraints": "x < 1"}'),
	('constraint', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1}], "constraints": ["x > 2"]}'),
	('metrics', '{"objective": "y", "metrics": [{"name": "m", "role": "auxiliary"}]}'),
	('metric name', '{"objective": "y", "metrics": [{"name": "_m"}]}'),
	('metric direction', '{"objective": "y", "metrics": [{"name": "m", "direction": "up"}]}'),
	('duplicate metric', '{"objective": "y", "metrics": [{"name": "m"}, {"name": "m"}]}'),
	('cluster', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1}], "metrics": [{"name": "m", "cluster": ["x", "w"]}]}'),
	('objective cluster', '{"objective": "y", "objectives": {"y": {"cluster": "x"}}}'),
	('algorithm', '{"objective": "y", "algorithm": {"name": "annealing"}}'),
	('algorithm options', '{"objective": "y", "algorithm": {"name": "random", "options": {"rank": 2}}}'),
	('catalog', '{"objective": "y", "catalog": {"file": "../etc/passwd", "default_dir": "/tmp"}}'),
	('catalog dir', '{"objective": "y", "catalog": {"file": "c.json", "default_dir": "tmp"}}'),
	('catalog min', '{"objective": "y", "catalog": {"file": "c.json", "default_dir": "/tmp", "min_parameters": 0}}');
SELECT what, regress_tuner_pd_try(pg_catalog.format('SELECT tuner.create_preset(%L, %L)', 'bad', def)) AS error
  FROM bad ORDER BY what;
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset(NULL, '{"objective": "y"}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('bad', NULL)$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset(' ', '{"objective": "y"}')$$);
-- a built-in's name, twice the same name
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('rocksdb', '{"objective": "y"}')$$);
SELECT tuner.create_preset('mine', '{"objective": "y", "parameters": [{"name": "x", "type": "float", "low": 0, "high": 1}]}');
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('mine', '{"objective": "y"}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.drop_preset('rocksdb')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.drop_preset(NULL)$$);
-- no study, no preset was left behind by the checks
SELECT count(*) AS check_studies FROM tuner.study WHERE name LIKE '%(preset check)';
SELECT name FROM tuner.presets WHERE NOT built_in ORDER BY name;
DROP TABLE bad;

-- The table is written by the API only (create_preset, drop_preset):
-- every direct INSERT, UPDATE or DELETE is refused; through the API's own
-- statement a row is checked as create_preset's, rows are never changed
-- in place, and each role's are its own.
SELECT regress_tuner_pd_try($$INSERT INTO tuner.preset (name, definition) VALUES ('direct', '{"objective": "y", "settings": {"n_initial": 0}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner._preset_insert('direct', '{"objective": "y", "settings": {"n_initial": 0}}')$$);
SELECT tuner._preset_delete('rocksdb', NULL) AS built_in_deleted;
SELECT regress_tuner_pd_try($$INSERT INTO tuner.preset (name, owner, definition) VALUES ('direct', NULL, '{"objective": "y"}')$$);
SELECT regress_tuner_pd_try($$INSERT INTO tuner.preset (name, owner, definition) VALUES ('direct', 'regress_tuner_pd_bob', '{"objective": "y"}')$$);
SELECT regress_tuner_pd_try($$UPDATE tuner.preset SET definition = '{"objective": "z"}' WHERE name = 'mine'$$);
SELECT regress_tuner_pd_try($$DELETE FROM tuner.preset WHERE owner IS NULL$$);
SELECT regress_tuner_pd_try($$INSERT INTO tuner.preset (name, definition, created_at) VALUES ('direct', '{"objective": "y"}', now())$$);
RESET ROLE;

-- Another role sees, uses and drops none of alice's presets, and may
-- have its own of the same name.
SET ROLE regress_tuner_pd_bob;
SELECT name, built_in FROM tuner.presets ORDER BY name;
SELECT count(*) AS alices FROM tuner.preset WHERE owner = 'regress_tuner_pd_alice';
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('bob1', preset => 'mine')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.drop_preset('mine', 'regress_tuner_pd_alice')$$);
SELECT regress_tuner_pd_try($$DELETE FROM tuner.preset WHERE name = 'mine'$$);
SELECT tuner.create_preset('mine', '{"objective": "z", "parameters": [{"name": "w", "type": "int", "low": 1, "high": 3}]}');
SELECT tuner.create_study('bob1', preset => 'mine') > 0 AS created;
SELECT objective, (SELECT string_agg(p.name, ',') FROM tuner.parameter p WHERE p.study_id = s.id) AS parameters
  FROM tuner.study s WHERE name = 'bob1';
SELECT tuner.drop_study('bob1');
RESET ROLE;
-- (a superuser sees both, uses neither, and may drop either)
SELECT name, owner FROM tuner.preset WHERE owner IS NOT NULL ORDER BY name, owner;
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('su1', preset => 'mine')$$);
SELECT tuner.drop_preset('mine', 'regress_tuner_pd_bob');

-- Runners: a built-in with a runner, and a preset naming a runner or
-- runner settings, need the privilege to run programs, to make and to use.
SET ROLE regress_tuner_pd_alice;
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('al1', preset => 'rocksdb')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('al1', preset => 'fastquery')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run', '{"objective": "y", "runner": {"name": "sh", "program": "/bin/sh"}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run', '{"objective": "y", "settings": {"runner": {"program": "/bin/sh"}}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run', '{"objective": "y", "objectives": {"z": {"settings": {"runner": {"a": 1}}}}}')$$);
-- nor may the caller's settings add runner settings to a preset's study
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('al1', preset => 'mine', settings => '{"runner": {"x": 1}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('al1', preset => 'mine', runner => 'rocksdb')$$);
SELECT count(*) AS studies FROM tuner.study WHERE name = 'al1';
RESET ROLE;
SET ROLE regress_tuner_pd_runs;
SELECT tuner.create_preset('run', $$
{
	"objective": "y",
	"runner": {"name": "regress_tuner_pd_true", "program": "/bin/true",
			   "settings": [{"name": "level", "type": "int", "min": 1, "max": 9},
							{"name": "rate", "type": "number", "above": 0},
							{"name": "share", "type": "number", "min": 0, "max": 1},
							{"name": "out", "type": "path"}]},
	"settings": {"runner": {"level": 3}},
	"parameters": [{"name": "x", "type": "int", "low": 1, "high": "$runner.level"}]
}$$);
SELECT tuner.create_study('run1', preset => 'run', settings => '{"runner": {"rate": 0.5}}') > 0 AS created;
SELECT s.runner, s.settings, r.program, p.high
  FROM tuner.study s JOIN tuner.runner r ON r.name = s.runner JOIN tuner.parameter p ON p.study_id = s.id
 WHERE s.name = 'run1';
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('run2', preset => 'run', settings => '{"runner": {"levl": 2}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('run2', preset => 'run', settings => '{"runner": {"rate": 0}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('run2', preset => 'run', settings => '{"runner": {"share": 2}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_study('run2', preset => 'run', settings => '{"runner": {"out": "x"}}')$$);
-- a level of 1 collapses x's range: x is left out
SELECT tuner.create_study('run2', preset => 'run', settings => '{"runner": {"level": 1}}') > 0 AS created;
SELECT count(*) AS parameters FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'run2';
-- bad runner parts of a definition
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r"}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "bin/x"}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "float"}]}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "bool", "max": 1}]}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "int", "min": 5, "max": 1}]}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "int"}]}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "bool"}, {"name": "a", "type": "bool"}]}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x", "settings": [{"name": "a", "type": "int", "min": 0, "max": 3}]}, "settings": {"runner": {"a": 4}}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "runner": {"name": "r", "program": "x"}, "catalog": {"file": "c.json", "default_dir": "/tmp", "dir_setting": "dir"}}')$$);
SELECT regress_tuner_pd_try($$SELECT tuner.create_preset('run_bad', '{"objective": "y", "objectives": {"y": {"requires": {"paired": true}}}, "runner": {"name": "r", "program": "x", "settings": [{"name": "paired", "type": "bool"}]}}')$$);
SELECT count(*) AS run_bad FROM tuner.preset WHERE name = 'run_bad';
SELECT tuner.drop_study('run1'), tuner.drop_study('run2');
SELECT tuner.drop_preset('run');
RESET ROLE;
DELETE FROM tuner.runner WHERE name = 'regress_tuner_pd_true';
REVOKE EXECUTE ON FUNCTION tuner.register_runner(text, text, text[], jsonb) FROM regress_tuner_pd_runs;
SELECT tuner.drop_preset('mine', 'regress_tuner_pd_alice');
SELECT count(*) AS own_presets FROM tuner.preset WHERE owner IS NOT NULL;

-- the built-in presets registered their runners; the tests run in any
-- order, so leave none behind
SELECT tuner.drop_runner(name) FROM tuner.runner
 WHERE name IN ('ceph', 'fastquery', 'rocksdb') ORDER BY name;
DROP ROLE regress_tuner_pd_alice, regress_tuner_pd_bob, regress_tuner_pd_runs;
DROP FUNCTION public.regress_tuner_pd_try(text), public.regress_tuner_pd_study(text);
