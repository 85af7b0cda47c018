/*
 * ceph_input.c: the trial input of tuner_ceph, parsed and checked.  The
 * first bad value refuses the whole input with a message that names it;
 * whether Ceph knows an option and how it applies it is asked from the
 * cluster afterwards (apply.c).  See README.md for every key.
 */
#define _GNU_SOURCE
#include "ceph_input.h"
#include "option_policy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The input as a JSON object; NULL with the reason in err. */
static json_t *
parse_json(const char *text, size_t len, strbuf *err)
{
	json_error_t jerr;
	json_t *j;

	if (strspn(text, " \t\r\n") == len)
		return json_object();
	/* a repeated key would silently take one of its values */
	j = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (j == NULL)
	{
		sb_refuse(err, "input is not JSON: %s (line %d)", jerr.text,
				  jerr.line);
		return NULL;
	}
	if (!json_is_object(j))
	{
		sb_refuse(err, "input must be a JSON object, got %s",
				  json_type_name(j));
		json_decref(j);
		return NULL;
	}
	return j;
}

static bool
set_path(char *dst, const char *src, const char *key, strbuf *err)
{
	if (strlen(src) >= PATH_MAX)
		return sb_refuse(err, "_settings.%s is too long", key);
	strcpy(dst, src);
	return true;
}

static bool
number_setting(json_t *v, const char *key, double min, double max, double *out,
			   strbuf *err)
{
	double x;

	if (!json_is_number(v))
		return sb_refuse(err, "_settings.%s must be a number, got %s", key,
						 json_type_name(v));
	x = json_number_value(v);
	if (!isfinite(x) || x < min || x > max)
		return sb_refuse(err, "_settings.%s must be in [%g, %g], got %g", key,
						 min, max, x);
	*out = x;
	return true;
}

/* One of the string settings. */
static bool
string_setting(ceph_settings *s, const char *key, json_t *v, strbuf *err)
{
	if (!json_is_string(v) || json_string_length(v) == 0)
		return sb_refuse(err, "_settings.%s must be a non-empty string", key);
	if (strcmp(key, "conf") == 0)
		return set_path(s->conf, json_string_value(v), key, err);
	if (strcmp(key, "keyring") == 0)
		return set_path(s->keyring, json_string_value(v), key, err);
	if (strcmp(key, "cluster_script") == 0)
		return set_path(s->cluster_script, json_string_value(v), key, err);
	if (strcmp(key, "state_file") == 0)
		return set_path(s->state_file, json_string_value(v), key, err);
	if (strcmp(key, "pool") == 0)
		snprintf(s->pool, sizeof(s->pool), "%s", json_string_value(v));
	else
		snprintf(s->client_name, sizeof(s->client_name), "%s",
				 json_string_value(v));
	return true;
}

/* One member of "_settings" other than cluster_dir. */
static bool
parse_setting(ceph_settings *s, const char *key, json_t *v, strbuf *err)
{
	double x;

	if (strcmp(key, "conf") == 0 || strcmp(key, "keyring") == 0 ||
		strcmp(key, "cluster_script") == 0 || strcmp(key, "state_file") == 0 ||
		strcmp(key, "pool") == 0 || strcmp(key, "client_name") == 0)
		return string_setting(s, key, v, err);
	if (strcmp(key, "paired") == 0)
	{
		if (!json_is_boolean(v))
			return sb_refuse(err, "_settings.paired must be true or false");
		s->paired = json_is_true(v);
		return true;
	}
	if (strcmp(key, "restore") == 0)
	{
		if (!json_is_boolean(v))
			return sb_refuse(err, "_settings.restore must be true or false");
		s->restore = json_is_true(v);
		return true;
	}
	if (strcmp(key, "object_size") == 0)
	{
		if (!number_setting(v, key, 1, 64 << 20, &x, err))
			return false;
		s->w.object_size = (size_t)x;
	}
	else if (strcmp(key, "concurrency") == 0)
	{
		if (!number_setting(v, key, 1, 1024, &x, err))
			return false;
		s->w.concurrency = (int)x;
	}
	else if (strcmp(key, "duration_s") == 0)
		return number_setting(v, key, 0.1, 3600, &s->w.duration_s, err);
	else if (strcmp(key, "seed") == 0)
	{
		if (!number_setting(v, key, 0, 9007199254740992.0, &x, err))
			return false;
		s->w.seed = (uint64_t)x;
	}
	else if (strcmp(key, "repeats") == 0)
	{
		if (!number_setting(v, key, 1, 16, &x, err))
			return false;
		s->repeats = (int)x;
	}
	else if (strcmp(key, "apply_timeout_s") == 0)
	{
		if (!number_setting(v, key, 1, 600, &x, err))
			return false;
		s->apply_timeout_s = (int)x;
	}
	/* other keys: study settings the worker may pass; ignored */
	return true;
}

