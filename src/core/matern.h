/*
 * matern.h
 *	  The Matern-5/2 ARD kernel
 *	    k(r) = s (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),
 *	    r^2 = sum_k delta_k^2 / l_k^2
 *	  and the pieces of its derivatives that the GP gradients need.
 *
 *	  Input metric.  An ordered dimension (a float, an integer, a bool)
 *	  has delta_k = x_k - x'_k.  An unordered categorical dimension has
 *	  the overlap (Hamming) distance delta_k^2 = [c(x_k) != c(x'_k)]: two
 *	  different choices are always at distance 1, whichever they are, so no
 *	  choice is "between" two others.  c(u) = floor(u C) is the choice a
 *	  unit coordinate rounds to (space.c), so the kernel is exact after
 *	  rounding: every point of a choice's bin is that choice, and the
 *	  optimiser of the acquisition sees no gradient along the dimension
 *	  (acquisition.c searches its choices explicitly).
 *
 *	  Why a categorical distance rather than one-hot columns: one-hot adds
 *	  C - 1 dimensions and lengthscales per parameter (the fit's cost and
 *	  its prior grow with them) and needs the relaxed one-hot point rounded
 *	  inside the acquisition anyway; the overlap distance keeps one
 *	  coordinate and one lengthscale per parameter, so the model table, the
 *	  warm starts and the clusters keep their shapes, and with one shared
 *	  lengthscale it is the same kernel as one-hot with equal lengthscales
 *	  (||e_a - e_b||^2 = 2 [a != b]).  A bool, or any categorical with two
 *	  choices, is already unordered: its two bin centres are 1/2 apart, the
 *	  overlap kernel with lengthscale 2 l, so it keeps the ordered distance
 *	  (and every model without categoricals of three or more choices stays
 *	  bit for bit what it was).
 *
 *	  The metric is an array categories[d]: 0 for an ordered dimension,
 *	  C >= 2 for an unordered one with C choices; NULL means every
 *	  dimension is ordered.
 */
#ifndef TUNER_MATERN_H
#define TUNER_MATERN_H

#include <math.h>

#include "tuner_status.h"

#define MATERN_SQRT5 2.2360679774997896964

/* k(r) / s */
static inline double
matern52_unit(double r)
{
	double sr = MATERN_SQRT5 * r;

	/* exp(-sr) is 0 from 745 on; an infinite r must give 0, not inf * 0 */
	if (sr >= 750.0)
		return 0.0;
	return (1.0 + sr + sr * sr / 3.0) * exp(-sr);
}

/*
 * -(1/r) dk/dr / s = 5/3 (1 + sqrt5 r) exp(-sqrt5 r): multiplies
 * (delta_k / l_k^2) in the input gradient and (delta_k^2 / l_k^2) in the
 * log-lengthscale gradient; finite at r = 0.
 */
static inline double
matern52_radial(double r)
{
	double sr = MATERN_SQRT5 * r;

	if (sr >= 750.0)
		return 0.0;
	return (5.0 / 3.0) * (1.0 + sr) * exp(-sr);
}

/* Squared scaled distance between two d-vectors. */
static inline double
matern52_r2(const double *a, const double *b, const double *inv_ls, int d)
{
	double sum = 0.0;
	int k;

	for (k = 0; k < d; k++)
	{
		double t = (a[k] - b[k]) * inv_ls[k];

		sum += t * t;
	}
	return sum;
}

/*
 * The choice of a categorical with n_choices choices that unit coordinate u
 * rounds to: floor(u n_choices), u clamped to [0, 1], as space_from_unit.
 */
static inline int
matern_choice(double u, int n_choices)
{
	int c;

	if (!(u > 0.0))
		return 0;
	c = (int)floor((u < 1.0 ? u : 1.0) * n_choices);
	return c < n_choices ? c : n_choices - 1;
}

/* Do a and b fall in different choices of categorical dimension k? */
static inline int
matern_differ(double a, double b, int n_choices)
{
	return matern_choice(a, n_choices) != matern_choice(b, n_choices);
}

/*
 * Squared scaled distance under the input metric categories (see the top of
 * the file; NULL: matern52_r2).
 */
static inline double
matern52_r2_metric(const double *a, const double *b, const double *inv_ls,
				   const int *categories, int d)
{
	double sum = 0.0;
	int k;

	if (categories == NULL)
		return matern52_r2(a, b, inv_ls, d);
	for (k = 0; k < d; k++)
	{
		double t;

		if (categories[k] > 0)
			t = matern_differ(a[k], b[k], categories[k]) ? inv_ls[k] : 0.0;
		else
			t = (a[k] - b[k]) * inv_ls[k];
		sum += t * t;
	}
	return sum;
}

/* Number of categorical dimensions of a metric (0 for NULL). */
extern int matern_n_categorical(const int *categories, int d);

/*
 * Replace a model's metric (*dst, d values or NULL) with a copy of
 * categories, or NULL when it has no categorical dimension.
 */
extern TunerErrorCode matern_copy_categories(int **dst, const int *categories,
											 int d, TunerStatus *status);

/*
 * The squared difference of every pair i > j of the n points x (n x d), in
 * the order (j, then i), each dimension's column at sqdiff + k * n_pairs
 * (n_pairs = n (n - 1) / 2): (x_ik - x_jk)^2 for an ordered dimension,
 * [c(x_ik) != c(x_jk)] for a categorical one.  The fits keep these, since
 * r^2 of every pair and the lengthscale gradient are then one
 * matrix-vector product each.
 */
extern void matern52_pair_sqdiff(const double *x, int n, int d,
								 const int *categories, double *sqdiff);

/*
 * Gram matrix K (n x n, column-major, both triangles) of row-major points x
 * (n x d), without noise, under the input metric categories (NULL: all
 * ordered).
 */
extern void matern52_gram(const double *x, int n, int d, const double *inv_ls,
						  const int *categories, double outputscale,
						  double *k);

/* Cross covariance K (n x m, column-major) between x (n x d) and xs (m x d). */
extern void matern52_cross(const double *x, int n, const double *xs, int m,
						   int d, const double *inv_ls, const int *categories,
						   double outputscale, double *k);

#endif /* TUNER_MATERN_H */
