/*
 * matern.c
 *	  Covariance matrices of the Matern-5/2 ARD kernel.
 */
#include <math.h>
#include <stddef.h>

#include "matern.h"

/* Symmetric Gram matrix of x. */
void
matern52_gram(const double *x, int n, int d, const double *inv_ls,
			  double outputscale, double *k)
{
	int i, j;

	for (j = 0; j < n; j++)
	{
		k[j + (size_t)j * n] = outputscale;
		for (i = j + 1; i < n; i++)
		{
			double r = sqrt(
				matern52_r2(x + (size_t)i * d, x + (size_t)j * d, inv_ls, d));
			double v = outputscale * matern52_unit(r);

			k[i + (size_t)j * n] = v;
			k[j + (size_t)i * n] = v;
		}
	}
}

/* Cross covariance between training points x and query points xs. */
void
matern52_cross(const double *x, int n, const double *xs, int m, int d,
			   const double *inv_ls, double outputscale, double *k)
{
	int i, j;

	for (j = 0; j < m; j++)
		for (i = 0; i < n; i++)
		{
			double r = sqrt(
				matern52_r2(x + (size_t)i * d, xs + (size_t)j * d, inv_ls, d));

			k[i + (size_t)j * n] = outputscale * matern52_unit(r);
		}
}
