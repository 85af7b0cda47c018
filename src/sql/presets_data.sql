/*
 * presets_data.sql
 *	  The built-in presets (owner NULL): RocksDB, Ceph and FastQuery.
 */

-------------------------------------------------------------------------------
-- The built-in presets, as rows of tuner.preset (presets.sql; the format
-- is docs/presets.md's "Defining a preset").  Their content is exactly
-- what 0.2.0's preset functions did (sql/preset.sql, ceph_preset.sql and
-- fastquery_preset.sql check the studies they make).  To change a
-- built-in later, UPDATE its row in that version's update script; no
-- function changes.
-------------------------------------------------------------------------------

-- "rocksdb": the RocksDB paper's Table 1 on the scaled db_bench mixgraph
-- workload of tuner_rocksdb (src/runners/rocksdb/README.md).
--
-- Settings: every trial is measured paired with the default configuration
-- (the objective is the ratio to it), 30 s per run; a trial is two runs
-- plus restoring the DB and the final compaction, so 600 s is a generous
-- timeout.  Budgets are about 10 trials (the paper's): the default, two
-- space-filling points, then the model (the generic d + 1 = 11 would
-- leave a 10-trial study without a single model trial; the paper starts
-- its models from one observation).  noise_sd is the paired ratio's
-- measured spread with the runner's default direct I/O (sd 0.235 in 6
-- default-vs-default pairs, CV 13-22% in a second set; see
-- src/runners/rocksdb/README.md), for tuner.recommend; it belongs to
-- objective ratio_to_default only.
--
-- Parameters: ranges are Table 1's, scaled like the workload (store,
-- cache and write buffers about 256x smaller): the write buffer spans
-- [64 KiB (RocksDB's floor), 1.5e8 / 256].  Table 1's parameters are all
-- ordinal integers; those spanning more than a decade are searched in log
-- space.  The slowdown trigger's default is passed as 20: Table 1 lists
-- 0, which RocksDB does not read as its default.
--
-- Constraints: RocksDB's own orderings (its options sanitizer rewrites a
-- configuration that breaks them, so such a trial would not measure what
-- it says): L0 compaction <= slowdown <= stop triggers, and fewer
-- memtables merged than may exist.
--
-- Metrics: the auxiliary metrics of the paper, and raw throughput; each
-- with the parameters that drive it most (our reading of RocksDB: flushes
-- and the L0 triggers for compaction time, the LSM shape for write
-- amplification, block size and the LSM depth for block reads).
INSERT INTO tuner.preset (name, owner, definition) VALUES ('rocksdb', NULL, $json$
{
	"description": "RocksDB, db_bench mixgraph (the RocksDB paper's Table 1, scaled)",
	"objective": "ratio_to_default",
	"objectives": {
		"ratio_to_default": {
			"unit": "ratio",
			"cluster": ["write_buffer_size", "max_write_buffer_number", "level0_file_num_compaction_trigger",
						"level0_slowdown_writes_trigger", "level0_stop_writes_trigger", "max_background_compactions"],
			"settings": {"noise_sd": 0.2}
		}
	},
	"runner": {
		"name": "rocksdb",
		"program": "tuner_rocksdb",
		"settings": [
			{"name": "duration_s", "type": "int", "min": 1, "max": 86400},
			{"name": "paired", "type": "bool"},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "segments", "type": "int", "min": 1, "max": 16},
			{"name": "num_keys", "type": "int", "min": 1000, "max": 1000000000},
			{"name": "seed", "type": "int", "min": 0, "max": 2147483647},
			{"name": "direct_io", "type": "bool"},
			{"name": "keep_db", "type": "bool"},
			{"name": "work_dir", "type": "path"},
			{"name": "db_bench", "type": "path"},
			{"name": "default_config", "type": "object"}
		]
	},
	"settings": {"n_initial": 3, "trial_timeout_s": 600, "runner": {"duration_s": 30, "paired": true}},
	"parameters": [
		{"name": "max_background_compactions", "type": "int", "low": 1, "high": 16, "default": "1", "log": false},
		{"name": "max_background_flushes", "type": "int", "low": 1, "high": 10, "default": "1", "log": false},
		{"name": "write_buffer_size", "type": "int", "low": 65536, "high": 585937, "default": "262144", "log": true},
		{"name": "max_write_buffer_number", "type": "int", "low": 1, "high": 128, "default": "2", "log": true},
		{"name": "min_write_buffer_number_to_merge", "type": "int", "low": 1, "high": 32, "default": "1", "log": true},
		{"name": "max_bytes_for_level_multiplier", "type": "int", "low": 5, "high": 15, "default": "10", "log": false},
		{"name": "block_size", "type": "int", "low": 256, "high": 500000, "default": "4096", "log": true},
		{"name": "level0_file_num_compaction_trigger", "type": "int", "low": 1, "high": 256, "default": "4", "log": true},
		{"name": "level0_slowdown_writes_trigger", "type": "int", "low": 1, "high": 1024, "default": "20", "log": true},
		{"name": "level0_stop_writes_trigger", "type": "int", "low": 1, "high": 1024, "default": "36", "log": true}
	],
	"constraints": [
		"level0_file_num_compaction_trigger <= level0_slowdown_writes_trigger",
		"level0_slowdown_writes_trigger <= level0_stop_writes_trigger",
		"min_write_buffer_number_to_merge < max_write_buffer_number"
	],
	"metrics": [
		{"name": "ops_per_sec", "direction": "maximize", "unit": "ops/s",
		 "cluster": ["max_write_buffer_number", "max_background_flushes", "level0_slowdown_writes_trigger", "level0_stop_writes_trigger"]},
		{"name": "write_amp", "direction": "minimize", "unit": null,
		 "cluster": ["max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger", "write_buffer_size", "min_write_buffer_number_to_merge"]},
		{"name": "p99_block_read_us", "direction": "minimize", "unit": "us",
		 "cluster": ["block_size", "max_bytes_for_level_multiplier", "level0_file_num_compaction_trigger"]},
		{"name": "p99_l0_l1_compaction_ms", "direction": "minimize", "unit": "ms",
		 "cluster": ["max_background_compactions", "level0_file_num_compaction_trigger", "write_buffer_size", "level0_slowdown_writes_trigger", "level0_stop_writes_trigger"]}
	]
}
$json$);

