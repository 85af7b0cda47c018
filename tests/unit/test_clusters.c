/*
 * test_clusters.c
 *	  Learned parameter clusters: planted clusters (with a U-shaped effect,
 *	  an overlapping parameter, a monotone transform of a metric, noise) are
 *	  recovered; a shuffled-y control finds nothing; results are
 *	  reproducible by seed; missing and constant metrics, ties and bad input
 *	  are handled.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "clusters.h"
#include "rng.h"
#include "unit.h"

#define PD 10					/* planted parameters */
#define PT 3					/* planted metrics */
#define MAXN 100

/*
 * The planted truth: metric 0 <- {0, 1, 2}, metric 1 <- {2, 3, 4, 5}
 * (parameter 2 acts on both, with opposite signs, as write_buffer_size does
 * on latency and compaction time in the RocksDB paper), metric 2 <- {6, 7,
 * 8, 9}.  Each effect is scaled to unit sd over U(0, 1).
 */
static const int planted[PD][PT] = {
	{1, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 1, 0},
	{0, 1, 0}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}
};

/* Random trials of the planted problem with noise sd 0.25 per metric. */
static void
planted_trials(uint64_t seed, int n, double *x, double *y)
{
	TunerRng	rng;
	int			i,
				j;

	rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
	{
		double	   *xi = x + i * PD;
		double	   *yi = y + i * PT;

		for (j = 0; j < PD; j++)
			xi[j] = rng_uniform(&rng);
		/* log-like, U-shaped with its minimum at 0.35 (not the median), linear */
		yi[0] = log(0.05 + xi[0]) / 0.717 + pow(xi[1] - 0.35, 2) / 0.114 +
			xi[2] / 0.289 + 0.25 * rng_normal(&rng);
		yi[1] = -xi[3] / 0.289 + sqrt(xi[4]) / 0.236 + pow(xi[5], 2) / 0.298 -
			xi[2] / 0.289 + 0.25 * rng_normal(&rng);
		/* a step and a saturating effect, seen through exp() */
		yi[2] = exp(0.3 * (xi[6] / 0.289 - xi[7] / 0.289 +
						   (xi[8] > 0.6) / 0.49 + sin(2.5 * xi[9]) / 0.277 +
						   0.25 * rng_normal(&rng)));
	}
}

/* Count agreement of the significant (non-weak) memberships with planted. */
static void
compare(const ClusterResult *r, int *tp, int *fp, int *fn)
{
	int			j,
				t;

	for (j = 0; j < PD; j++)
		for (t = 0; t < PT; t++)
		{
			int			sig = r->member[j * PT + t] && !r->weak[j * PT + t];

			*tp += sig && planted[j][t];
			*fp += sig && !planted[j][t];
			*fn += !sig && planted[j][t];
		}
}

static void
print_membership(const char *label, uint64_t seed, const ClusterResult *r)
{
	int			t,
				j;

	printf("  %s seed %llu:", label, (unsigned long long) seed);
	for (t = 0; t < PT; t++)
	{
		printf(" {");
		for (j = 0; j < PD; j++)
			if (r->member[j * PT + t])
				printf("%s%d%s", "", j, r->weak[j * PT + t] ? "w" : "");
		printf("} conf %.2f", r->confidence[t]);
	}
	printf(" rounds %d\n", r->rounds);
}

static void
test_planted(void)
{
	double		x[MAXN * PD],
				y[MAXN * PT];
	ClusterOptions opt;
	TunerStatus status;
	int			s;
	int			exact = 0,
				fp50 = 0;
	int			tp30 = 0,
				fp30 = 0,
				fn30 = 0;

	/*
	 * n = 50, default alpha: every planted membership is found in every run.
	 * BH at 5% is allowed about 0.05 * 19 / 30 false members per true one,
	 * so some runs are expected to carry one false member; the false ones
	 * over all runs must stay within that (3 of 95 null pairs), and
	 * exactly recovered runs must be confident.
	 */
	cluster_options_init(&opt);
	for (s = 1; s <= 5; s++)
	{
		ClusterResult *r = NULL;
		int			tp = 0,
					fp = 0,
					fn = 0,
					t;

		planted_trials(1000 + s, 50, x, y);
		opt.seed = s;
		CHECK(cluster_learn(x, y, 50, PD, PT, &opt, &r, &status) == TUNER_OK);
		if (r == NULL)
			continue;
		compare(r, &tp, &fp, &fn);
		print_membership("n=50", s, r);
		CHECK(tp == 11 && fn == 0 && fp <= 1);
		fp50 += fp;
		if (fp == 0)
		{
			exact++;
			for (t = 0; t < PT; t++)
				CHECK(r->confidence[t] > 0.3 && r->confidence[t] <= 1.0);
		}
		cluster_result_free(r);
	}
	printf("  n=50: recall 55/55, exact recovery in %d of 5 seeds, "
		   "false positives %d/95\n", exact, fp50);
	CHECK(fp50 <= 3);
	/* n = 30, default alpha: most memberships found, false positives rare */
	cluster_options_init(&opt);
	for (s = 1; s <= 10; s++)
	{
		ClusterResult *r = NULL;

		planted_trials(2000 + s, 30, x, y);
		opt.seed = s;
		CHECK(cluster_learn(x, y, 30, PD, PT, &opt, &r, &status) == TUNER_OK);
		if (r == NULL)
			continue;
		compare(r, &tp30, &fp30, &fn30);
		print_membership("n=30", s, r);
		cluster_result_free(r);
	}
	printf("  n=30 over 10 seeds: recall %d/%d, false positives %d/%d\n",
		   tp30, tp30 + fn30, fp30, 10 * (PD * PT - 11));
	CHECK(tp30 >= 0.6 * (tp30 + fn30));
	CHECK(fp30 <= 4);
}