static bool
parse_settings(json_t *in, ceph_settings *s, strbuf *err)
{
	json_t *js = json_object_get(in, "_settings"), *v;
	const char *key, *env = getenv("TUNER_CEPH_DIR");
	char host[64];

	memset(s, 0, sizeof(*s));
	if (env && env[0])
	{
		if (!set_path(s->cluster_dir, env, "cluster_dir", err))
			return false;
	}
	else
		snprintf(s->cluster_dir, PATH_MAX, "/var/tmp/tuner-ceph-%d",
				 (int)getuid());
	snprintf(s->client_name, sizeof(s->client_name), "client.admin");
	snprintf(s->pool, sizeof(s->pool), "tuner");
	s->w.object_size = 4 << 20;
	s->w.concurrency = 16;
	s->w.duration_s = 5;
	s->w.seed = 1;
	s->apply_timeout_s = 15;
	s->timeout_s = 60;
	s->paired = false;
	s->restore = false;
	s->repeats = 1;
	if (js != NULL && !json_is_object(js))
		return sb_refuse(err, "_settings must be an object, got %s",
						 json_type_name(js));
	/* cluster_dir first: the other paths default to files in it */
	if ((v = json_object_get(js, "cluster_dir")) != NULL)
	{
		if (!json_is_string(v))
			return sb_refuse(err, "_settings.cluster_dir must be a string");
		if (!set_path(s->cluster_dir, json_string_value(v), "cluster_dir",
					  err))
			return false;
	}
	snprintf(s->conf, PATH_MAX, "%.4000s/ceph.conf", s->cluster_dir);
	snprintf(s->keyring, PATH_MAX, "%.4000s/client.admin.keyring",
			 s->cluster_dir);
	snprintf(s->cluster_script, PATH_MAX, "%.4000s/cluster.sh",
			 s->cluster_dir);
	snprintf(s->state_file, PATH_MAX, "%.4000s/tuner_ceph.applied",
			 s->cluster_dir);
	json_object_foreach(js, key, v)
	{
		if (strcmp(key, "cluster_dir") == 0)
			continue;
		if (!parse_setting(s, key, v, err))
			return false;
	}
	gethostname(host, sizeof(host));
	host[sizeof(host) - 1] = '\0';
	snprintf(s->w.prefix, sizeof(s->w.prefix), "tuner_ceph_%.40s_%d", host,
			 (int)getpid());
	return true;
}

/* The trial options: every key not starting with "_". */
static bool
parse_options(json_t *in, trial_option *opts, int *nopts, strbuf *err)
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach(in, key, v)
	{
		trial_option *o;
		char why[512];

		if (key[0] == '_')
			continue;
		if (n == CEPH_MAX_OPTIONS)
			return sb_refuse(err, "more than %d options", CEPH_MAX_OPTIONS);
		/* "" passes the character test but names no option */
		if (key[0] == '\0' || strlen(key) >= sizeof(o->name) ||
			strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
				strlen(key))
			return sb_refuse(err, "\"%s\" is not a Ceph option name", key);
		/* before connecting: refused classes never reach the cluster */
		if (!option_name_allowed(key, why, sizeof(why)))
			return sb_refuse(err, "%s", why);
		o = &opts[n++];
		memset(o, 0, sizeof(*o));
		strcpy(o->name, key);
		if (json_is_integer(v))
			snprintf(o->value, sizeof(o->value), "%lld",
					 (long long)json_integer_value(v));
		else if (json_is_real(v))
		{
			double x = json_real_value(v);

			if (!isfinite(x))
				return sb_refuse(err, "%s: value must be finite", key);
			if (x == floor(x) && fabs(x) < 9e15)
				snprintf(o->value, sizeof(o->value), "%.0f", x);
			else
				snprintf(o->value, sizeof(o->value), "%.17g", x);
		}
		else if (json_is_boolean(v))
			snprintf(o->value, sizeof(o->value), "%s",
					 json_is_true(v) ? "true" : "false");
		else if (json_is_string(v) && json_string_length(v) < sizeof(o->value))
			snprintf(o->value, sizeof(o->value), "%s", json_string_value(v));
		else
			return sb_refuse(
				err,
				"%s: value must be a number, a boolean or a short "
				"string, got %s",
				key, json_type_name(v));
	}
	*nopts = n;
	return true;
}

bool
ceph_parse_input(const char *text, size_t len, bool options, ceph_settings *s,
				 trial_option *opts, int *nopts, strbuf *err)
{
	json_t *in;
	bool ok;

	sb_init(err);
	*nopts = 0;
	in = parse_json(text, len, err);
	if (in == NULL)
		return false;
	ok = parse_settings(in, s, err) &&
		 (!options || parse_options(in, opts, nopts, err));
	json_decref(in);
	return ok;
}
