/*
 * fuzz_ceph_input.c: libFuzzer target for tuner_ceph's trial input
 * (src/runners/ceph/ceph_input.c), the JSON object a trial gets on stdin.
 * Each input is parsed as a trial reads it, and as --reset reads it (its
 * settings only):
 *   refused   the message is not empty;
 *   accepted  every number setting is within its declared range, every
 *             string fits its buffer, the pool and the client name are
 *             not empty; the options are at most CEPH_MAX_OPTIONS, each
 *             with a distinct, non-empty name of Ceph's characters that
 *             is not protocol metadata, and a string value passed on whole;
 *             and the settings are the same when the options are not read.
 * LeakSanitizer checks that nothing is left allocated either way.
 */
#include "ceph_input.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FITS(field) (strnlen((field), sizeof(field)) < sizeof(field))

static void
check_settings(const ceph_settings *s)
{
	if (!FITS(s->cluster_dir) || !FITS(s->conf) || !FITS(s->keyring) ||
		!FITS(s->cluster_script) || !FITS(s->state_file) ||
		!FITS(s->client_name) || !FITS(s->pool) || !FITS(s->w.prefix))
		abort();
	if (s->client_name[0] == '\0' || s->pool[0] == '\0' ||
		strncmp(s->w.prefix, "tuner_ceph_", 11) != 0)
		abort();
	if (s->w.object_size < 1 || s->w.object_size > (64 << 20) ||
		s->w.concurrency < 1 || s->w.concurrency > 1024 ||
		!(s->w.duration_s >= 0.1 && s->w.duration_s <= 3600) ||
		s->w.seed > 9007199254740992ULL || s->repeats < 1 || s->repeats > 16 ||
		s->apply_timeout_s < 1 || s->apply_timeout_s > 600 ||
		s->timeout_s != 60)
		abort();
}

static void
check_options(const char *text, const trial_option *opts, int n)
{
	json_t *in = json_loads(text, 0, NULL);
	int i, j;

	if (n < 0 || n > CEPH_MAX_OPTIONS || (n > 0 && in == NULL))
		abort();
	for (i = 0; i < n; i++)
	{
		const trial_option *o = &opts[i];
		json_t *v;

		if (!FITS(o->name) || !FITS(o->value) || o->name[0] == '\0' ||
			o->name[0] == '_' ||
			strspn(o->name, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
				strlen(o->name))
			abort();
		for (j = 0; j < i; j++)
			if (strcmp(opts[j].name, o->name) == 0)
				abort();
		v = json_object_get(in, o->name);
		if (v == NULL)
			abort();
		if (json_is_string(v) && (strlen(o->value) != json_string_length(v) ||
								  strcmp(o->value, json_string_value(v)) != 0))
			abort();
	}
	json_decref(in);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	static trial_option opts[CEPH_MAX_OPTIONS];
	ceph_settings s, s_reset;
	int n = -1, n_reset = -1;
	strbuf err;
	bool ok, ok_reset;

	memcpy(text, data, size);
	text[size] = '\0';

	ok = ceph_parse_input(text, size, true, &s, opts, &n, &err);
	if (!ok &&
		(err.data == NULL || err.len == 0 || strlen(err.data) != err.len))
		abort();
	if (ok)
	{
		if (err.len != 0)
			abort();
		check_settings(&s);
		check_options(text, opts, n);
	}
	sb_free(&err);

	ok_reset =
		ceph_parse_input(text, size, false, &s_reset, NULL, &n_reset, &err);
	if (ok_reset && n_reset != 0)
		abort();
	if (ok && (!ok_reset || memcmp(&s, &s_reset, sizeof(s)) != 0))
		abort();
	sb_free(&err);
	free(text);
	return 0;
}
