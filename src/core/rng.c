/*
 * rng.c
 *	  xoshiro256** with splitmix64 seeding.  Chosen over rand()/random()
 *	  because their streams differ between C libraries, and a study's seed
 *	  must reproduce its suggestions anywhere.
 */
#include <math.h>

#include "rng.h"

static uint64_t
splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* Seed the generator; every seed (including 0) gives a valid state. */
void
rng_seed(TunerRng *rng, uint64_t seed)
{
	uint64_t state = seed;
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = splitmix64(&state);
}

/* Next 64 random bits. */
uint64_t
rng_next(TunerRng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

/* Uniform double on [0, 1) with 53 random bits. */
double
rng_uniform(TunerRng *rng)
{
	return (double)(rng_next(rng) >> 11) * 0x1.0p-53;
}

/* Standard normal by Box-Muller (one of the pair is discarded for simplicity). */
double
rng_normal(TunerRng *rng)
{
	double u1 = 1.0 - rng_uniform(rng); /* (0, 1] so log is finite */
	double u2 = rng_uniform(rng);

	return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* Uniform integer in [0, n) without modulo bias. */
uint64_t
rng_below(TunerRng *rng, uint64_t n)
{
	uint64_t limit;
	uint64_t r;

	if (n <= 1)
		return 0;
	limit = UINT64_MAX - UINT64_MAX % n;
	do
		r = rng_next(rng);
	while (r >= limit);
	return r % n;
}

/* Combine two values into one seed. */
uint64_t
rng_mix(uint64_t a, uint64_t b)
{
	uint64_t state = a ^ rotl(b, 32) ^ UINT64_C(0x6A09E667F3BCC909);

	(void)splitmix64(&state);
	state ^= b;
	return splitmix64(&state);
}
