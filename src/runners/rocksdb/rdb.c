/*
 * rdb.c: librocksdb C API calls of the RocksDB runner (see rdb.h).
 *
 * Options always come from the DB's own OPTIONS file
 * (rocksdb_load_latest_options), so the end-of-trial flush and compactions
 * run with exactly the configuration db_bench ran the trial with.
 * block_size lives in the block-based table options, which the C API of
 * RocksDB 7.8 cannot read back, so it is read from the OPTIONS file's
 * [TableOptions/BlockBasedTable "default"] section.
 */
#include "rdb.h"

#include <rocksdb/c.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* See rdb.h. */
double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sleep for ms milliseconds (interrupted early by a signal). */
static void
sleep_ms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	nanosleep(&ts, NULL);
}

/* Copy a RocksDB error string into err and free it. */
static bool
take_err(char *rerr, const char *what, char *err, size_t errlen)
{
	if (rerr == NULL)
		return true;
	snprintf(err, errlen, "%s: %s", what, rerr);
	rocksdb_free(rerr);
	return false;
}

/* A DB opened with the options of its latest OPTIONS file. */
typedef struct
{
	rocksdb_t *db;
	rocksdb_options_t *db_opts;
	rocksdb_options_t *open_opts;
	size_t ncf;
	char **cf_names;
	rocksdb_options_t **cf_opts;
	rocksdb_column_family_handle_t **handles;
	rocksdb_cache_t *cache;
	rocksdb_env_t *env;
} opened_db;

/* Release everything an opened_db holds. */
static void
close_db(opened_db *o)
{
	size_t i;

	if (o->db)
	{
		for (i = 0; i < o->ncf; i++)
			if (o->handles && o->handles[i])
				rocksdb_column_family_handle_destroy(o->handles[i]);
		rocksdb_close(o->db);
	}
	free(o->handles);
	if (o->open_opts)
		rocksdb_options_destroy(o->open_opts);
	if (o->db_opts)
		rocksdb_load_latest_options_destroy(o->db_opts, o->cf_names,
											o->cf_opts, o->ncf);
	if (o->cache)
		rocksdb_cache_destroy(o->cache);
	if (o->env)
		rocksdb_env_destroy(o->env);
	memset(o, 0, sizeof(*o));
}

/* Open dir with its own latest options plus extra DB options. */
static bool
open_db(const char *dir, size_t cache_bytes, const char *extra, opened_db *o,
		char *err, size_t errlen)
{
	char *rerr = NULL;

	memset(o, 0, sizeof(*o));
	o->env = rocksdb_create_default_env();
	o->cache = rocksdb_cache_create_lru(cache_bytes ? cache_bytes : 8 << 20);
	rocksdb_load_latest_options(dir, o->env, false, o->cache, &o->db_opts,
								&o->ncf, &o->cf_names, &o->cf_opts, &rerr);
	if (!take_err(rerr, "cannot load the DB's OPTIONS file", err, errlen))
	{
		o->db_opts = NULL;
		close_db(o);
		return false;
	}
	o->open_opts = rocksdb_options_create();
	rocksdb_get_options_from_string(o->db_opts, extra, o->open_opts, &rerr);
	if (!take_err(rerr, "cannot set DB options", err, errlen))
	{
		close_db(o);
		return false;
	}
	o->handles = calloc(o->ncf, sizeof(*o->handles));
	if (o->handles == NULL)
	{
		snprintf(err, errlen, "out of memory");
		close_db(o);
		return false;
	}
	o->db = rocksdb_open_column_families(
		o->open_opts, dir, (int)o->ncf, (const char *const *)o->cf_names,
		(const rocksdb_options_t *const *)o->cf_opts, o->handles, &rerr);
	if (!take_err(rerr, "cannot open the DB", err, errlen))
	{
		o->db = NULL;
		close_db(o);
		return false;
	}
	return true;
}

/* Flush every column family and wait for it. */
static bool
flush_all(opened_db *o, char *err, size_t errlen)
{
	rocksdb_flushoptions_t *fo = rocksdb_flushoptions_create();
	char *rerr = NULL;
	size_t i;
	bool ok = true;

	rocksdb_flushoptions_set_wait(fo, 1);
	for (i = 0; i < o->ncf && ok; i++)
	{
		rocksdb_flush_cf(o->db, fo, o->handles[i], &rerr);
		ok = take_err(rerr, "flush failed", err, errlen);
	}
	rocksdb_flushoptions_destroy(fo);
	return ok;
}

/* True when no flush or compaction is pending or running. */
static bool
db_idle(rocksdb_t *db)
{
	static const char *const props[] = {
		"rocksdb.compaction-pending", "rocksdb.num-running-compactions",
		"rocksdb.mem-table-flush-pending", "rocksdb.num-running-flushes"};
	size_t i;

	for (i = 0; i < sizeof(props) / sizeof(props[0]); i++)
	{
		uint64_t v = 0;

		if (rocksdb_property_int(db, props[i], &v) != 0 || v != 0)
			return false;
	}
	return true;
}

