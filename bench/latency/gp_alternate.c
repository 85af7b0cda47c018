/*
 * gp_alternate.c
 *	  Does the single-task GP's warm fit lose anything when, from
 *	  SUGGEST_GP_SPARSE_N trials on, its other start runs every 16th trial
 *	  instead of every 4th (suggest_gp.c)?  Simulates the fits of one study
 *	  as suggest_gp.c makes them (each warm-started from the previous
 *	  trial's fit; restarts 2 at the trials with another start, else 1)
 *	  over n = 200..295 trials at uniform random points of [0, 1]^d with
 *	  bench/latency/suggest_core.c's kind of objective plus a little noise,
 *	  under both schedules.  At every 8th n it compares the fit's
 *	  objective (log likelihood + log priors, gp_fit_objective) with a cold
 *	  fit of four starts (positive gap: the warm fit is worse), and reports
 *	  the mean fit time per trial.
 *
 *	  usage: gp_alternate [d [seeds]]   (defaults 10 and 4)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gp.h"
#include "rng.h"
#include "suggest_internal.h"

#define N_FIRST 200
#define N_LAST  295

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void
make_problem(uint64_t seed, int d, double *x, double *y)
{
	TunerRng rng;
	double w[5 * 40], b[5], a[5], c[40];
	int i, j, k;

	rng_seed(&rng, seed);
	for (i = 0; i < 5 * d; i++)
		w[i] = rng_normal(&rng) * 3.0 / sqrt((double)d);
	for (j = 0; j < 5; j++)
	{
		b[j] = rng_uniform(&rng) * 2.0 * M_PI;
		a[j] = 0.5 + rng_uniform(&rng);
	}
	for (k = 0; k < d; k++)
		c[k] = rng_uniform(&rng);
	for (i = 0; i < N_LAST * d; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < N_LAST; i++)
	{
		double v = 0.02 * rng_normal(&rng);

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
}

/* The first n values standardised. */
static void
standardise(const double *y, int n, double *ys)
{
	double mean = 0.0, var = 0.0;
	int i;

	for (i = 0; i < n; i++)
		mean += y[i] / n;
	for (i = 0; i < n; i++)
		var += (y[i] - mean) * (y[i] - mean) / (n - 1);
	for (i = 0; i < n; i++)
		ys[i] = (y[i] - mean) / sqrt(var);
}

/* -(log likelihood + log prior) of model's hyperparameters */
static double
objective(const GpModel *m, const double *x, const double *ys, int n, int d)
{
	double theta[43], value;
	TunerStatus status;
	int k;

	for (k = 0; k < d; k++)
		theta[k] = log(m->lengthscales[k]);
	theta[d] = log(m->outputscale);
	theta[d + 1] = log(m->noise);
	theta[d + 2] = m->mean;
	if (gp_fit_objective(x, ys, n, d, 1, theta, &value, NULL, &status) !=
		TUNER_OK)
	{
		fprintf(stderr, "objective: %s\n", status.message);
		exit(1);
	}
	return value;
}

static void
run(int sparse, uint64_t seed, int d, const double *x, const double *y)
{
	double ys[N_LAST];
	double gap_sum = 0.0, gap_max = -HUGE_VAL, time_sum = 0.0;
	int checks = 0, steps = 0, others = 0, n;
	GpModel *prev = NULL;
	TunerStatus status;

	for (n = N_FIRST; n <= N_LAST; n++)
	{
		GpFitOptions options;
		GpModel *fit = NULL;
		double t0;

		standardise(y, n, ys);
		gp_fit_options_init(&options);
		options.seed = seed * 1000 + n;
		if (prev != NULL)
		{
			options.warm_lengthscales = prev->lengthscales;
			options.warm_outputscale = prev->outputscale;
			options.warm_noise = prev->noise;
			options.warm_mean = prev->mean;
			if (sparse)
				options.restarts =
					suggest_alternate_start(n, &options.first_alternate) ? 2
																		 : 1;
			else
			{
				options.restarts = (n % 4 == 0) ? 2 : 1;
				options.first_alternate = (n / 4) % 3;
			}
		}
		t0 = seconds();
		if (gp_fit_standardized(x, ys, n, d, &options, &fit, &status) !=
			TUNER_OK)
		{
			fprintf(stderr, "fit failed at n = %d: %s\n", n, status.message);
			exit(1);
		}
		if (prev != NULL)
		{
			time_sum += seconds() - t0;
			steps++;
			others += options.restarts == 2;
		}
		if (n % 8 == 0)
		{
			GpFitOptions cold;
			GpModel *ref = NULL;
			double gap;

			gp_fit_options_init(&cold);
			cold.restarts = 4;
			cold.seed = 7 * n;
			if (gp_fit_standardized(x, ys, n, d, &cold, &ref, &status) !=
				TUNER_OK)
			{
				fprintf(stderr, "cold fit failed: %s\n", status.message);
				exit(1);
			}
			gap = objective(fit, x, ys, n, d) - objective(ref, x, ys, n, d);
			gap_sum += gap;
			gap_max = fmax(gap_max, gap);
			checks++;
			gp_model_free(ref);
		}
		gp_model_free(prev);
		prev = fit;
	}
	gp_model_free(prev);
	printf("| %d | %d | %s | %d | %.3f | %.3f | %.1f |\n", d, (int)seed,
		   sparse ? "every 16th" : "every 4th", others, gap_sum / checks,
		   gap_max, 1e3 * time_sum / steps);
}

int
main(int argc, char **argv)
{
	int d = argc > 1 ? atoi(argv[1]) : 10;
	int seeds = argc > 2 ? atoi(argv[2]) : 4;
	double *x, *y;
	int s;

	if (d < 1 || d > 40)
	{
		fprintf(stderr, "d must be 1..40\n");
		return 2;
	}
	x = malloc(sizeof(double) * N_LAST * d);
	y = malloc(sizeof(double) * N_LAST);
	printf("| d | seed | other start | other starts | mean gap | max gap | "
		   "fit ms per trial |\n|---|---|---|---|---|---|---|\n");
	for (s = 1; s <= seeds; s++)
	{
		make_problem((uint64_t)s, d, x, y);
		run(0, (uint64_t)s, d, x, y);
		run(1, (uint64_t)s, d, x, y);
	}
	free(x);
	free(y);
	return 0;
}