-- "ceph": the live Ceph test cluster's option catalog through the
-- Sapphire washing and pruning, tuned with the Sapphire pipeline by the
-- tuner_ceph runner (src/runners/ceph/README.md).
--
-- Settings: a trial is a paired measurement (the default configuration
-- interleaved: two runs of three 3 s phases, plus OSD restarts when a
-- restart-only option changes, ~10 s each here), and "restore" puts the
-- cluster back to its defaults after every trial, so it is at them
-- whenever the study ends or is stopped.  600 s is a generous timeout.
-- Random reads of small objects measure IOPS (object_size 4096); the
-- *_ratio objectives are the paired ratio to the default configuration.
--
-- Catalog: the one the running cluster's `cluster.sh start` writes into
-- its directory (runner setting cluster_dir; by default cluster.sh's
-- default for the OS user the server runs as, /var/tmp/tuner-ceph-<uid>).
-- The part of it searched ("include", regular expressions on the option
-- name): the OSD's client data path (op shards and threads, client message
-- throttles), BlueStore's write throttles, deferred writes and caches,
-- the messenger and the client's objecter throttles -- options that apply
-- at runtime or by an OSD restart.  Random exploration over the whole
-- catalog would set heartbeat grace times, op thread timeouts, full ratios
-- or pool defaults that take the single-host OSD down or make its pool
-- unwritable, which measures nothing; creation-time options are refused
-- by the runner anyway.  The import keeps BlueStore, the wpq queue and the
-- posix messenger (the test cluster's; they prune the other modules'
-- options), no developer options, nothing fixed at OSD creation; options
-- whose catalog bounds are inconsistent are dropped rather than failing.
--
-- Algorithm: trial 1 is the default configuration (every imported option
-- has a default).  The exploration takes 20 trials (at ~30 s a paired
-- trial, ~10 minutes here) and the model then works on the top 5: a
-- 40-trial study fits in about 20 minutes on this 2-core machine.
-- tuner.set_algorithm changes them.
INSERT INTO tuner.preset (name, owner, definition) VALUES ('ceph', NULL, $json$
{
	"description": "a local single-host Ceph 16.2 test cluster, its option catalog through Sapphire",
	"objective": "write_mbps",
	"other_objectives": false,
	"objectives_hint": "Use write_mbps (4 MiB objects, the default) or rand_read_iops (4 KiB objects), or their paired ratios to the default configuration, write_ratio and rand_read_ratio.",
	"objectives": {
		"write_mbps": {},
		"rand_read_iops": {"settings": {"runner": {"object_size": 4096}}},
		"write_ratio": {"requires": {"paired": true},
						"hint": "Leave \"paired\" at true, or choose write_mbps or rand_read_iops."},
		"rand_read_ratio": {"settings": {"runner": {"object_size": 4096}}, "requires": {"paired": true},
							"hint": "Leave \"paired\" at true, or choose write_mbps or rand_read_iops."}
	},
	"runner": {
		"name": "ceph",
		"program": "tuner_ceph",
		"settings": [
			{"name": "cluster_dir", "type": "path"},
			{"name": "conf", "type": "path"},
			{"name": "keyring", "type": "path"},
			{"name": "client_name", "type": "string"},
			{"name": "pool", "type": "string"},
			{"name": "cluster_script", "type": "path"},
			{"name": "state_file", "type": "path"},
			{"name": "object_size", "type": "int", "min": 1, "max": 67108864},
			{"name": "concurrency", "type": "int", "min": 1, "max": 1024},
			{"name": "duration_s", "type": "number", "min": 0.1, "max": 3600, "unit": "seconds"},
			{"name": "seed", "type": "int", "min": 0, "max": 9007199254740992},
			{"name": "apply_timeout_s", "type": "int", "min": 1, "max": 600},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "paired", "type": "bool"},
			{"name": "restore", "type": "bool"}
		]
	},
	"settings": {"trial_timeout_s": 600, "runner": {"duration_s": 3, "paired": true, "restore": true}},
	"catalog": {
		"what": "Ceph catalog",
		"file": "catalog.json",
		"dir_setting": "cluster_dir",
		"default_dir": "/var/tmp/tuner-ceph-{uid}",
		"import": {
			"osd_objectstore": "bluestore", "osd_op_queue": "wpq", "ms_type": "async+posix",
			"levels": ["basic", "advanced"], "apply": ["runtime", "restart"],
			"include": ["^osd_op_num_shards$", "^osd_op_num_threads_per_shard$",
						"^osd_client_message_(size_)?cap$",
						"^ms_async_op_threads$", "^ms_dispatch_throttle_bytes$", "^ms_tcp_nodelay$", "^ms_tcp_rcvbuf$",
						"^objecter_inflight_op(s|_bytes)$",
						"^bluestore_throttle_(bytes|deferred_bytes|cost_per_io)$",
						"^bluestore_deferred_batch_ops$", "^bluestore_prefer_deferred_size$",
						"^bluestore_cache_(size|autotune|meta_ratio|kv_ratio)$", "^bluestore_csum_type$",
						"^rocksdb_cache_size$"],
			"invalid": "drop"
		},
		"min_parameters": 2,
		"missing_detail": "The ceph preset imports the option catalog of the running cluster, which tests/ceph/cluster.sh start writes there.",
		"missing_hint": "Start the cluster as the server's OS user: runuser -u postgres -- tests/ceph/cluster.sh start (add TUNER_CEPH_DIR=... and the runner setting cluster_dir for another directory).",
		"invalid_hint": "Restart the cluster with tests/ceph/cluster.sh start, which rewrites it.",
		"few_hint": "The catalog should be the running cluster's (tests/ceph/cluster.sh start writes it); tuner.catalog_dropped says why options were left out."
	},
	"algorithm": {"name": "sapphire", "options": {"explore": 20, "top_k": 5}}
}
$json$);

