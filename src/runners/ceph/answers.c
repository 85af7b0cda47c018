/*
 * answers.c: reading Ceph's answers and the state file (see answers.h).
 */
#include "answers.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/*
 * Ceph 16.2 marks these runtime-updatable, yet the OSD reads them only at
 * start: the messenger's worker threads and BlueStore's cache sizing
 * (without autotuning the cache is sized once at mount).
 */
static const char *const startup_only[] = {"ms_async_op_threads",
										   "ms_async_max_op_threads",
										   "bluestore_cache_size",
										   "bluestore_cache_size_hdd",
										   "bluestore_cache_size_ssd",
										   "bluestore_cache_autotune",
										   NULL};

int
ceph_parse_osd_ids(const char *text, int *ids, int max)
{
	json_t *list = json_loads(text, JSON_DECODE_ANY, NULL), *v;
	size_t i;
	int n = 0;

	if (!json_is_array(list))
	{
		json_decref(list);
		return -EPROTO;
	}
	json_array_foreach(list, i, v)
	{
		if (json_is_integer(v) && n < max)
			ids[n++] = (int)json_integer_value(v);
	}
	json_decref(list);
	return n;
}

static bool
has_flag(json_t *help, const char *flag)
{
	json_t *flags = json_object_get(help, "flags"), *f;
	size_t i;

	json_array_foreach(flags, i, f)
	{
		if (json_is_string(f) && strcmp(json_string_value(f), flag) == 0)
			return true;
	}
	return false;
}

int
ceph_parse_option_kind(const char *name, const char *text, opt_kind *kind)
{
	json_t *help = json_loads(text, JSON_DECODE_ANY, NULL);
	int i;

	if (!json_is_object(help))
	{
		json_decref(help);
		return -1;
	}
	if (has_flag(help, "create"))
		*kind = OPT_CREATE;
	else if (has_flag(help, "startup") ||
			 json_is_false(json_object_get(help, "can_update_at_runtime")))
		*kind = OPT_RESTART;
	else
		*kind = OPT_RUNTIME;
	for (i = 0; startup_only[i]; i++)
		if (*kind == OPT_RUNTIME && strcmp(name, startup_only[i]) == 0)
			*kind = OPT_RESTART;
	json_decref(help);
	return 0;
}

void
ceph_copy_trimmed(char *out, size_t outlen, const char *s)
{
	size_t n;

	snprintf(out, outlen, "%s", s);
	n = strlen(out);
	while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' '))
		out[--n] = '\0';
}

int
ceph_parse_config_value(const char *text, const char *name, char *out,
						size_t outlen)
{
	json_t *j = json_loads(text, JSON_DECODE_ANY, NULL);
	json_t *v = json_object_get(j, name);

	if (!json_is_string(v))
	{
		json_decref(j);
		return -1;
	}
	ceph_copy_trimmed(out, outlen, json_string_value(v));
	json_decref(j);
	return 0;
}

void
ceph_parse_version(const char *text, char *full, size_t fulllen, char *number,
				   size_t numberlen)
{
	json_t *ver = json_loads(text, JSON_DECODE_ANY, NULL);
	const char *s = json_string_value(json_object_get(ver, "version"));
	char word[64] = "";

	snprintf(full, fulllen, "%s", s ? s : "");
	if (s != NULL)
		(void)sscanf(s, "ceph version %63s", word);
	snprintf(number, numberlen, "%s", word);
	json_decref(ver);
}

int
ceph_parse_catalog(const char *text, size_t *start, size_t *len, size_t *count)
{
	/* duplicate keys would let a '[' of a dropped value come first */
	json_t *help = json_loads(
		text, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, NULL);
	json_t *list = json_object_get(help, "options");
	const char *open_br = strchr(text, '[');
	const char *close_br = strrchr(text, ']');
	int ok = json_is_array(list) && json_array_size(list) > 0 &&
			 json_object_size(help) == 1 && open_br != NULL &&
			 close_br != NULL && close_br > open_br;

	if (ok)
	{
		*start = (size_t)(open_br - text);
		*len = (size_t)(close_br - open_br) + 1;
		*count = json_array_size(list);
	}
	json_decref(help);
	return ok ? 0 : -1;
}

bool
ceph_parse_state_line(const char *line, applied_option *o)
{
	return sscanf(line, "%31s %127s", o->who, o->name) == 2;
}
