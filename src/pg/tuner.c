/*
 * tuner.c
 *	  Module entry point of the tuner extension: keeps OpenBLAS to one
 *	  thread inside the backend and routes src/core allocations to the
 *	  current PostgreSQL memory context.  Needs no shared_preload_libraries.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "tuner_pg.h"
#include "tuner_status.h"

PG_MODULE_MAGIC;

/* From OpenBLAS; declared here so that any cblas.h alternative works. */
extern void openblas_set_num_threads(int num_threads);

void _PG_init(void);

/*
 * Allocation hook for src/core: memory from the current context, NULL
 * (never a longjmp) when the request cannot be satisfied.
 */
static void *
tuner_pg_alloc(size_t size)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, size,
									  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* Free hook for src/core. */
static void
tuner_pg_free(void *ptr)
{
	if (ptr != NULL)
		pfree(ptr);
}

/*
 * Load-time setup.  Backends are single-threaded, so OpenBLAS must not
 * start a thread pool here.
 */
void
_PG_init(void)
{
	openblas_set_num_threads(1);
	tuner_set_allocator(tuner_pg_alloc, tuner_pg_free);
	tuner_define_notify_guc();
	tuner_define_limits();
	tuner_define_slurm_settings();
	MarkGUCPrefixReserved("tuner");
}