-- "fastquery": the FastQuery-style bitmap index build and a fixed query
-- set over parallel HDF5 / MPI-IO (tuner_fastquery_runner, see
-- src/runners/fastquery/README.md).
--
-- Settings: 2^24 particles (470 MB of data) is the benchmark's size;
-- tests pass 2^20.  The runner's own timeout is below the worker's, so
-- that the runner kills mpiexec's tree itself and says which step ran too
-- long; the worker's timeout stays as the backstop.  Five initial trials:
-- the default and four space-filling points, then the model.  The
-- objectives speedup_vs_default and total_s_default exist only in paired
-- runs: they turn paired on, and paired off with them is an error rather
-- than trials that all fail.  Pairing doubles a trial's runs and repeats
-- multiplies them; the timeouts stay the caller's to raise (they depend
-- on the size and the machine).  max_ranks defaults to this host's
-- processors (the background workers run trials here; an agent elsewhere
-- passes its own).  Time objectives are minimized and the speedup
-- maximized, whatever direction the caller passes.
--
-- Parameters: defaults are tuner_fastquery's and ROMIO's own (one rank,
-- one thread, 64 bins, contiguous data, collective I/O, ROMIO's automatic
-- data sieving and collective buffering, its 16 MiB collective buffer,
-- one aggregator), so trial 1 measures the untuned program.  Left out:
-- striping_factor and striping_unit.  On this machine's ext4 ROMIO uses
-- its generic UFS driver, which drops striping_factor from the file's info
-- (reported "honored": false by tuner_fastquery) and keeps striping_unit
-- without acting on it; tuning them here would present noise as a
-- parameter.  A Lustre deployment would add them.  cb_nodes comes with
-- cb_config_list "*:*" from the runner (ROMIO's default allows one
-- aggregator per host) and is at most ranks (ROMIO clamps it: a larger
-- value would measure the clamped configuration under another name).
-- ranks and cb_nodes go up to the runner setting max_ranks (the trial
-- host's processors): MPICH's ranks busy-wait, so a rank without a core of
-- its own slows every rank down (measured at 2^20 particles on 2 cores:
-- query_s 0.62/0.36/3.67/3.32 s for 1/2/3/4 ranks), and such
-- configurations would only cost the study trials.  With max_ranks 1 both
-- are left out (every trial runs one rank), with their constraint and
-- their places in the clusters.  The HDF5 alignment is a choice of three
-- values because every value needs its own cached data file.
--
-- Metrics: the build's parts for the multi-task model, each with the
-- parameters that act on it (our reading of the program: reads go through
-- the data layout and ROMIO's read path, indexing through bins and
-- parallelism, writes through ROMIO's write path and the alignment).
INSERT INTO tuner.preset (name, owner, definition) VALUES ('fastquery', NULL, $json$
{
	"description": "a FastQuery-style bitmap indexer over parallel HDF5 and MPI-IO",
	"objective": "total_s",
	"objectives": {
		"total_s": {"direction": "minimize", "unit": "s"},
		"build_s": {"direction": "minimize"},
		"query_s": {"direction": "minimize"},
		"read_s": {"direction": "minimize"},
		"index_s": {"direction": "minimize"},
		"write_s": {"direction": "minimize"},
		"cpu_s": {"direction": "minimize"},
		"total_s_default": {"direction": "minimize", "unit": "s",
			"settings": {"runner": {"paired": true}}, "requires": {"paired": true},
			"detail": "The runner reports it only when it runs the default configuration beside each trial.",
			"hint": "Leave paired out (the objective turns it on) or set it to true."},
		"speedup_vs_default": {"direction": "maximize", "unit": "ratio",
			"settings": {"runner": {"paired": true}}, "requires": {"paired": true},
			"detail": "The runner reports it only when it runs the default configuration beside each trial.",
			"hint": "Leave paired out (the objective turns it on) or set it to true."}
	},
	"runner": {
		"name": "fastquery",
		"program": "tuner_fastquery_runner",
		"settings": [
			{"name": "particles", "type": "int", "min": 1000, "max": 2147483647},
			{"name": "data_dir", "type": "path"},
			{"name": "timeout_s", "type": "number", "above": 0},
			{"name": "queries", "type": "string"},
			{"name": "random_queries", "type": "int", "min": 0, "max": 1000},
			{"name": "query_seed", "type": "int", "min": 0, "max": 2147483647},
			{"name": "cold", "type": "bool"},
			{"name": "paired", "type": "bool"},
			{"name": "repeats", "type": "int", "min": 1, "max": 16},
			{"name": "max_ranks", "type": "int", "min": 1, "max": 64},
			{"name": "program", "type": "path"},
			{"name": "mpiexec", "type": "string"}
		]
	},
	"settings": {"n_initial": 5, "trial_timeout_s": 900,
				 "runner": {"particles": 16777216, "timeout_s": 840, "max_ranks": "$host_cpus"}},
	"parameters": [
		{"name": "bins", "type": "int", "low": 8, "high": 512, "default": "64", "log": true},
		{"name": "layout", "type": "categorical", "choices": ["contiguous", "chunked"], "default": "contiguous"},
		{"name": "io", "type": "categorical", "choices": ["collective", "independent"], "default": "collective"},
		{"name": "romio_ds_read", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "romio_cb_read", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "romio_cb_write", "type": "categorical", "choices": ["automatic", "enable", "disable"], "default": "automatic"},
		{"name": "cb_buffer_size", "type": "int", "low": 65536, "high": 67108864, "default": "16777216", "log": true},
		{"name": "ranks", "type": "int", "low": 1, "high": "$runner.max_ranks", "default": "1", "log": {"high_at_least": 16}},
		{"name": "cb_nodes", "type": "int", "low": 1, "high": "$runner.max_ranks", "default": "1", "log": {"high_at_least": 16}},
		{"name": "threads", "type": "int", "low": 1, "high": 4, "default": "1"},
		{"name": "overlap", "type": "bool", "default": "false"},
		{"name": "align", "type": "categorical", "choices": ["0", "65536", "1048576"], "default": "0"}
	],
	"constraints": ["cb_nodes <= ranks"],
	"metrics": [
		{"name": "read_s", "direction": "minimize", "unit": "s",
		 "cluster": ["layout", "io", "romio_ds_read", "romio_cb_read", "cb_buffer_size", "cb_nodes", "ranks"]},
		{"name": "index_s", "direction": "minimize", "unit": "s",
		 "cluster": ["bins", "threads", "ranks", "overlap"]},
		{"name": "write_s", "direction": "minimize", "unit": "s",
		 "cluster": ["bins", "io", "romio_cb_write", "cb_buffer_size", "cb_nodes", "align"]}
	]
}
$json$);
