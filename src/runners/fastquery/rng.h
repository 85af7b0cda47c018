/*
 * rng.h: a counter-based random generator for the synthetic data set.
 *
 * Every random number is a pure function of (seed, particle index, stream),
 * so a particle's values do not depend on which rank generates it: the
 * data file is the same for any number of ranks.
 */
#ifndef FQ_RNG_H
#define FQ_RNG_H

#include <stdint.h>

/* SplitMix64 finalizer of seed, particle index and stream number. */
uint64_t fq_hash(uint64_t seed, uint64_t index, uint32_t stream);

/* Uniform double in [0, 1) from the top 53 bits of fq_hash. */
double fq_uniform(uint64_t seed, uint64_t index, uint32_t stream);

/* Standard normal (Box-Muller on two streams: stream and stream + 1). */
double fq_normal(uint64_t seed, uint64_t index, uint32_t stream);

#endif