/* y shuffled against x: no significant member, every cluster weak only. */
static void
test_shuffled_control(void)
{
	double		x[MAXN * PD],
				y[MAXN * PT];
	ClusterOptions opt;
	TunerStatus status;
	int			s;

	cluster_options_init(&opt);
	for (s = 1; s <= 5; s++)
	{
		ClusterResult *r = NULL;
		TunerRng	rng;
		int			i,
					k,
					sig = 0;

		planted_trials(3000 + s, 50, x, y);
		opt.seed = s;
		/* unshuffled the same data are found, so the control is not vacuous */
		CHECK(cluster_learn(x, y, 50, PD, PT, &opt, &r, &status) == TUNER_OK);
		if (r != NULL)
		{
			int			tp = 0,
						fp = 0,
						fn = 0;

			compare(r, &tp, &fp, &fn);
			CHECK(tp >= 10);
			cluster_result_free(r);
			r = NULL;
		}
		rng_seed(&rng, 77 + s);
		for (i = 49; i > 0; i--)
		{
			int			a = (int) rng_below(&rng, i + 1);

			for (k = 0; k < PT; k++)
			{
				double		tmp = y[i * PT + k];

				y[i * PT + k] = y[a * PT + k];
				y[a * PT + k] = tmp;
			}
		}
		CHECK(cluster_learn(x, y, 50, PD, PT, &opt, &r, &status) == TUNER_OK);
		if (r == NULL)
			continue;
		for (k = 0; k < PD * PT; k++)
			sig += r->member[k] && !r->weak[k];
		print_membership("shuffled", s, r);
		CHECK(sig == 0);
		for (k = 0; k < PT; k++)
			CHECK(r->confidence[k] == 0.0);
		cluster_result_free(r);
	}
}

/* Same seed, same bits; another seed, other permutations. */
static void
test_determinism(void)
{
	double		x[MAXN * PD],
				y[MAXN * PT];
	ClusterOptions opt;
	TunerStatus status;
	ClusterResult *a = NULL,
			   *b = NULL,
			   *c = NULL;
	size_t		dt = PD * PT;

	planted_trials(4242, 40, x, y);
	cluster_options_init(&opt);
	opt.seed = 9;
	CHECK(cluster_learn(x, y, 40, PD, PT, &opt, &a, &status) == TUNER_OK);
	CHECK(cluster_learn(x, y, 40, PD, PT, &opt, &b, &status) == TUNER_OK);
	opt.seed = 10;
	CHECK(cluster_learn(x, y, 40, PD, PT, &opt, &c, &status) == TUNER_OK);
	if (a && b && c)
	{
		CHECK(memcmp(a->pvalue, b->pvalue, sizeof(double) * dt) == 0);
		CHECK(memcmp(a->adjusted, b->adjusted, sizeof(double) * dt) == 0);
		CHECK(memcmp(a->partial, b->partial, sizeof(double) * dt) == 0);
		CHECK(memcmp(a->member, b->member, sizeof(int) * dt) == 0);
		CHECK(memcmp(a->confidence, b->confidence, sizeof(double) * PT) == 0);
		/* scores do not depend on the permutations, p-values do */
		CHECK(memcmp(a->score, c->score, sizeof(double) * dt) == 0);
		CHECK(memcmp(a->pvalue, c->pvalue, sizeof(double) * dt) != 0);
	}
	cluster_result_free(a);
	cluster_result_free(b);
	cluster_result_free(c);
}

/*
 * Missing values: a third of metric 1 missing still finds its strong
 * members; a metric seen three times and a constant one form no cluster.
 */
