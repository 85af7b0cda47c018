/*
 * parego.c
 *	  Random augmented-Chebyshev scalarization (see parego.h).
 */
#include <math.h>

#include "parego.h"
#include "rng.h"

/*
 * The weights have a stream of their own: the suggestion's seed also
 * drives its design and acquisition starts, and the weights must not be
 * a function of the same first draws.
 */
#define PAREGO_STREAM UINT64_C(0x9a7e60c0ffee5eed)

/* Dirichlet(1, ..., 1) weights: normalized exponential draws. */
TunerErrorCode
parego_weights(uint64_t seed, int m, double *weights, TunerStatus *status)
{
	TunerRng rng;
	double sum = 0.0;
	int k;

	tuner_status_clear(status);
	if (m < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "need at least one objective, got %d", m);
	rng_seed(&rng, rng_mix(seed, PAREGO_STREAM));
	for (k = 0; k < m; k++)
	{
		/* 1 - u is in (0, 1]: the log is finite */
		weights[k] = -log(1.0 - rng_uniform(&rng));
		/* an all-zero draw is impossible in practice; stay positive */
		weights[k] = fmax(weights[k], 1e-12);
		sum += weights[k];
	}
	for (k = 0; k < m; k++)
		weights[k] /= sum;
	return TUNER_OK;
}

/* Normalize each objective over the points, then scalarize (parego.h). */
TunerErrorCode
parego_scalarize(const double *points, int n, int m, uint64_t seed,
				 double *out, TunerStatus *status)
{
	double *weights;
	double *low;
	double *high;
	int i;
	int k;
	TunerErrorCode rc;

	tuner_status_clear(status);
	if (n < 1 || m < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "need at least one point and one objective, "
						  "got %d and %d",
						  n, m);
	for (i = 0; i < n * m; i++)
		if (!isfinite(points[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "point %d has a value that is not finite",
							  i / m + 1);
	weights = tuner_alloc(sizeof(double) * 3 * (size_t)m);
	if (weights == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for the scalarization");
	low = weights + m;
	high = low + m;
	rc = parego_weights(seed, m, weights, status);
	if (rc != TUNER_OK)
	{
		tuner_free(weights);
		return rc;
	}
	for (k = 0; k < m; k++)
	{
		low[k] = high[k] = points[k];
		for (i = 1; i < n; i++)
		{
			low[k] = fmin(low[k], points[(size_t)i * m + k]);
			high[k] = fmax(high[k], points[(size_t)i * m + k]);
		}
	}
	for (i = 0; i < n; i++)
	{
		double max_term = 0.0;
		double sum_term = 0.0;

		for (k = 0; k < m; k++)
		{
			double range = high[k] - low[k];
			double f = range > 0.0
						   ? (points[(size_t)i * m + k] - low[k]) / range
						   : 0.0;

			max_term = fmax(max_term, weights[k] * f);
			sum_term += weights[k] * f;
		}
		out[i] = max_term + PAREGO_RHO * sum_term;
	}
	tuner_free(weights);
	return TUNER_OK;
}
