/*
 * matern.c
 *	  Covariance matrices of the Matern-5/2 ARD kernel, and the pairwise
 *	  squared differences the fits precompute, under an input metric with
 *	  ordered and categorical dimensions (matern.h).
 */
#include <math.h>
#include <stddef.h>

#include <string.h>

#include "matern.h"

/* Symmetric Gram matrix of x. */
void
matern52_gram(const double *x, int n, int d, const double *inv_ls,
			  const int *categories, double outputscale, double *k)
{
	int i, j;

	for (j = 0; j < n; j++)
	{
		k[j + (size_t)j * n] = outputscale;
		for (i = j + 1; i < n; i++)
		{
			double r = sqrt(matern52_r2_metric(
				x + (size_t)i * d, x + (size_t)j * d, inv_ls, categories, d));
			double v = outputscale * matern52_unit(r);

			k[i + (size_t)j * n] = v;
			k[j + (size_t)i * n] = v;
		}
	}
}

/* Cross covariance between training points x and query points xs. */
void
matern52_cross(const double *x, int n, const double *xs, int m, int d,
			   const double *inv_ls, const int *categories, double outputscale,
			   double *k)
{
	int i, j;

	for (j = 0; j < m; j++)
		for (i = 0; i < n; i++)
		{
			double r = sqrt(matern52_r2_metric(
				x + (size_t)i * d, xs + (size_t)j * d, inv_ls, categories, d));

			k[i + (size_t)j * n] = outputscale * matern52_unit(r);
		}
}

/* Categorical dimensions of a metric; see matern.h. */
int
matern_n_categorical(const int *categories, int d)
{
	int count = 0;
	int k;

	for (k = 0; categories != NULL && k < d; k++)
		count += categories[k] > 0;
	return count;
}

/* Pairwise squared differences; see matern.h. */
void
matern52_pair_sqdiff(const double *x, int n, int d, const int *categories,
					 double *sqdiff)
{
	size_t n_pairs = (size_t)n * (n - 1) / 2;
	size_t pair = 0;
	int i, j, k;

	for (j = 0; j < n; j++)
		for (i = j + 1; i < n; i++, pair++)
			for (k = 0; k < d; k++)
			{
				double a = x[(size_t)i * d + k], b = x[(size_t)j * d + k];
				double t = a - b;

				if (categories != NULL && categories[k] > 0)
					sqdiff[pair + k * n_pairs] =
						matern_differ(a, b, categories[k]) ? 1.0 : 0.0;
				else
					sqdiff[pair + k * n_pairs] = t * t;
			}
}

TunerErrorCode
matern_copy_categories(int **dst, const int *categories, int d,
					   TunerStatus *status)
{
	tuner_free(*dst);
	*dst = NULL;
	if (matern_n_categorical(categories, d) == 0)
		return TUNER_OK;
	*dst = tuner_alloc(sizeof(int) * d);
	if (*dst == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-dimensional model", d);
	memcpy(*dst, categories, sizeof(int) * d);
	return TUNER_OK;
}