static void
test_missing(void)
{
	enum
	{
		N = 50, T = 5
	};
	double		x[N * PD],
				yp[N * PT],
				y[N * T];
	ClusterOptions opt;
	TunerStatus status;
	ClusterResult *r = NULL;
	int			i,
				j,
				t;

	planted_trials(5005, N, x, yp);
	for (i = 0; i < N; i++)
	{
		for (t = 0; t < PT; t++)
			y[i * T + t] = yp[i * PT + t];
		if (i % 3 == 0)
			y[i * T + 1] = NAN;
		y[i * T + 3] = i < 3 ? yp[i * PT] : NAN;
		y[i * T + 4] = i % 2 ? 7.0 : NAN;
	}
	cluster_options_init(&opt);
	opt.seed = 3;
	CHECK(cluster_learn(x, y, N, PD, T, &opt, &r, &status) == TUNER_OK);
	if (r == NULL)
		return;
	CHECK(r->n_obs[0] == N && r->n_obs[1] == N - 17);
	CHECK(r->n_obs[3] == 3 && r->n_obs[4] == N / 2);
	CHECK(r->valid[0] && r->valid[1] && r->valid[2]);
	CHECK(!r->valid[3] && !r->valid[4]);
	for (t = 3; t < 5; t++)
	{
		CHECK(r->size[t] == 0 && r->confidence[t] == 0.0);
		for (j = 0; j < PD; j++)
		{
			CHECK(isnan(r->score[j * T + t]) && isnan(r->adjusted[j * T + t]));
			CHECK(!r->member[j * T + t]);
		}
	}
	/* metric 1 with 33 observations: its strongest members survive */
	for (j = 3; j <= 5; j++)
		CHECK(r->member[j * T + 1] && !r->weak[j * T + 1]);
	/* every parameter is in some cluster */
	for (j = 0; j < PD; j++)
	{
		int			any = 0;

		for (t = 0; t < T; t++)
			any |= r->member[j * T + t];
		CHECK(any);
	}
	cluster_result_free(r);
}

/*
 * Ties and invariance: a two-valued x scores |Spearman| with average ranks
 * (0.8783 by hand); monotone transforms of x and y change nothing; a U
 * with its minimum off the median scores far above |Spearman|; a constant
 * parameter scores 0 with p = 1 and is placed as a weak member.
 */
static void
test_ties_and_shape(void)
{
	enum
	{
		N = 40
	};
	double		x[N * 3],
				y[N],
				x2[N * 3],
				y2[N];
	double		xt[6] = {0, 0, 0, 1, 1, 1};
	double		yt[6] = {1, 2, 3, 4, 5, 6};
	ClusterOptions opt;
	TunerStatus status;
	ClusterResult *r = NULL,
			   *r2 = NULL;
	TunerRng	rng;
	int			i;

	cluster_options_init(&opt);
	opt.permutations = 199;
	CHECK(cluster_learn(xt, yt, 6, 1, 1, &opt, &r, &status) == TUNER_OK);
	if (r)
		CHECK_CLOSE(r->score[0], 13.5 / sqrt(13.5 * 17.5), 1e-12);
	cluster_result_free(r);
	r = NULL;

	rng_seed(&rng, 5);
	for (i = 0; i < N; i++)
	{
		/* log-scaled integer parameter: five levels, many ties */
		x[i * 3] = floor(5.0 * rng_uniform(&rng)) / 4.0;
		x[i * 3 + 1] = rng_uniform(&rng);
		x[i * 3 + 2] = 0.5;
		y[i] = pow(x[i * 3 + 1] - 0.4, 2) + 0.1 * x[i * 3] +
			0.01 * rng_normal(&rng);
		x2[i * 3] = exp(3.0 * x[i * 3]);
		x2[i * 3 + 1] = pow(x[i * 3 + 1], 3);
		x2[i * 3 + 2] = 0.5;
		y2[i] = -1.0 / (2.0 + y[i]);	/* increasing */
	}
	CHECK(cluster_learn(x, y, N, 3, 1, &opt, &r, &status) == TUNER_OK);
	CHECK(cluster_learn(x2, y2, N, 3, 1, &opt, &r2, &status) == TUNER_OK);
	if (r && r2)
	{
		double		sx = 0,
					sy = 0,
					sxy = 0,
					sxx = 0,
					syy = 0,
					spearman;
		double		rx[N],
					ry[N];
		int			k;

		for (i = 0; i < 3; i++)
		{
			CHECK_CLOSE(r->score[i], r2->score[i], 1e-12);
			CHECK(r->pvalue[i] == r2->pvalue[i]);
		}
		/* |Spearman| of the U parameter, by counting (no ties in x, y) */
		for (i = 0; i < N; i++)
		{
			rx[i] = ry[i] = 1;
			for (k = 0; k < N; k++)
			{
				rx[i] += x[k * 3 + 1] < x[i * 3 + 1];
				ry[i] += y[k] < y[i];
			}
			sx += rx[i];
			sy += ry[i];
		}
		for (i = 0; i < N; i++)
		{
			sxy += (rx[i] - sx / N) * (ry[i] - sy / N);
			sxx += (rx[i] - sx / N) * (rx[i] - sx / N);
			syy += (ry[i] - sy / N) * (ry[i] - sy / N);
		}
		spearman = fabs(sxy / sqrt(sxx * syy));
		printf("  U at 0.4: |Spearman| %.3f, rank quadratic %.3f\n",
			   spearman, r->score[1]);
		CHECK(r->score[1] > 0.8 && r->score[1] > spearman + 0.2);
		CHECK(r->member[1] && !r->weak[1]);
		CHECK(r->member[0] && !r->weak[0]);
		CHECK(r->score[2] == 0.0 && r->pvalue[2] == 1.0);
		CHECK(r->member[2] && r->weak[2]);
	}
	cluster_result_free(r);
	cluster_result_free(r2);
}

