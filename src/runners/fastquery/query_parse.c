/*
 * query_parse.c: the query language of the "query" subcommand: variable
 * names, "x<1,y>=2;energy>3" parsed into queries, and a query's canonical
 * text.  Plain C without MPI or HDF5 calls, so that a fuzzer can drive it.
 */
#include "bins.h"
#include "fq.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fq_var_names[FQ_NVARS] = {"x",  "y",  "z",     "ux",
											"uy", "uz", "energy"};

/* Index of a variable name, or -1. */
int
fq_var_index(const char *name)
{
	int v;

	for (v = 0; v < FQ_NVARS; v++)
		if (strcmp(name, fq_var_names[v]) == 0)
			return v;
	return -1;
}

/* Parse one condition "VAR OP VALUE" into k; -1 with err on bad text. */
static int
parse_cond(const char *c, FqCond *k, char *err, size_t errlen)
{
	char name[32];
	size_t len = strcspn(c, "<>");
	FqOp op;
	int used;
	char *end;
	double val;

	if (len == 0 || len >= sizeof(name) || c[len] == '\0')
	{
		snprintf(err, errlen, "condition \"%s\" is not VAR OP VALUE", c);
		return -1;
	}
	memcpy(name, c, len);
	name[len] = '\0';
	k->var = fq_var_index(name);
	if (k->var < 0)
	{
		snprintf(err, errlen,
				 "unknown variable \"%s\" (x, y, z, ux, uy, uz, energy)",
				 name);
		return -1;
	}
	used = fq_op_parse(c + len, &op);
	errno = 0;
	val = strtod(c + len + used, &end);
	if (errno != 0 || end == c + len + used || *end != '\0' ||
		!isfinite(val) || !isfinite((float)val))
	{
		snprintf(err, errlen,
				 "condition \"%s\": the value is not a finite float", c);
		return -1;
	}
	k->op = op;
	/* compared in float32, as the data are */
	k->value = (double)(float)val;
	return 0;
}

/* See fq.h. */
int
fq_parse_queries(const char *text, FqQuery **out, char *err, size_t errlen)
{
	char *s = strdup(text), *save = NULL, *q;
	int nq = 0, cap = 8;
	FqQuery *qs = malloc(cap * sizeof(FqQuery));

	*out = NULL;
	if (s == NULL || qs == NULL)
	{
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (q = strtok_r(s, ";", &save); q; q = strtok_r(NULL, ";", &save))
	{
		char *save2 = NULL, *c;
		FqQuery *Q;

		if (nq == cap)
		{
			FqQuery *more = realloc(qs, (cap *= 2) * sizeof(FqQuery));

			if (more == NULL)
			{
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			qs = more;
		}
		Q = &qs[nq++];
		Q->ncond = 0;
		for (c = strtok_r(q, ",", &save2); c; c = strtok_r(NULL, ",", &save2))
		{
			if (Q->ncond == FQ_MAX_CONDS)
			{
				snprintf(err, errlen, "a query has more than %d conditions",
						 FQ_MAX_CONDS);
				goto fail;
			}
			if (parse_cond(c, &Q->cond[Q->ncond], err, errlen) < 0)
				goto fail;
			Q->ncond++;
		}
		if (Q->ncond == 0)
		{
			snprintf(err, errlen, "empty query in \"%s\"", text);
			goto fail;
		}
	}
	free(s);
	*out = qs;
	return nq;

fail:
	free(s);
	free(qs);
	return -1;
}

/* See fq.h. */
void
fq_query_text(const FqQuery *q, char *buf, size_t len)
{
	size_t used = 0;
	int c;

	buf[0] = '\0';
	for (c = 0; c < q->ncond && used < len; c++)
		used += snprintf(buf + used, len - used, "%s%s%s%.9g", c ? "," : "",
						 fq_var_names[q->cond[c].var],
						 fq_op_name((FqOp)q->cond[c].op), q->cond[c].value);
}
