/*
 * nlopt_guard.h
 *	  The NLopt objective wrapper shared by the likelihood fits: an
 *	  evaluation that fails (a matrix that stays singular, a non-finite
 *	  value) must not longjmp out of NLopt or abort the fit, and the best
 *	  point any evaluation reached is kept, since NLopt may end on a worse
 *	  one after a failed line search.
 */
#ifndef TUNER_NLOPT_GUARD_H
#define TUNER_NLOPT_GUARD_H

#include <nlopt.h>

#include "tuner_status.h"

/* Evaluate the objective (and its gradient when grad is not NULL). */
typedef TunerErrorCode (*NloptGuardEval)(void *problem, const double *theta,
										 double *value, double *grad);

typedef struct NloptGuard
{
	NloptGuardEval eval;
	void *problem;
	/*
	 * The problem's status pointer: pointed at a scratch status during an
	 * evaluation, so that a failed trial point leaves the caller's status
	 * untouched.
	 */
	TunerStatus **status;
	double *best_theta; /* caller-owned, the objective's dimension */
	double best_value;
	int have_best;
	int evals;       /* objective evaluations so far, failed ones included */
	nlopt_opt opt;   /* stopped with nlopt_force_stop on an interrupt */
	int interrupted; /* set once an interrupt stopped the optimiser */
} NloptGuard;

/*
 * opt is the optimiser the objective runs in: when tuner_interrupted()
 * reports an interrupt (polled before each evaluation, and inside the
 * linear algebra), the guard sets interrupted and calls nlopt_force_stop,
 * so the caller must test guard->interrupted after nlopt_optimize and
 * return TUNER_ERR_INTERRUPTED.
 */
extern void nlopt_guard_init(NloptGuard *guard, NloptGuardEval eval,
							 void *problem, TunerStatus **status,
							 double *best_theta, nlopt_opt opt);

/* The nlopt_func to pass with the guard as its data (minimisation). */
extern double nlopt_guard_objective(unsigned dim, const double *theta,
									double *grad, void *data);

#endif /* TUNER_NLOPT_GUARD_H */
