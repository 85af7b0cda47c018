/*
 * wah.h: Word-Aligned Hybrid (WAH) bitmap compression, 32-bit words
 * (Wu, Otoo and Shoshani, ACM TODS 31, 2006).
 *
 * A bitmap of N bits is cut into groups of 31 bits (the last group padded
 * with zeros).  Bit j of the bitmap is bit (j % 31) of group j / 31.  Each
 * 32-bit word is either
 *   literal: MSB 0, bits 0..30 are one group verbatim;
 *   fill:    MSB 1, bit 30 the fill bit, bits 0..29 the number of groups
 *            (>= 1) that are all 0 or all 1.
 * The encoder is canonical: a group of all zeros or all ones is always a
 * fill, adjacent fills of the same bit are merged (up to 2^30 - 1 groups
 * per word), so equal bitmaps give equal word sequences.
 */
#ifndef FQ_WAH_H
#define FQ_WAH_H

#include <stddef.h>
#include <stdint.h>

#define WAH_GROUP_BITS   31
#define WAH_FILL_FLAG    0x80000000u
#define WAH_FILL_BIT     0x40000000u
#define WAH_MAX_RUN      0x3fffffffu
#define WAH_LITERAL_MASK 0x7fffffffu

/* A growing encoded bitmap; groups counts the groups encoded so far. */
typedef struct WahBuf
{
	uint32_t *words;
	size_t nwords;
	size_t cap;
	uint64_t groups;
} WahBuf;

/* Groups of a bitmap of nbits bits. */
static inline uint64_t
wah_ngroups(uint64_t nbits)
{
	return (nbits + WAH_GROUP_BITS - 1) / WAH_GROUP_BITS;
}

void wah_init(WahBuf *b);
void wah_free(WahBuf *b);

/* Append count groups all equal to bit; 0 on success, -1 out of memory. */
int wah_append_fill(WahBuf *b, int bit, uint64_t count);

/* Append one group (low 31 bits of group); 0 or -1. */
int wah_append_group(WahBuf *b, uint32_t group);

/* Append zero groups up to group index g, then group value lit at g. */
int wah_append_at(WahBuf *b, uint64_t g, uint32_t lit);

/* Pad with zero groups up to ngroups groups in total. */
int wah_finish(WahBuf *b, uint64_t ngroups);

/* Encode the first nbits bits of a dense bitset (bitset.h layout). */
int wah_encode_bits(const uint64_t *bits, uint64_t nbits, WahBuf *b);

/*
 * OR the bitmap (nwords words, nbits bits) into the dense bitset bs at bit
 * offset base.  Returns 0, or -1 if the words are malformed (more groups
 * than nbits needs, a zero-length fill, or set bits past nbits).
 */
int wah_decode_or(const uint32_t *w, size_t nwords, uint64_t nbits,
				  uint64_t *bs, uint64_t base);

/* Number of set bits. */
uint64_t wah_count(const uint32_t *w, size_t nwords);

#endif
