/*
 * wah.c: WAH encoder and decoder (format in wah.h).
 */
#include "wah.h"

#include "bitset.h"

#include <stdlib.h>

/* An empty bitmap. */
void
wah_init(WahBuf *b)
{
	b->words = NULL;
	b->nwords = 0;
	b->cap = 0;
	b->groups = 0;
}

/* Release the words and empty the bitmap. */
void
wah_free(WahBuf *b)
{
	free(b->words);
	wah_init(b);
}

/* Append one raw word, growing the array geometrically. */
static int
push_word(WahBuf *b, uint32_t w)
{
	if (b->nwords == b->cap)
	{
		size_t cap = b->cap ? b->cap * 2 : 16;
		uint32_t *p = realloc(b->words, cap * sizeof(uint32_t));

		if (p == NULL)
			return -1;
		b->words = p;
		b->cap = cap;
	}
	b->words[b->nwords++] = w;
	return 0;
}

/* Append count fill groups, merging into a preceding fill of the same bit. */
int
wah_append_fill(WahBuf *b, int bit, uint64_t count)
{
	uint32_t fill = WAH_FILL_FLAG | (bit ? WAH_FILL_BIT : 0);

	b->groups += count;
	if (count > 0 && b->nwords > 0)
	{
		uint32_t *last = &b->words[b->nwords - 1];

		if ((*last & (WAH_FILL_FLAG | WAH_FILL_BIT)) == fill)
		{
			uint64_t room = WAH_MAX_RUN - (*last & WAH_MAX_RUN);
			uint64_t add = count < room ? count : room;

			*last += (uint32_t)add;
			count -= add;
		}
	}
	while (count > 0)
	{
		uint64_t n = count < WAH_MAX_RUN ? count : WAH_MAX_RUN;

		if (push_word(b, fill | (uint32_t)n) != 0)
			return -1;
		count -= n;
	}
	return 0;
}

/* Append one group: all-zero and all-one groups become fills. */
int
wah_append_group(WahBuf *b, uint32_t group)
{
	group &= WAH_LITERAL_MASK;
	if (group == 0)
		return wah_append_fill(b, 0, 1);
	if (group == WAH_LITERAL_MASK)
		return wah_append_fill(b, 1, 1);
	b->groups++;
	return push_word(b, group);
}

/* Zero groups up to g, then lit at g (g must not be below b->groups). */
int
wah_append_at(WahBuf *b, uint64_t g, uint32_t lit)
{
	if (g > b->groups && wah_append_fill(b, 0, g - b->groups) != 0)
		return -1;
	return wah_append_group(b, lit);
}

/* Pad with zero groups. */
int
wah_finish(WahBuf *b, uint64_t ngroups)
{
	if (ngroups > b->groups)
		return wah_append_fill(b, 0, ngroups - b->groups);
	return 0;
}

/* Encode a dense bitset group by group. */
int
wah_encode_bits(const uint64_t *bits, uint64_t nbits, WahBuf *b)
{
	uint64_t ng = wah_ngroups(nbits);
	uint64_t g;

	for (g = 0; g < ng; g++)
	{
		uint32_t lit = 0;
		uint64_t j0 = g * WAH_GROUP_BITS;
		int i;

		for (i = 0; i < WAH_GROUP_BITS && j0 + i < nbits; i++)
			if (bs_get(bits, j0 + i))
				lit |= 1u << i;
		if (wah_append_group(b, lit) != 0)
			return -1;
	}
	return 0;
}

/* Decode into a dense bitset (OR), validating the structure. */
int
wah_decode_or(const uint32_t *w, size_t nwords, uint64_t nbits, uint64_t *bs,
			  uint64_t base)
{
	uint64_t ng = wah_ngroups(nbits);
	uint64_t g = 0;
	size_t k;

	for (k = 0; k < nwords; k++)
	{
		uint32_t x = w[k];

		if (x & WAH_FILL_FLAG)
		{
			uint64_t run = x & WAH_MAX_RUN;

			if (run == 0 || run > ng - g)
				return -1;
			if (x & WAH_FILL_BIT)
			{
				uint64_t to = (g + run) * WAH_GROUP_BITS;

				if (to > nbits)
					return -1;
				bs_set_range(bs, base + g * WAH_GROUP_BITS, base + to);
			}
			g += run;
		}
		else
		{
			uint64_t j0 = g * WAH_GROUP_BITS;

			if (g >= ng)
				return -1;
			while (x != 0)
			{
				int i = __builtin_ctz(x);

				if (j0 + i >= nbits)
					return -1;
				bs_set(bs, base + j0 + i);
				x &= x - 1;
			}
			g++;
		}
	}
	return 0;
}

/* Set bits: 31 per one-fill group, popcount of literals. */
uint64_t
wah_count(const uint32_t *w, size_t nwords)
{
	uint64_t c = 0;
	size_t k;

	for (k = 0; k < nwords; k++)
	{
		if (w[k] & WAH_FILL_FLAG)
		{
			if (w[k] & WAH_FILL_BIT)
				c += (uint64_t)(w[k] & WAH_MAX_RUN) * WAH_GROUP_BITS;
		}
		else
			c += (uint64_t)__builtin_popcount(w[k]);
	}
	return c;
}
