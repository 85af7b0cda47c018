/*
 * host_cpus.c
 *	  tuner._host_cpus(): the processors online on the database host, so
 *	  that a preset can bound its parallelism parameters by what the
 *	  machine that runs the background workers' trials has.
 */
#include "postgres.h"

#include <unistd.h>

#include "fmgr.h"

PG_FUNCTION_INFO_V1(tuner_host_cpus);

Datum
tuner_host_cpus(PG_FUNCTION_ARGS)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("could not count this host's processors: %m"),
				 errhint("Give the count explicitly, e.g. the runner "
						 "setting max_ranks of the fastquery preset.")));
	PG_RETURN_INT32((int32)Min(n, PG_INT32_MAX));
}
