/*
 * relevance_null.c
 *	  The calibration of the GP evidence threshold of the ranking
 *	  (src/core/relevance.h, RELEVANCE_EVIDENCE_MIN; bench/README.md,
 *	  section 5): on pure noise (x uniform on the unit cube, y standard
 *	  normal, independent of x) how often a column reaches the threshold,
 *	  with the refit (the evidence lasso_rank uses) and with the bound
 *	  alone (the drop at the full fit's hyperparameters, no refit).
 *
 *	  Usage: relevance_null [SEEDS]   (default 40 per shape)
 *	  Prints one line per shape (d columns, n points).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "relevance.h"
#include "rng.h"

int
main(int argc, char **argv)
{
	static const int shapes[][2] = {{6, 16}, {6, 24}, {6, 32}, {10, 16},
									{10, 24}, {10, 32}, {30, 16}, {30, 24},
									{30, 32}};
	int seeds = argc > 1 ? atoi(argv[1]) : 40;
	size_t s;

	printf("| d | n | studies | columns | refit: columns >= %g | studies with one | "
		   "max | bound alone: columns >= %g | studies with one |\n",
		   RELEVANCE_EVIDENCE_MIN, RELEVANCE_EVIDENCE_MIN);
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
	{
		int d = shapes[s][0];
		int n = shapes[s][1];
		double *x = malloc(sizeof(double) * n * d);
		double *y = malloc(sizeof(double) * n);
		double *ls = malloc(sizeof(double) * d);
		double *ev = malloc(sizeof(double) * d);
		int pass = 0, pass_studies = 0, bound = 0, bound_studies = 0;
		double max = 0.0;
		int seed, i, k;

		for (seed = 0; seed < seeds; seed++)
		{
			RelevanceOptions o;
			TunerStatus st;
			TunerRng rng;
			int any = 0, any_bound = 0;

			rng_seed(&rng, 7000 + seed);
			for (i = 0; i < n * d; i++)
				x[i] = rng_uniform(&rng);
			for (i = 0; i < n; i++)
				y[i] = rng_normal(&rng);
			relevance_options_init(&o);
			o.seed = seed;
			if (gp_relevance(x, y, n, d, &o, ls, ev, &st) != TUNER_OK)
			{
				fprintf(stderr, "gp_relevance: %s\n", st.message);
				return 1;
			}
			for (k = 0; k < d; k++)
			{
				any |= ev[k] >= RELEVANCE_EVIDENCE_MIN;
				pass += ev[k] >= RELEVANCE_EVIDENCE_MIN;
				max = fmax(max, ev[k]);
			}
			o.threshold = 1e300; /* no refit */
			if (gp_relevance(x, y, n, d, &o, ls, ev, &st) != TUNER_OK)
			{
				fprintf(stderr, "gp_relevance: %s\n", st.message);
				return 1;
			}
			for (k = 0; k < d; k++)
			{
				any_bound |= ev[k] >= RELEVANCE_EVIDENCE_MIN;
				bound += ev[k] >= RELEVANCE_EVIDENCE_MIN;
			}
			pass_studies += any;
			bound_studies += any_bound;
		}
		printf("| %d | %d | %d | %d | %d (%.1f%%) | %d | %.1f | %d (%.1f%%) | "
			   "%d |\n",
			   d, n, seeds, seeds * d, pass, 100.0 * pass / (seeds * d),
			   pass_studies, max, bound, 100.0 * bound / (seeds * d),
			   bound_studies);
		fflush(stdout);
		free(x);
		free(y);
		free(ls);
		free(ev);
	}
	return 0;
}
