/*
 * asan_canary.c: C functions with deliberate undefined behaviour, for
 * run_sql_fuzz.sh only (never installed).  After the fuzzer, the script
 * calls each in the same server and requires a report naming it: "0
 * sanitizer reports" means something only if a report from a backend,
 * ASan's or UBSan's, would have reached the directory the script reads.
 */
#include "postgres.h"

#include <stdlib.h>

#include "fmgr.h"

PG_MODULE_MAGIC;

PG_FUNCTION_INFO_V1(asan_canary);
PG_FUNCTION_INFO_V1(ubsan_canary);

/* A heap buffer overflow, for ASan. */
Datum
asan_canary(PG_FUNCTION_ARGS)
{
	/* malloc, not palloc: ASan sees malloc's bounds, not a context's chunks */
	volatile char *p = malloc(8);
	int past;

	if (p == NULL)
		elog(ERROR, "out of memory");
	past = p[8];
	free((void *)p);
	PG_RETURN_INT32(past);
}

/* A shift past the width of int, for UBSan (ASan does not see it). */
Datum
ubsan_canary(PG_FUNCTION_ARGS)
{
	volatile int width = 40;

	PG_RETURN_INT32(1 << width);
}