static void
test_errors(void)
{
	double		x[8 * 2],
				y[8 * 2];
	ClusterOptions opt;
	TunerStatus status;
	ClusterResult *r = NULL;
	int			i;

	for (i = 0; i < 16; i++)
	{
		x[i] = (i * 7 % 16) / 16.0;
		y[i] = (i * 5 % 16) / 16.0;
	}
	cluster_options_init(&opt);
	opt.permutations = 99;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_OK);
	cluster_result_free(r);
	r = NULL;

	CHECK(cluster_learn(x, y, 3, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	CHECK(strstr(status.message, "at least 4 trials") != NULL);
	CHECK(cluster_learn(x, y, 8, 0, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	CHECK(cluster_learn(x, y, 8, 2, 0, &opt, &r, &status) == TUNER_ERR_INVALID);
	x[5] = NAN;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	CHECK(strstr(status.message, "trial 2, parameter 1") != NULL);
	x[5] = INFINITY;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	x[5] = 0.5;
	y[3] = -INFINITY;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	CHECK(strstr(status.message, "metric 1 of trial 1") != NULL);
	y[3] = 0.25;
	opt.alpha = 0.0;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	opt.alpha = 0.05;
	opt.permutations = -1;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	opt.permutations = 99;
	opt.refine_rounds = 11;
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	opt.refine_rounds = 2;
	/* no usable metric: one constant, one seen three times */
	for (i = 0; i < 8; i++)
	{
		y[i * 2] = 1.0;
		y[i * 2 + 1] = i < 3 ? i : NAN;
	}
	CHECK(cluster_learn(x, y, 8, 2, 2, &opt, &r, &status) == TUNER_ERR_INVALID);
	CHECK(strstr(status.message, "no metric") != NULL);
	CHECK(r == NULL);
}

/* Printed, not asserted: the cost at n = 100, d = 10, T = 4. */
static void
time_default(void)
{
	enum
	{
		N = 100, D = 10, T = 4
	};
	static double x[N * D],
				y[N * T];
	ClusterOptions opt;
	TunerStatus status;
	ClusterResult *r = NULL;
	TunerRng	rng;
	struct timespec t0,
				t1,
				c0,
				c1;
	int			i,
				j;

	rng_seed(&rng, 11);
	for (i = 0; i < N; i++)
	{
		for (j = 0; j < D; j++)
			x[i * D + j] = rng_uniform(&rng);
		for (j = 0; j < T; j++)
			y[i * T + j] = x[i * D + 2 * j] - x[i * D + 2 * j + 1] +
				pow(x[i * D + 8 + j % 2] - 0.4, 2) + 0.2 * rng_normal(&rng);
	}
	cluster_options_init(&opt);
	/* CPU time too: wall time swings with whatever else the machine runs */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	CHECK(cluster_learn(x, y, N, D, T, &opt, &r, &status) == TUNER_OK);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (r)
		printf("  n=100 d=10 T=4: %.1f ms wall, %.1f ms cpu, %d permutations, "
			   "%d rounds\n",
			   (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
			   (c1.tv_sec - c0.tv_sec) * 1e3 + (c1.tv_nsec - c0.tv_nsec) / 1e6,
			   r->permutations, r->rounds);
	cluster_result_free(r);
}

void
test_clusters(void)
{
	test_planted();
	test_shuffled_control();
	test_determinism();
	test_missing();
	test_ties_and_shape();
	test_errors();
	time_default();
}
