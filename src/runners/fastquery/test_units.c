/*
 * test_units.c: unit tests of tuner_fastquery's in-memory parts (no MPI,
 * no HDF5): WAH encode/decode, bins and condition classes, the generator.
 * Prints "N passed, N failed"; exit status 1 when any check fails.
 */
#include "bins.h"
#include "bitset.h"
#include "rng.h"
#include "wah.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                                         \
	do                                                           \
	{                                                            \
		if (cond)                                                \
			passed++;                                            \
		else                                                     \
		{                                                        \
			failed++;                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fprintf(stderr, "\n");                               \
		}                                                        \
	} while (0)

/* xorshift for test patterns (independent of rng.c) */
static uint64_t state = 88172645463325252ULL;

/* Next xorshift64 value. */
static uint64_t
next_rand(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* A pattern: density d of ones, with runs of zeros and ones mixed in. */
static void
make_pattern(uint64_t *bs, uint64_t nbits, int kind)
{
	uint64_t i;

	memset(bs, 0, bs_nwords(nbits) * 8);
	for (i = 0; i < nbits; i++)
	{
		int one = 0;

		switch (kind)
		{
			case 0:
				one = 0;
				break;
			case 1:
				one = 1;
				break;
			case 2:
				one = next_rand() % 1000 == 0;
				break;
			case 3:
				one = next_rand() % 2 == 0;
				break;
			case 4:
				one = (i / 200) % 3 == 0 || next_rand() % 50 == 0;
				break;
		}
		if (one)
			bs_set(bs, i);
	}
}

/* Round trip, count, canonical form and the group-wise builder. */
static void
test_wah_roundtrip(void)
{
	static const uint64_t lengths[] = {1,  30, 31,   32,    62,
									   63, 93, 1000, 65536, 100003};
	size_t li;
	int kind;

	for (li = 0; li < sizeof(lengths) / sizeof(lengths[0]); li++)
		for (kind = 0; kind < 5; kind++)
		{
			uint64_t n = lengths[li], nw = bs_nwords(n), g;
			uint64_t *bs = calloc(nw + 1, 8), *back = calloc(nw + 1, 8);
			WahBuf a, b, c;

			make_pattern(bs, n, kind);
			wah_init(&a);
			wah_init(&b);
			wah_init(&c);
			CHECK(wah_encode_bits(bs, n, &a) == 0, "encode");
			CHECK(a.groups == wah_ngroups(n), "groups %llu",
				  (unsigned long long)a.groups);
			CHECK(wah_decode_or(a.words, a.nwords, n, back, 0) == 0,
				  "decode n=%llu kind=%d", (unsigned long long)n, kind);
			CHECK(memcmp(bs, back, nw * 8) == 0, "round trip n=%llu kind=%d",
				  (unsigned long long)n, kind);
			CHECK(wah_count(a.words, a.nwords) == bs_count(bs, nw),
				  "count n=%llu kind=%d", (unsigned long long)n, kind);
			/* canonical: re-encoding the decoded bitmap gives the same words */
			CHECK(wah_encode_bits(back, n, &b) == 0 && b.nwords == a.nwords &&
					  memcmp(a.words, b.words, a.nwords * 4) == 0,
				  "canonical n=%llu kind=%d", (unsigned long long)n, kind);
			/* the indexer's builder: only non-zero groups, then finish */
			for (g = 0; g < wah_ngroups(n); g++)
			{
				uint32_t lit = 0;
				int i;

				for (i = 0; i < 31 && g * 31 + i < n; i++)
					if (bs_get(bs, g * 31 + i))
						lit |= 1u << i;
				if (lit)
					wah_append_at(&c, g, lit);
			}
			wah_finish(&c, wah_ngroups(n));
			CHECK(c.nwords == a.nwords &&
					  memcmp(a.words, c.words, a.nwords * 4) == 0,
				  "append_at n=%llu kind=%d", (unsigned long long)n, kind);
			/* all zeros / all ones compress to fills */
			if (kind <= 1 && n >= 31)
				CHECK(a.words[0] ==
						  (0x80000000u | (kind ? 0x40000000u : 0) |
						   (uint32_t)(kind ? n / 31 : wah_ngroups(n))),
					  "fill word %08x", a.words[0]);
			wah_free(&a);
			wah_free(&b);
			wah_free(&c);
			free(bs);
			free(back);
		}
}

/* Hand-computed encodings and malformed input. */
static void
test_wah_format(void)
{
	uint64_t bs[2] = {0, 0}, out[2] = {0, 0};
	uint32_t zero_fill[1] = {0x80000000u};
	uint32_t too_long[1] = {0x80000005u};
	uint32_t past_end[1] = {0x00000004u};
	WahBuf b;

	bs_set(bs, 0);
	bs_set(bs, 40);
	wah_init(&b);
	wah_encode_bits(bs, 93, &b);
	CHECK(b.nwords == 3 && b.words[0] == 0x00000001u &&
			  b.words[1] == 0x00000200u && b.words[2] == 0x80000001u,
		  "bits {0,40} of 93: %zu words", b.nwords);
	wah_free(&b);

	/* 62 ones = 2 groups of ones: one fill word */
	memset(bs, 0, sizeof(bs));
	bs_set_range(bs, 0, 62);
	wah_encode_bits(bs, 62, &b);
	CHECK(b.nwords == 1 && b.words[0] == 0xC0000002u, "62 ones: %08x",
		  b.words[0]);
	wah_free(&b);

	/* runs longer than 2^30 - 1 groups split into two fill words */
	wah_append_fill(&b, 0, (1ULL << 30) + 5);
	CHECK(b.nwords == 2 && b.words[0] == 0xBFFFFFFFu &&
			  b.words[1] == 0x80000006u,
		  "long run: %zu words", b.nwords);
	wah_free(&b);

	CHECK(wah_decode_or(zero_fill, 1, 93, out, 0) == -1, "zero-length fill");
	CHECK(wah_decode_or(too_long, 1, 93, out, 0) == -1, "fill past the end");
	CHECK(wah_decode_or(past_end, 1, 2, out, 0) == -1, "literal past nbits");
}

/* Every value lies in the closed interval of its bin. */
static void
test_bins(void)
{
	double edges[65];
	int i, k;

	fq_bin_edges(-3.5, 7.25, 64, edges);
	CHECK(edges[0] == -3.5 && edges[64] == 7.25, "end edges");
	for (i = 0; i < 100000; i++)
	{
		float v =
			(float)(-3.5 + 10.75 * (double)(next_rand() >> 11) * 0x1p-53);
		double d = v;

		k = fq_bin_of(edges, 64, d);
		CHECK(k >= 0 && k < 64 && edges[k] <= d &&
				  (d < edges[k + 1] || (k == 63 && d <= edges[64])),
			  "bin of %.9g is %d", d, k);
	}
	/* values exactly on edges go to the upper bin; max to the last */
	for (k = 0; k < 64; k++)
		CHECK(fq_bin_of(edges, 64, edges[k]) == k, "edge %d", k);
	CHECK(fq_bin_of(edges, 64, 7.25) == 63, "max");
	/* a constant variable: all edges equal, every value in one bin */
	fq_bin_edges(2.0, 2.0, 8, edges);
	CHECK(fq_bin_of(edges, 8, 2.0) == 7, "constant variable");
}

/* ALL and NONE are never wrong for any value of the interval. */
static void
test_bin_class(void)
{
	int t, op;

	for (t = 0; t < 20000; t++)
	{
		double lo = (double)(next_rand() % 21) - 10;
		double hi = lo + (double)(next_rand() % 4);
		double c = (double)(next_rand() % 25) - 12;

		for (op = FQ_LT; op <= FQ_GE; op++)
		{
			FqBinClass cls = fq_bin_class(lo, hi, (FqOp)op, c);
			int any = 0, all = 1, s;

			for (s = 0; s <= 8; s++)
			{
				double v = lo + (hi - lo) * s / 8;
				int ok = fq_op_eval(v, (FqOp)op, c);

				any |= ok;
				all &= ok;
			}
			if (cls == FQ_BIN_ALL)
				CHECK(all, "ALL wrong: [%g,%g] %s %g", lo, hi,
					  fq_op_name((FqOp)op), c);
			else if (cls == FQ_BIN_NONE)
				CHECK(!any, "NONE wrong: [%g,%g] %s %g", lo, hi,
					  fq_op_name((FqOp)op), c);
			else
				/* a candidate bin really straddles the condition */
				CHECK(any && !all, "candidate not needed: [%g,%g] %s %g", lo,
					  hi, fq_op_name((FqOp)op), c);
		}
	}
}

/* Counter-based: a pure function; uniform and normal moments. */
static void
test_rng(void)
{
	double s = 0, s2 = 0, m = 0;
	int i, n = 200000;

	CHECK(fq_hash(1, 12345, 3) == fq_hash(1, 12345, 3), "pure function");
	CHECK(fq_hash(1, 12345, 3) != fq_hash(1, 12345, 4), "streams differ");
	CHECK(fq_hash(1, 12345, 3) != fq_hash(2, 12345, 3), "seeds differ");
	for (i = 0; i < n; i++)
	{
		double u = fq_uniform(7, i, 0), z = fq_normal(7, i, 1);

		CHECK(u >= 0 && u < 1, "uniform range");
		m += u;
		s += z;
		s2 += z * z;
	}
	/* 5 standard errors */
	CHECK(fabs(m / n - 0.5) < 5 * sqrt(1.0 / 12 / n), "uniform mean %g",
		  m / n);
	CHECK(fabs(s / n) < 5 / sqrt((double)n), "normal mean %g", s / n);
	CHECK(fabs(s2 / n - 1) < 5 * sqrt(2.0 / n), "normal variance %g", s2 / n);
}

/* Run every group of checks. */
int
main(void)
{
	test_wah_roundtrip();
	test_wah_format();
	test_bins();
	test_bin_class();
	test_rng();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
