-- Catalog import (tuner.import_catalog): every washing, pruning and
-- bounds rule and every error on a small hand-made catalog, then the real
-- Ceph 16.2 catalog of tests/ceph/catalog-16.2.json.
\set SHOW_CONTEXT never

-- The SQLSTATE, message, detail and hint of the error a statement raises.
CREATE FUNCTION pg_temp.err(q text)
RETURNS TABLE(state text, message text, detail text, hint text)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	state := 'ok';
	RETURN NEXT;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
		detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RETURN NEXT;
END;
$$;

SELECT tuner.create_study('cat_hand', 'value', settings => '{"seed": 1}') > 0 AS created;

-- One option per rule.
CREATE TEMP TABLE hand AS SELECT $json$
{"version": "hand-1", "options": [
 {"name": "osd_threads", "type": "int", "level": "advanced", "default": 8, "min": 1, "max": 64, "flags": ["runtime"], "services": ["osd"], "desc": "threads"},
 {"name": "osd_cache_bytes", "type": "size", "level": "basic", "default": "1048576", "min": "", "max": ""},
 {"name": "osd_ratio", "type": "float", "level": "advanced", "default": 0.5, "min": 0, "max": 1},
 {"name": "osd_sleep", "type": "float", "level": "advanced", "default": 0, "see_also": ["osd_sleep_hdd"]},
 {"name": "osd_sleep_hdd", "type": "float", "level": "advanced", "default": 0.1},
 {"name": "osd_shards", "type": "int", "level": "advanced", "default": 0, "flags": ["startup"], "can_update_at_runtime": false},
 {"name": "osd_shards_ssd", "type": "int", "level": "advanced", "default": 8, "see_also": ["osd_shards"], "flags": ["startup"]},
 {"name": "osd_queue_depth", "type": "uint", "level": "advanced", "default": 0},
 {"name": "osd_grace", "type": "secs", "level": "advanced", "default": "30"},
 {"name": "osd_floor", "type": "size", "level": "advanced", "default": "4096", "min": "1024"},
 {"name": "osd_use_cache", "type": "bool", "level": "advanced", "default": true, "flags": ["runtime"]},
 {"name": "osd_direct", "type": "bool", "level": "advanced", "default": "false", "flags": ["startup"]},
 {"name": "osd_scheduler", "type": "str", "level": "advanced", "default": "fifo", "enum_values": ["fifo", "prio", "debug_random"], "can_update_at_runtime": false},
 {"name": "osd_alloc_unit", "type": "uint", "level": "advanced", "default": 4096, "flags": ["create"]},
 {"name": "osd_backend", "type": "str", "level": "advanced", "default": "", "enum_values": ["aio", "spdk"]},
 {"name": "osd_only_one", "type": "str", "level": "advanced", "default": "only", "enum_values": ["only"]},
 {"name": "common_timeout", "type": "float", "level": "advanced", "default": 5, "services": ["common"]},
 {"name": "public_addr", "type": "addr", "level": "basic", "default": "-"},
 {"name": "ms_bind_port_min", "type": "int", "level": "advanced", "default": 6800},
 {"name": "osd_data_path", "type": "str", "level": "advanced", "default": "/var/lib/ceph"},
 {"name": "osd_uuid", "type": "uuid", "level": "advanced", "default": ""},
 {"name": "mon_user", "type": "str", "level": "advanced", "default": "ceph"},
 {"name": "api_key", "type": "str", "level": "advanced", "default": ""},
 {"name": "debug_osd", "type": "str", "level": "dev", "default": "1/5"},
 {"name": "osd_debug_slow", "type": "bool", "level": "dev", "default": false},
 {"name": "log_max_recent", "type": "int", "level": "advanced", "default": 500},
 {"name": "ms_inject_failures", "type": "uint", "level": "dev", "default": 0},
 {"name": "osd_odd_knob", "type": "bool", "level": "advanced", "default": false, "tags": ["testing"]},
 {"name": "osd_crush_location", "type": "str", "level": "advanced", "default": ""},
 {"name": "osd_initial_weight", "type": "float", "level": "advanced", "default": 1, "flags": ["cluster_create"]},
 {"name": "osd_daemonize", "type": "bool", "level": "advanced", "default": true, "flags": ["no_mon_update", "startup"]},
 {"name": "osd_numa_node", "type": "int", "level": "advanced", "default": -1},
 {"name": "osd_fixed", "type": "int", "level": "advanced", "default": 5, "min": 5, "max": 5},
 {"name": "osd_broken", "type": "uint", "level": "advanced", "default": 5, "min": 18446744073709551606, "max": 10},
 {"name": "filestore_queue_max_ops", "type": "uint", "level": "advanced", "default": 50},
 {"name": "journal_max_write_bytes", "type": "size", "level": "advanced", "default": "10485760"},
 {"name": "osd_objectstore", "type": "str", "level": "advanced", "default": "bluestore", "enum_values": ["bluestore", "filestore"], "flags": ["create"]},
 {"name": "rgw_threads", "type": "int", "level": "advanced", "default": 512, "services": ["rgw"]},
 {"name": "osd_dev_knob", "type": "int", "level": "dev", "default": 16},
 {"name": "osd_tmp_knob", "type": "int", "level": "advanced", "default": 3}
]}
$json$::jsonb AS j;

