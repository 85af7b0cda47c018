/*
 * apply.c: configuration through the monitor (see apply.h).
 */
#include "apply.h"
#include "option_policy.h"
#include "answers.h"
#include "cephcmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *
opt_kind_name(opt_kind k)
{
	return k == OPT_RUNTIME   ? "runtime"
		   : k == OPT_RESTART ? "restart"
							  : "create";
}

const char *
option_who(const char *name)
{
	if (strncmp(name, "objecter_", 9) == 0 || strncmp(name, "rados_", 6) == 0)
		return "client";
	return "osd";
}

int
option_classify(rados_t c, const char *name, opt_kind *kind, bool *allowed,
				char *err, size_t errlen)
{
	ceph_answer a;

	if (ceph_mon(c,
				 json_pack("{s:s, s:s, s:s}", "prefix", "config help", "key",
						   name, "format", "json"),
				 &a) < 0)
	{
		if (a.ret == -ENOENT)
			snprintf(err, errlen, "Ceph has no option named \"%s\"", name);
		else
			snprintf(err, errlen, "config help %s: %s", name, ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	if (ceph_parse_option_kind(name, a.out, kind) < 0)
	{
		snprintf(err, errlen, "config help %s: not a JSON object", name);
		ceph_answer_free(&a);
		return -1;
	}
	if (allowed != NULL)
		*allowed = option_type_allowed(name, a.out, err, errlen);
	ceph_answer_free(&a);
	return 0;
}

int
option_set(rados_t c, const char *who, const char *name, const char *value,
		   char *err, size_t errlen)
{
	ceph_answer a;

	if (ceph_mon(c,
				 json_pack("{s:s, s:s, s:s, s:s}", "prefix", "config set",
						   "who", who, "name", name, "value", value),
				 &a) < 0)
	{
		snprintf(err, errlen, "config set %s %s %s: %s", who, name, value,
				 ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	ceph_answer_free(&a);
	return 0;
}

int
option_rm(rados_t c, const char *who, const char *name, char *err,
		  size_t errlen)
{
	ceph_answer a;

	if (ceph_mon(c,
				 json_pack("{s:s, s:s, s:s}", "prefix", "config rm", "who",
						   who, "name", name),
				 &a) < 0)
	{
		snprintf(err, errlen, "config rm %s %s: %s", who, name, ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	ceph_answer_free(&a);
	return 0;
}

int
option_get_mon(rados_t c, const char *who, const char *name, char *out,
			   size_t outlen, char *err, size_t errlen)
{
	ceph_answer a;

	if (ceph_mon(c,
				 json_pack("{s:s, s:s, s:s}", "prefix", "config get", "who",
						   who, "key", name),
				 &a) < 0)
	{
		snprintf(err, errlen, "config get %s %s: %s", who, name, ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	ceph_copy_trimmed(out, outlen, a.out);
	ceph_answer_free(&a);
	return 0;
}

int
option_get_osd(rados_t c, int osd, const char *name, char *out, size_t outlen,
			   char *err, size_t errlen)
{
	ceph_answer a;

	if (ceph_osd(c, osd,
				 json_pack("{s:s, s:s, s:s}", "prefix", "config get", "var",
						   name, "format", "json"),
				 &a) < 0)
	{
		snprintf(err, errlen, "tell osd.%d config get %s: %s", osd, name,
				 ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	if (ceph_parse_config_value(a.out, name, out, outlen) < 0)
	{
		snprintf(err, errlen,
				 "tell osd.%d config get %s: unexpected answer %s", osd, name,
				 a.out);
		ceph_answer_free(&a);
		return -1;
	}
	ceph_answer_free(&a);
	return 0;
}

int
remove_cluster_written(rados_t c, char *err, size_t errlen)
{
	ceph_answer a;
	json_t *dump, *o;
	size_t i;
	int removed = 0;

	if (ceph_mon(
			c,
			json_pack("{s:s, s:s}", "prefix", "config dump", "format", "json"),
			&a) < 0)
	{
		snprintf(err, errlen, "config dump: %s", ceph_why(&a));
		ceph_answer_free(&a);
		return -1;
	}
	dump = ceph_answer_json(&a);
	ceph_answer_free(&a);
	json_array_foreach(dump, i, o)
	{
		const char *section = json_string_value(json_object_get(o, "section"));
		const char *name = json_string_value(json_object_get(o, "name"));

		if (section && name &&
			strncmp(name, "osd_mclock_max_capacity_iops", 28) == 0)
		{
			if (option_rm(c, section, name, err, errlen) < 0)
			{
				json_decref(dump);
				return -1;
			}
			removed++;
		}
	}
	json_decref(dump);
	return removed;
}

int
state_load(const char *path, applied_option **opts, int *n, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int cap = 0;

	*opts = NULL;
	*n = 0;
	if (f == NULL)
	{
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "reading %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f))
	{
		applied_option o;
		int k;
		bool dup = false;

		if (!ceph_parse_state_line(line, &o))
			continue;
		for (k = 0; k < *n; k++)
			if (strcmp((*opts)[k].who, o.who) == 0 &&
				strcmp((*opts)[k].name, o.name) == 0)
				dup = true;
		if (dup)
			continue;
		if (*n == cap)
		{
			cap = cap ? 2 * cap : 16;
			*opts = realloc(*opts, sizeof(applied_option) * cap);
			if (*opts == NULL)
			{
				fprintf(stderr, "tuner_ceph: out of memory\n");
				exit(1);
			}
		}
		(*opts)[(*n)++] = o;
	}
	fclose(f);
	return 0;
}

int
state_append(const char *path, const char *who, const char *name, char *err,
			 size_t errlen)
{
	FILE *f = fopen(path, "a");

	if (f == NULL || fprintf(f, "%s %s\n", who, name) < 0 || fclose(f) != 0)
	{
		snprintf(err, errlen, "writing %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
state_clear(const char *path, char *err, size_t errlen)
{
	if (unlink(path) < 0 && errno != ENOENT)
	{
		snprintf(err, errlen, "removing %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
