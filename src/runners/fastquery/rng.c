/*
 * rng.c: counter-based random numbers (SplitMix64 mixing of a counter).
 */
#include "rng.h"

#include <math.h>

/* SplitMix64's output function applied twice to mix all three inputs. */
static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Hash of (seed, index, stream); distinct streams give independent values. */
uint64_t
fq_hash(uint64_t seed, uint64_t index, uint32_t stream)
{
	uint64_t z = mix64(seed + 0x9e3779b97f4a7c15ULL * (index + 1));

	return mix64(z ^ (0x632be59bd9b4e019ULL * ((uint64_t)stream + 1)));
}

/* Uniform in [0, 1). */
double
fq_uniform(uint64_t seed, uint64_t index, uint32_t stream)
{
	return (double)(fq_hash(seed, index, stream) >> 11) * 0x1.0p-53;
}

/* Standard normal by Box-Muller; u1 is kept away from 0 for the log. */
double
fq_normal(uint64_t seed, uint64_t index, uint32_t stream)
{
	double u1 = fq_uniform(seed, index, stream);
	double u2 = fq_uniform(seed, index, stream + 1);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}
