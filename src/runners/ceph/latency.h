/*
 * latency.h: the latencies of one workload phase and their summary
 * (mean, median, 99th percentile, maximum).
 */
#ifndef TUNER_CEPH_LATENCY_H
#define TUNER_CEPH_LATENCY_H

#include <stddef.h>

typedef struct
{
	double *ms; /* one latency per completed operation, milliseconds */
	size_t n;
	size_t cap;
} latencies;

typedef struct
{
	double mean_ms;
	double p50_ms;
	double p99_ms;
	double max_ms;
} latency_summary;

extern void lat_init(latencies *l);
extern void lat_free(latencies *l);
extern void lat_add(latencies *l, double ms);

/* Summary of l (sorts l->ms); NaN everywhere when l is empty.
 * Percentiles interpolate linearly between order statistics (numpy's
 * default), p in [0, 100]. */
extern latency_summary lat_summarize(latencies *l);
extern double lat_percentile_sorted(const double *sorted, size_t n, double p);

#endif /* TUNER_CEPH_LATENCY_H */
