/*
 * measure_context.h
 *	  How busy the machine was while a trial ran (issue 29), measured by
 *	  whoever runs the runner: the server (src/pg/runner_exec.c) and
 *	  tuner-agent (src/agent/run.c).  A trial's numbers mean little when
 *	  other processes took the CPU or the disk meanwhile; each trial
 *	  records the machine's CPU time used by its runner and by everything
 *	  else, the CPU stolen by a hypervisor, the busiest disk's busy time
 *	  and the load average.  No PostgreSQL headers: Linux /proc only.
 */
#ifndef MEASURE_CONTEXT_H
#define MEASURE_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>

#define MEASURE_MAX_DISKS 32
#define MEASURE_NAME_LEN  32

/* The machine's counters at one moment. */
typedef struct MeasureSnapshot
{
	double at_s;   /* CLOCK_MONOTONIC */
	bool have_cpu; /* /proc/stat was read */
	int cpus;      /* cpuN lines */
	double busy_s; /* CPU seconds not idle or waiting for I/O, all CPUs */
	double steal_s;
	int disks;
	char disk[MEASURE_MAX_DISKS][MEASURE_NAME_LEN];
	double disk_busy_s[MEASURE_MAX_DISKS]; /* time with I/O in flight */
} MeasureSnapshot;

/* What a trial records, over its run.  NaN: not measured. */
typedef struct MeasureContext
{
	double elapsed_s;
	int cpus;
	double runner_cpu_s;     /* user + system of the runner's processes */
	double others_cpu_share; /* other processes' CPU / (elapsed * cpus) */
	double steal_share;      /* stolen CPU / (elapsed * cpus) */
	double io_busy_share;    /* the busiest disk's busy time / elapsed */
	char io_device[MEASURE_NAME_LEN];
	double load1; /* the 1-minute load average at the end */
} MeasureContext;

/* Take a snapshot of this machine (fields stay zero where /proc fails). */
extern void measure_take(MeasureSnapshot *snap);

/* The 1-minute load average, NaN if /proc/loadavg cannot be read. */
extern double measure_load1(void);

/*
 * Parse /proc/stat text into snap's CPU fields (clock_ticks: sysconf's
 * _SC_CLK_TCK); false if it has no "cpu" line.
 */
extern bool measure_parse_stat(const char *text, long clock_ticks,
							   MeasureSnapshot *snap);

/*
 * Parse /proc/diskstats text into snap's disks, keeping those is_disk
 * accepts (NULL: every name); returns how many.
 */
extern int measure_parse_diskstats(const char *text,
								   bool (*is_disk)(const char *name),
								   MeasureSnapshot *snap);

/*
 * The context of a run between two snapshots, whose runner used
 * runner_cpu_s seconds of CPU; load1 as measure_load1 gave it.
 */
extern void measure_context(const MeasureSnapshot *before,
							const MeasureSnapshot *after, double runner_cpu_s,
							double load1, MeasureContext *ctx);

/*
 * ctx as one JSON object (what is not measured is left out), e.g.
 * {"elapsed_s":30.012,"cpus":2,"runner_cpu_s":41.2,
 *  "others_cpu_share":0.031,"steal_share":0,"io_busy_share":0.42,
 *  "io_device":"vda","load1":1.93}.  Returns snprintf's count.
 */
extern int measure_context_json(const MeasureContext *ctx, char *buf,
								size_t size);

/*
 * The end of a run that began at before, whose keeper's wait4 gave usage
 * (the runner and every process it waited for): take the second snapshot
 * and the load average, and write the context as JSON into buf.  What the
 * server and tuner-agent both do once the runner is reaped.
 */
extern void measure_finish(const MeasureSnapshot *before,
						   const struct rusage *usage, char *buf, size_t size);

#endif /* MEASURE_CONTEXT_H */
