/*
 * limits.c
 *	  Cancellation and size limits of the numerics (issue 25).
 *
 *	  src/core cannot call CHECK_FOR_INTERRUPTS (it longjmps, and core code
 *	  runs inside NLopt and holds memory of its own), so it polls the
 *	  callback installed here, which only reads the flags the signal
 *	  handlers set; when a core call returns TUNER_ERR_INTERRUPTED,
 *	  tuner_report_status (arrays.c) calls CHECK_FOR_INTERRUPTS, so the
 *	  user sees PostgreSQL's own cancel, timeout or termination error.
 *
 *	  The settings bound what one call may compute (a fit of n rows takes
 *	  O(n^3) time and O(n^2) memory), refusing bigger inputs before any
 *	  work.  They are superuser-only: an ordinary role raising them could
 *	  occupy a backend for minutes and take gigabytes of memory.
 */
#include "postgres.h"

#include <limits.h>

#include "miscadmin.h"
#include "utils/guc.h"

#include "tuner_pg.h"
#include "tuner_status.h"

/* The defaults, chosen from measurements in RELIABILITY.md. */
#define DEFAULT_MAX_FIT_ROWS   1000
#define DEFAULT_MAX_CHOICES    100000
#define DEFAULT_MAX_LASSO_SIZE 10000000

static int max_fit_rows = DEFAULT_MAX_FIT_ROWS;
static int max_choices = DEFAULT_MAX_CHOICES;
static int max_lasso_size = DEFAULT_MAX_LASSO_SIZE;

/*
 * The interrupt callback of src/core: true when a cancel (user request or
 * statement timeout) or a termination is pending and CHECK_FOR_INTERRUPTS
 * would act on it now.  Reads flags only; never throws.
 */
static int
tuner_pg_interrupt_pending(void)
{
	if (!INTERRUPTS_PENDING_CONDITION())
		return 0;
	if (InterruptHoldoffCount != 0 || CritSectionCount != 0)
		return 0;
	return ProcDiePending ||
		   (QueryCancelPending && QueryCancelHoldoffCount == 0);
}

/* Install the callback and define the settings; called by _PG_init. */
void
tuner_define_limits(void)
{
	tuner_set_interrupt_check(tuner_pg_interrupt_pending);

	DefineCustomIntVariable(
		"tuner.max_fit_rows",
		"Most rows (trials) one Gaussian-process or feasibility model, and "
		"observed values one ICM model, accepts.",
		"A fit of n rows takes O(n^3) time and O(n^2) memory.", &max_fit_rows,
		DEFAULT_MAX_FIT_ROWS, 1, INT_MAX, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable(
		"tuner.max_choices",
		"Most choices of one categorical parameter a suggestion searches.",
		"The acquisition is evaluated at every choice.", &max_choices,
		DEFAULT_MAX_CHOICES, 1, INT_MAX, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable(
		"tuner.max_lasso_size",
		"Most cells (rows times columns) of one lasso design matrix.",
		"Each sweep of the lasso solvers reads the whole matrix.",
		&max_lasso_size, DEFAULT_MAX_LASSO_SIZE, 1, INT_MAX, PGC_SUSET, 0,
		NULL, NULL, NULL);
}

/* Refuse a model of more than tuner.max_fit_rows rows; see tuner_pg.h. */
void
tuner_check_fit_rows(int rows, const char *what)
{
	tuner_check_fit_size(rows, what, "rows");
}

/* The same for a count of another unit (an ICM's observed values). */
void
tuner_check_fit_size(int count, const char *what, const char *unit)
{
	if (count > max_fit_rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s has %d %s, more than tuner.max_fit_rows (%d)",
						what, count, unit, max_fit_rows),
				 errdetail("A model of n rows takes O(n^3) time and O(n^2) "
						   "memory to fit."),
				 errhint("A superuser can raise tuner.max_fit_rows.")));
}

/* Refuse a categorical parameter of more than tuner.max_choices choices. */
void
tuner_check_choices(int choices, int param)
{
	if (choices > max_choices)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("categorical parameter %d has %d choices, more than "
						"tuner.max_choices (%d)",
						param, choices, max_choices),
				 errdetail("A suggestion evaluates the acquisition at every "
						   "choice."),
				 errhint("A superuser can raise tuner.max_choices.")));
}

/* Refuse a lasso design of more than tuner.max_lasso_size cells. */
void
tuner_check_lasso_size(int rows, int cols)
{
	if ((double)rows * cols > max_lasso_size)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the lasso design has %d x %d = %.0f cells, more than "
						"tuner.max_lasso_size (%d)",
						rows, cols, (double)rows * cols, max_lasso_size),
				 errhint("A superuser can raise tuner.max_lasso_size.")));
}
