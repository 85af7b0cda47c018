/*
 * suggest_core.c
 *	  The GP-EI suggestion step (tuner_suggest, src/core) timed without the
 *	  server: n completed trials at uniform random points of [0, 1]^d with
 *	  bench/latency.py's kind of objective (five random sine waves plus a
 *	  quadratic bowl), and optionally failed trials in a failing region
 *	  (u_1 + u_2 > 1.4).  As in bench/README.md section 1, the study holds
 *	  a previous fit: one cold step first, whose hyperparameters warm-start
 *	  the timed steps.  Each timed step has its own seed (rep r: seed r),
 *	  as successive suggestions have.
 *
 *	  usage: suggest_core n d failed reps [print [warm_failures]]
 *	    failed  failed trials besides the n completed ones
 *	    print   1: print each step's configuration (%a, to compare builds
 *	            bit for bit)
 *	    warm_failures  1: the timed steps also warm-start the failure
 *	            model from the cold step's (SuggestInput.warm_feasibility_*),
 *	            as tuner.suggest_next does from its last feasibility row
 *	  Prints the median and mean wall ms of the timed steps and the median
 *	  of their hyperparameter fit (the objective's).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "suggest.h"

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int n, d, n_failed, reps, print, warm_failures, i, k, r;
	double *x, *y, *xf, *w, *b, *a, *c, *ls, *fls, *ms, *fit_ms;
	ConstraintFit fits[1];
	ParamSpec *params;
	SuggestInput in;
	SuggestResult out;
	TunerStatus status;
	TunerRng rng;
	double warm_os, warm_noise, warm_mean, total = 0.0;

	if (argc < 5)
	{
		fprintf(stderr, "usage: suggest_core n d failed reps [print]\n");
		return 2;
	}
	n = atoi(argv[1]);
	d = atoi(argv[2]);
	n_failed = atoi(argv[3]);
	reps = atoi(argv[4]);
	print = argc > 5 ? atoi(argv[5]) : 0;
	warm_failures = argc > 6 ? atoi(argv[6]) : 0;
	x = malloc(sizeof(double) * n * d);
	y = malloc(sizeof(double) * n);
	xf = malloc(sizeof(double) * (n_failed > 0 ? n_failed : 1) * d);
	w = malloc(sizeof(double) * 5 * d);
	b = malloc(sizeof(double) * 5);
	a = malloc(sizeof(double) * 5);
	c = malloc(sizeof(double) * d);
	ls = malloc(sizeof(double) * d);
	fls = malloc(sizeof(double) * d);
	ms = malloc(sizeof(double) * reps);
	fit_ms = malloc(sizeof(double) * reps);
	params = calloc(d, sizeof(ParamSpec));
	out.config = malloc(sizeof(double) * d);

	rng_seed(&rng, 12345);
	for (i = 0; i < 5 * d; i++)
		w[i] = rng_normal(&rng) * 3.0 / sqrt((double)d);
	for (i = 0; i < 5; i++)
	{
		b[i] = rng_uniform(&rng) * 2.0 * M_PI;
		a[i] = 0.5 + rng_uniform(&rng);
	}
	for (k = 0; k < d; k++)
	{
		c[k] = rng_uniform(&rng);
		params[k].kind = PARAM_FLOAT;
		params[k].low = 0.0;
		params[k].high = 1.0;
	}
	for (i = 0; i < n; i++)
	{
		double v = 0.0;
		int j;

		do
			for (k = 0; k < d; k++)
				x[i * d + k] = rng_uniform(&rng);
		while (n_failed > 0 && x[i * d] + x[i * d + 1] > 1.4);
		for (j = 0; j < 5; j++)
		{
			double s = b[j];

			for (k = 0; k < d; k++)
				s += w[j * d + k] * x[i * d + k];
			v += a[j] * sin(s);
		}
		for (k = 0; k < d; k++)
			v += (x[i * d + k] - c[k]) * (x[i * d + k] - c[k]);
		y[i] = v;
	}
	for (i = 0; i < n_failed; i++)
		do
			for (k = 0; k < d; k++)
				xf[i * d + k] = rng_uniform(&rng);
		while (!(xf[i * d] + xf[i * d + 1] > 1.4));

	memset(&in, 0, sizeof(in));
	in.params = params;
	in.d = d;
	in.x_observed = x;
	in.y_observed = y;
	in.n_observed = n;
	in.x_failed = xf;
	in.n_failed = n_failed;
	in.n_initial = 5;
	in.design_seed = 1;
	in.canonical = 1;
	in.algorithm = SUGGEST_ALG_GP_EI;

	memset(&out, 0, sizeof(out) - sizeof(out.config));
	out.config = malloc(sizeof(double) * d);
	out.lengthscales = ls;
	memset(fits, 0, sizeof(fits));
	fits[0].lengthscales = fls;
	out.constraint_fits = fits;
	in.seed = 1000;
	if (tuner_suggest(&in, &out, &status) != TUNER_OK)
	{
		fprintf(stderr, "cold step: %s\n", status.message);
		return 1;
	}
	warm_os = out.outputscale;
	warm_noise = out.noise;
	warm_mean = out.mean;
	in.warm_lengthscales = ls;
	in.warm_outputscale = warm_os;
	in.warm_noise = warm_noise;
	in.warm_mean = warm_mean;
	out.lengthscales = NULL;
	if (warm_failures && fits[0].fitted)
	{
		in.warm_feasibility_lengthscales = fls;
		in.warm_feasibility_outputscale = fits[0].outputscale;
		in.warm_feasibility_noise = fits[0].noise;
		in.warm_feasibility_mean = fits[0].mean;
	}
	out.constraint_fits = NULL;

	for (r = 0; r < reps; r++)
	{
		double t0;

		in.seed = (uint64_t)r + 1;
		t0 = seconds();
		if (tuner_suggest(&in, &out, &status) != TUNER_OK)
		{
			fprintf(stderr, "step %d: %s\n", r, status.message);
			return 1;
		}
		ms[r] = 1000.0 * (seconds() - t0);
		fit_ms[r] = 1000.0 * out.fit_seconds;
		total += ms[r];
		if (print)
		{
			printf("step %d source %d:", r, (int)out.source);
			for (k = 0; k < d; k++)
				printf(" %a", out.config[k]);
			printf(" feas %a\n", out.feasibility);
		}
	}
	qsort(ms, reps, sizeof(double), cmp_double);
	qsort(fit_ms, reps, sizeof(double), cmp_double);
	printf("n=%d d=%d failed=%d reps=%d median_ms=%.2f mean_ms=%.2f "
		   "fit_median_ms=%.2f\n",
		   n, d, n_failed, reps, ms[reps / 2], total / reps,
		   fit_ms[reps / 2]);
	return 0;
}
