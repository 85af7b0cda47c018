/*
 * latency.c: latency samples and their summary (see latency.h).
 */
#include "latency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void
lat_init(latencies *l)
{
	l->ms = NULL;
	l->n = 0;
	l->cap = 0;
}

void
lat_free(latencies *l)
{
	free(l->ms);
	lat_init(l);
}

void
lat_add(latencies *l, double ms)
{
	if (l->n == l->cap)
	{
		size_t cap = l->cap ? 2 * l->cap : 1024;
		double *p = realloc(l->ms, cap * sizeof(double));

		if (p == NULL)
		{
			fprintf(stderr, "tuner_ceph: out of memory\n");
			exit(1);
		}
		l->ms = p;
		l->cap = cap;
	}
	l->ms[l->n++] = ms;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
lat_percentile_sorted(const double *sorted, size_t n, double p)
{
	double pos, frac;
	size_t lo;

	if (n == 0)
		return NAN;
	pos = p / 100.0 * (double)(n - 1);
	lo = (size_t)floor(pos);
	if (lo >= n - 1)
		return sorted[n - 1];
	frac = pos - (double)lo;
	return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

latency_summary
lat_summarize(latencies *l)
{
	latency_summary s = {NAN, NAN, NAN, NAN};
	double sum = 0;
	size_t i;

	if (l->n == 0)
		return s;
	qsort(l->ms, l->n, sizeof(double), cmp_double);
	for (i = 0; i < l->n; i++)
		sum += l->ms[i];
	s.mean_ms = sum / (double)l->n;
	s.p50_ms = lat_percentile_sorted(l->ms, l->n, 50);
	s.p99_ms = lat_percentile_sorted(l->ms, l->n, 99);
	s.max_ms = l->ms[l->n - 1];
	return s;
}
