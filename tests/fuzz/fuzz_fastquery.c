/*
 * fuzz_fastquery.c: libFuzzer target for FastQuery's text parsers: the
 * query language (src/runners/fastquery/query_parse.c), tuner_fastquery's
 * "--key value" options (opts.c), and the runner's trial input and
 * "_effective" output (trial.c).  The first byte (mod 3) picks one; the
 * rest is the query text, the arguments one per line, or the JSON.
 *
 * Queries: an accepted text gives 1 to FQ_MAX_CONDS conditions on known
 * variables with finite float32 constants, and each query's canonical
 * text parses back to the same query.  Options: fq_fail (exit 2 in the
 * program) returns here by longjmp; accepted options stay within the
 * documented bounds.  Trial input: accepted or refused with a message,
 * strings terminated, nothing leaked; the "_effective" part written from
 * any metrics object is valid JSON.
 */
#include "bins.h"
#include "fq.h"
#include "fq_runner.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static jmp_buf fail_jump;
static char fail_message[1024];

/* The program's fq_fail exits; here it formats the message and returns. */
void
fq_fail(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fail_message, sizeof(fail_message), fmt, ap);
	va_end(ap);
	longjmp(fail_jump, code == 0 ? 1 : code);
}

static void
check_query(const FqQuery *q)
{
	int c;

	if (q->ncond < 1 || q->ncond > FQ_MAX_CONDS)
		abort();
	for (c = 0; c < q->ncond; c++)
	{
		const FqCond *k = &q->cond[c];

		if (k->var < 0 || k->var >= FQ_NVARS || k->op < FQ_LT ||
			k->op > FQ_GE || !isfinite(k->value) ||
			(double)(float)k->value != k->value)
			abort();
	}
}

static void
fuzz_queries(const char *text)
{
	char err[512];
	char canon[1024];
	FqQuery *qs;
	FqQuery *again;
	int nq = fq_parse_queries(text, &qs, err, sizeof(err));
	int q;

	if (nq < 0)
	{
		if (qs != NULL || err[0] == '\0')
			abort();
		return;
	}
	for (q = 0; q < nq; q++)
	{
		check_query(&qs[q]);
		fq_query_text(&qs[q], canon, sizeof(canon));
		if (fq_parse_queries(canon, &again, err, sizeof(err)) != 1)
			abort();
		if (again[0].ncond != qs[q].ncond ||
			memcmp(again[0].cond, qs[q].cond, qs[q].ncond * sizeof(FqCond)) !=
				0)
			abort();
		free(again);
	}
	free(qs);
}

static void
fuzz_options(char *text)
{
	char *argv[64];
	int argc = 0;
	char *line;
	char *save = NULL;
	FqOptions o;
	int i;

	for (line = strtok_r(text, "\n", &save); line && argc < 64;
		 line = strtok_r(NULL, "\n", &save))
		argv[argc++] = line;
	if (setjmp(fail_jump) != 0)
		return;
	fq_parse_options(argc, argv, &o);
	if (o.n < 1 || o.n > (1ULL << 40) || o.chunk < 1 ||
		o.chunk > (1ULL << 32) || o.align > (1ULL << 30) || o.nbins < 1 ||
		o.nbins > 65535 || o.block < 31 || o.block > (1ULL << 32) ||
		o.threads < 1 || o.threads > 64 || (o.overlap & ~1) || (o.cold & ~1) ||
		(o.scan & ~1) || (o.chunked & ~1) || (o.collective & ~1) ||
		o.random_queries < 0 || o.random_queries > 100000 || o.nhints < 0 ||
		o.nhints > FQ_MAX_HINTS)
		abort();
	for (i = 0; i < o.nhints; i++)
		if (o.hints[i].key == NULL || o.hints[i].value == NULL)
			abort();
}

static void
fuzz_trial(const char *text)
{
	FqTrial t;
	char err[256];
	json_t *metrics;
	json_t *back;
	strbuf sb;

	err[0] = '\0';
	if (!fq_parse_trial(text, &t, err, sizeof(err)))
	{
		if (err[0] == '\0')
			abort();
	}
	else if ((strcmp(t.layout, "contiguous") != 0 &&
			  strcmp(t.layout, "chunked") != 0) ||
			 (strcmp(t.io, "collective") != 0 &&
			  strcmp(t.io, "independent") != 0) ||
			 strnlen(t.queries, sizeof(t.queries)) == sizeof(t.queries) ||
			 strnlen(t.program, sizeof(t.program)) == sizeof(t.program) ||
			 strnlen(t.mpiexec, sizeof(t.mpiexec)) == sizeof(t.mpiexec) ||
			 strnlen(t.data_dir, sizeof(t.data_dir)) == sizeof(t.data_dir))
		abort();

	metrics = json_loads(text, JSON_DECODE_ANY, NULL);
	if (metrics == NULL)
		return;
	sb_init(&sb);
	sb_append(&sb, "{\"value\": 1");
	fq_append_effective(&sb, metrics, metrics);
	sb_append(&sb, "}");
	back = json_loadb(sb.data, sb.len, 0, NULL);
	if (!json_is_object(back) || json_object_get(back, "_effective") == NULL)
		abort();
	json_decref(back);
	sb_free(&sb);
	json_decref(metrics);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	if (data[0] % 3 == 1)
		fuzz_queries(text);
	else if (data[0] % 3 == 2)
		fuzz_trial(text);
	else
		fuzz_options(text);
	free(text);
	return 0;
}
