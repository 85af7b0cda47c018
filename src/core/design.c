/*
 * design.c
 *	  Scrambled Halton points.
 */
#include <math.h>

#include "design.h"
#include "rng.h"

#define MAX_DESIGN_DIMS 1000
#define MAX_BASE        8000

/* The d-th prime (0-based), by trial division; d is small. */
static int
nth_prime(int d)
{
	int count = -1;
	int candidate;

	for (candidate = 2;; candidate++)
	{
		int is_prime = 1;
		int f;

		for (f = 2; f * f <= candidate; f++)
			if (candidate % f == 0)
			{
				is_prime = 0;
				break;
			}
		if (is_prime && ++count == d)
			return candidate;
	}
}

TunerErrorCode
design_halton_point(uint64_t seed, int index, int d, double *unit,
					TunerStatus *status)
{
	int perm[MAX_BASE];
	int j;

	if (d < 1 || d > MAX_DESIGN_DIMS || index < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "design point %d in %d dimensions is out of range",
						  index, d);
	for (j = 0; j < d; j++)
	{
		int base = nth_prime(j);
		TunerRng rng;
		uint64_t i = (uint64_t)index + 1; /* skip the all-zero point */
		double inv_base = 1.0 / base;
		double factor = inv_base;
		double value = 0.0;
		int digits;
		int a;

		/* Fisher-Yates permutation of the digits, one per dimension */
		rng_seed(&rng, rng_mix(seed, (uint64_t)j));
		for (a = 0; a < base; a++)
			perm[a] = a;
		for (a = base - 1; a > 0; a--)
		{
			int b = (int)rng_below(&rng, (uint64_t)a + 1);
			int t = perm[a];

			perm[a] = perm[b];
			perm[b] = t;
		}
		/* enough digits that the next one is below double precision */
		digits = (int)ceil(53.0 * log(2.0) / log((double)base));
		for (a = 0; a < digits; a++)
		{
			value += perm[i % base] * factor;
			i /= base;
			factor *= inv_base;
		}
		unit[j] = value < 1.0 ? value : nextafter(1.0, 0.0);
	}
	return TUNER_OK;
}
