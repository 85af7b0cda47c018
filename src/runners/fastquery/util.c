/*
 * util.c: timers, CPU time, failure exit, JSON output, slab partition.
 */
#include "fq.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* Wall-clock seconds (MPI_Wtime). */
double
fq_now(void)
{
	return MPI_Wtime();
}

/* User + system CPU seconds of this process (all its threads). */
double
fq_cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/*
 * The reason goes to stderr as the last line; MPI_Abort takes the other
 * ranks down too (mpiexec then exits non-zero).  Bad input (code 2) is
 * found by every rank alike, from the same arguments and before any I/O,
 * so there each rank finalizes and exits with 2 instead, rank 0 alone
 * saying why: after MPI_Abort(..., 2), MPICH's mpiexec exited with 1 in 3
 * of 150 runs on a loaded machine (tests/runners/test_fastquery.sh's
 * "unknown variable exits 2" failed that way in CI).
 */
void
fq_fail(int code, const char *fmt, ...)
{
	va_list ap;
	int rank = 0, initialized = 0;

	MPI_Initialized(&initialized);
	if (initialized)
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (code != 2 || rank == 0)
	{
		fprintf(stderr, "tuner_fastquery: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
		fflush(stderr);
	}
	if (code == 2)
	{
		if (initialized)
			MPI_Finalize();
		exit(code);
	}
	MPI_Abort(MPI_COMM_WORLD, code);
	exit(code);
}

/* The one JSON object of a run, on stdout, from rank 0 only. */
void
fq_print_json(json_t *obj)
{
	char *s = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(9));

	if (s == NULL)
		fq_fail(1, "cannot serialize the metrics");
	printf("%s\n", s);
	fflush(stdout);
	free(s);
}

/* Blocks [b0, b1) of rank r: as even a split of whole blocks as possible. */
void
fq_slab(uint64_t nblocks, int rank, int nranks, uint64_t *b0, uint64_t *b1)
{
	*b0 = nblocks * (uint64_t)rank / (uint64_t)nranks;
	*b1 = nblocks * (uint64_t)(rank + 1) / (uint64_t)nranks;
}

/*
 * Drop the file's pages from the page cache (only this file's).  Dirty
 * pages (a file just generated) are not dropped, so write them back first.
 */
void
fq_evict(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		fq_fail(1, "cannot open %s to evict it from the page cache", path);
	fdatasync(fd);
	if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		fq_fail(1, "posix_fadvise(DONTNEED) of %s failed", path);
	close(fd);
}
