/*
 * matern.h
 *	  The Matern-5/2 ARD kernel
 *	    k(r) = s (1 + sqrt5 r + 5/3 r^2) exp(-sqrt5 r),
 *	    r^2 = sum_k (x_k - x'_k)^2 / l_k^2
 *	  and the pieces of its derivatives that the GP gradients need.
 */
#ifndef TUNER_MATERN_H
#define TUNER_MATERN_H

#include <math.h>

#define MATERN_SQRT5 2.2360679774997896964

/* k(r) / s */
static inline double
matern52_unit(double r)
{
	double sr = MATERN_SQRT5 * r;

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
 * Gram matrix K (n x n, column-major, both triangles) of row-major points x
 * (n x d), without noise.
 */
extern void matern52_gram(const double *x, int n, int d, const double *inv_ls,
						  double outputscale, double *k);

/* Cross covariance K (n x m, column-major) between x (n x d) and xs (m x d). */
extern void matern52_cross(const double *x, int n, const double *xs, int m,
						   int d, const double *inv_ls, double outputscale,
						   double *k);

#endif /* TUNER_MATERN_H */
