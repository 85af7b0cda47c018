/*
 * catalog_data.sql
 *	  The built-in catalog cleaning rules (rows marked builtin, not dumped).
 */

-- Ceph 16.2 option types (src/common/options.h: Option::type_t).
INSERT INTO tuner.catalog_type (system, type, kind, drop_reason, zero_default_high, hard_low, builtin) VALUES
	('ceph', 'bool', 'bool', NULL, NULL, NULL, true),
	('ceph', 'int', 'int', NULL, 100, NULL, true),
	('ceph', 'uint', 'int', NULL, 100, 0, true),
	('ceph', 'size', 'int', NULL, 1073741824, 0, true),
	('ceph', 'secs', 'int', NULL, 3600, 0, true),
	('ceph', 'millisecs', 'int', NULL, 10000, 0, true),
	('ceph', 'float', 'float', NULL, 1, NULL, true),
	('ceph', 'str', 'categorical', NULL, NULL, NULL, true),
	('ceph', 'addr', NULL, 'address', NULL, NULL, true),
	('ceph', 'addrvec', NULL, 'address', NULL, NULL, true),
	('ceph', 'uuid', NULL, 'uuid', NULL, NULL, true);

-- Ceph options that are not tuning knobs.  The free_strings_only rules
-- only give free strings a more telling reason than free_string: the
-- numbers and enums they would also match (mds_dir_max_commit_size,
-- rocksdb_bloom_bits_per_key, osd_mclock_profile, osd_pool_default_type)
-- are knobs and stay.
INSERT INTO tuner.catalog_wash_rule (system, field, pattern, free_strings_only, reason, builtin) VALUES
	('ceph', 'name', '(^|_)debug(_|$)', false, 'debug', true),
	('ceph', 'name', '(^|_)(inject|kill|die|abort|crash|fake)(_|$)', false, 'fault_injection', true),
	('ceph', 'tag', '^fault injection$', false, 'fault_injection', true),
	('ceph', 'name', '(^|_)(test|testing)(_|$)', false, 'testing', true),
	('ceph', 'tag', '^testing$', false, 'testing', true),
	('ceph', 'name', '^(log|clog|err_to|mon_cluster_log)_|(^|_)(syslog|graylog|journald|lttng|tracing)(_|$)|_to_(stderr|file)$', false, 'logging', true),
	('ceph', 'name', '(^|_)(port|ports)(_|$)', false, 'port', true),
	('ceph', 'name', '(^|_)(addr|addrs|ip|host|hostname|network|networks|iface|interface|nic)(_|$)', false, 'address', true),
	('ceph', 'name', '(^|_)(uuid|fsid)(_|$)', false, 'uuid', true),
	('ceph', 'name', '(^|_)(uid|gid)(_|$)', false, 'name', true),
	('ceph', 'name', '^(auth|cephx)_', false, 'security', true),
	('ceph', 'name', '(^|_)(path|paths|dir|dirs|file|files|filename|socket|pid|keyring|keyfile|mount|device|devices|dev)(_|$)', true, 'path', true),
	('ceph', 'name', '(^|_)(name|names|user|users|group|groups|owner|setuser|setgroup|tenant|realm|zone|zonegroup|pool|profile)(_|$)', true, 'name', true),
	('ceph', 'name', '(^|_)(key|keys|secret|secrets|password|passwd|token|cert|certs|credential|credentials)(_|$)', true, 'secret', true),
	('ceph', 'choice', '^debug_', false, 'debug', true);

-- Ceph module selectors (Sapphire's pruning): the option, the value the
-- study uses, and the prefixes of the options of the modules it leaves
-- unused.
INSERT INTO tuner.catalog_module (system, selector, value, prunes, builtin) VALUES
	('ceph', 'osd_objectstore', 'bluestore', '{filestore_,memstore_,kstore_,journal_}', true),
	('ceph', 'osd_objectstore', 'filestore', '{bluestore_,bluefs_,bdev_,memstore_,kstore_}', true),
	('ceph', 'osd_objectstore', 'memstore', '{filestore_,bluestore_,bluefs_,bdev_,kstore_,journal_}', true),
	('ceph', 'osd_objectstore', 'kstore', '{filestore_,bluestore_,bluefs_,bdev_,memstore_,journal_}', true),
	('ceph', 'ms_type', 'async+posix', '{ms_dpdk_,ms_async_rdma_}', true),
	('ceph', 'ms_type', 'async+dpdk', '{ms_async_rdma_}', true),
	('ceph', 'ms_type', 'async+rdma', '{ms_dpdk_}', true),
	('ceph', 'osd_op_queue', 'wpq', '{osd_mclock_}', true),
	('ceph', 'osd_op_queue', 'mclock_scheduler', '{}', true),
	('ceph', 'bluestore_compression_mode', 'none', '{bluestore_compression_}', true),
	('ceph', 'bluestore_compression_mode', 'passive', '{}', true),
	('ceph', 'bluestore_compression_mode', 'aggressive', '{}', true),
	('ceph', 'bluestore_compression_mode', 'force', '{}', true),
	('ceph', 'osd_pool_default_type', 'replicated', '{osd_pool_erasure_code_,osd_pool_default_erasure_code_,osd_erasure_code_}', true),
	('ceph', 'osd_pool_default_type', 'erasure', '{}', true);
