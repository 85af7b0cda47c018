/*
 * design.c
 *	  Scrambled Halton points.  Dimension j uses the j-th prime as its
 *	  base, so a point in d dimensions costs about the sum of the first d
 *	  primes in random draws: MAX_DESIGN_DIMS (2000, bases up to 17389,
 *	  some 10^7 draws a point) bounds what a study may have
 *	  (tuner._max_parameters() in src/sql/parameters.sql).
 */
#include <math.h>
#include <string.h>

#include "design.h"
#include "rng.h"

#define MAX_DESIGN_DIMS 2000
#define MAX_BASE        17389 /* the 2000th prime */

/* The first d primes into primes[], by a sieve up to MAX_BASE. */
static void
first_primes(int d, int *primes, unsigned char *composite)
{
	int n = 0;
	int c;

	memset(composite, 0, MAX_BASE + 1);
	for (c = 2; c <= MAX_BASE && n < d; c++)
	{
		int m;

		if (composite[c])
			continue;
		primes[n++] = c;
		for (m = c * c; m <= MAX_BASE; m += c)
			composite[m] = 1;
	}
}

TunerErrorCode
design_halton_point(uint64_t seed, int index, int d, double *unit,
					TunerStatus *status)
{
	int *perm;
	int *primes;
	unsigned char *composite;
	int j;

	if (d < 1 || d > MAX_DESIGN_DIMS || index < 0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "design point %d in %d dimensions is out of range",
						  index, d);
	perm = tuner_alloc(sizeof(int) * MAX_BASE);
	primes = tuner_alloc(sizeof(int) * d);
	composite = tuner_alloc(MAX_BASE + 1);
	if (perm == NULL || primes == NULL || composite == NULL)
	{
		tuner_free(perm);
		tuner_free(primes);
		tuner_free(composite);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory making a design point");
	}
	first_primes(d, primes, composite);
	for (j = 0; j < d; j++)
	{
		int base = primes[j];
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
	tuner_free(perm);
	tuner_free(primes);
	tuner_free(composite);
	return TUNER_OK;
}
