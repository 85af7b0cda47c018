/*
 * test_multiobjective.c
 *	  Pareto dominance, the first front (ties, duplicates, one objective),
 *	  the exact hypervolume against closed forms and against an
 *	  independent inclusion-exclusion over the boxes, and ParEGO's weights
 *	  and augmented Chebyshev scalarization.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hypervolume.h"
#include "parego.h"
#include "pareto.h"
#include "rng.h"
#include "unit.h"

/* Front of a small hand-made 2-D set with a tie and a duplicate. */
static void
test_front_small(void)
{
	/* minimize both: (1,5) (2,2) (2,2) dup, (3,1), (3,3) dominated by
	 * (2,2), (1,6) dominated by (1,5) (tie in the first objective),
	 * (4,1) dominated by (3,1) (tie in the second) */
	double p[] = {1, 5, 2, 2, 2, 2, 3, 1, 3, 3, 1, 6, 4, 1};
	int expect[] = {1, 1, 1, 1, 0, 0, 0};
	int front[7];
	int n_front = -1;
	TunerStatus st;
	int i;

	CHECK(pareto_first_front(p, 7, 2, front, &n_front, &st) == TUNER_OK);
	CHECK(n_front == 4);
	for (i = 0; i < 7; i++)
		CHECK(front[i] == expect[i]);
	CHECK(pareto_dominates(p + 2, p + 8, 2));
	CHECK(!pareto_dominates(p + 2, p + 4, 2)); /* equal points */
	CHECK(!pareto_dominates(p, p + 6, 2));	   /* incomparable */
}

/* One objective: the front is every point at the minimum. */
static void
test_front_one_objective(void)
{
	double p[] = {3, 1, 2, 1, 5};
	int front[5];
	int n_front;
	TunerStatus st;

	CHECK(pareto_first_front(p, 5, 1, front, &n_front, &st) == TUNER_OK);
	CHECK(n_front == 2);
	CHECK(front[1] == 1 && front[3] == 1);
	CHECK(front[0] == 0 && front[2] == 0 && front[4] == 0);
}

