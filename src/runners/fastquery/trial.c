/*
 * trial.c: the configuration of one tuner_fastquery_runner trial, parsed
 * and checked from its JSON input, and the "_effective" output.  See
 * README.md ("The runner") for every key.
 */
#define _GNU_SOURCE
#include "fq_runner.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The reason ends up on the last line of stderr, which the worker keeps as
 * the trial's error: control characters from the input (a newline in a
 * JSON key) become \xNN so that it stays one line.
 */
static bool
fail(char *err, size_t errlen, const char *fmt, ...)
{
	char raw[1024];
	size_t i, o = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	for (i = 0; raw[i] != '\0' && o + 5 < errlen; i++)
	{
		unsigned char c = (unsigned char)raw[i];

		if (c < 0x20 || c == 0x7f)
			o += snprintf(err + o, errlen - o, "\\x%02x", c);
		else
			err[o++] = (char)c;
	}
	if (errlen > 0)
		err[o < errlen ? o : errlen - 1] = '\0';
	return false;
}

/* An integer in [lo, hi]: a JSON integer, an integral real, or a numeric
 * string (a categorical's label). */
static bool
get_int(json_t *v, const char *name, double lo, double hi, long *out,
		char *err, size_t errlen)
{
	double x;

	if (json_is_number(v))
		x = json_number_value(v);
	else if (json_is_string(v))
	{
		char *end;

		x = strtod(json_string_value(v), &end);
		if (end == json_string_value(v) || *end != '\0')
			return fail(err, errlen, "%s must be an integer, got \"%s\"", name,
						json_string_value(v));
	}
	else
		return fail(err, errlen, "%s must be an integer, got %s", name,
					json_type_name(v));
	if (!isfinite(x) || x != floor(x) || x < lo || x > hi)
		return fail(err, errlen,
					"%s must be an integer in [%.0f, %.0f], got %g", name, lo,
					hi, x);
	*out = (long)x;
	return true;
}

/* A bool: true/false or the numbers 0/1. */
static bool
get_bool(json_t *v, const char *name, bool *out, char *err, size_t errlen)
{
	if (json_is_boolean(v))
		*out = json_is_true(v);
	else if (json_is_number(v) &&
			 (json_number_value(v) == 0 || json_number_value(v) == 1))
		*out = json_number_value(v) == 1;
	else
		return fail(err, errlen, "%s must be true or false", name);
	return true;
}

/* One of a NULL-terminated list of words, copied into out. */
static bool
get_word(json_t *v, const char *name, const char *const *words, char *out,
		 size_t outlen, char *err, size_t errlen)
{
	if (json_is_string(v))
		for (int i = 0; words[i] != NULL; i++)
			if (strcmp(json_string_value(v), words[i]) == 0)
			{
				snprintf(out, outlen, "%s", words[i]);
				return true;
			}
	return fail(err, errlen, "%s must be one of %s%s%s%s%s", name, words[0],
				words[1] ? ", " : "", words[1] ? words[1] : "",
				words[2] ? ", " : "", words[2] ? words[2] : "");
}

static bool
get_string(json_t *v, const char *name, bool absolute, char *out,
		   size_t outlen, char *err, size_t errlen)
{
	if (!json_is_string(v) || json_string_value(v)[0] == '\0')
		return fail(err, errlen, "setting %s must be a non-empty string",
					name);
	if (absolute && json_string_value(v)[0] != '/')
		return fail(err, errlen, "setting %s must be an absolute path", name);
	if (strlen(json_string_value(v)) >= outlen)
		return fail(err, errlen, "setting %s is too long", name);
	snprintf(out, outlen, "%s", json_string_value(v));
	return true;
}

static const char *const layouts[] = {"contiguous", "chunked", NULL};
static const char *const io_modes[] = {"collective", "independent", NULL};
static const char *const toggles[] = {"enable", "disable", "automatic", NULL};

