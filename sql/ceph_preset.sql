-- ceph_preset: tuner.create_study(..., preset => 'ceph') imports the live
-- cluster's catalog (cluster.sh start writes <cluster dir>/catalog.json)
-- into the Sapphire pipeline.  Here the catalog is the committed Ceph 16.2
-- one copied into a directory of our own (no cluster needed); the real
-- cluster runs in tests/ceph/test_study.sh.
\set SHOW_CONTEXT never
\! rm -rf /tmp/tuner_regress_ceph_preset && mkdir -p /tmp/tuner_regress_ceph_preset/empty && cp tests/ceph/catalog-16.2.json /tmp/tuner_regress_ceph_preset/catalog.json && chmod -R a+rX /tmp/tuner_regress_ceph_preset

SELECT tuner.create_study('cph', preset => 'ceph', settings =>
	'{"seed": 3, "runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset"}}') > 0 AS created;
SELECT objective, direction, runner, algorithm, settings FROM tuner.study WHERE name = 'cph';
SELECT name, program, args FROM tuner.runner WHERE name = 'ceph';
-- the space: only the preset's options, none fixed at OSD creation
SELECT p.name, p.kind, p.low, p.high, p.log_scale, p.default_value, p.soft_bounds
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'cph' ORDER BY p.name;
SELECT count(*) FILTER (WHERE apply = 'create') AS creation_time,
	   count(*) FILTER (WHERE name !~ '^(osd_op_num|osd_client_message|ms_|objecter_|bluestore_|rocksdb_cache)') AS outside
  FROM tuner.catalog_kept WHERE study = 'cph';
-- trial 1 is the default configuration
SELECT t.source, (SELECT count(*) FROM jsonb_object_keys(t.params)) =
	   (SELECT count(*) FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id WHERE s.name = 'cph') AS all_params
  FROM (SELECT (tuner.suggest_next('cph') -> 'params') AS params, 'suggested' AS source) t;
SELECT state, source FROM tuner.trials WHERE study = 'cph';

-- random-read IOPS: 4 KiB objects, unless the caller says otherwise
SELECT tuner.create_study('cph_rr', 'rand_read_iops', preset => 'ceph', settings =>
	'{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset", "duration_s": 2.5}}') > 0 AS created;
SELECT objective, settings -> 'runner' AS runner FROM tuner.study WHERE name = 'cph_rr';
SELECT tuner.create_study('cph_rr2', 'rand_read_ratio', preset => 'ceph', settings =>
	'{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset", "object_size": 65536}}') > 0 AS created;
SELECT objective, settings -> 'runner' AS runner FROM tuner.study WHERE name = 'cph_rr2';

-- Errors, none of which leaves a study behind.
-- no catalog: the cluster was never started there
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset/empty"}}');
-- not JSON
\! echo 'not json' > /tmp/tuner_regress_ceph_preset/empty/catalog.json
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset/empty"}}');
-- JSON, but nothing the preset searches
\! echo '{"options": []}' > /tmp/tuner_regress_ceph_preset/empty/catalog.json
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset/empty"}}');
-- objectives the runner does not report
SELECT tuner.create_study('cph_bad', 'read_mbps', preset => 'ceph');
SELECT tuner.create_study('cph_bad', '', preset => 'ceph');
-- a ratio needs paired runs
SELECT tuner.create_study('cph_bad', 'write_ratio', preset => 'ceph',
	settings => '{"runner": {"paired": false}}');
-- runner settings
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"duraton_s": 3}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"duration_s": 0}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"duration_s": "3"}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"paired": 1}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"restore": null}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"cluster_dir": "var/tmp"}}');
-- A directory name the file system cannot even look up (too long: found
-- by the SQL fuzzer as an internal error) is a missing catalog.
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => jsonb_build_object('runner', jsonb_build_object('cluster_dir', '/tmp/' || repeat('x', 300))));
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"object_size": 134217728}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"pool": ""}}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": []}');
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => NULL);
SELECT tuner.create_study('cph_bad', preset => 'ceph', settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset"}, "colour": 1}');
SELECT tuner.create_study('cph', preset => 'ceph', settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset"}}');
SELECT count(*) AS leftover FROM tuner.study WHERE name = 'cph_bad';

-- privileges: trials run programs, and the catalog is a server file
CREATE ROLE tuner_ceph_nobody;
GRANT USAGE ON SCHEMA tuner TO tuner_ceph_nobody;
GRANT ALL ON ALL TABLES IN SCHEMA tuner TO tuner_ceph_nobody;
GRANT ALL ON ALL SEQUENCES IN SCHEMA tuner TO tuner_ceph_nobody;
SET ROLE tuner_ceph_nobody;
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset"}}');
RESET ROLE;
GRANT pg_execute_server_program TO tuner_ceph_nobody;
SET ROLE tuner_ceph_nobody;
SELECT tuner.create_study('cph_bad', preset => 'ceph',
	settings => '{"runner": {"cluster_dir": "/tmp/tuner_regress_ceph_preset"}}');
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA tuner FROM tuner_ceph_nobody;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA tuner FROM tuner_ceph_nobody;
REVOKE USAGE ON SCHEMA tuner FROM tuner_ceph_nobody;
REVOKE pg_execute_server_program FROM tuner_ceph_nobody;
DROP ROLE tuner_ceph_nobody;

SELECT tuner.drop_study(name) FROM tuner.study WHERE name IN ('cph', 'cph_rr', 'cph_rr2');
-- The preset's runner too: the tests run in any order, each after only
-- CREATE EXTENSION.
SELECT tuner.drop_runner('ceph');
\! rm -rf /tmp/tuner_regress_ceph_preset