SELECT tuner.import_catalog('cat_hand', (SELECT j FROM hand),
	'{"osd_objectstore": "bluestore", "services": ["osd"], "levels": ["basic", "advanced"],
	  "exclude": ["_tmp_"], "invalid": "drop"}') - 'import' AS summary;

SELECT name, kind, low, high, log_scale, choices, default_value, source_type,
	   source_min, source_max, hard_low, hard_high, soft_low, soft_high, bound_rule
  FROM tuner.catalog_kept WHERE study = 'cat_hand' ORDER BY position;

SELECT name, needs_restart, apply, flags, services, removed_choices, note
  FROM tuner.catalog_kept WHERE study = 'cat_hand' ORDER BY position;

SELECT name, reason, detail, source_type, level
  FROM tuner.catalog_dropped WHERE study = 'cat_hand' ORDER BY reason, name;

-- The study's space is the washed catalog.
SELECT parameters FROM tuner.studies WHERE name = 'cat_hand';
SELECT system, version, total, kept, dropped, options
  FROM tuner.catalog_import i JOIN tuner.study s ON s.id = i.study_id
 WHERE s.name = 'cat_hand';

-- include, apply, a plain array, no options.
SELECT tuner.create_study('cat_hand2', 'value', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.import_catalog('cat_hand2', (SELECT j -> 'options' FROM hand),
	'{"include": ["^osd_"], "apply": ["runtime"], "invalid": "drop"}') - 'import' AS summary;
SELECT reason, count(*) FROM tuner.catalog_dropped WHERE study = 'cat_hand2'
 GROUP BY reason ORDER BY reason;
SELECT name, apply FROM tuner.catalog_kept WHERE study = 'cat_hand2' ORDER BY position;

-- Another import into the same study adds the options it did not have.
SELECT tuner.import_catalog('cat_hand2',
	'[{"name": "extra_knob", "type": "float", "default": 2, "level": "basic"},
	  {"name": "extra_path", "type": "str", "default": "/x"}]') - 'import' AS summary;
SELECT name, kind, low, high FROM tuner.catalog_kept
 WHERE study = 'cat_hand2' AND name ~ '^extra' ORDER BY name;
SELECT name, reason FROM tuner.catalog_dropped
 WHERE study = 'cat_hand2' AND name ~ '^extra' ORDER BY name;

-- Bad input.
SELECT tuner.create_study('cat_bad', 'value', settings => '{"seed": 1}') > 0 AS created;
-- the catalog's shape
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '{"a": 1}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '{"options": 3}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '42')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "default": 1}, 7]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"type": "int", "default": 1}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": " ", "type": "int"}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": 5, "type": "int"}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "double"}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a"}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "default": 1}, {"name": "a", "type": "bool"}]')$$);
-- bounds: min > max, default outside [min, max], not numbers, fractional int default
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "min": 10, "max": 1, "default": 5}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "min": 1, "max": 10, "default": 30}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "float", "min": 1, "default": 0}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "min": "abc", "default": 1}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "float", "default": "NaN"}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "default": [1]}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "default": 2.5}]')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "a", "type": "int", "default": 1, "flags": "runtime"}]')$$);
-- options
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"bogus": 1}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"osd_objectstore": "zfs"}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"osd_op_queue": "debug_random"}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"osd_objectstore": true}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"services": "osd"}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"levels": ["expert"]}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"apply": ["later"]}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"exclude": ["("]}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"invalid": "clamp"}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '{"system": "lustre"}')$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', '[]')$$);
-- NULLs and unknown studies
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', NULL)$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[]', NULL)$$);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('nope', '[]')$$);
-- a parameter that is already in the study
SELECT tuner.add_parameter('cat_bad', 'osd_threads', 'int', 1, 8);
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', (SELECT j FROM hand), '{"invalid": "drop"}')$$);
-- a study with trials
SELECT (tuner.suggest_next('cat_bad') ->> 'trial') IS NOT NULL AS suggested;
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_bad', '[{"name": "b", "type": "int", "default": 1}]')$$);
-- nothing of the failed imports stayed
SELECT count(*) AS imports FROM tuner.catalog_import i JOIN tuner.study s ON s.id = i.study_id
 WHERE s.name = 'cat_bad';
