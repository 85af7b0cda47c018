/*
 * nlopt_guard.c
 *	  A failed evaluation is scored as very bad (1e300, zero gradient)
 *	  instead of stopping the fit; the best point seen is kept.
 */
#include <math.h>
#include <string.h>

#include "nlopt_guard.h"

void
nlopt_guard_init(NloptGuard *guard, NloptGuardEval eval, void *problem,
				 TunerStatus **status, double *best_theta, nlopt_opt opt)
{
	guard->eval = eval;
	guard->problem = problem;
	guard->status = status;
	guard->best_theta = best_theta;
	guard->best_value = HUGE_VAL;
	guard->have_best = 0;
	guard->evals = 0;
	guard->opt = opt;
	guard->interrupted = 0;
}

double
nlopt_guard_objective(unsigned dim, const double *theta, double *grad,
					  void *data)
{
	NloptGuard *guard = data;
	double value = HUGE_VAL;
	TunerStatus scratch;
	TunerStatus *saved = *guard->status;
	TunerErrorCode rc;

	guard->evals++;
	if (guard->interrupted || tuner_interrupted())
		rc = TUNER_ERR_INTERRUPTED;
	else
	{
		tuner_status_clear(&scratch);
		*guard->status = &scratch;
		rc = guard->eval(guard->problem, theta, &value, grad);
		*guard->status = saved;
	}
	if (rc == TUNER_ERR_INTERRUPTED)
	{
		/* never longjmp out of NLopt: stop it and let the caller report */
		guard->interrupted = 1;
		if (guard->opt != NULL)
			nlopt_force_stop(guard->opt);
		if (grad != NULL)
			memset(grad, 0, sizeof(double) * dim);
		return 1e300;
	}
	if (rc != TUNER_OK || !isfinite(value))
	{
		if (grad != NULL)
			memset(grad, 0, sizeof(double) * dim);
		return 1e300;
	}
	if (value < guard->best_value)
	{
		guard->best_value = value;
		memcpy(guard->best_theta, theta, sizeof(double) * dim);
		guard->have_best = 1;
	}
	return value;
}