/* Bad input and the empty set. */
static void
test_front_errors(void)
{
	double p[] = {1, NAN};
	int front[1];
	int n_front = -1;
	TunerStatus st;

	CHECK(pareto_first_front(p, 1, 2, front, &n_front, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(pareto_first_front(p, 0, 2, front, &n_front, &st) == TUNER_OK);
	CHECK(n_front == 0);
	CHECK(pareto_first_front(p, 1, 0, front, &n_front, &st) ==
		  TUNER_ERR_INVALID);
}

/* Closed forms: one box, a staircase, 1-D, points outside the box. */
static void
test_hypervolume_closed(void)
{
	double one[] = {1, 2};
	double ref[] = {4, 5};
	/* staircase (1,3) (2,2) (3,1), ref (4,4): 3 + 2 + 1 = 6 */
	double stair[] = {3, 1, 1, 3, 2, 2};
	double ref4[] = {4, 4};
	/* outside (5,0) and on the boundary (4,1) add nothing */
	double outside[] = {5, 0, 4, 1, 2, 2};
	double dup[] = {2, 2, 2, 2, 3, 3};
	double line[] = {3, 1, 2};
	double ref1[] = {5};
	double cube[] = {0, 0, 0};
	double ref3[] = {2, 3, 4};
	/* two 3-D boxes, [0,2]x[1,2]x[0,2] and [1,2]x[0,2]x[0,2] */
	double two3[] = {0, 1, 0, 1, 0, 0};
	double ref2[] = {2, 2, 2};
	double v;
	TunerStatus st;

	CHECK(hypervolume(one, 1, 2, ref, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 9.0, 1e-15);
	CHECK(hypervolume(stair, 3, 2, ref4, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 6.0, 1e-15);
	CHECK(hypervolume(outside, 3, 2, ref4, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 4.0, 1e-15);
	CHECK(hypervolume(dup, 3, 2, ref4, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 4.0, 1e-15);
	CHECK(hypervolume(line, 3, 1, ref1, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 4.0, 1e-15);
	CHECK(hypervolume(cube, 1, 3, ref3, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 24.0, 1e-15);
	/* union: 2*1*2 + 1*2*2 - 1*1*2 = 6 */
	CHECK(hypervolume(two3, 2, 3, ref2, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, 6.0, 1e-15);
	CHECK(hypervolume(one, 0, 2, ref, &v, &st) == TUNER_OK);
	CHECK(v == 0.0);
	ref[1] = NAN;
	CHECK(hypervolume(one, 1, 2, ref, &v, &st) == TUNER_ERR_INVALID);
	CHECK(hypervolume(one, 1, 7, ref4, &v, &st) == TUNER_ERR_INVALID);
}

/*
 * An independent reference: the volume of a union of boxes [p_i, ref] by
 * inclusion-exclusion over every subset (the intersection of boxes is the
 * box at their coordinate-wise maximum).
 */
static double
inclusion_exclusion(const double *p, int n, int m, const double *ref)
{
	double total = 0.0;
	unsigned mask;

	for (mask = 1; mask < (1u << n); mask++)
	{
		double corner[HYPERVOLUME_MAX_OBJECTIVES];
		double box = 1.0;
		int bits = 0;
		int i;
		int k;

		for (k = 0; k < m; k++)
			corner[k] = -INFINITY;
		for (i = 0; i < n; i++)
			if (mask & (1u << i))
			{
				bits++;
				for (k = 0; k < m; k++)
					corner[k] = fmax(corner[k], p[i * m + k]);
			}
		for (k = 0; k < m; k++)
			box *= fmax(0.0, ref[k] - corner[k]);
		total += (bits % 2 ? 1.0 : -1.0) * box;
	}
	return total;
}

/* Random sets in 2 to 5 dimensions, some points outside, some ties. */
static void
test_hypervolume_random(void)
{
	TunerRng rng;
	int trial;

	rng_seed(&rng, 20261201);
	for (trial = 0; trial < 80; trial++)
	{
		int m = 2 + trial % 4;
		int n = 1 + (int) rng_below(&rng, 10);
		double p[10 * 5];
		double ref[5];
		double v;
		TunerStatus st;
		int i;

		for (i = 0; i < n * m; i++)
			/* a coarse grid makes ties between coordinates likely */
			p[i] = floor(rng_uniform(&rng) * 8.0) / 4.0;
		for (i = 0; i < m; i++)
			ref[i] = 1.75;
		CHECK(hypervolume(p, n, m, ref, &v, &st) == TUNER_OK);
		CHECK_CLOSE(v, inclusion_exclusion(p, n, m, ref), 1e-12);
	}
}

/*
 * A large 2-D staircase (the sweep is O(n log n)): points (i/n, 1 - i/n)
 * for i = 1 .. n in shuffled order, reference (1, 1); each step adds
 * (1/n) x (i/n - 1/n), in total (n - 1) / (2 n).  And sets too costly to
 * slice in 6 objectives are refused, not computed for hours.
 */
static void
test_hypervolume_large(void)
{
	int n = 200000;
	double *p = malloc(sizeof(double) * 2 * n);
	double *q = malloc(sizeof(double) * 6 * 400);
	double ref[6] = {1, 1, 1, 1, 1, 1};
	double v;
	TunerStatus st;
	TunerRng rng;
	int i;

	rng_seed(&rng, 7);
	for (i = 0; i < n; i++)
	{
		int j = (int) ((i * 7919L) % n) + 1; /* a permutation of 1 .. n */

		p[2 * i] = (double) j / n;
		p[2 * i + 1] = 1.0 - (double) j / n;
	}
	CHECK(hypervolume(p, n, 2, ref, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, (n - 1.0) / (2.0 * n), 1e-9);
	/* 400 points on the simplex x1 + ... + x6 = 1: all non-dominated */
	for (i = 0; i < 400; i++)
	{
		double sum = 0.0;
		int k;

		for (k = 0; k < 6; k++)
			sum += (q[6 * i + k] = rng_uniform(&rng) + 1e-3);
		for (k = 0; k < 6; k++)
			q[6 * i + k] /= sum;
	}
	CHECK(hypervolume(q, 400, 6, ref, &v, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "too many") != NULL);
	/* a handful of them is fine, and agrees with inclusion-exclusion */
	CHECK(hypervolume(q, 9, 6, ref, &v, &st) == TUNER_OK);
	CHECK_CLOSE(v, inclusion_exclusion(q, 9, 6, ref), 1e-12);
	free(p);
	free(q);
}

/* Weights: positive, sum 1, reproducible, different per seed, mean 1/m. */
static void
test_parego_weights(void)
{
	double w[3];
	double w2[3];
	double mean[3] = {0, 0, 0};
	TunerStatus st;
	uint64_t seed;
	int k;

	CHECK(parego_weights(42, 3, w, &st) == TUNER_OK);
	CHECK(parego_weights(42, 3, w2, &st) == TUNER_OK);
	CHECK(memcmp(w, w2, sizeof(w)) == 0);
	CHECK_CLOSE(w[0] + w[1] + w[2], 1.0, 1e-15);
	CHECK(parego_weights(43, 3, w2, &st) == TUNER_OK);
	CHECK(w[0] != w2[0]);
	for (seed = 1; seed <= 4000; seed++)
	{
		CHECK(parego_weights(seed, 3, w, &st) == TUNER_OK);
		for (k = 0; k < 3; k++)
		{
			if (!(w[k] > 0.0 && w[k] < 1.0))
				CHECK(0);
			mean[k] += w[k] / 4000.0;
		}
	}
	/* Dirichlet(1,1,1): each mean 1/3, sd of the mean about 0.004 */
	for (k = 0; k < 3; k++)
		CHECK(fabs(mean[k] - 1.0 / 3.0) < 0.02);
	CHECK(parego_weights(1, 0, w, &st) == TUNER_ERR_INVALID);
}

/* The scalarized values by hand, and dominance preserved for any seed. */
static void
test_parego_scalarize(void)
{
	/* objective 1 ranges over [0, 10], objective 2 over [2, 4] */
	double p[] = {0, 4, 10, 2, 5, 3, 5, 3.5};
	double constant[] = {1, 7, 2, 7};
	double s[4];
	double w[2];
	TunerStatus st;
	uint64_t seed;
	int i;

	CHECK(parego_weights(7, 2, w, &st) == TUNER_OK);
	CHECK(parego_scalarize(p, 4, 2, 7, s, &st) == TUNER_OK);
	CHECK_CLOSE(s[0], w[1] + PAREGO_RHO * w[1], 1e-14);
	CHECK_CLOSE(s[1], w[0] + PAREGO_RHO * w[0], 1e-14);
	CHECK_CLOSE(s[2], 0.5 * fmax(w[0], w[1]) + PAREGO_RHO * 0.5, 1e-14);
	CHECK_CLOSE(s[3],
				fmax(0.5 * w[0], 0.75 * w[1]) +
					PAREGO_RHO * (0.5 * w[0] + 0.75 * w[1]),
				1e-14);
	/* point 2 dominates point 3: strictly better for every weight */
	for (seed = 0; seed < 200; seed++)
	{
		CHECK(parego_scalarize(p, 4, 2, seed, s, &st) == TUNER_OK);
		if (!(s[2] < s[3]))
			CHECK(0);
	}
	/* a constant objective normalizes to 0 */
	CHECK(parego_weights(3, 2, w, &st) == TUNER_OK);
	CHECK(parego_scalarize(constant, 2, 2, 3, s, &st) == TUNER_OK);
	CHECK_CLOSE(s[0], 0.0, 1e-15);
	CHECK_CLOSE(s[1], w[0] + PAREGO_RHO * w[0], 1e-14);
	for (i = 0; i < 2; i++)
		CHECK(s[i] >= 0.0);
	constant[3] = INFINITY;
	CHECK(parego_scalarize(constant, 2, 2, 3, s, &st) == TUNER_ERR_INVALID);
	CHECK(parego_scalarize(constant, 0, 2, 3, s, &st) == TUNER_ERR_INVALID);
}

void
test_multiobjective(void)
{
	test_front_small();
	test_front_one_objective();
	test_front_errors();
	test_hypervolume_closed();
	test_hypervolume_random();
	test_hypervolume_large();
	test_parego_weights();
	test_parego_scalarize();
}
