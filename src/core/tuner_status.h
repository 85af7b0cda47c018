/*
 * tuner_status.h
 *	  How src/core reports failure without PostgreSQL: every entry point
 *	  returns a TunerErrorCode and fills a TunerStatus with a message, so the
 *	  glue can turn it into an ereport and a unit test can assert on it.
 */
#ifndef TUNER_STATUS_H
#define TUNER_STATUS_H

#include <stddef.h>

typedef enum TunerErrorCode
{
	TUNER_OK = 0,
	TUNER_ERR_NOMEM,      /* an allocation failed */
	TUNER_ERR_INVALID,    /* bad input: sizes, NaN, bounds */
	TUNER_ERR_NUMERIC,    /* a matrix stayed singular after jitter */
	TUNER_ERR_EXHAUSTED,  /* no untried configuration is left */
	TUNER_ERR_INTERRUPTED /* the interrupt callback asked us to stop */
} TunerErrorCode;

typedef struct TunerStatus
{
	TunerErrorCode code;
	char message[256];
} TunerStatus;

/* Record an error (printf-style) and return its code. */
extern TunerErrorCode tuner_fail(TunerStatus *status, TunerErrorCode code,
								 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Reset a status to TUNER_OK. */
extern void tuner_status_clear(TunerStatus *status);

/*
 * Memory used by src/core comes from these hooks so that the glue can hand
 * out memory from a PostgreSQL memory context (which must return NULL, not
 * longjmp, on failure).  They default to malloc/free.
 */
typedef void *(*TunerAllocFn)(size_t size);
typedef void (*TunerFreeFn)(void *ptr);

extern void tuner_set_allocator(TunerAllocFn alloc_fn, TunerFreeFn free_fn);
extern void *tuner_alloc(size_t size);
extern void *tuner_alloc_zero(size_t size);
extern void tuner_free(void *ptr);

/*
 * Cancellation: long computations call tuner_interrupted() between pieces
 * of work (every few milliseconds) and, when it returns true, free what they
 * hold and return TUNER_ERR_INTERRUPTED.  The glue installs a callback that
 * only tests a flag (it must not longjmp); NULL (the default) never
 * interrupts.
 */
typedef int (*TunerInterruptFn)(void);

extern void tuner_set_interrupt_check(TunerInterruptFn fn);
extern int tuner_interrupted(void);

/*
 * tuner_interrupted() and, when it is true, record TUNER_ERR_INTERRUPTED in
 * status and return it; TUNER_OK otherwise.
 */
extern TunerErrorCode tuner_check_interrupt(TunerStatus *status);

#endif /* TUNER_STATUS_H */