/* See rdb.h. */
bool
rdb_settle_and_checkpoint(const char *db_dir, const char *checkpoint_dir,
						  char *err, size_t errlen)
{
	opened_db o;
	rocksdb_checkpoint_t *cp;
	char *rerr = NULL;
	bool ok;

	if (!open_db(db_dir, 0, "avoid_flush_during_recovery=false", &o, err,
				 errlen))
		return false;
	ok = flush_all(&o, err, errlen);
	if (ok)
	{
		rocksdb_compact_range(o.db, NULL, 0, NULL, 0);
		while (!db_idle(o.db))
			sleep_ms(20);
		cp = rocksdb_checkpoint_object_create(o.db, &rerr);
		ok = take_err(rerr, "cannot create a checkpoint object", err, errlen);
		if (ok)
		{
			rocksdb_checkpoint_create(cp, checkpoint_dir, 0, &rerr);
			ok = take_err(rerr, "cannot create the checkpoint", err, errlen);
			rocksdb_checkpoint_object_destroy(cp);
		}
	}
	close_db(&o);
	return ok;
}

/* Path of the OPTIONS-N file with the largest N in dir. */
static bool
latest_options_file(const char *dir, char *out, size_t outlen)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned long best = 0;
	bool found = false;

	if (d == NULL)
		return false;
	while ((de = readdir(d)) != NULL)
	{
		char *end;
		unsigned long n;

		if (strncmp(de->d_name, "OPTIONS-", 8) != 0)
			continue;
		n = strtoul(de->d_name + 8, &end, 10);
		if (*end != '\0' || end == de->d_name + 8)
			continue;
		if (!found || n > best)
		{
			best = n;
			found = true;
			snprintf(out, outlen, "%s/%s", dir, de->d_name);
		}
	}
	closedir(d);
	return found;
}

/* block_size from the default CF's block-based table section. */
static bool
options_file_block_size(const char *path, double *out)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	bool in_section = false;
	bool found = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '[')
		{
			in_section =
				strncmp(p, "[TableOptions/BlockBasedTable \"default\"]", 40) ==
				0;
			continue;
		}
		if (in_section && strncmp(p, "block_size=", 11) == 0)
		{
			char *end;

			*out = strtod(p + 11, &end);
			found = end != p + 11;
			break;
		}
	}
	fclose(f);
	return found;
}

/* See rdb.h. */
bool
rdb_effective_options(const char *db_dir, rdb_effective *eff, char *err,
					  size_t errlen)
{
	rocksdb_env_t *env = rocksdb_create_default_env();
	rocksdb_options_t *dbo = NULL;
	rocksdb_options_t **cfo = NULL;
	char **names = NULL;
	size_t ncf = 0, i, def = 0;
	char *rerr = NULL;
	bool ok;

	memset(eff, 0, sizeof(*eff));
	rocksdb_load_latest_options(db_dir, env, false, NULL, &dbo, &ncf, &names,
								&cfo, &rerr);
	ok = take_err(rerr, "cannot load the DB's OPTIONS file", err, errlen);
	if (ok)
	{
		for (i = 0; i < ncf; i++)
			if (strcmp(names[i], "default") == 0)
				def = i;
		eff->max_background_compactions =
			rocksdb_options_get_max_background_compactions(dbo);
		eff->max_background_flushes =
			rocksdb_options_get_max_background_flushes(dbo);
		eff->write_buffer_size =
			(double)rocksdb_options_get_write_buffer_size(cfo[def]);
		eff->max_write_buffer_number =
			rocksdb_options_get_max_write_buffer_number(cfo[def]);
		eff->min_write_buffer_number_to_merge =
			rocksdb_options_get_min_write_buffer_number_to_merge(cfo[def]);
		eff->max_bytes_for_level_multiplier =
			rocksdb_options_get_max_bytes_for_level_multiplier(cfo[def]);
		eff->level0_file_num_compaction_trigger =
			rocksdb_options_get_level0_file_num_compaction_trigger(cfo[def]);
		eff->level0_slowdown_writes_trigger =
			rocksdb_options_get_level0_slowdown_writes_trigger(cfo[def]);
		eff->level0_stop_writes_trigger =
			rocksdb_options_get_level0_stop_writes_trigger(cfo[def]);
		rocksdb_load_latest_options_destroy(dbo, names, cfo, ncf);
		if (!latest_options_file(db_dir, eff->options_file,
								 sizeof(eff->options_file)) ||
			!options_file_block_size(eff->options_file, &eff->block_size))
		{
			snprintf(err, errlen,
					 "no block_size in the block-based table options of %s",
					 eff->options_file[0] ? eff->options_file : db_dir);
			ok = false;
		}
	}
	rocksdb_env_destroy(env);
	return ok;
}

/* See rdb.h. */
bool
rdb_final_flush_and_wait(const char *db_dir, size_t cache_bytes,
						 double max_wait_s, rdb_stop_fn stop, double *seconds,
						 char *err, size_t errlen)
{
	opened_db o;
	double t0 = now_s();
	bool ok;

	*seconds = 0;
	/* The memtable db_bench left is in the WAL: replay it into a memtable
	 * and flush it like any other, so the flush shows in the LOG. */
	if (!open_db(db_dir, cache_bytes,
				 "avoid_flush_during_recovery=true;stats_dump_period_sec=0",
				 &o, err, errlen))
		return false;
	ok = flush_all(&o, err, errlen);
	while (ok && !db_idle(o.db))
	{
		if (stop != NULL && stop())
		{
			snprintf(err, errlen, "interrupted by a signal");
			ok = false;
			break;
		}
		if (now_s() - t0 > max_wait_s)
		{
			snprintf(err, errlen,
					 "compactions still pending after %.0f s of waiting",
					 max_wait_s);
			ok = false;
			break;
		}
		sleep_ms(10);
	}
	*seconds = now_s() - t0;
	if (stop != NULL && stop())
	{
		/* The process exits right away; closing would wait for running
		 * compactions, so the DB (a throwaway trial copy) is left open. */
		return false;
	}
	close_db(&o);
	return ok;
}