static bool
parse_param(const char *key, json_t *v, FqTrial *t, char *err, size_t errlen)
{
	long x;
	bool ok = true;

	if (strcmp(key, "bins") == 0)
		ok = get_int(v, key, 1, 65535, &x, err, errlen) &&
			 (t->bins = (int)x, true);
	else if (strcmp(key, "layout") == 0)
		ok = get_word(v, key, layouts, t->layout, sizeof t->layout, err,
					  errlen);
	else if (strcmp(key, "io") == 0)
		ok = get_word(v, key, io_modes, t->io, sizeof t->io, err, errlen);
	else if (strcmp(key, "romio_ds_read") == 0)
		ok = get_word(v, key, toggles, t->romio_ds_read,
					  sizeof t->romio_ds_read, err, errlen);
	else if (strcmp(key, "romio_cb_read") == 0)
		ok = get_word(v, key, toggles, t->romio_cb_read,
					  sizeof t->romio_cb_read, err, errlen);
	else if (strcmp(key, "romio_cb_write") == 0)
		ok = get_word(v, key, toggles, t->romio_cb_write,
					  sizeof t->romio_cb_write, err, errlen);
	else if (strcmp(key, "cb_buffer_size") == 0)
		ok = get_int(v, key, 4096, 1073741824.0, &t->cb_buffer_size, err,
					 errlen);
	else if (strcmp(key, "cb_nodes") == 0)
		ok = get_int(v, key, 1, 64, &x, err, errlen) &&
			 (t->cb_nodes = (int)x, true);
	else if (strcmp(key, "ranks") == 0)
		ok = get_int(v, key, 1, 64, &x, err, errlen) &&
			 (t->ranks = (int)x, true);
	else if (strcmp(key, "threads") == 0)
		ok = get_int(v, key, 1, 64, &x, err, errlen) &&
			 (t->threads = (int)x, true);
	else if (strcmp(key, "overlap") == 0)
		ok = get_bool(v, key, &t->overlap, err, errlen);
	else if (strcmp(key, "align") == 0)
		ok = get_int(v, key, 0, 1073741824.0, &t->align, err, errlen);
	else
		return fail(
			err, errlen,
			"unknown parameter \"%s\" (bins, layout, io, romio_ds_read, romio_cb_read, "
			"romio_cb_write, cb_buffer_size, cb_nodes, ranks, threads, overlap, align)",
			key);
	return ok;
}

/* Unknown settings are ignored: the worker may pass study settings. */
static bool
parse_setting(const char *key, json_t *v, FqTrial *t, char *err, size_t errlen)
{
	long x;

	if (strcmp(key, "particles") == 0)
		return get_int(v, "setting particles", 1000, 2147483647.0,
					   &t->particles, err, errlen);
	if (strcmp(key, "data_dir") == 0)
		return get_string(v, key, true, t->data_dir, sizeof t->data_dir, err,
						  errlen);
	if (strcmp(key, "timeout_s") == 0)
	{
		if (!json_is_number(v) || !(json_number_value(v) > 0) ||
			!isfinite(json_number_value(v)))
			return fail(err, errlen,
						"setting timeout_s must be a positive number");
		t->timeout_s = json_number_value(v);
		return true;
	}
	if (strcmp(key, "queries") == 0)
		return get_string(v, key, false, t->queries, sizeof t->queries, err,
						  errlen);
	if (strcmp(key, "random_queries") == 0)
		return get_int(v, "setting random_queries", 0, 1000, &x, err,
					   errlen) &&
			   (t->random_queries = (int)x, true);
	if (strcmp(key, "query_seed") == 0)
		return get_int(v, "setting query_seed", 0, 2147483647.0,
					   &t->query_seed, err, errlen);
	if (strcmp(key, "cold") == 0)
		return get_bool(v, "setting cold", &t->cold, err, errlen);
	if (strcmp(key, "paired") == 0)
		return get_bool(v, "setting paired", &t->paired, err, errlen);
	if (strcmp(key, "repeats") == 0)
		return get_int(v, "setting repeats", 1, FQ_MAX_REPEATS, &x, err,
					   errlen) &&
			   (t->repeats = (int)x, true);
	if (strcmp(key, "max_ranks") == 0)
		return get_int(v, "setting max_ranks", 1, 64, &x, err, errlen) &&
			   (t->max_ranks = (int)x, true);
	if (strcmp(key, "program") == 0)
		return get_string(v, key, true, t->program, sizeof t->program, err,
						  errlen);
	if (strcmp(key, "mpiexec") == 0)
		return get_string(v, key, false, t->mpiexec, sizeof t->mpiexec, err,
						  errlen);
	return true;
}

/* The parameters an empty configuration gives: tuner_fastquery's and
 * ROMIO's own defaults, one rank, one thread. */
void
fq_default_params(FqTrial *t)
{
	t->bins = 64;
	strcpy(t->layout, "contiguous");
	strcpy(t->io, "collective");
	t->romio_ds_read[0] = '\0';
	t->romio_cb_read[0] = '\0';
	t->romio_cb_write[0] = '\0';
	t->cb_buffer_size = 0;
	t->cb_nodes = 0;
	t->ranks = 1;
	t->threads = 1;
	t->overlap = false;
	t->align = 0;
}

