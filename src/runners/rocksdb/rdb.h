/*
 * rdb.h: the RocksDB runner's use of librocksdb's C API (rocksdb/c.h).
 *
 * - settle a freshly filled DB (full compaction) and take a checkpoint of it;
 * - read back the options a DB actually runs with (its latest OPTIONS file);
 * - the end-of-trial phase: reopen the DB db_bench left, flush the memtable
 *   recovered from the WAL, and wait until no flush/compaction is pending.
 *
 * Every function returns false and fills err on failure.  The
 * "should stop" callback lets a SIGTERM interrupt the waits.
 */
#ifndef TUNER_RUNNER_RDB_H
#define TUNER_RUNNER_RDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The options the runner tunes, as RocksDB reports them. */
typedef struct
{
	double max_background_compactions;
	double max_background_flushes;
	double write_buffer_size;
	double max_write_buffer_number;
	double min_write_buffer_number_to_merge;
	double max_bytes_for_level_multiplier;
	double block_size;
	double level0_file_num_compaction_trigger;
	double level0_slowdown_writes_trigger;
	double level0_stop_writes_trigger;
	char options_file[4096]; /* the OPTIONS-NNNNNN file read */
} rdb_effective;

typedef bool (*rdb_stop_fn)(void);

/* Open db_dir with its own latest options, compact it fully and write a
 * checkpoint into checkpoint_dir (which must not exist). */
extern bool rdb_settle_and_checkpoint(const char *db_dir,
									  const char *checkpoint_dir, char *err,
									  size_t errlen);

/* Read the effective options from db_dir's latest OPTIONS file. */
extern bool rdb_effective_options(const char *db_dir, rdb_effective *eff,
								  char *err, size_t errlen);

/*
 * Reopen db_dir with its latest options, without flushing at recovery, then
 * flush and wait for all flushes and compactions to finish (at most
 * max_wait_s).  *seconds is the wall time of the whole phase.
 */
extern bool rdb_final_flush_and_wait(const char *db_dir, size_t cache_bytes,
									 double max_wait_s, rdb_stop_fn stop,
									 double *seconds, char *err,
									 size_t errlen);

/* Monotonic clock in seconds. */
extern double now_s(void);

#endif /* TUNER_RUNNER_RDB_H */
