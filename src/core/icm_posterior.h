/*
 * icm_posterior.h
 *	  The posterior of one task f_t of a prepared ICM model (icm.h), or of a
 *	  weighted sum of tasks g = sum_t a_t f_t (exactly Gaussian under ICM),
 *	  in the form the acquisition needs (posterior.h).  With kx(x) the
 *	  unit-variance Matern-5/2 vector over the n training inputs,
 *
 *	    mean(x) = mean_t + kx(x)^T beta,   var(x) = B_tt - kx(x)^T M kx(x),
 *
 *	  and for g, mean_t becomes a^T mean and B_tt becomes a^T B a (one task
 *	  is a = e_t).
 *
 *	  beta (n) and M (n x n) computed once, so that each point then costs
 *	  O(n^2) as for the single-task GP, whatever the number of tasks and
 *	  missing entries.
 */
#ifndef TUNER_ICM_POSTERIOR_H
#define TUNER_ICM_POSTERIOR_H

#include "icm.h"
#include "posterior.h"

typedef struct IcmPosterior
{
	const IcmModel *model; /* borrowed: x and lengthscales */
	int task;              /* -1: a weighted sum of tasks */
	double mean;           /* mean_t, or a^T mean */
	double btt;            /* B[t, t] (or a^T B a), the prior variance */
	double *beta;          /* n */
	double *m;             /* n * n, symmetric, both triangles */
	double *inv_ls;        /* d */
} IcmPosterior;

/*
 * Precompute beta and M for task (0-based) of a prepared model: from the
 * Cholesky factor on the full path, from the eigen-decompositions on the
 * Kronecker path.  The model must outlive the result.
 */
extern IcmPosterior *icm_posterior_create(const IcmModel *model, int task,
										  TunerStatus *status);

/*
 * The same for g = sum_t weights[t] f_t (T weights, finite, not all zero;
 * a negative weight counts a task whose higher values are better).
 * weights = e_t gives exactly what icm_posterior_create(model, t) gives.
 */
extern IcmPosterior *icm_posterior_create_weighted(const IcmModel *model,
												   const double *weights,
												   TunerStatus *status);
extern void icm_posterior_free(IcmPosterior *posterior);

/* Mean and sd of f_t (or g) at m points (m x d, row-major). */
extern TunerErrorCode icm_posterior_predict(const IcmPosterior *posterior,
											const double *xs, int m,
											double *mean, double *sd,
											TunerStatus *status);

/* The task's (or g's) posterior for the acquisition; borrows posterior. */
extern void icm_posterior_as_posterior(const IcmPosterior *posterior,
									   Posterior *post);

#endif /* TUNER_ICM_POSTERIOR_H */
