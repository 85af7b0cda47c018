/*
 * output_warp.c
 *	  The objective's transform for skewed values in 10 or more dimensions;
 *	  see output_warp.h.
 */
#include <math.h>
#include <stdlib.h>

#include "gp.h"
#include "output_warp.h"
#include "tuner_status.h"

/* Skewness of n values; see output_warp.h. */
double
output_warp_skewness(const double *y, int n)
{
	double m = 0.0, m2 = 0.0, m3 = 0.0;
	int i;

	if (n < 1)
		return 0.0;
	for (i = 0; i < n; i++)
		m += y[i] / n;
	for (i = 0; i < n; i++)
	{
		double e = y[i] - m;

		m2 += e * e / n;
		m3 += e * e * e / n;
	}
	return m2 > 0.0 ? m3 / pow(m2, 1.5) : 0.0;
}

static int
double_cmp(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return x < y ? -1 : (x > y ? 1 : 0);
}

/* Decide the warp; see output_warp.h. */
int
output_warp_choose(const double *y, int n, int d, int allowed,
				   OutputWarp *warp)
{
	double *sorted;
	double scale;
	int i;

	warp->active = 0;
	warp->shift = 0.0;
	warp->scale = 1.0;
	if (!allowed || d < GP_HIGH_DIM || n < OUTPUT_WARP_MIN_POINTS)
		return 0;
	for (i = 0; i < n; i++)
		if (!isfinite(y[i]))
			return 0;
	if (!(output_warp_skewness(y, n) > OUTPUT_WARP_MIN_SKEW))
		return 0;
	sorted = tuner_alloc(sizeof(double) * n);
	if (sorted == NULL)
		return 0; /* the identity is always a valid choice */
	for (i = 0; i < n; i++)
		sorted[i] = y[i];
	qsort(sorted, n, sizeof(double), double_cmp);
	scale = sorted[n / 2] - sorted[0];
	if (scale > 0.0 && isfinite(scale))
	{
		warp->active = 1;
		warp->shift = sorted[0];
		warp->scale = scale;
	}
	tuner_free(sorted);
	return warp->active;
}

/* z for one value; see output_warp.h. */
double
output_warp_apply(const OutputWarp *warp, double y)
{
	return warp->active ? log1p((y - warp->shift) / warp->scale) : y;
}

/* y for one z; see output_warp.h. */
double
output_warp_invert(const OutputWarp *warp, double z)
{
	return warp->active ? warp->shift + warp->scale * expm1(z) : z;
}

/* dy/dz; see output_warp.h. */
double
output_warp_slope(const OutputWarp *warp, double z)
{
	return warp->active ? warp->scale * exp(z) : 1.0;
}
