/*
 * bitset.h: dense bit vectors (uint64_t words, bit i of word i / 64) used to
 * combine decoded bitmaps while answering a query.
 */
#ifndef FQ_BITSET_H
#define FQ_BITSET_H

#include <stdint.h>
#include <stdlib.h>

/* Words needed for nbits bits. */
static inline size_t
bs_nwords(uint64_t nbits)
{
	return (size_t)((nbits + 63) / 64);
}

static inline void
bs_set(uint64_t *bs, uint64_t i)
{
	bs[i >> 6] |= 1ULL << (i & 63);
}

static inline int
bs_get(const uint64_t *bs, uint64_t i)
{
	return (int)((bs[i >> 6] >> (i & 63)) & 1);
}

/* Set bits [from, to). */
void bs_set_range(uint64_t *bs, uint64_t from, uint64_t to);

/* Number of set bits in the first nwords words. */
uint64_t bs_count(const uint64_t *bs, size_t nwords);

#endif
