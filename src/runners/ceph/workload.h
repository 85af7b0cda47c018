/*
 * workload.h: the rados-bench-like workload of a trial, through librados
 * asynchronous I/O: a write phase (whole objects of object_size bytes,
 * `concurrency` operations in flight, for duration_s), then a sequential
 * read phase (the written objects in order, wrapping around) and a random
 * read phase (uniformly chosen written objects), and the removal of every
 * object written.
 */
#ifndef TUNER_CEPH_WORKLOAD_H
#define TUNER_CEPH_WORKLOAD_H

#include "latency.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rados/librados.h>

typedef struct
{
	size_t object_size;
	int concurrency;
	double duration_s;
	char prefix[96]; /* object names are "<prefix>_<index>" */
	uint64_t seed;   /* random read order */
	/*
	 * Called by the main thread after each completed operation (NULL:
	 * never), for progress lines: phase 0 write, 1 sequential read, 2
	 * random read; seconds since the phase started, operations completed
	 * and the sum of their latencies in ms so far.
	 */
	void (*tick)(void *arg, int phase, double elapsed_s, uint64_t ops,
				 double lat_sum_ms);
	void *tick_arg;
} workload_spec;

typedef struct
{
	double seconds; /* first submission to last completion */
	uint64_t ops;
	uint64_t bytes;
	latency_summary lat;
} phase_result;

/* Set by the runner's signal handler: stop submitting new operations. */
extern volatile sig_atomic_t workload_stop;

/* Each returns 0, or -1 with the reason in err.  The write phase reports
 * how many objects it wrote (also on failure: they must be removed). */
extern int workload_write(rados_ioctx_t io, const workload_spec *w,
						  phase_result *r, uint64_t *nobjects, char *err,
						  size_t errlen);
extern int workload_read(rados_ioctx_t io, const workload_spec *w, bool random,
						 uint64_t nobjects, phase_result *r, char *err,
						 size_t errlen);
extern int workload_remove(rados_ioctx_t io, const workload_spec *w,
						   uint64_t nobjects, char *err, size_t errlen);

#endif /* TUNER_CEPH_WORKLOAD_H */
