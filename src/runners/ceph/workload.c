/*
 * workload.c: write / sequential read / random read phases with librados
 * aio (see workload.h).
 *
 * Like rados bench, a fixed number of operations is kept in flight: each
 * slot owns a completion; librados' completion callback stamps the end
 * time (so a latency does not include the time the main thread took to
 * notice it) and queues the slot; the main thread takes finished slots
 * off the queue, records them and resubmits until the phase's time is up.
 */
#include "workload.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t workload_stop = 0;

typedef struct engine engine;

typedef struct
{
	engine *e;
	int index;
	rados_completion_t c;
	char *buf;
	double start;
	double end;
} slot;

struct engine
{
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int *done; /* ring of finished slot indexes */
	int head, count, size;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "tuner_ceph: out of memory\n");
		exit(1);
	}
	return p;
}

/* librados' callback thread: stamp and queue the slot. */
static void
on_complete(rados_completion_t c, void *arg)
{
	slot *s = arg;
	engine *e = s->e;

	s->end = now_s();
	pthread_mutex_lock(&e->lock);
	e->done[(e->head + e->count) % e->size] = s->index;
	e->count++;
	pthread_cond_signal(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static slot *
wait_finished(engine *e, slot *slots)
{
	int i;

	pthread_mutex_lock(&e->lock);
	while (e->count == 0)
		pthread_cond_wait(&e->cond, &e->lock);
	i = e->done[e->head];
	e->head = (e->head + 1) % e->size;
	e->count--;
	pthread_mutex_unlock(&e->lock);
	return &slots[i];
}

static void
object_name(const workload_spec *w, uint64_t i, char *name, size_t len)
{
	snprintf(name, len, "%s_%" PRIu64, w->prefix, i);
}

/* splitmix64: the random read order, reproducible from the seed. */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

typedef enum
{
	PHASE_WRITE,
	PHASE_SEQ_READ,
	PHASE_RAND_READ
} phase_kind;

static int
submit(rados_ioctx_t io, const workload_spec *w, phase_kind kind, slot *s,
	   uint64_t obj)
{
	char name[128];
	int r;

	object_name(w, obj, name, sizeof(name));
	r = rados_aio_create_completion2(s, on_complete, &s->c);
	if (r < 0)
		return r;
	s->start = now_s();
	if (kind == PHASE_WRITE)
		r = rados_aio_write_full(io, name, s->c, s->buf, w->object_size);
	else
		r = rados_aio_read(io, name, s->c, s->buf, w->object_size, 0);
	if (r < 0)
	{
		rados_aio_release(s->c);
		s->c = NULL;
	}
	return r;
}

static const char *
phase_name(phase_kind kind)
{
	return kind == PHASE_WRITE      ? "write"
		   : kind == PHASE_SEQ_READ ? "sequential read"
									: "random read";
}

static int
run_phase(rados_ioctx_t io, const workload_spec *w, phase_kind kind,
		  uint64_t nobjects, phase_result *res, uint64_t *written, char *err,
		  size_t errlen)
{
	engine e;
	slot *slots;
	latencies lat;
	uint64_t next = 0, rng = w->seed;
	double start, deadline, last_end, lat_sum_ms = 0;
	int inflight = 0, i, failed = 0;

	memset(res, 0, sizeof(*res));
	if (kind != PHASE_WRITE && nobjects == 0)
	{
		snprintf(err, errlen, "%s phase: no objects were written",
				 phase_name(kind));
		return -1;
	}
	pthread_mutex_init(&e.lock, NULL);
	pthread_cond_init(&e.cond, NULL);
	e.size = w->concurrency;
	e.done = xmalloc(sizeof(int) * e.size);
	e.head = e.count = 0;
	slots = xmalloc(sizeof(slot) * w->concurrency);
	lat_init(&lat);
	for (i = 0; i < w->concurrency; i++)
	{
		slots[i].e = &e;
		slots[i].index = i;
		slots[i].c = NULL;
		slots[i].buf = xmalloc(w->object_size);
		if (kind == PHASE_WRITE)
		{
			size_t k;
			uint64_t fill = w->seed + (uint64_t)i;

			for (k = 0; k + 8 <= w->object_size; k += 8)
			{
				uint64_t x = next_random(&fill);

				memcpy(slots[i].buf + k, &x, 8);
			}
			for (; k < w->object_size; k++)
				slots[i].buf[k] = (char)k;
		}
	}

	start = now_s();
	deadline = start + w->duration_s;
	last_end = start;
	for (i = 0; i < w->concurrency && !workload_stop; i++)
	{
		uint64_t obj = kind == PHASE_WRITE      ? next++
					   : kind == PHASE_SEQ_READ ? next++ % nobjects
												: next_random(&rng) % nobjects;
		int r = submit(io, w, kind, &slots[i], obj);

		if (r < 0)
		{
			snprintf(err, errlen, "%s phase: submitting an operation: %s",
					 phase_name(kind), strerror(-r));
			failed = 1;
			break;
		}
		inflight++;
	}
	while (inflight > 0)
	{
		slot *s = wait_finished(&e, slots);
		int ret = rados_aio_get_return_value(s->c);

		inflight--;
		rados_aio_release(s->c);
		s->c = NULL;
		if (ret < 0 || (kind != PHASE_WRITE && (size_t)ret != w->object_size))
		{
			if (!failed)
			{
				if (ret < 0)
					snprintf(err, errlen, "%s phase: operation failed: %s",
							 phase_name(kind), strerror(-ret));
				else
					snprintf(err, errlen,
							 "%s phase: read %d bytes of an object of %zu",
							 phase_name(kind), ret, w->object_size);
			}
			failed = 1;
			continue;
		}
		lat_add(&lat, (s->end - s->start) * 1000.0);
		lat_sum_ms += (s->end - s->start) * 1000.0;
		res->ops++;
		res->bytes += w->object_size;
		if (w->tick != NULL)
			w->tick(w->tick_arg, (int)kind, s->end - start, res->ops,
					lat_sum_ms);
		if (s->end > last_end)
			last_end = s->end;
		if (!failed && !workload_stop && now_s() < deadline)
		{
			uint64_t obj = kind == PHASE_WRITE ? next++
						   : kind == PHASE_SEQ_READ
							   ? next++ % nobjects
							   : next_random(&rng) % nobjects;
			int r = submit(io, w, kind, s, obj);

			if (r < 0)
			{
				snprintf(err, errlen, "%s phase: submitting an operation: %s",
						 phase_name(kind), strerror(-r));
				failed = 1;
				continue;
			}
			inflight++;
		}
	}
	if (written)
		*written = next; /* submitted writes: any of them may exist */
	res->seconds = last_end - start;
	res->lat = lat_summarize(&lat);
	lat_free(&lat);
	for (i = 0; i < w->concurrency; i++)
		free(slots[i].buf);
	free(slots);
	free(e.done);
	pthread_cond_destroy(&e.cond);
	pthread_mutex_destroy(&e.lock);
	if (!failed && workload_stop)
	{
		snprintf(err, errlen, "%s phase: interrupted", phase_name(kind));
		failed = 1;
	}
	return failed ? -1 : 0;
}

int
workload_write(rados_ioctx_t io, const workload_spec *w, phase_result *r,
			   uint64_t *nobjects, char *err, size_t errlen)
{
	return run_phase(io, w, PHASE_WRITE, 0, r, nobjects, err, errlen);
}

int
workload_read(rados_ioctx_t io, const workload_spec *w, bool random,
			  uint64_t nobjects, phase_result *r, char *err, size_t errlen)
{
	return run_phase(io, w, random ? PHASE_RAND_READ : PHASE_SEQ_READ,
					 nobjects, r, NULL, err, errlen);
}

/* Remove objects 0..nobjects-1 with up to 64 removals in flight; a
 * missing object (a write that never landed) is not an error. */
int
workload_remove(rados_ioctx_t io, const workload_spec *w, uint64_t nobjects,
				char *err, size_t errlen)
{
	enum
	{
		BATCH = 64
	};
	rados_completion_t c[BATCH];
	uint64_t i = 0;
	int failed = 0;

	while (i < nobjects)
	{
		int n = 0, k;

		for (; i < nobjects && n < BATCH; i++)
		{
			char name[128];
			int r;

			object_name(w, i, name, sizeof(name));
			if ((r = rados_aio_create_completion2(NULL, NULL, &c[n])) < 0 ||
				(r = rados_aio_remove(io, name, c[n])) < 0)
			{
				snprintf(err, errlen, "removing %s: %s", name, strerror(-r));
				failed = 1;
				break;
			}
			n++;
		}
		for (k = 0; k < n; k++)
		{
			int ret;

			rados_aio_wait_for_complete(c[k]);
			ret = rados_aio_get_return_value(c[k]);
			rados_aio_release(c[k]);
			if (ret < 0 && ret != -ENOENT && !failed)
			{
				snprintf(err, errlen, "removing the benchmark objects: %s",
						 strerror(-ret));
				failed = 1;
			}
		}
		if (failed)
			return -1;
	}
	return 0;
}
