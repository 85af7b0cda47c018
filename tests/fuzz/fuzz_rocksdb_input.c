/*
 * fuzz_rocksdb_input.c: libFuzzer target for tuner_rocksdb's trial input
 * (src/runners/rocksdb/rdb_input.c), the JSON object a trial gets on
 * stdin.  Each input is parsed as the runner parses it:
 *   refused   the message is not empty, nothing is left allocated;
 *   accepted  every setting and every parameter of both configurations
 *             (trial and _settings.default_config) is within its declared
 *             range (integral where declared so), a parameter not given
 *             keeps its default, the paths are absolute, short enough and
 *             without a trailing slash, the unknown _settings keys are
 *             listed as ignored; and the input written back from the
 *             parsed values is accepted and gives the same values.
 */
#include "rdb_input.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check_config(const double *cfg, const bool *given)
{
	int i;

	for (i = 0; i < RDB_N_PARAMS; i++)
	{
		const param_spec *p = &rdb_params[i];

		if (!isfinite(cfg[i]) || cfg[i] < p->min || cfg[i] > p->max ||
			(p->integer && cfg[i] != floor(cfg[i])))
			abort();
		if (given != NULL && !given[i] && cfg[i] != p->def)
			abort();
	}
}

static void
check_path(const char *path)
{
	size_t n = strnlen(path, PATH_MAX);

	if (n >= PATH_MAX - 200 || path[0] != '/' || (n > 1 && path[n - 1] == '/'))
		abort();
}

static void
check_accepted(const rdb_trial *st)
{
	if (st->duration_s < 1 || st->duration_s > 86400 || st->repeats < 1 ||
		st->repeats > RDB_MAX_REPEATS || st->seed < 0 ||
		st->seed > 2147483647L || st->num_keys < 1000 ||
		st->num_keys > 1000000000L)
		abort();
	/* an accepted trial's segments: 1 unpaired, else 1-16 within its
	 * seconds and at most RDB_MAX_PAIRS pairs with its repeats */
	if (st->segments < 1 || st->segments > RDB_MAX_SEGMENTS ||
		(!st->paired && st->segments != 1) ||
		(st->segments > 1 && (st->segments > st->duration_s ||
							  st->segments * st->repeats > RDB_MAX_PAIRS)))
		abort();
	check_path(st->work_dir);
	check_path(st->db_bench);
	check_config(st->cfg_trial, st->trial_given);
	check_config(st->cfg_default, NULL);
}

/* The _settings keys the runner does not know, as it lists them. */
static void
check_ignored(const char *text, const rdb_trial *st)
{
	static const char *const known[] = {
		"duration_s", "paired",   "repeats",        "segments",
		"work_dir",   "db_bench", "seed",           "num_keys",
		"direct_io",  "keep_db",  "default_config", NULL};
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	json_t *settings = json_object_get(root, "_settings");
	const char *name;
	json_t *v;
	strbuf want;

	sb_init(&want);
	sb_append(&want, "");
	json_object_foreach(settings, name, v)
	{
		int i;

		for (i = 0; known[i] != NULL && strcmp(known[i], name) != 0; i++)
			;
		if (known[i] != NULL)
			continue;
		/* comma-separated (an empty name adds nothing) */
		sb_printf(&want, "%s%s", want.len ? "," : "", name);
	}
	if (strcmp(want.data, st->ignored_settings.data ? st->ignored_settings.data
													: "") != 0)
		abort();
	sb_free(&want);
	json_decref(root);
}

/* The parsed values as an input of their own. */
static char *
write_back(const rdb_trial *st)
{
	json_t *root = json_object();
	json_t *settings = json_object();
	json_t *def = json_object();
	char *text;
	int i;

	for (i = 0; i < RDB_N_PARAMS; i++)
	{
		if (st->trial_given[i])
			json_object_set_new(root, rdb_params[i].name,
								json_real(st->cfg_trial[i]));
		json_object_set_new(def, rdb_params[i].name,
							json_real(st->cfg_default[i]));
	}
	json_object_set_new(settings, "duration_s", json_integer(st->duration_s));
	json_object_set_new(settings, "paired", json_boolean(st->paired));
	json_object_set_new(settings, "repeats", json_integer(st->repeats));
	json_object_set_new(settings, "segments", json_integer(st->segments));
	json_object_set_new(settings, "work_dir", json_string(st->work_dir));
	json_object_set_new(settings, "db_bench", json_string(st->db_bench));
	json_object_set_new(settings, "seed", json_integer(st->seed));
	json_object_set_new(settings, "num_keys", json_integer(st->num_keys));
	json_object_set_new(settings, "direct_io", json_boolean(st->direct_io));
	json_object_set_new(settings, "keep_db", json_boolean(st->keep_db));
	json_object_set_new(settings, "default_config", def);
	json_object_set_new(root, "_settings", settings);
	text = json_dumps(root, 0);
	json_decref(root);
	if (text == NULL)
		abort();
	return text;
}

static void
check_round_trip(const rdb_trial *st)
{
	char *text = write_back(st);
	rdb_trial again;
	strbuf err;

	if (!rdb_parse_input(text, &again, &err))
		abort();
	if (again.duration_s != st->duration_s || again.paired != st->paired ||
		again.repeats != st->repeats || again.segments != st->segments ||
		again.seed != st->seed || again.num_keys != st->num_keys ||
		again.direct_io != st->direct_io || again.keep_db != st->keep_db ||
		strcmp(again.work_dir, st->work_dir) != 0 ||
		strcmp(again.db_bench, st->db_bench) != 0 ||
		memcmp(again.cfg_trial, st->cfg_trial, sizeof(st->cfg_trial)) != 0 ||
		memcmp(again.cfg_default, st->cfg_default, sizeof(st->cfg_default)) !=
			0 ||
		memcmp(again.trial_given, st->trial_given, sizeof(st->trial_given)) !=
			0 ||
		again.ignored_settings.len != 0)
		abort();
	rdb_trial_free(&again);
	sb_free(&err);
	free(text);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	rdb_trial st;
	strbuf err;

	memcpy(text, data, size);
	text[size] = '\0';
	if (!rdb_parse_input(text, &st, &err))
	{
		if (err.data == NULL || err.len == 0 || strlen(err.data) != err.len ||
			st.ignored_settings.data != NULL)
			abort();
	}
	else
	{
		if (err.len != 0)
			abort();
		check_accepted(&st);
		check_ignored(text, &st);
		check_round_trip(&st);
		rdb_trial_free(&st);
	}
	sb_free(&err);
	free(text);
	return 0;
}
