/*
 * middle.c
 *	  Categorical kernel against the ordered encoding of the same labels:
 *	  GP-EI runs (src/core/suggest.h, no server) on
 *	    f(t, label, s) = (t - 0.7)^2 + (s - 0.3)^2 + offset[label],
 *	    offset = {1.0, 0.0, 1.1, 0.6}
 *	  (the problem of tests/unit/test_categorical.c: the best of four labels
 *	  is the second, far better than its neighbours), once with the label a
 *	  categorical parameter (overlap distance, matern.h) and once an integer
 *	  parameter 0..3, which puts the labels at the same unit coordinates as
 *	  the categorical's bin centres and is exactly the encoding categoricals
 *	  had before the overlap distance: ordered, with L-BFGS and Gaussian
 *	  moves along it.  The minimum is 0.
 *
 *	  usage: middle [seeds [trials [n_initial]]]   (default 20 20 4)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suggest.h"

static double
f(const double *c)
{
	static const double offset[4] = {1.0, 0.0, 1.1, 0.6};

	return (c[0] - 0.7) * (c[0] - 0.7) + (c[2] - 0.3) * (c[2] - 0.3) +
		   offset[(int)c[1]];
}

/* One encoding over all seeds: prints mean best at 10 and at the end. */
static int
run(const char *name, TunerParamKind kind, int seeds, int trials, int n_initial)
{
	ParamSpec sp[3] = {{PARAM_FLOAT, 0, 1, 0, 0},
					   {kind, 0, 3, 0, 4},
					   {PARAM_FLOAT, 0, 1, 0, 0}};
	double *x = malloc(sizeof(double) * 3 * trials);
	double *y = malloc(sizeof(double) * trials);
	double sum10 = 0, sum_end = 0;
	int on_best = 0, model_steps = 0, stuck = 0;
	int seed, n;

	for (seed = 1; seed <= seeds; seed++)
	{
		double cfg[3], ls[3], best = HUGE_VAL, best10 = HUGE_VAL;
		SuggestInput in;
		SuggestResult out;
		TunerStatus st;

		memset(&in, 0, sizeof(in));
		memset(&out, 0, sizeof(out));
		in.params = sp;
		in.d = 3;
		in.n_initial = n_initial;
		in.design_seed = seed;
		in.x_observed = x;
		in.y_observed = y;
		out.config = cfg;
		out.lengthscales = ls;
		for (n = 0; n < trials; n++)
		{
			in.n_observed = n;
			in.design_index = n;
			in.seed = 1000 * seed + n;
			if (tuner_suggest(&in, &out, &st) != TUNER_OK)
			{
				fprintf(stderr, "suggest failed: %s\n", st.message);
				return 1;
			}
			if (out.source == SUGGEST_MODEL)
			{
				model_steps++;
				on_best += cfg[1] == 1.0;
			}
			memcpy(x + 3 * n, cfg, sizeof(cfg));
			y[n] = f(cfg);
			best = fmin(best, y[n]);
			if (n < 10)
				best10 = best;
		}
		sum10 += best10;
		sum_end += best;
		stuck += best >= 0.5;
	}
	printf("%-12s mean best@10 %.4f  mean best@%d %.4f  runs ending on a "
		   "worse label %d/%d  model steps on the best label %d/%d\n",
		   name, sum10 / seeds, trials, sum_end / seeds, stuck, seeds,
		   on_best, model_steps);
	free(x);
	free(y);
	return 0;
}

int
main(int argc, char **argv)
{
	int seeds = argc > 1 ? atoi(argv[1]) : 20;
	int trials = argc > 2 ? atoi(argv[2]) : 20;
	int n_initial = argc > 3 ? atoi(argv[3]) : 4;

	if (seeds < 1 || trials < 10 || n_initial < 1)
	{
		fprintf(stderr, "usage: middle [seeds [trials>=10 [n_initial]]]\n");
		return 2;
	}
	printf("GP-EI, %d seeds, %d trials (%d design)\n", seeds, trials,
		   n_initial);
	return run("categorical", PARAM_CATEGORICAL, seeds, trials, n_initial) ||
		   run("ordered", PARAM_INT, seeds, trials, n_initial);
}
