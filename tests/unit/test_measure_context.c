/*
 * test_measure_context.c
 *	  The machine's context of a trial (src/exec/measure_context.c): the
 *	  /proc parsers on fixed texts, the shares computed from two
 *	  snapshots by hand, the JSON, and a real snapshot of this machine.
 */
#include <math.h>
#include <string.h>

#include "measure_context.h"
#include "unit.h"

/* Two CPUs; 100 ticks a second. */
static const char *stat_before =
	"cpu  1000 100 300 5000 50 0 20 30 0 0\n"
	"cpu0 500 50 150 2500 25 0 10 15 0 0\n"
	"cpu1 500 50 150 2500 25 0 10 15 0 0\n"
	"intr 12345\n";
/* 10 s later: 1520 busy ticks (15.2 s of CPU), 100 of them stolen */
static const char *stat_after =
	"cpu  2200 100 500 5400 60 0 40 130 0 0\n"
	"cpu0 1100 50 250 2700 30 0 20 65 0 0\n"
	"cpu1 1100 50 250 2700 30 0 20 65 0 0\n";

static const char *disks_before =
	" 254       0 vda 100 0 800 50 10 0 80 5 0 2000 55 0 0 0 0 0 0\n"
	" 254       1 vda1 90 0 700 40 10 0 80 5 0 1900 45 0 0 0 0 0 0\n"
	"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   8       0 sdb 5 0 40 1 0 0 0 0 0 100 1\n";
static const char *disks_after =
	" 254       0 vda 200 0 1600 90 20 0 160 9 0 6000 99 0 0 0 0 0 0\n"
	" 254       1 vda1 180 0 1400 80 20 0 160 9 0 5800 89 0 0 0 0 0 0\n"
	"   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"   8       0 sdb 9 0 70 2 0 0 0 0 0 1100 2\n";

static bool
no_partitions(const char *name)
{
	return strcmp(name, "vda1") != 0 && strncmp(name, "loop", 4) != 0;
}

static void
parsers(void)
{
	MeasureSnapshot s;

	memset(&s, 0, sizeof(s));
	CHECK(measure_parse_stat(stat_before, 100, &s));
	CHECK(s.cpus == 2);
	CHECK_CLOSE(s.busy_s, (1000 + 100 + 300 + 0 + 20 + 30) / 100.0, 1e-12);
	CHECK_CLOSE(s.steal_s, 0.3, 1e-12);
	CHECK(!measure_parse_stat("intr 1\n", 100, &s));
	CHECK(!measure_parse_stat("", 100, &s));
	CHECK(measure_parse_diskstats(disks_before, no_partitions, &s) == 2);
	CHECK(strcmp(s.disk[0], "vda") == 0 && strcmp(s.disk[1], "sdb") == 0);
	CHECK_CLOSE(s.disk_busy_s[0], 2.0, 1e-12);
	CHECK(measure_parse_diskstats(disks_before, NULL, &s) == 4);
	CHECK(measure_parse_diskstats("garbage\n1 2\n", NULL, &s) == 0);
	CHECK(measure_parse_diskstats(" 8 0 a\"b 1 2 3 4 5 6 7 8 9 10\n", NULL, &s) == 0);
}

static void
shares(void)
{
	MeasureSnapshot a, b;
	MeasureContext c;
	char json[512];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	measure_parse_stat(stat_before, 100, &a);
	measure_parse_stat(stat_after, 100, &b);
	measure_parse_diskstats(disks_before, no_partitions, &a);
	measure_parse_diskstats(disks_after, no_partitions, &b);
	a.at_s = 100.0;
	b.at_s = 110.0;
	/* 15.2 s of CPU in 10 s on 2 CPUs; the runner took 11 s of it */
	measure_context(&a, &b, 11.0, 1.5, &c);
	CHECK_CLOSE(c.elapsed_s, 10.0, 1e-12);
	CHECK(c.cpus == 2);
	CHECK_CLOSE(c.others_cpu_share, (15.2 - 11.0) / 20.0, 1e-12);
	CHECK_CLOSE(c.steal_share, 1.0 / 20.0, 1e-12);
	/* vda busy 4 s of 10, sdb 1 s */
	CHECK_CLOSE(c.io_busy_share, 0.4, 1e-12);
	CHECK(strcmp(c.io_device, "vda") == 0);
	measure_context_json(&c, json, sizeof(json));
	CHECK(strcmp(json, "{\"elapsed_s\":10.000,\"runner_cpu_s\":11.000,"
					   "\"cpus\":2,\"others_cpu_share\":0.2100,"
					   "\"steal_share\":0.0500,\"io_busy_share\":0.4000,"
					   "\"io_device\":\"vda\",\"load1\":1.50}") == 0);

	/* a runner's CPU above the machine's busy time (coarse ticks): 0 */
	measure_context(&a, &b, 30.0, NAN, &c);
	CHECK(c.others_cpu_share == 0.0);
	/* nothing known: only what was measured is written */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	b.at_s = 2.0;
	measure_context(&a, &b, 0.5, NAN, &c);
	CHECK(isnan(c.others_cpu_share) && isnan(c.io_busy_share));
	measure_context_json(&c, json, sizeof(json));
	CHECK(strcmp(json, "{\"elapsed_s\":2.000,\"runner_cpu_s\":0.500}") == 0);
	/* a short buffer is never overrun */
	CHECK(measure_context_json(&c, json, 8) > 0 && strlen(json) == 7);
}

/* This machine: Linux has /proc/stat and a load average. */
static void
this_machine(void)
{
	MeasureSnapshot a, b;
	MeasureContext c;
	volatile double spin = 0;

	measure_take(&a);
	for (long i = 0; i < 20000000; i++)
		spin += 1e-9 * (double)i;
	measure_take(&b);
	CHECK(a.have_cpu && b.have_cpu && a.cpus >= 1);
	CHECK(b.busy_s >= a.busy_s);
	measure_context(&a, &b, 0.0, measure_load1(), &c);
	CHECK(c.elapsed_s > 0 && c.others_cpu_share >= 0 && c.others_cpu_share <= 1);
	CHECK(!isnan(c.load1) && c.load1 >= 0);
}

void
test_measure_context(void)
{
	parsers();
	shares();
	this_machine();
}