/* Defaults: the default parameters, 2^20 particles, one unpaired run. */
static void
set_defaults(FqTrial *t)
{
	char self[PATH_MAX - 32];
	ssize_t n;

	memset(t, 0, sizeof *t);
	fq_default_params(t);
	t->particles = 1048576;
	t->repeats = 1;
	t->max_ranks = 64;
	t->timeout_s = 600;
	strcpy(t->queries,
		   "energy>1;x>=150,x<180,y>-1,y<1;ux>0.5,energy>0.2;z<10,uy<-0.1");
	t->random_queries = 16;
	t->query_seed = 1;
	strcpy(t->mpiexec, "mpiexec.mpich");
	/* tuner_fastquery is installed next to the runner */
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0)
	{
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL)
		{
			slash[1] = '\0';
			snprintf(t->program, sizeof t->program, "%stuner_fastquery", self);
		}
	}
}

/* fq_parse_trial's checks of the parsed input. */
static bool
parse_root(json_t *root, FqTrial *t, char *err, size_t errlen)
{
	json_t *settings;
	const char *key;
	json_t *v;

	if (!json_is_object(root))
		return fail(err, errlen, "input must be a JSON object, got %s",
					json_type_name(root));
	settings = json_object_get(root, "_settings");
	if (settings != NULL && !json_is_object(settings))
		return fail(err, errlen, "_settings must be a JSON object");
	json_object_foreach(settings, key, v)
	{
		if (!parse_setting(key, v, t, err, errlen))
			return false;
	}
	json_object_foreach(root, key, v)
	{
		if (key[0] == '_')
			continue;
		if (!parse_param(key, v, t, err, errlen))
			return false;
	}
	/* MPICH's ranks busy-wait: one without a core slows all of them */
	if (t->ranks > t->max_ranks)
		return fail(err, errlen,
					"ranks %d exceeds setting max_ranks %d (the trial host's "
					"cores)",
					t->ranks, t->max_ranks);
	if (t->program[0] == '\0')
		return fail(err, errlen,
					"cannot locate tuner_fastquery; give setting program");
	return true;
}

bool
fq_parse_trial(const char *input, FqTrial *t, char *err, size_t errlen)
{
	json_error_t jerr;
	/* a repeated key would silently take one of its values */
	json_t *root = json_loads(input, JSON_REJECT_DUPLICATES, &jerr);
	bool ok;

	set_defaults(t);
	if (root == NULL)
		return fail(err, errlen, "input is not JSON: %s (line %d)", jerr.text,
					jerr.line);
	/* the parsed input is freed on every path (the fuzz target checks) */
	ok = parse_root(root, t, err, errlen);
	json_decref(root);
	return ok;
}

/* Append key: the value of obj[key] as JSON (null when absent). */
static void
append_json(strbuf *out, const char *key, json_t *v)
{
	char *text =
		v != NULL ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	sb_json_string(out, key);
	sb_append(out, ": ");
	sb_append(out, text != NULL ? text : "null");
	free(text);
}

void
fq_append_effective(strbuf *out, json_t *build, json_t *query)
{
	json_t *hints = json_object_get(build, "hints_data");
	json_t *requested = json_object_get(hints, "requested");
	const char *key;
	json_t *v;
	bool first = true;

	sb_append(out, ", \"_effective\": {");
	append_json(out, "fs_type_romio", json_object_get(hints, "fs_type_romio"));
	sb_append(out, ", ");
	append_json(out, "hints_data", json_object_get(hints, "effective"));
	sb_append(out, ", ");
	append_json(
		out, "hints_index",
		json_object_get(json_object_get(build, "hints_index"), "effective"));
	/* requested hints the MPI-IO layer dropped or changed */
	sb_append(out, ", \"ignored_hints\": [");
	json_object_foreach(requested, key, v)
	{
		if (json_is_true(json_object_get(v, "honored")))
			continue;
		if (!first)
			sb_append(out, ", ");
		sb_json_string(out, key);
		first = false;
	}
	sb_append(out, "], ");
	append_json(out, "build_read_io_mode",
				json_object_get(build, "read_io_mode"));
	sb_append(out, ", ");
	append_json(out, "build_write_io_mode",
				json_object_get(build, "write_io_mode"));
	sb_append(out, ", ");
	append_json(out, "query_read_io_mode",
				json_object_get(query, "read_io_mode"));
	sb_append(out, "}");
}
