/*
 * test_pruning.c
 *	  The pruning rules (src/core/pruning.c) on hand-worked cases: the
 *	  median rule in both directions, with odd and even counts and before
 *	  enough trials finished; successive halving's kept share and ties;
 *	  the rungs; and the refusals.
 */
#include <math.h>

#include "pruning.h"
#include "unit.h"

static void
median_rule(void)
{
	double others[5] = {5, 1, 3, 2, 4}; /* median 3 */
	int stop;
	TunerStatus st;

	/* minimize: 3.5 is worse than the median, 2.5 better, 3 ties */
	CHECK(tuner_prune_median(others, 5, 3.5, 1, 1, &stop, &st) == TUNER_OK && stop);
	CHECK(tuner_prune_median(others, 5, 2.5, 1, 1, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_median(others, 5, 3.0, 1, 1, &stop, &st) == TUNER_OK && !stop);
	/* maximize: the other way round */
	CHECK(tuner_prune_median(others, 5, 3.5, -1, 1, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_median(others, 5, 2.5, -1, 1, &stop, &st) == TUNER_OK && stop);
	/* even count: the mean of the two middle values (2.5 of 1..4) */
	CHECK(tuner_prune_median(others + 1, 4, 2.6, 1, 1, &stop, &st) == TUNER_OK && stop);
	CHECK(tuner_prune_median(others + 1, 4, 2.5, 1, 1, &stop, &st) == TUNER_OK && !stop);
	/* fewer finished trials than min_trials: never stop */
	CHECK(tuner_prune_median(others, 5, 100, 1, 6, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_median(NULL, 0, 100, 1, 1, &stop, &st) == TUNER_OK && !stop);
}

static void
halving(void)
{
	double others[7] = {1, 2, 3, 4, 5, 6, 7};
	int stop;
	TunerStatus st;

	/* 8 trials at the rung, reduction 2: the best 4 continue */
	CHECK(tuner_prune_halving(others, 7, 3.5, 1, 2, 1, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_halving(others, 7, 4.5, 1, 2, 1, &stop, &st) == TUNER_OK && stop);
	/* a tie with the 4th keeps it */
	CHECK(tuner_prune_halving(others, 7, 4.0, 1, 2, 1, &stop, &st) == TUNER_OK && !stop);
	/* maximize: 4.5 is then 4th best of 8 */
	CHECK(tuner_prune_halving(others, 7, 4.5, -1, 2, 1, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_halving(others, 7, 3.5, -1, 2, 1, &stop, &st) == TUNER_OK && stop);
	/* reduction 3: ceil(8 / 3) = 3 continue */
	CHECK(tuner_prune_halving(others, 7, 3.5, 1, 3, 1, &stop, &st) == TUNER_OK && stop);
	CHECK(tuner_prune_halving(others, 7, 2.5, 1, 3, 1, &stop, &st) == TUNER_OK && !stop);
	/* the first trial at a rung always continues; so below min_trials */
	CHECK(tuner_prune_halving(NULL, 0, 100, 1, 2, 1, &stop, &st) == TUNER_OK && !stop);
	CHECK(tuner_prune_halving(others, 7, 100, 1, 2, 9, &stop, &st) == TUNER_OK && !stop);
}

static void
rungs(void)
{
	CHECK(tuner_prune_rung(0.5, 1, 3) < 0);
	CHECK(tuner_prune_rung(1, 1, 3) == 1);
	CHECK(tuner_prune_rung(8.9, 1, 3) == 3);
	CHECK(tuner_prune_rung(9, 1, 3) == 9);
	CHECK(tuner_prune_rung(100, 2, 2) == 64);
	CHECK(tuner_prune_rung(1e300, 1, 2) > 0);
	CHECK(tuner_prune_rung(NAN, 1, 2) < 0);
	CHECK(tuner_prune_rung(5, 0, 2) < 0);
	CHECK(tuner_prune_rung(5, 1, 1) < 0);
}

static void
refusals(void)
{
	double others[2] = {1, NAN};
	int stop;
	TunerStatus st;

	CHECK(tuner_prune_median(others, 2, 1, 1, 1, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_median(others, 1, NAN, 1, 1, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_median(others, 1, 1, 0.5, 1, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_median(others, 1, 1, 1, 0, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_median(NULL, 2, 1, 1, 1, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_halving(others, 1, 1, 1, 1.0, 1, &stop, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_halving(others, 1, 1, 1, INFINITY, 1, &stop, &st) == TUNER_ERR_INVALID);
}

void
test_pruning(void)
{
	median_rule();
	halving();
	rungs();
	refusals();
}
