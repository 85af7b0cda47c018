/*
 * rdb_input.h: the trial input of tuner_rocksdb (the JSON object on its
 * stdin: Table 1 parameters plus an optional "_settings" object), parsed
 * and checked into an rdb_trial.  No I/O and no exit, so that a fuzzer
 * can drive it (tests/fuzz/fuzz_rocksdb_input.c); the runner prints the
 * message of a refused input and exits 2.
 */
#ifndef TUNER_RDB_INPUT_H
#define TUNER_RDB_INPUT_H

#include "json.h"

#include <limits.h>
#include <stdbool.h>

/* One Table 1 parameter: the runner's default (scaled, see README.md) and
 * the limits of what it accepts. */
typedef struct
{
	const char *name;
	double def;
	double min;
	double max;
	bool integer;
} param_spec;

#define RDB_N_PARAMS 10

extern const param_spec rdb_params[RDB_N_PARAMS];

/* Upper bound of _settings.repeats (a paired trial runs twice as many). */
#define RDB_MAX_REPEATS 20
/* Upper bound of _settings.segments, and of the pairs of a paired trial
 * (repeats x segments). */
#define RDB_MAX_SEGMENTS 16
#define RDB_MAX_PAIRS    40
/* Segments of a paired trial when _settings.segments is not given. */
#define RDB_DEFAULT_SEGMENTS 4

typedef struct
{
	int duration_s;
	bool paired;
	int repeats;
	/* a paired repeat's duration_s is split into this many pairs of
	 * shorter runs (1 when unpaired); see README.md "Segments" */
	int segments;
	char work_dir[PATH_MAX];
	char db_bench[PATH_MAX];
	long seed;
	long num_keys;
	bool direct_io;
	bool keep_db;
	double cfg_default[RDB_N_PARAMS];
	double cfg_trial[RDB_N_PARAMS];
	bool trial_given[RDB_N_PARAMS];
	/* the _settings keys the runner does not know, comma-separated */
	strbuf ignored_settings;
} rdb_trial;

/*
 * Parse and check the whole input (a NUL-terminated string).  On success
 * fills *st (free it with rdb_trial_free); on a refused input returns
 * false with the reason, one message without the program's name, in
 * *err (initialized here; the caller frees it).
 */
extern bool rdb_parse_input(const char *text, rdb_trial *st, strbuf *err);

extern void rdb_trial_free(rdb_trial *st);

#endif /* TUNER_RDB_INPUT_H */
