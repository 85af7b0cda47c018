/*
 * measure_context.c
 *	  How busy the machine was while a trial ran (see measure_context.h).
 *
 *	  /proc/stat counts every CPU's time in clock ticks by kind; the busy
 *	  kinds are user, nice, system, irq, softirq and steal (guest time is
 *	  already inside user).  Over a run, the other processes' share is the
 *	  busy time minus the runner's own CPU time (its rusage, reaped through
 *	  the keeper), over the CPU time the machine had: elapsed x CPUs.
 *	  /proc/diskstats' tenth counter is each device's milliseconds with
 *	  I/O in flight; the busiest whole disk (a /sys/block entry other than
 *	  loop, ram and zram devices) is recorded.
 */
#include "measure_context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROC_READ_MAX 65536

/* Read a small /proc file into buf; false if it cannot be read. */
static bool
read_proc(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return false;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

/* A whole disk worth watching: in /sys/block, not a loop or RAM device. */
static bool
is_whole_disk(const char *name)
{
	char path[64 + MEASURE_NAME_LEN];
	struct stat st;

	if (strncmp(name, "loop", 4) == 0 || strncmp(name, "ram", 3) == 0 ||
		strncmp(name, "zram", 4) == 0)
		return false;
	snprintf(path, sizeof(path), "/sys/block/%s", name);
	return stat(path, &st) == 0;
}

bool
measure_parse_stat(const char *text, long clock_ticks, MeasureSnapshot *snap)
{
	const char *line = text;
	bool found = false;

	snap->cpus = 0;
	while (line != NULL && *line != '\0')
	{
		if (strncmp(line, "cpu ", 4) == 0)
		{
			unsigned long long v[8] = {0};
			int n =
				sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu",
					   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);

			/* user nice system idle iowait irq softirq steal */
			if (n >= 4 && clock_ticks > 0)
			{
				double ticks = (double)clock_ticks;

				snap->busy_s =
					(double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / ticks;
				snap->steal_s = (double)v[7] / ticks;
				found = true;
			}
		}
		else if (strncmp(line, "cpu", 3) == 0 && line[3] >= '0' &&
				 line[3] <= '9')
			snap->cpus++;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	snap->have_cpu = found && snap->cpus > 0;
	return snap->have_cpu;
}

int
measure_parse_diskstats(const char *text, bool (*is_disk)(const char *name),
						MeasureSnapshot *snap)
{
	const char *line = text;

	snap->disks = 0;
	while (line != NULL && *line != '\0' && snap->disks < MEASURE_MAX_DISKS)
	{
		unsigned int major, minor;
		char name[MEASURE_NAME_LEN];
		unsigned long long f[10];

		/* major minor name, then reads..., io_ticks is the 10th counter */
		if (sscanf(line,
				   "%u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu "
				   "%llu",
				   &major, &minor, name, &f[0], &f[1], &f[2], &f[3], &f[4],
				   &f[5], &f[6], &f[7], &f[8], &f[9]) == 13 &&
			strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						 "0123456789._-") == strlen(name) &&
			(is_disk == NULL || is_disk(name)))
		{
			snprintf(snap->disk[snap->disks], MEASURE_NAME_LEN, "%s", name);
			snap->disk_busy_s[snap->disks] = (double)f[9] / 1000.0;
			snap->disks++;
		}
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return snap->disks;
}

void
measure_take(MeasureSnapshot *snap)
{
	char *buf = malloc(PROC_READ_MAX);
	struct timespec ts;

	memset(snap, 0, sizeof(*snap));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snap->at_s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	if (buf == NULL)
		return;
	if (read_proc("/proc/stat", buf, PROC_READ_MAX))
		(void)measure_parse_stat(buf, sysconf(_SC_CLK_TCK), snap);
	if (read_proc("/proc/diskstats", buf, PROC_READ_MAX))
		(void)measure_parse_diskstats(buf, is_whole_disk, snap);
	free(buf);
}

double
measure_load1(void)
{
	char buf[256];
	double load1;

	if (!read_proc("/proc/loadavg", buf, sizeof(buf)) ||
		sscanf(buf, "%lf", &load1) != 1)
		return NAN;
	return load1;
}

void
measure_context(const MeasureSnapshot *before, const MeasureSnapshot *after,
				double runner_cpu_s, double load1, MeasureContext *ctx)
{
	double elapsed = after->at_s - before->at_s;

	memset(ctx, 0, sizeof(*ctx));
	ctx->elapsed_s = elapsed;
	ctx->runner_cpu_s = runner_cpu_s;
	ctx->load1 = load1;
	ctx->others_cpu_share = NAN;
	ctx->steal_share = NAN;
	ctx->io_busy_share = NAN;
	if (before->have_cpu && after->have_cpu && elapsed > 0 && after->cpus > 0)
	{
		double capacity = elapsed * after->cpus;
		double others = after->busy_s - before->busy_s - runner_cpu_s;

		ctx->cpus = after->cpus;
		/* ticks are coarse: a short run may show a little below zero */
		ctx->others_cpu_share = fmin(1.0, fmax(0.0, others / capacity));
		ctx->steal_share = fmin(
			1.0, fmax(0.0, (after->steal_s - before->steal_s) / capacity));
	}
	if (elapsed > 0)
	{
		for (int i = 0; i < after->disks; i++)
			for (int j = 0; j < before->disks; j++)
			{
				double share;

				if (strcmp(after->disk[i], before->disk[j]) != 0)
					continue;
				share = fmin(1.0, fmax(0.0, (after->disk_busy_s[i] -
											 before->disk_busy_s[j]) /
												elapsed));
				if (isnan(ctx->io_busy_share) || share > ctx->io_busy_share)
				{
					ctx->io_busy_share = share;
					snprintf(ctx->io_device, MEASURE_NAME_LEN, "%s",
							 after->disk[i]);
				}
			}
	}
}

int
measure_context_json(const MeasureContext *ctx, char *buf, size_t size)
{
	int n = snprintf(buf, size, "{\"elapsed_s\":%.3f,\"runner_cpu_s\":%.3f",
					 ctx->elapsed_s, ctx->runner_cpu_s);

#define APPEND(...)                                        \
	do                                                     \
	{                                                      \
		if (n >= 0 && (size_t)n < size)                    \
			n += snprintf(buf + n, size - n, __VA_ARGS__); \
	} while (0)
	if (ctx->cpus > 0)
		APPEND(",\"cpus\":%d", ctx->cpus);
	if (!isnan(ctx->others_cpu_share))
		APPEND(",\"others_cpu_share\":%.4f", ctx->others_cpu_share);
	if (!isnan(ctx->steal_share))
		APPEND(",\"steal_share\":%.4f", ctx->steal_share);
	if (!isnan(ctx->io_busy_share))
		APPEND(",\"io_busy_share\":%.4f,\"io_device\":\"%s\"",
			   ctx->io_busy_share, ctx->io_device);
	if (!isnan(ctx->load1))
		APPEND(",\"load1\":%.2f", ctx->load1);
	APPEND("}");
#undef APPEND
	return n;
}

void
measure_finish(const MeasureSnapshot *before, const struct rusage *usage,
			   char *buf, size_t size)
{
	MeasureSnapshot after;
	MeasureContext ctx;
	double cpu =
		(double)usage->ru_utime.tv_sec + usage->ru_utime.tv_usec / 1e6 +
		(double)usage->ru_stime.tv_sec + usage->ru_stime.tv_usec / 1e6;

	measure_take(&after);
	measure_context(before, &after, cpu, measure_load1(), &ctx);
	measure_context_json(&ctx, buf, size);
}
