/*
 * alternate_schedule.c
 *	  When should a warm ICM fit also run another start?  Simulates the fits
 *	  of one ICM study as suggest_icm.c makes them (each from the previous
 *	  trial's fit, refinement capped at 40 evaluations) over n = 40..100
 *	  trials of a smooth 4-task problem in d = 10 (rank 2), under three
 *	  schedules for n >= 50:
 *	    every4-cap40  the earlier rule: another start every 4th trial,
 *	                  stopped after 40 evaluations
 *	    none          no other start
 *	    landed        suggest_alternate_start (suggest_internal.h): every
 *	                  SUGGEST_ALTERNATE_SPARSE_PERIOD-th trial, to the end
 *	  At every 5th n it compares the fit's log likelihood with a cold fit of
 *	  four starts (positive gap: the warm fit is worse), and reports the fit
 *	  time of the steps with and without another start.
 *
 *	  usage: alternate_schedule [seeds [cap [schedule]]]
 *	    seeds     1..seeds (default 6)
 *	    cap       the refinement's evaluations from n = 50 (default 40)
 *	    schedule  0, 1 or 2: only that one of the three (default all)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "icm.h"
#include "rng.h"
#include "suggest_internal.h"

#define D       10
#define T       4
#define N_MAX   100
#define N_FIRST 40
#define RANK    2

enum Schedule
{
	EVERY4_CAP40,
	NONE,
	LANDED
};

static const char *schedule_name[] = {"every4-cap40", "none", "landed"};

/* the refinement's cap from SUGGEST_ALTERNATE_SPARSE_N trials on */
static int warm_evals = 40;

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Points and four correlated tasks: a sum of sines, half of it shared. */
static void
make_problem(uint64_t seed, double *x, double *y)
{
	TunerRng rng;
	double phase[2 * D];
	int i, k, t;

	rng_seed(&rng, seed);
	for (k = 0; k < 2 * D; k++)
		phase[k] = 2.0 * M_PI * rng_uniform(&rng);
	for (i = 0; i < N_MAX * D; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < N_MAX; i++)
	{
		const double *xi = x + i * D;
		double f = 0.0;

		for (k = 0; k < D; k++)
			f += sin(3.0 * xi[k] + phase[k]) * (k < 4 ? 1.0 : 0.2);
		for (t = 0; t < T; t++)
		{
			double g = 0.0;

			for (k = 0; k < D; k++)
				g += cos(2.0 * xi[k] * (t + 1) + phase[D + k]);
			y[i * T + t] = (t == 0 ? f : 0.5 * f + 0.5 * g) +
						   0.05 * (rng_uniform(&rng) - 0.5);
		}
	}
}

/* The first n rows of y, each task standardised over them. */
static void
standardise(const double *y, int n, double *ys)
{
	int i, t;

	for (t = 0; t < T; t++)
	{
		double mean = 0.0, var = 0.0;

		for (i = 0; i < n; i++)
			mean += y[i * T + t] / n;
		for (i = 0; i < n; i++)
			var += (y[i * T + t] - mean) * (y[i * T + t] - mean) / (n - 1);
		for (i = 0; i < n; i++)
			ys[i * T + t] = (y[i * T + t] - mean) / sqrt(var);
	}
}

/* Does the step at n run another start, and with how many evaluations. */
static int
other_start(enum Schedule schedule, int n, int *first, int *cap)
{
	*cap = 0; /* icm_fit's max_evals */
	if (n < SUGGEST_ALTERNATE_SPARSE_N || schedule == LANDED)
		return suggest_alternate_start(n, first);
	if (schedule == NONE)
		return 0;
	*first = (n / 4) % 3;
	*cap = 40;
	return n % 4 == 0;
}

static void
run(enum Schedule schedule, uint64_t seed, const double *x, const double *y)
{
	double ys[N_MAX * T];
	double gap_sum = 0.0, gap_max = -HUGE_VAL, time_other = 0.0,
		   time_plain = 0.0;
	int n_other = 0, n_plain = 0, checks = 0, n;
	IcmModel *prev = NULL;
	TunerStatus status;
	char other_ms[32];

	for (n = N_FIRST; n <= N_MAX; n++)
	{
		IcmFitOptions options;
		IcmModel *fit = NULL;
		int first = 0, cap = 0, other = 0;
		double t0, dt;

		standardise(y, n, ys);
		icm_fit_options_init(&options);
		options.rank = RANK;
		options.seed = seed * 1000 + n;
		if (prev != NULL)
		{
			other = other_start(schedule, n, &first, &cap);
			options.warm = prev;
			options.restarts = other ? 2 : 1;
			options.first_alternate = first;
			options.warm_max_evals =
				n < SUGGEST_ALTERNATE_SPARSE_N ? 40 : warm_evals;
			options.alternate_max_evals = cap;
		}
		t0 = seconds();
		if (icm_fit(x, ys, n, D, T, &options, &fit, &status) != TUNER_OK)
		{
			fprintf(stderr, "fit failed at n = %d: %s\n", n, status.message);
			exit(1);
		}
		dt = seconds() - t0;
		if (n >= SUGGEST_ALTERNATE_SPARSE_N)
		{
			if (other)
				time_other += dt, n_other++;
			else
				time_plain += dt, n_plain++;
		}
		if (n >= SUGGEST_ALTERNATE_SPARSE_N && n % 5 == 0)
		{
			IcmFitOptions cold;
			IcmModel *ref = NULL;
			double gap;

			icm_fit_options_init(&cold);
			cold.rank = RANK;
			cold.restarts = 4;
			cold.seed = 7 * n;
			if (icm_fit(x, ys, n, D, T, &cold, &ref, &status) != TUNER_OK)
			{
				fprintf(stderr, "cold fit failed: %s\n", status.message);
				exit(1);
			}
			gap = ref->log_likelihood - fit->log_likelihood;
			gap_sum += gap;
			gap_max = fmax(gap_max, gap);
			checks++;
			icm_model_free(ref);
		}
		icm_model_free(prev);
		prev = fit;
	}
	icm_model_free(prev);
	if (n_other > 0)
		snprintf(other_ms, sizeof(other_ms), "%.1f",
				 1e3 * time_other / n_other);
	else
		snprintf(other_ms, sizeof(other_ms), "-");
	printf("| %d | %s | %.3f | %.3f | %s | %.1f | %.1f |\n", (int)seed,
		   schedule_name[schedule], gap_sum / checks, gap_max, other_ms,
		   1e3 * time_plain / n_plain,
		   1e3 * (time_other + time_plain) / (n_other + n_plain));
}

int
main(int argc, char **argv)
{
	int seeds = argc > 1 ? atoi(argv[1]) : 6;
	int only = argc > 3 ? atoi(argv[3]) : -1;
	double *x;
	double *y;
	int s, k;

	if (argc > 2)
		warm_evals = atoi(argv[2]);
	x = malloc(sizeof(double) * N_MAX * D);
	y = malloc(sizeof(double) * N_MAX * T);

	printf("| seed | schedule | log-lik gap to a 4-start cold fit, mean | "
		   "max | fit ms, step with another start | without | "
		   "mean over n = %d..%d |\n|---|---|---|---|---|---|---|\n",
		   SUGGEST_ALTERNATE_SPARSE_N, N_MAX);
	for (s = 1; s <= seeds; s++)
	{
		make_problem((uint64_t)s, x, y);
		for (k = EVERY4_CAP40; k <= LANDED; k++)
			if (only < 0 || k == only)
				run((enum Schedule)k, (uint64_t)s, x, y);
		fflush(stdout);
	}
	free(x);
	free(y);
	return 0;
}
