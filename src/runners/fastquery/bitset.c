/*
 * bitset.c: range setting and counting of dense bit vectors.
 */
#include "bitset.h"

/* Set bits [from, to): whole words at once in the middle. */
void
bs_set_range(uint64_t *bs, uint64_t from, uint64_t to)
{
	while (from < to && (from & 63) != 0)
		bs_set(bs, from++);
	while (from + 64 <= to)
	{
		bs[from >> 6] = ~0ULL;
		from += 64;
	}
	while (from < to)
		bs_set(bs, from++);
}

/* Population count. */
uint64_t
bs_count(const uint64_t *bs, size_t nwords)
{
	uint64_t c = 0;
	size_t i;

	for (i = 0; i < nwords; i++)
		c += (uint64_t)__builtin_popcountll(bs[i]);
	return c;
}
