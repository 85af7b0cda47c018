/*
 * rdb_input.c: the trial input of tuner_rocksdb, parsed and checked.
 * The first bad value refuses the whole input with a message that names
 * it; see README.md for every key.
 */
#define _GNU_SOURCE
#include "rdb_input.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Table 1 of the paper: the ten tuned parameters. */
const param_spec rdb_params[RDB_N_PARAMS] = {
	{"max_background_compactions", 1, 1, 256, true},
	{"max_background_flushes", 1, 1, 256, true},
	{"write_buffer_size", 262144, 1, 2147483648.0, true},
	{"max_write_buffer_number", 2, 1, 1024, true},
	{"min_write_buffer_number_to_merge", 1, 1, 1024, true},
	{"max_bytes_for_level_multiplier", 10, 1, 100, false},
	{"block_size", 4096, 1, 1073741824.0, true},
	{"level0_file_num_compaction_trigger", 4, 1, 1048576, true},
	{"level0_slowdown_writes_trigger", 20, 0, 1048576, true},
	{"level0_stop_writes_trigger", 36, 0, 1048576, true},
};

/* The scaled workload's key count (README.md). */
#define DEFAULT_NUM_KEYS 2000000

static int
param_index(const char *name)
{
	int i;

	for (i = 0; i < RDB_N_PARAMS; i++)
		if (strcmp(rdb_params[i].name, name) == 0)
			return i;
	return -1;
}

/* Validate one configuration object into cfg (defaults already there). */
static bool
parse_config(json_t *obj, const char *what, double *cfg, bool *given,
			 bool allow_settings, strbuf *err)
{
	const char *name;
	json_t *v;

	json_object_foreach(obj, name, v)
	{
		int i;
		double number;

		/* "_settings", "_trial": the protocol's metadata, not parameters */
		if (allow_settings && name[0] == '_')
			continue;
		i = param_index(name);
		if (i < 0)
		{
			strbuf known;
			int j;

			sb_init(&known);
			for (j = 0; j < RDB_N_PARAMS; j++)
				sb_printf(&known, "%s%s", j ? ", " : "", rdb_params[j].name);
			sb_refuse(err, "unknown parameter \"%s\" in %s (known: %s)", name,
					  what, known.data);
			sb_free(&known);
			return false;
		}
		if (!json_is_number(v))
			return sb_refuse(err,
							 "parameter \"%s\" in %s must be a number, not %s",
							 name, what, json_type_name(v));
		number = json_number_value(v);
		if (rdb_params[i].integer && number != floor(number))
			return sb_refuse(
				err, "parameter \"%s\" in %s must be an integer, got %.17g",
				name, what, number);
		if (number < rdb_params[i].min || number > rdb_params[i].max)
			return sb_refuse(err,
							 "parameter \"%s\" in %s is %.17g, outside the "
							 "accepted range [%.17g, %.17g]",
							 name, what, number, rdb_params[i].min,
							 rdb_params[i].max);
		cfg[i] = number;
		if (given)
			given[i] = true;
	}
	return true;
}

/* An integer setting in [lo, hi]. */
static bool
int_setting(const json_t *v, const char *name, long lo, long hi, long *out,
			strbuf *err)
{
	double number = json_is_number(v) ? json_number_value(v) : NAN;

	if (!(number == floor(number)) || number < lo || number > hi)
		return sb_refuse(err, "_settings.%s must be an integer in [%ld, %ld]",
						 name, lo, hi);
	*out = (long)number;
	return true;
}

static bool
bool_setting(const json_t *v, const char *name, bool *out, strbuf *err)
{
	if (!json_is_boolean(v))
		return sb_refuse(err, "_settings.%s must be true or false, not %s",
						 name, json_type_name(v));
	*out = json_is_true(v);
	return true;
}

/* A string setting holding an absolute path. */
static bool
path_setting(const json_t *v, const char *name, char *out, strbuf *err)
{
	const char *path = json_is_string(v) ? json_string_value(v) : NULL;

	if (path == NULL || path[0] != '/' || strlen(path) >= PATH_MAX - 200)
		return sb_refuse(err, "_settings.%s must be an absolute path", name);
	snprintf(out, PATH_MAX, "%s", path);
	while (strlen(out) > 1 && out[strlen(out) - 1] == '/')
		out[strlen(out) - 1] = '\0';
	return true;
}

/* The default work directory: $TMPDIR (or /tmp)/tuner_rocksdb-<uid>. */
static void
default_work_dir(char *out)
{
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || tmp[0] != '/' || strlen(tmp) > PATH_MAX - 300)
		tmp = "/tmp";
	snprintf(out, PATH_MAX, "%s/tuner_rocksdb-%u", tmp, (unsigned)geteuid());
}

