/*
 * parego.h
 *	  ParEGO's random scalarization of several objectives (Knowles 2006):
 *	  each suggestion draws a weight vector uniformly on the simplex from
 *	  its own seed, normalizes every objective to [0, 1] over the observed
 *	  values, and hands the single-objective GP + EI the augmented
 *	  Chebyshev value
 *
 *	    s(f) = max_k w_k f_k + rho sum_k w_k f_k,	rho = 0.05,
 *
 *	  to be minimized.  Objectives come minimized (callers negate
 *	  maximized ones).  The max term reaches every part of a non-convex
 *	  front as the weights vary; the small sum breaks its ties so that a
 *	  weakly dominated point never scores as well as the point dominating
 *	  it.
 */
#ifndef TUNER_PAREGO_H
#define TUNER_PAREGO_H

#include <stdint.h>

#include "tuner_status.h"

#define PAREGO_RHO 0.05

/* m weights, positive, summing to 1, drawn from seed (Dirichlet(1)). */
extern TunerErrorCode parego_weights(uint64_t seed, int m, double *weights,
									 TunerStatus *status);

/*
 * The scalarized value of each of the n x m row-major points in out (n
 * values), with the weights of seed.  An objective that is equal on every
 * point normalizes to 0.
 */
extern TunerErrorCode parego_scalarize(const double *points, int n, int m,
									   uint64_t seed, double *out,
									   TunerStatus *status);

#endif /* TUNER_PAREGO_H */
