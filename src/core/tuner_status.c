/*
 * tuner_status.c
 *	  Error reporting and the allocation hooks shared by all of src/core.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuner_status.h"

static TunerAllocFn alloc_hook = malloc;
static TunerFreeFn free_hook = free;
static TunerInterruptFn interrupt_hook = NULL;

/* Record an error message and return its code. */
TunerErrorCode
tuner_fail(TunerStatus *status, TunerErrorCode code, const char *fmt, ...)
{
	va_list args;

	if (status == NULL)
		return code;
	status->code = code;
	va_start(args, fmt);
	vsnprintf(status->message, sizeof(status->message), fmt, args);
	va_end(args);
	return code;
}

/* Reset a status to success. */
void
tuner_status_clear(TunerStatus *status)
{
	if (status == NULL)
		return;
	status->code = TUNER_OK;
	status->message[0] = '\0';
}

/* Route all core allocations through the given functions. */
void
tuner_set_allocator(TunerAllocFn alloc_fn, TunerFreeFn free_fn)
{
	alloc_hook = alloc_fn ? alloc_fn : malloc;
	free_hook = free_fn ? free_fn : free;
}

/* Allocate size bytes (at least one), or NULL. */
void *
tuner_alloc(size_t size)
{
	return alloc_hook(size > 0 ? size : 1);
}

/* Allocate size zeroed bytes, or NULL. */
void *
tuner_alloc_zero(size_t size)
{
	void *ptr = tuner_alloc(size);

	if (ptr != NULL)
		memset(ptr, 0, size > 0 ? size : 1);
	return ptr;
}

/* Free memory from tuner_alloc; NULL is allowed. */
void
tuner_free(void *ptr)
{
	if (ptr != NULL)
		free_hook(ptr);
}

/* Install the interrupt callback (NULL: never interrupted). */
void
tuner_set_interrupt_check(TunerInterruptFn fn)
{
	interrupt_hook = fn;
}

/* Whether the glue asks the running computation to stop. */
int
tuner_interrupted(void)
{
	return interrupt_hook != NULL && interrupt_hook();
}

/* Record an interruption in status if one is pending. */
TunerErrorCode
tuner_check_interrupt(TunerStatus *status)
{
	if (!tuner_interrupted())
		return TUNER_OK;
	return tuner_fail(status, TUNER_ERR_INTERRUPTED,
					  "the computation was interrupted");
}