/* One member of "_settings". */
static bool
parse_setting(const char *name, json_t *v, rdb_trial *st, strbuf *err)
{
	long x;

	if (strcmp(name, "duration_s") == 0)
	{
		if (!int_setting(v, name, 1, 86400, &x, err))
			return false;
		st->duration_s = (int)x;
	}
	else if (strcmp(name, "paired") == 0)
		return bool_setting(v, name, &st->paired, err);
	else if (strcmp(name, "repeats") == 0)
	{
		if (!int_setting(v, name, 1, RDB_MAX_REPEATS, &x, err))
			return false;
		st->repeats = (int)x;
	}
	else if (strcmp(name, "segments") == 0)
	{
		if (!int_setting(v, name, 1, RDB_MAX_SEGMENTS, &x, err))
			return false;
		st->segments = (int)x;
	}
	else if (strcmp(name, "work_dir") == 0)
		return path_setting(v, name, st->work_dir, err);
	else if (strcmp(name, "db_bench") == 0)
		return path_setting(v, name, st->db_bench, err);
	else if (strcmp(name, "seed") == 0)
		return int_setting(v, name, 0, 2147483647L, &st->seed, err);
	else if (strcmp(name, "num_keys") == 0)
		return int_setting(v, name, 1000, 1000000000L, &st->num_keys, err);
	else if (strcmp(name, "direct_io") == 0)
		return bool_setting(v, name, &st->direct_io, err);
	else if (strcmp(name, "keep_db") == 0)
		return bool_setting(v, name, &st->keep_db, err);
	else if (strcmp(name, "default_config") == 0)
	{
		if (!json_is_object(v))
			return sb_refuse(
				err, "_settings.default_config must be an object, not %s",
				json_type_name(v));
		return parse_config(v, "_settings.default_config", st->cfg_default,
							NULL, false, err);
	}
	else
		sb_printf(&st->ignored_settings, "%s%s",
				  st->ignored_settings.len ? "," : "", name);
	return true;
}

/* The checks of rdb_parse_input, on the parsed root. */
static bool
parse_root(json_t *root, const json_error_t *error, rdb_trial *st, strbuf *err)
{
	json_t *s;

	if (root == NULL)
		return sb_refuse(err,
						 "input is not valid JSON: %s at line %d column %d",
						 error->text, error->line, error->column);
	if (!json_is_object(root))
		return sb_refuse(err, "input must be a JSON object, not %s",
						 json_type_name(root));
	s = json_object_get(root, "_settings");
	if (s != NULL && !json_is_object(s) && !json_is_null(s))
		return sb_refuse(err, "_settings must be an object, not %s",
						 json_type_name(s));
	if (s != NULL && json_is_object(s))
	{
		const char *name;
		json_t *v;

		json_object_foreach(s, name, v)
		{
			if (!parse_setting(name, v, st, err))
				return false;
		}
	}
	if (!parse_config(root, "the configuration", st->cfg_trial,
					  st->trial_given, true, err))
		return false;
	/* segments: only a paired trial is split (an unpaired one has nothing
	 * to interleave); not given, RDB_DEFAULT_SEGMENTS when it fits */
	if (!st->paired)
		st->segments = 1;
	else if (st->segments == 0)
	{
		st->segments = RDB_DEFAULT_SEGMENTS;
		while (st->segments > 1 &&
			   (st->segments > st->duration_s ||
				st->segments * st->repeats > RDB_MAX_PAIRS))
			st->segments--;
	}
	else if (st->segments > st->duration_s)
		return sb_refuse(err,
						 "_settings.segments (%d) must not exceed duration_s "
						 "(%d): each segment runs at least one second",
						 st->segments, st->duration_s);
	else if (st->segments * st->repeats > RDB_MAX_PAIRS)
		return sb_refuse(err,
						 "_settings.segments x repeats (%d x %d) must not "
						 "exceed %d pairs",
						 st->segments, st->repeats, RDB_MAX_PAIRS);
	return true;
}

bool
rdb_parse_input(const char *text, rdb_trial *st, strbuf *err)
{
	json_error_t error;
	/* duplicate keys are refused: which of two values was meant is unknown */
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &error);
	bool ok;
	int i;

	sb_init(err);
	memset(st, 0, sizeof(*st));
	st->duration_s = 30;
	st->repeats = 1;
	st->seed = 1;
	st->num_keys = DEFAULT_NUM_KEYS;
	st->direct_io = true;
	snprintf(st->db_bench, PATH_MAX, "/usr/bin/db_bench");
	default_work_dir(st->work_dir);
	sb_init(&st->ignored_settings);
	for (i = 0; i < RDB_N_PARAMS; i++)
	{
		st->cfg_default[i] = rdb_params[i].def;
		st->cfg_trial[i] = rdb_params[i].def;
	}

	ok = parse_root(root, &error, st, err);
	json_decref(root);
	if (!ok)
		rdb_trial_free(st);
	return ok;
}

void
rdb_trial_free(rdb_trial *st)
{
	sb_free(&st->ignored_settings);
	sb_init(&st->ignored_settings);
}
