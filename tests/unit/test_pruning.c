/*
 * test_pruning.c
 *	  The pruning rules (src/core/pruning.c) on hand-worked cases: the
 *	  median rule in both directions, with odd and even counts and before
 *	  enough trials finished; successive halving's kept share and ties;
 *	  the rungs; the model rule's forecast against SciPy (numpy.polyfit
 *	  and scipy.stats.t, the numbers below), its abstention, what a pruned
 *	  trial is observed as, and the refusals.
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
model_rule(void)
{
	double partial[5] = {1, 2, 3, 4, 5};
	double final[5] = {1.1, 1.9, 3.2, 3.8, 5.1};
	double flat[3] = {7, 7, 7};
	double finals3[3] = {2, 4, 3};
	double line[4] = {1, 2, 3, 4};
	int abstain;
	TunerPruneForecast f;
	TunerStatus st;

	/* minimize, incumbent 1.1: at 4.5 the final is 4.505 +- 0.2254 (t, 3 df) */
	CHECK(tuner_prune_model(partial, final, 5, 4.5, 1.1, 1, 3, &abstain, &f,
							&st) == TUNER_OK &&
		  !abstain);
	CHECK(f.n == 5 && f.df == 3);
	CHECK(fabs(f.mean - 4.505) < 1e-12);
	CHECK(fabs(f.scale - 0.2254440063519101) < 1e-12);
	CHECK(fabs(f.prob - 0.0003150604140071774) < 1e-9);
	/* at 1.2 near the incumbent: not improbable */
	CHECK(tuner_prune_model(partial, final, 5, 1.2, 1.1, 1, 3, &abstain, &f,
							&st) == TUNER_OK);
	CHECK(fabs(f.mean - 1.238) < 1e-12);
	CHECK(fabs(f.scale - 0.2331437324913541) < 1e-12);
	CHECK(fabs(f.prob - 0.2977780330872249) < 1e-9);
	/* maximize, incumbent 5.1: the other way round */
	CHECK(tuner_prune_model(partial, final, 5, 1.2, 5.1, -1, 3, &abstain, &f,
							&st) == TUNER_OK);
	CHECK(fabs(f.prob - 0.00023944540358013223) < 1e-9);
	CHECK(tuner_prune_model(partial, final, 5, 4.5, 5.1, -1, 3, &abstain, &f,
							&st) == TUNER_OK);
	CHECK(fabs(f.prob - 0.038853405516237845) < 1e-9);
	/* equal partial values: the finals' mean, sd * sqrt(1 + 1/n), n - 1 df */
	CHECK(tuner_prune_model(flat, finals3, 3, 7, 2, 1, 3, &abstain, &f, &st) ==
			  TUNER_OK &&
		  !abstain);
	CHECK(f.df == 2 && fabs(f.mean - 3) < 1e-12);
	CHECK(fabs(f.scale - 1.1547005383792515) < 1e-12);
	CHECK(fabs(f.prob - 0.23888351606645325) < 1e-9);
	/* an exact fit: scale 0, the mean alone decides */
	CHECK(tuner_prune_model(line, line, 4, 2.5, 2, 1, 3, &abstain, &f, &st) ==
			  TUNER_OK &&
		  f.scale < 1e-12 && f.prob == 0.0);
	CHECK(tuner_prune_model(line, line, 4, 1.5, 2, 1, 3, &abstain, &f, &st) ==
			  TUNER_OK &&
		  f.prob == 1.0);
	/* abstains below min_trials, and below 3 whatever min_trials says */
	CHECK(tuner_prune_model(partial, final, 5, 4.5, 1.1, 1, 6, &abstain, &f,
							&st) == TUNER_OK &&
		  abstain);
	CHECK(tuner_prune_model(partial, final, 2, 4.5, 1.1, 1, 1, &abstain, &f,
							&st) == TUNER_OK &&
		  abstain);
	CHECK(tuner_prune_model(NULL, NULL, 0, 4.5, 1.1, 1, 1, &abstain, &f, &st) ==
			  TUNER_OK &&
		  abstain);
	/* refusals */
	final[2] = NAN;
	CHECK(tuner_prune_model(partial, final, 5, 4.5, 1.1, 1, 3, &abstain, &f,
							&st) == TUNER_ERR_INVALID);
	final[2] = 3.2;
	CHECK(tuner_prune_model(partial, final, 5, 4.5, INFINITY, 1, 3, &abstain,
							&f, &st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_model(partial, NULL, 5, 4.5, 1.1, 1, 3, &abstain, &f,
							&st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_model(partial, final, 5, NAN, 1.1, 1, 3, &abstain, &f,
							&st) == TUNER_ERR_INVALID);
	CHECK(tuner_prune_model(partial, final, 5, 4.5, 1.1, 0, 3, &abstain, &f,
							&st) == TUNER_ERR_INVALID);
}

/* what a pruned trial is observed as (SciPy: the t scale times
 * stats.t.ppf(stats.norm.cdf(1), 3); numpy.std(ddof=1)) */
static void
pruned_observation(void)
{
	double partial[5] = {1, 2, 3, 4, 5};
	double final[5] = {1.1, 1.9, 3.2, 3.8, 5.1};
	double finals[4] = {2, 4, 3, 7.5};
	double bad[2] = {1, NAN};
	TunerPrunedObservation o;
	TunerStatus st;

	/* five complete trials got that far: the forecast of the final value */
	CHECK(tuner_pruned_observation(partial, final, 5, 4.5, finals, 4, &o,
								   &st) == TUNER_OK);
	CHECK(o.forecast && fabs(o.value - 4.505) < 1e-12);
	CHECK(fabs(o.std_error - 0.2698297274080055) < 1e-9);
	/* two: its own value, with the spread of the study's finals */
	CHECK(tuner_pruned_observation(partial, final, 2, 4.5, finals, 4, &o,
								   &st) == TUNER_OK);
	CHECK(!o.forecast && o.value == 4.5);
	CHECK(fabs(o.std_error - 2.3935677693908453) < 1e-12);
	/* one final value: no spread known */
	CHECK(tuner_pruned_observation(NULL, NULL, 0, 4.5, finals, 1, &o, &st) ==
			  TUNER_OK &&
		  o.value == 4.5 && isnan(o.std_error));
	CHECK(tuner_pruned_observation(partial, final, 5, 4.5, bad, 2, &o, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(tuner_pruned_observation(partial, final, 5, 4.5, NULL, 2, &o, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(tuner_pruned_observation(partial, final, 5, NAN, finals, 4, &o,
								   &st) == TUNER_ERR_INVALID);
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
	model_rule();
	pruned_observation();
	refusals();
}
