/*
 * rng.h
 *	  A small, seedable, platform-independent random generator
 *	  (xoshiro256** seeded through splitmix64) so that the same seed gives the
 *	  same suggestion on every machine.
 */
#ifndef TUNER_RNG_H
#define TUNER_RNG_H

#include <stdint.h>

typedef struct TunerRng
{
	uint64_t s[4];
} TunerRng;

extern void rng_seed(TunerRng *rng, uint64_t seed);
extern uint64_t rng_next(TunerRng *rng);

/* Uniform on [0, 1). */
extern double rng_uniform(TunerRng *rng);

/* Standard normal. */
extern double rng_normal(TunerRng *rng);

/* Uniform integer in [0, n). */
extern uint64_t rng_below(TunerRng *rng, uint64_t n);

/* Mix two 64-bit values into a well-spread seed. */
extern uint64_t rng_mix(uint64_t a, uint64_t b);

#endif /* TUNER_RNG_H */
