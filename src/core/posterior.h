/*
 * posterior.h
 *	  What the acquisition needs from a model: the posterior mean and
 *	  variance of the objective at points of the unit cube, one point at a
 *	  time with gradients (for L-BFGS) and many points at once (for scoring
 *	  candidates).  The single-task GP (below) and the objective task of the
 *	  ICM model (icm_posterior.h) provide it, so that one maximiser serves
 *	  both.
 */
#ifndef TUNER_POSTERIOR_H
#define TUNER_POSTERIOR_H

#include "gp.h"
#include "tuner_status.h"

/*
 * Mean and variance at one point u (d values); when dmean is not NULL,
 * also their gradients wrt u in dmean and dvar (d each).  scratch holds
 * Posterior.n_scratch doubles.
 */
typedef void (*PosteriorPointFn)(const void *state, const double *u,
								 double *mean, double *var, double *dmean,
								 double *dvar, double *scratch);

/* Mean and sd at m points (m x d, row-major). */
typedef TunerErrorCode (*PosteriorBatchFn)(const void *state, const double *u,
										   int m, double *mean, double *sd,
										   TunerStatus *status);

/*
 * An optional term the acquisition adds to log EI: the log probability
 * that a point is feasible (it runs and meets every outcome constraint;
 * feasibility.h), so that the maximiser works on log(EI * P(feasible)).
 * point gives it at one point u with its gradient (grad may be NULL;
 * scratch holds n_scratch doubles), batch at m points.  With without_ei
 * the acquisition is the log probability alone: no trial is feasible yet,
 * so there is no incumbent to improve on.
 */
typedef double (*FeasibilityPointFn)(const void *state, const double *u,
									 double *grad, double *scratch);
typedef TunerErrorCode (*FeasibilityBatchFn)(const void *state,
											 const double *u, int m,
											 double *log_p,
											 TunerStatus *status);

typedef struct PosteriorFeasibility
{
	FeasibilityPointFn point;
	FeasibilityBatchFn batch;
	const void *state;
	int n_scratch;
	int without_ei;
} PosteriorFeasibility;

typedef struct Posterior
{
	int d;
	double prior_var; /* prior variance of the latent objective */
	int n_scratch;    /* doubles of scratch that point needs */
	PosteriorPointFn point;
	PosteriorBatchFn batch;
	const void *state; /* the model; must outlive the Posterior */
	/*
	 * The model's input metric (matern.h), borrowed, or NULL: the
	 * acquisition searches the choices of categorical dimensions itself,
	 * since the gradient along them is 0.
	 */
	const int *categories;
	/* borrowed, or NULL (the default): plain log EI */
	const PosteriorFeasibility *feasibility;
} Posterior;

/* The posterior of a prepared single-task GP; borrows the model. */
extern void gp_posterior(const GpModel *model, Posterior *post);

#endif /* TUNER_POSTERIOR_H */
