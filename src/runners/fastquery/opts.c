/*
 * opts.c: command-line options "--key value" of all subcommands.  Every
 * rank parses the same arguments, so a bad one fails on all of them; the
 * exit code is 2 (invalid input) as in the runner protocol.
 */
#include "fq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* MPI-IO hints that may be given as options, and their kind of value. */
static const struct
{
	const char *key;
	int numeric; /* 1: positive integer, 0: enable/disable/automatic,
					 * 2: free text */
} known_hints[] = {
	{"romio_cb_read", 0},      {"romio_cb_write", 0},     {"romio_ds_read", 0},
	{"romio_ds_write", 0},     {"cb_buffer_size", 1},     {"cb_nodes", 1},
	{"cb_config_list", 2},     {"striping_factor", 1},    {"striping_unit", 1},
	{"ind_rd_buffer_size", 1}, {"ind_wr_buffer_size", 1},
};

/* A non-negative integer option, or exit 2. */
static uint64_t
parse_u64(const char *key, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < min ||
		v > max)
		fq_fail(2, "option --%s: \"%s\" is not an integer in [%llu, %llu]",
				key, s, (unsigned long long)min, (unsigned long long)max);
	return v;
}

/* The default cache directory: $TMPDIR (or /tmp)/tuner_fastquery-<uid>. */
static const char *
default_cache_dir(void)
{
	static char buf[4096];
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, sizeof(buf), "%s/tuner_fastquery-%u",
			 tmp && *tmp ? tmp : "/tmp", (unsigned)getuid());
	return buf;
}

/* Record a hint option after checking its value. */
static int
parse_hint(FqOptions *o, const char *key, const char *val)
{
	size_t i;

	for (i = 0; i < sizeof(known_hints) / sizeof(known_hints[0]); i++)
	{
		if (strcmp(key, known_hints[i].key) != 0)
			continue;
		if (known_hints[i].numeric == 1)
			parse_u64(key, val, 1, UINT64_MAX >> 1);
		else if (known_hints[i].numeric == 0 && strcmp(val, "enable") != 0 &&
				 strcmp(val, "disable") != 0 && strcmp(val, "automatic") != 0)
			fq_fail(2,
					"option --%s: \"%s\" is not enable, disable or automatic",
					key, val);
		if (o->nhints == FQ_MAX_HINTS)
			fq_fail(2, "too many hints");
		o->hints[o->nhints].key = known_hints[i].key;
		o->hints[o->nhints].value = val;
		o->nhints++;
		return 1;
	}
	return 0;
}

/* Apply one option. */
static void
set_option(FqOptions *o, const char *key, const char *val)
{
	if (strcmp(key, "n") == 0)
		o->n = parse_u64(key, val, 1, 1ULL << 40);
	else if (strcmp(key, "seed") == 0)
		o->seed = parse_u64(key, val, 0, UINT64_MAX);
	else if (strcmp(key, "layout") == 0)
	{
		if (strcmp(val, "contiguous") == 0)
			o->chunked = 0;
		else if (strcmp(val, "chunked") == 0)
			o->chunked = 1;
		else
			fq_fail(2, "option --layout: \"%s\" is not contiguous or chunked",
					val);
	}
	else if (strcmp(key, "chunk") == 0)
		o->chunk = parse_u64(key, val, 1, 1ULL << 32);
	else if (strcmp(key, "align") == 0)
		o->align = parse_u64(key, val, 0, 1ULL << 30);
	else if (strcmp(key, "cache-dir") == 0)
		o->cache_dir = val;
	else if (strcmp(key, "file") == 0 || strcmp(key, "out") == 0)
		o->file = val;
	else if (strcmp(key, "index") == 0)
		o->index = val;
	else if (strcmp(key, "bins") == 0)
		o->nbins = (int)parse_u64(key, val, 1, 65535);
	else if (strcmp(key, "block") == 0)
		o->block = parse_u64(key, val, 31, 1ULL << 32);
	else if (strcmp(key, "threads") == 0)
		o->threads = (int)parse_u64(key, val, 1, 64);
	else if (strcmp(key, "overlap") == 0)
		o->overlap = (int)parse_u64(key, val, 0, 1);
	else if (strcmp(key, "io") == 0)
	{
		if (strcmp(val, "collective") == 0)
			o->collective = 1;
		else if (strcmp(val, "independent") == 0)
			o->collective = 0;
		else
			fq_fail(2, "option --io: \"%s\" is not collective or independent",
					val);
	}
	else if (strcmp(key, "cold") == 0)
		o->cold = (int)parse_u64(key, val, 0, 1);
	else if (strcmp(key, "queries") == 0)
		o->queries = val;
	else if (strcmp(key, "random") == 0)
		o->random_queries = (int)parse_u64(key, val, 0, 100000);
	else if (strcmp(key, "query-seed") == 0)
		o->query_seed = parse_u64(key, val, 0, UINT64_MAX);
	else if (strcmp(key, "scan") == 0)
		o->scan = (int)parse_u64(key, val, 0, 1);
	else if (strcmp(key, "ids") == 0)
		o->ids_file = val;
	else if (!parse_hint(o, key, val))
		fq_fail(2, "unknown option --%s", key);
}

/* Defaults, then the "--key value" pairs in order. */
void
fq_parse_options(int argc, char **argv, FqOptions *o)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->n = 1ULL << 20;
	o->seed = 1;
	o->chunk = 1ULL << 16;
	o->cache_dir = default_cache_dir();
	o->nbins = 64;
	o->block = 1ULL << 16;
	o->threads = 1;
	o->collective = 1;
	o->query_seed = 1;
	for (i = 0; i < argc; i += 2)
	{
		if (strncmp(argv[i], "--", 2) != 0 || argv[i][2] == '\0')
			fq_fail(2, "expected an option --key, got \"%s\"", argv[i]);
		if (i + 1 >= argc)
			fq_fail(2, "option %s needs a value", argv[i]);
		set_option(o, argv[i] + 2, argv[i + 1]);
	}
}