-- an empty catalog is no error
SELECT tuner.create_study('cat_empty', 'value', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.import_catalog('cat_empty', '[]') - 'import' AS summary;

-- The real catalog: Ceph 16.2, generated by tests/ceph/make-catalog.sh.
-- pg_regress runs psql in the repository root.
\set content `cat tests/ceph/catalog-16.2.json`
CREATE TEMP TABLE ceph AS SELECT :'content'::jsonb AS j;
SELECT j ->> 'system' AS system, j ->> 'version' AS version,
	   jsonb_array_length(j -> 'options') AS options FROM ceph;

SELECT tuner.create_study('cat_ceph', 'write_mbps', settings => '{"seed": 1}') > 0 AS created;
-- Ceph 16.2 ships a uint whose min is -1 (wrapped) and above its max.
SELECT * FROM pg_temp.err($$SELECT tuner.import_catalog('cat_ceph', (SELECT j FROM ceph))$$);
-- A RADOS study on BlueStore with the wpq queue and the posix messenger.
SELECT tuner.import_catalog('cat_ceph', (SELECT j FROM ceph),
	'{"osd_objectstore": "bluestore", "osd_op_queue": "wpq", "ms_type": "async+posix",
	  "invalid": "drop"}') - 'import' AS summary;
SELECT reason, count(*) FROM tuner.catalog_dropped WHERE study = 'cat_ceph'
 GROUP BY reason ORDER BY count(*) DESC, reason;
SELECT kind, apply, count(*), count(*) FILTER (WHERE soft_bound) AS soft,
	   count(*) FILTER (WHERE log_scale) AS log_scale
  FROM tuner.catalog_kept WHERE study = 'cat_ceph' GROUP BY kind, apply ORDER BY kind, apply;
SELECT s.parameters = i.kept AS space_is_kept, i.total, i.kept + i.dropped AS accounted, i.version
  FROM tuner.studies s JOIN tuner.catalog_import i ON i.study_id = s.id WHERE s.name = 'cat_ceph';

-- Pruned modules and washed options leave nothing behind.
SELECT count(*) AS unused_modules_kept FROM tuner.catalog_kept
 WHERE study = 'cat_ceph' AND name ~ '^(filestore|memstore|kstore|journal|osd_mclock|ms_dpdk|ms_async_rdma)_';
SELECT count(*) AS unwanted_kept FROM tuner.catalog_kept
 WHERE study = 'cat_ceph' AND (name ~ '(^|_)(debug|addr|port|path|uuid|fsid|inject)(_|$)'
						   OR name ~ '^(log|clog)_' OR source_type IN ('addr', 'addrvec', 'uuid'));
SELECT count(*) AS free_strings_kept FROM tuner.catalog_kept
 WHERE study = 'cat_ceph' AND kind = 'categorical' AND choices IS NULL;
SELECT reason, count(*) FROM tuner.catalog_dropped
 WHERE study = 'cat_ceph' AND name ~ '^(filestore|memstore|kstore|journal)_' GROUP BY reason ORDER BY reason;

SELECT name, kind, low, high, log_scale, default_value, soft_low, soft_high,
	   needs_restart, apply, bound_rule
  FROM tuner.catalog_kept WHERE study = 'cat_ceph'
   AND name IN ('osd_op_num_threads_per_shard', 'osd_op_num_shards', 'osd_op_num_shards_ssd',
				'bluestore_cache_size', 'bluestore_cache_autotune', 'bluestore_min_alloc_size',
				'osd_max_backfills', 'osd_recovery_max_active', 'ms_async_op_threads',
				'osd_client_message_size_cap', 'objecter_inflight_op_bytes',
				'osd_memory_target', 'osd_recovery_sleep', 'rocksdb_bloom_bits_per_key')
 ORDER BY name;
SELECT name, choices, default_value, needs_restart, removed_choices, note
  FROM tuner.catalog_kept WHERE study = 'cat_ceph' AND kind = 'categorical' ORDER BY name;

SELECT name, reason, detail FROM tuner.catalog_dropped WHERE study = 'cat_ceph'
   AND name IN ('public_addr', 'public_network', 'ms_bind_port_min', 'osd_data', 'admin_socket',
				'fsid', 'osd_uuid', 'debug_osd', 'osd_debug_op_order', 'log_file', 'log_max_recent',
				'ms_inject_socket_failures', 'keyring', 'auth_service_ticket_ttl',
				'bluestore_block_path', 'filestore_max_sync_interval', 'osd_mclock_profile',
				'osd_objectstore', 'osd_op_queue', 'ms_type', 'mon_osd_full_ratio',
				'osd_numa_node', 'rgw_rados_pool_recovery_priority', 'bluestore_rocksdb_options',
				'setuser', 'rgw_port')
 ORDER BY name;

-- Only the OSD's options, not the developer ones.
SELECT tuner.create_study('cat_ceph_osd', 'write_mbps', settings => '{"seed": 1}') > 0 AS created;
SELECT tuner.import_catalog('cat_ceph_osd', (SELECT j FROM ceph),
	'{"osd_objectstore": "bluestore", "services": ["osd"], "levels": ["basic", "advanced"]}') - 'import' AS summary;
SELECT count(*) FILTER (WHERE name ~ '^(rgw|mds|rbd)_') AS other_services_kept,
	   count(*) FILTER (WHERE level = 'dev') AS dev_kept
  FROM tuner.catalog_kept WHERE study = 'cat_ceph_osd';

-- Derived bounds are soft: the study may widen them (within the
-- catalog's own bound and the type's lowest value); catalog bounds are not.
SELECT count(*) FILTER (WHERE k.soft_bound) AS soft_in_catalog,
       count(*) FILTER (WHERE p.soft_bounds) AS soft_in_space,
       count(*) FILTER (WHERE p.soft_bounds <> k.soft_bound) AS disagree,
       count(*) FILTER (WHERE p.hard_low > p.low OR p.hard_high < p.high) AS limits_inside_bounds
  FROM tuner.catalog_kept k
  JOIN tuner.study s ON s.name = k.study
  JOIN tuner.parameter p ON p.study_id = s.id AND p.name = k.name
 WHERE k.study = 'cat_ceph';
SELECT p.name, p.low, p.high, p.log_scale, p.soft_bounds, p.hard_low, p.hard_high
  FROM tuner.parameter p JOIN tuner.study s ON s.id = p.study_id
 WHERE s.name = 'cat_ceph'
   AND p.name IN ('osd_max_backfills', 'bluestore_cache_size', 'ms_async_op_threads', 'osd_recovery_max_active')
 ORDER BY p.name;

-- drop_study takes the imports with them.
CREATE TEMP TABLE ceph_imports AS
SELECT i.id FROM tuner.catalog_import i JOIN tuner.study s ON s.id = i.study_id
 WHERE s.name IN ('cat_ceph', 'cat_ceph_osd');
SELECT count(*) AS ceph_imports FROM ceph_imports;
SELECT tuner.drop_study('cat_ceph_osd');
SELECT tuner.drop_study('cat_ceph');
SELECT (SELECT count(*) FROM tuner.catalog_import WHERE id IN (SELECT id FROM ceph_imports)) AS imports,
	   (SELECT count(*) FROM tuner.catalog_drop WHERE import_id IN (SELECT id FROM ceph_imports)) AS drops,
	   (SELECT count(*) FROM tuner.parameter_source WHERE import_id IN (SELECT id FROM ceph_imports)) AS kept;

-- Leave nothing behind: the tests run in any order (REGRESS is every
-- sql/*.sql), each after only CREATE EXTENSION.
SELECT tuner.drop_study(name) FROM tuner.study
 WHERE name IN ('cat_bad', 'cat_empty', 'cat_hand', 'cat_hand2') ORDER BY name;
