/*
 * additive_posterior.h
 *	  The posterior of f(u) = intercept + sum_k coef[k] g_k(u_k), where each
 *	  g_k is a model over a subset of the dimensions (u_k: u restricted to
 *	  that subset) and the g_k are independent, in the form the acquisition
 *	  needs (posterior.h):
 *
 *	    mean = intercept + sum_k coef[k] mean_k,
 *	    var  = sum_k coef[k]^2 var_k.
 *
 *	  Clustered ICM uses it with g_k the auxiliary metric of cluster k over
 *	  the cluster's parameters, so that one acquisition over the whole space
 *	  sees every cluster at once and a parameter shared by clusters is
 *	  chosen for its effect on all of them.
 */
#ifndef TUNER_ADDITIVE_POSTERIOR_H
#define TUNER_ADDITIVE_POSTERIOR_H

#include "posterior.h"

typedef struct AdditivePosterior
{
	int d;                     /* dimensions of u */
	int k;                     /* terms */
	const Posterior *term;     /* k posteriors, borrowed; term[i].d = m[i] */
	const int *const *members; /* k arrays of m[i] indices into u */
	const int *m;              /* k */
	const double *coef;        /* k */
	double intercept;
	int *categories; /* d, or NULL: the terms' categorical dimensions */
} AdditivePosterior;

/*
 * Fill post with the posterior of the sum; additive (which borrows every
 * array it points to) must outlive post.  categories is set from the
 * terms' (a dimension is categorical if it is in some term that says so);
 * free it with additive_posterior_free.
 */
extern TunerErrorCode additive_posterior_init(AdditivePosterior *additive,
											  Posterior *post,
											  TunerStatus *status);
extern void additive_posterior_free(AdditivePosterior *additive);

#endif /* TUNER_ADDITIVE_POSTERIOR_H */
