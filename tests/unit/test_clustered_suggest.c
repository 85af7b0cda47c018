/*
 * test_clustered_suggest.c
 *	  tuner_suggest with SUGGEST_ALG_CLUSTERED_ICM: valid, untaken and
 *	  reproducible points; parameters in no cluster keep the incumbent's
 *	  values; a parameter in two clusters is set by the additive model; a
 *	  cluster whose metric is constant or missing still proposes; running
 *	  trials; clusters with nothing new to propose hand over to one GP over
 *	  every parameter; a small space tried to exhaustion; bad input.  And that on an
 *	  additive problem clustered ICM with the true clusters improves on the
 *	  initial design and on random search of the same budget.  Prints the
 *	  median suggestion time at d = 10, n = 25 and n = 100.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acquisition.h"
#include "icm.h"
#include "icm_posterior.h"
#include "rng.h"
#include "suggest.h"
#include "suggest_internal.h"
#include "unit.h"

#define CD		10				/* parameters at most */
#define CAUX	3				/* auxiliary metrics, one per component */
#define CK		3				/* clusters at most */
#define CMAX_N	110

/* Where each component of the additive problem is minimised. */
static const double centre[CD] = {0.2, 0.7, 0.4, 0.8, 0.3, 0.6, 0.1, 0.5,
0.9, 0.35};

/*
 * Component g of the additive problem: a bowl over parameters 3g .. 3g + 2
 * (the last also over parameter 9 when d = 10), with a ripple so that it
 * is not a pure quadratic.
 */
static double
component(const double *x, int d, int g)
{
	double		v = 0.0;
	int			k,
				last = (g == 2 && d == 10) ? 10 : 3 * g + 3;

	for (k = 3 * g; k < last && k < d; k++)
		v += (x[k] - centre[k]) * (x[k] - centre[k]) +
			0.05 * sin(9.0 * x[k]);
	return v;
}

static double
additive(const double *x, int d, double *aux)
{
	double		y = 0.0;
	int			g;

	for (g = 0; g < CAUX; g++)
	{
		aux[g] = component(x, d, g);
		y += aux[g];
	}
	return y;
}

typedef struct CStudy
{
	ParamSpec	space[CD];
	double		x[CMAX_N * CD];
	double		y[CMAX_N];
	double		aux[CMAX_N * CAUX];
	int			members[CK * CD];
	int			metric[CK];
	double		cfg[CD];
	double		ls[CD];
	int			used[1 + CAUX];
	int			cused[CK];
	SuggestInput in;
	SuggestResult out;
} CStudy;

/* Free the models a suggestion returned. */
static void
result_free(CStudy *s)
{
	int			c;

	for (c = 0; s->out.cluster_icm != NULL && c < s->in.n_clusters; c++)
		icm_model_free(s->out.cluster_icm[c]);
	tuner_free(s->out.cluster_icm);
	s->out.cluster_icm = NULL;
}

/*
 * A float space of d parameters with n random trials of the additive
 * problem and its true clusters: groups of three (the last also holds
 * parameter 9 when d = 10), each with its component as metric.
 */
static void
cstudy_init(CStudy *s, int d, int n, uint64_t data_seed)
{
	TunerRng	rng;
	int			i,
				k,
				c;

	memset(s, 0, sizeof(CStudy));
	for (k = 0; k < d; k++)
	{
		s->space[k].kind = PARAM_FLOAT;
		s->space[k].low = 0.0;
		s->space[k].high = 1.0;
	}
	rng_seed(&rng, data_seed);
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < d; k++)
			s->x[i * d + k] = rng_uniform(&rng);
		s->y[i] = additive(s->x + i * d, d, s->aux + i * CAUX);
	}
	for (c = 0; c < CK; c++)
	{
		for (k = 3 * c; k < 3 * c + 3; k++)
			s->members[c * d + k] = 1;
		s->metric[c] = c;
	}
	if (d == 10)
		s->members[2 * d + 9] = 1;
	s->in.params = s->space;
	s->in.d = d;
	s->in.x_observed = s->x;
	s->in.y_observed = s->y;
	s->in.n_observed = n;
	s->in.n_initial = 5;
	s->in.design_index = n;
	s->in.design_seed = 3;
	s->in.seed = 17;
	s->in.algorithm = SUGGEST_ALG_CLUSTERED_ICM;
	s->in.y_aux = s->aux;
	s->in.n_aux = CAUX;
	s->in.n_clusters = CK;
	s->in.cluster_members = s->members;
	s->in.cluster_metric = s->metric;
	s->out.config = s->cfg;
	s->out.lengthscales = s->ls;
	s->out.task_used = s->used;
	s->out.cluster_used = s->cused;
}

static int
csuggest_ok(CStudy *s)
{
	TunerStatus st;
	TunerErrorCode rc;

	result_free(s);
	rc = tuner_suggest(&s->in, &s->out, &st);
	if (rc != TUNER_OK)
		fprintf(stderr, "suggest failed: %s\n", st.message);
	return rc == TUNER_OK;
}

static int
ctaken(const CStudy *s, const double *c)
{
	int			i,
				d = s->in.d;

	for (i = 0; i < s->in.n_observed; i++)
		if (memcmp(s->x + i * d, c, sizeof(double) * d) == 0)
			return 1;
	return 0;
}

/* Add the suggested point to the history. */
static void
observe(CStudy *s)
{
	int			n = s->in.n_observed,
				d = s->in.d;

	memcpy(s->x + n * d, s->cfg, sizeof(double) * d);
	s->y[n] = additive(s->cfg, d, s->aux + n * CAUX);
	s->in.n_observed = n + 1;
	s->in.design_index = n + 1;
}

/* A study run with mixed kinds: valid, new, model points; what is reported. */
static void
test_study(void)
{
	CStudy		s;
	int			step,
				k,
				c;

	cstudy_init(&s, 9, 8, 5);
	s.space[1].kind = PARAM_INT;
	s.space[1].low = 0;
	s.space[1].high = 20;
	s.space[4].kind = PARAM_CATEGORICAL;
	s.space[4].n_choices = 4;
	s.space[8].kind = PARAM_BOOL;
	for (k = 0; k < 8; k++)
	{
		s.x[k * 9 + 1] = round(s.x[k * 9 + 1] * 20);
		s.x[k * 9 + 4] = floor(s.x[k * 9 + 4] * 3.999);
		s.x[k * 9 + 8] = s.x[k * 9 + 8] < 0.5 ? 0 : 1;
		s.y[k] = additive(s.x + k * 9, 9, s.aux + k * CAUX);
	}
	for (step = 0; step < 6; step++)
	{
		s.in.seed = 200 + step;
		if (!csuggest_ok(&s))
		{
			CHECK(0);
			break;
		}
		CHECK(s.out.source == SUGGEST_MODEL);
		CHECK(!ctaken(&s, s.cfg));
		CHECK(s.cfg[1] == round(s.cfg[1]) && s.cfg[1] >= 0 && s.cfg[1] <= 20);
		CHECK(s.cfg[4] == round(s.cfg[4]) && s.cfg[4] >= 0 && s.cfg[4] <= 3);
		CHECK(s.cfg[8] == 0 || s.cfg[8] == 1);
		for (k = 0; k < 9; k++)
		{
			CHECK(s.cfg[k] >= s.space[k].low);
			CHECK(isfinite(s.ls[k]) && s.ls[k] > 0);
		}
		CHECK(s.out.n_cluster_models == 3);
		for (c = 0; c < 3; c++)
		{
			CHECK(s.out.cluster_icm != NULL && s.out.cluster_icm[c] != NULL);
			if (s.out.cluster_icm != NULL && s.out.cluster_icm[c] != NULL)
			{
				CHECK(s.out.cluster_icm[c]->T == 2);
				CHECK(s.out.cluster_icm[c]->d == 3);
				CHECK(s.out.cluster_icm[c]->n == s.in.n_observed);
			}
			CHECK(s.cused[c] == 1);
			CHECK(s.used[1 + c] == 1);
		}
		CHECK(s.used[0] == 0);
		CHECK(isfinite(s.out.predicted_mean) && s.out.predicted_sd > 0);
		CHECK(isfinite(s.out.log_ei));
		CHECK(s.out.fit_seconds > 0);
		CHECK(isfinite(s.out.outputscale) && isfinite(s.out.log_likelihood));
		observe(&s);
	}
	result_free(&s);

	/* before the design is done: design points, no models */
	cstudy_init(&s, 9, 3, 5);
	CHECK(csuggest_ok(&s));
	CHECK(s.out.source == SUGGEST_DESIGN);
	CHECK(s.out.cluster_icm == NULL && s.out.n_cluster_models == 0);
	result_free(&s);
}

/* Same input and seed, same point; another seed may differ but is valid. */
static void
test_determinism(void)
{
	CStudy		a,
				b;

	cstudy_init(&a, 10, 15, 7);
	cstudy_init(&b, 10, 15, 7);
	CHECK(csuggest_ok(&a));
	CHECK(csuggest_ok(&b));
	CHECK(memcmp(a.cfg, b.cfg, sizeof(double) * 10) == 0);
	CHECK(a.out.log_ei == b.out.log_ei);
	CHECK(a.out.predicted_mean == b.out.predicted_mean);
	b.in.seed = 18;
	CHECK(csuggest_ok(&b));
	CHECK(!ctaken(&b, b.cfg));
	result_free(&a);
	result_free(&b);
}

/* Parameters in no cluster keep the best trial's values. */
static void
test_unclustered_keep_incumbent(void)
{
	CStudy		s;
	int			i,
				best = 0;

	cstudy_init(&s, 10, 12, 9);
	/* parameters 2 and 9 in no cluster */
	s.members[0 * 10 + 2] = 0;
	s.members[2 * 10 + 9] = 0;
	for (i = 1; i < 12; i++)
		if (s.y[i] < s.y[best])
			best = i;
	CHECK(csuggest_ok(&s));
	CHECK(s.out.source == SUGGEST_MODEL);
	CHECK(s.cfg[2] == s.x[best * 10 + 2]);
	CHECK(s.cfg[9] == s.x[best * 10 + 9]);
	CHECK(isnan(s.ls[2]) && isnan(s.ls[9]));
	CHECK(isfinite(s.ls[0]) && isfinite(s.ls[8]));
	CHECK(s.out.cluster_icm != NULL && s.out.cluster_icm[0]->d == 2);
	CHECK(!ctaken(&s, s.cfg));
	result_free(&s);
}

/* log EI of cluster c's objective at the config restricted to its members. */
static double
cluster_log_ei(const CStudy *s, int c, double *lengthscale0)
{
	const IcmModel *m = s->out.cluster_icm[c];
	IcmPosterior *ip = icm_posterior_create(m, 0, NULL);
	Posterior	post;
	double		u[CD],
				scratch[512],
				best = HUGE_VAL,
				v;
	int			i,
				j,
				k = 0;

	for (i = 0; i < m->n; i++)
		best = fmin(best, m->y[i * m->T]);
	for (j = 0; j < s->in.d; j++)
		if (s->members[c * s->in.d + j])
		{
			if (j == 0)
				*lengthscale0 = m->lengthscales[k];
			u[k++] = s->cfg[j];	/* [0, 1] floats: native = unit */
		}
	icm_posterior_as_posterior(ip, &post);
	v = acquisition_log_ei(&post, best, u, NULL, scratch);
	icm_posterior_free(ip);
	return v;
}

/*
 * Parameter 0 in clusters 0 and 1: one additive model over all clusters
 * (suggest_additive.c) sets it, every cluster is used, and parameter 0's
 * lengthscale is that of one of the two clusters it is in.
 */
static void
test_overlap(void)
{
	CStudy		s;
	int			round_;

	for (round_ = 0; round_ < 3; round_++)
	{
		double		ls0 = NAN,
					ls1 = NAN;

		cstudy_init(&s, 9, 14, 11 + round_);
		s.members[1 * 9 + 0] = 1;
		CHECK(csuggest_ok(&s));
		CHECK(s.out.source == SUGGEST_MODEL);
		CHECK(s.out.cluster_icm != NULL && s.out.cluster_icm[1]->d == 4);
		(void) cluster_log_ei(&s, 0, &ls0);
		(void) cluster_log_ei(&s, 1, &ls1);
		CHECK(s.ls[0] == ls0 || s.ls[0] == ls1);
		CHECK(s.cused[0] == 1 && s.cused[1] == 1 && s.cused[2] == 1);
		CHECK(isfinite(s.out.log_ei));
		CHECK(!ctaken(&s, s.cfg));
		result_free(&s);
	}
}

/*
 * Cluster 0's metric constant, cluster 1's never reported, cluster 2's
 * reported once: each is a one-task model and still proposes.  A metric
 * reported at some trials only is a 2-task model on the full path.
 */
static void
test_unusable_metrics(void)
{
	CStudy		s;
	int			i,
				c;

	cstudy_init(&s, 9, 12, 13);
	for (i = 0; i < 12; i++)
	{
		s.aux[i * CAUX + 0] = 4.0;
		s.aux[i * CAUX + 1] = NAN;
		if (i > 0)
			s.aux[i * CAUX + 2] = NAN;
	}
	CHECK(csuggest_ok(&s));
	CHECK(s.out.source == SUGGEST_MODEL && !ctaken(&s, s.cfg));
	CHECK(s.out.n_cluster_models == 3);
	for (c = 0; c < 3; c++)
	{
		CHECK(s.out.cluster_icm[c]->T == 1);
		CHECK(s.cused[c] == 1);
		CHECK(s.used[1 + c] == -1);
	}
	result_free(&s);

	cstudy_init(&s, 9, 12, 13);
	for (i = 0; i < 12; i += 3)
		s.aux[i * CAUX + 1] = NAN;
	CHECK(csuggest_ok(&s));
	CHECK(s.out.cluster_icm[1]->T == 2 && !s.out.cluster_icm[1]->kronecker);
	CHECK(s.out.cluster_icm[0]->kronecker);
	CHECK(s.out.source == SUGGEST_MODEL && !ctaken(&s, s.cfg));
	result_free(&s);
}

/* Running trials are fantasised: the point differs from them. */
static void
test_pending(void)
{
	CStudy		s;
	double		pending[2 * 9];

	cstudy_init(&s, 9, 12, 15);
	CHECK(csuggest_ok(&s));
	memcpy(pending, s.cfg, sizeof(double) * 9);
	memcpy(pending + 9, s.x, sizeof(double) * 9);
	pending[9] = 0.5;
	s.in.x_pending = pending;
	s.in.n_pending = 2;
	CHECK(csuggest_ok(&s));
	CHECK(memcmp(pending, s.cfg, sizeof(double) * 9) != 0);
	CHECK(memcmp(pending + 9, s.cfg, sizeof(double) * 9) != 0);
	CHECK(!ctaken(&s, s.cfg));
	CHECK(s.out.cluster_icm[0]->n == 12);
	result_free(&s);
}

/*
 * Two booleans, one per cluster, and a float in none, with all four
 * boolean combinations tried at the incumbent's float: every combination
 * the clusters can propose is taken.  The step is then one GP over all
 * three parameters (it was a random point): a model point, with the GP's
 * lengthscales for every parameter and no cluster marked used.  The
 * metrics are unrelated to the objective, so the additive step does not
 * apply.
 */
static void
test_converged_clusters(void)
{
	static const double trials[7][3] = {
		{0, 0, 0.3}, {0, 1, 0.3}, {1, 0, 0.3}, {1, 1, 0.3},
		{0, 0, 0.9}, {1, 1, 0.05}, {0, 1, 0.7}};
	CStudy		s;
	int			i,
				k;

	cstudy_init(&s, 3, 0, 1);
	s.space[0].kind = PARAM_BOOL;
	s.space[1].kind = PARAM_BOOL;
	memset(s.members, 0, sizeof(s.members));
	s.members[0 * 3 + 0] = 1;
	s.members[1 * 3 + 1] = 1;
	s.in.n_clusters = 2;
	for (i = 0; i < 7; i++)
	{
		memcpy(s.x + i * 3, trials[i], sizeof(double) * 3);
		s.y[i] = 4.0 * (trials[i][2] - 0.5) * (trials[i][2] - 0.5) +
			0.3 * (trials[i][0] + trials[i][1]);
		s.aux[i * CAUX + 0] = sin(7.0 * i);
		s.aux[i * CAUX + 1] = cos(5.0 * i);
		s.aux[i * CAUX + 2] = NAN;
	}
	s.in.n_observed = 7;
	s.in.design_index = 7;
	CHECK(csuggest_ok(&s));
	CHECK(s.out.source == SUGGEST_MODEL);
	CHECK(!ctaken(&s, s.cfg));
	CHECK(isfinite(s.out.predicted_mean) && s.out.predicted_sd > 0.0);
	CHECK(isfinite(s.out.log_ei));
	for (k = 0; k < 3; k++)
		CHECK(isfinite(s.ls[k]) && s.ls[k] > 0.0);
	CHECK(s.cused[0] == 0 && s.cused[1] == 0);
	CHECK(s.out.n_cluster_models == 2);
	CHECK(s.out.fit_seconds > 0.0);
	result_free(&s);
}

/*
 * Three booleans, one per cluster: every one of the 8 points comes once
 * (combinations, then deviations, then the full-space GP), then EXHAUSTED.
 */
static void
test_exhaustion(void)
{
	CStudy		s;
	TunerStatus st;
	int			step,
				i,
				k;

	cstudy_init(&s, 3, 0, 1);
	for (k = 0; k < 3; k++)
		s.space[k].kind = PARAM_BOOL;
	memset(s.members, 0, sizeof(s.members));
	for (k = 0; k < 3; k++)
		s.members[k * 3 + k] = 1;
	s.in.n_initial = 2;
	for (step = 0; step < 8; step++)
	{
		CHECK(csuggest_ok(&s));
		CHECK(!ctaken(&s, s.cfg));
		for (i = 0; i < 3; i++)
			CHECK(s.cfg[i] == 0 || s.cfg[i] == 1);
		observe(&s);
	}
	result_free(&s);
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_EXHAUSTED);
	result_free(&s);
}

static void
expect_invalid(CStudy *s, const char *fragment)
{
	TunerStatus st;

	result_free(s);
	CHECK(tuner_suggest(&s->in, &s->out, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, fragment) != NULL);
	if (strstr(st.message, fragment) == NULL)
		fprintf(stderr, "message: %s (expected \"%s\")\n", st.message,
				fragment);
	CHECK(s->out.cluster_icm == NULL);
}

static void
test_bad_input(void)
{
	CStudy		s;

	cstudy_init(&s, 9, 10, 3);
	s.in.n_clusters = 0;
	expect_invalid(&s, "at least one cluster");
	s.in.n_clusters = -2;
	expect_invalid(&s, "at least one cluster");

	cstudy_init(&s, 9, 10, 3);
	s.in.cluster_members = NULL;
	expect_invalid(&s, "missing");
	cstudy_init(&s, 9, 10, 3);
	s.in.cluster_metric = NULL;
	expect_invalid(&s, "missing");

	cstudy_init(&s, 9, 10, 3);
	s.metric[1] = 3;
	expect_invalid(&s, "cluster 2 names auxiliary metric 4");
	s.metric[1] = -1;
	expect_invalid(&s, "cluster 2 names auxiliary metric 0");

	cstudy_init(&s, 9, 10, 3);
	s.in.n_aux = 0;
	s.in.y_aux = NULL;
	expect_invalid(&s, "but there are 0");

	cstudy_init(&s, 9, 10, 3);
	s.members[2 * 9 + 4] = 2;
	expect_invalid(&s, "must be 0 or 1");

	cstudy_init(&s, 9, 10, 3);
	memset(s.members + 9, 0, sizeof(int) * 9);
	expect_invalid(&s, "cluster 2 has no parameters");

	/* checked during the design too */
	cstudy_init(&s, 9, 0, 3);
	s.in.n_clusters = 0;
	expect_invalid(&s, "at least one cluster");

	/* ignored by the other algorithms */
	cstudy_init(&s, 9, 10, 3);
	s.in.algorithm = SUGGEST_ALG_ICM;
	s.in.n_clusters = 0;
	s.in.cluster_members = NULL;
	CHECK(csuggest_ok(&s));
	if (s.out.icm != NULL)
		icm_model_free(s.out.icm);
	s.out.icm = NULL;
}

/* The additive problem's minimum over [0, 1]^d: it is separable. */
static double
additive_minimum(int d)
{
	double		total = 0.0;
	int			k,
				i;

	for (k = 0; k < d; k++)
	{
		double		lowest = HUGE_VAL;

		for (i = 0; i <= 10000; i++)
		{
			double		x = i / 10000.0;

			lowest = fmin(lowest, (x - centre[k]) * (x - centre[k]) +
						  0.05 * sin(9.0 * x));
		}
		total += lowest;
	}
	return total;
}

/*
 * The additive problem at d = 9 from 10 random trials: OPT_STEPS steps of
 * clustered ICM with the true clusters must close most of the gap
 * between the initial design's best and the minimum, and beat random
 * search with the same trials.  (The per-cluster proposals alone closed
 * about half for this seed; the additive model closes all of it, so the
 * bound leaves room for other seeds.)
 */
#define OPT_STEPS 15
static void
test_optimisation(void)
{
	CStudy		s;
	TunerRng	rng;
	double		design_best = HUGE_VAL,
				best = HUGE_VAL,
				random_best,
				minimum = additive_minimum(9),
				u[9],
				aux[CAUX];
	int			i,
				k;

	cstudy_init(&s, 9, 10, 21);
	for (i = 0; i < 10; i++)
		design_best = fmin(design_best, s.y[i]);
	for (i = 0; i < OPT_STEPS; i++)
	{
		s.in.seed = 1000 + i;
		if (!csuggest_ok(&s))
		{
			CHECK(0);
			break;
		}
		observe(&s);
		best = fmin(best, s.y[s.in.n_observed - 1]);
	}
	result_free(&s);
	/* random search: the same 10 trials and OPT_STEPS more */
	random_best = design_best;
	rng_seed(&rng, 99);
	for (i = 0; i < OPT_STEPS; i++)
	{
		for (k = 0; k < 9; k++)
			u[k] = rng_uniform(&rng);
		random_best = fmin(random_best, additive(u, 9, aux));
	}
	printf("  clustered ICM additive d=9: minimum %.4f, design best %.4f, "
		   "after %d steps %.4f (gap left %.0f%%), random search %.4f\n",
		   minimum, design_best, OPT_STEPS, best,
		   100 * (best - minimum) / (design_best - minimum), random_best);
	CHECK(best < design_best);
	CHECK(best - minimum < 0.3 * (design_best - minimum));
	CHECK(best < random_best);
}

static int
double_cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : (x > y);
}

/* Median wall time of one suggestion, d = 10, clusters of 3, 3 and 4. */
static void
report_timing(int n)
{
	CStudy	   *s = malloc(sizeof(CStudy));
	double		times[5],
				fits[5],
				icm_times[5];
	int			r;

	for (r = 0; r < 5; r++)
	{
		struct timespec t0,
					t1;

		cstudy_init(s, 10, n, 31);
		s->in.seed = 500 + r;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(csuggest_ok(s));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		times[r] = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
		fits[r] = s->out.fit_seconds;
		result_free(s);

		/* for scale: one cold ICM over all 10 parameters and 4 tasks */
		s->in.algorithm = SUGGEST_ALG_ICM;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		CHECK(csuggest_ok(s));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		icm_times[r] = (t1.tv_sec - t0.tv_sec) +
			1e-9 * (t1.tv_nsec - t0.tv_nsec);
		icm_model_free(s->out.icm);
		s->out.icm = NULL;
	}
	qsort(times, 5, sizeof(double), double_cmp);
	qsort(fits, 5, sizeof(double), double_cmp);
	qsort(icm_times, 5, sizeof(double), double_cmp);
	printf("  clustered ICM d=10, 3 clusters, n=%d: median %.1f ms "
		   "(min %.1f, max %.1f; fits %.1f ms); one cold ICM, 4 tasks: "
		   "%.1f ms\n", n, 1e3 * times[2], 1e3 * times[0], 1e3 * times[4],
		   1e3 * fits[2], 1e3 * icm_times[2]);
	free(s);
}

/* The warm-start arrays of the previous step's cluster fits. */
typedef struct ClusterWarm
{
	int			T[CK];
	int			rank[CK];
	double		ls[CK * CD];
	double		W[CK * 4];
	double		v[CK * 2];
	double		noise[CK * 2];
	double		mean[CK * 2];
} ClusterWarm;

static void
keep_warm(const CStudy *s, ClusterWarm *w)
{
	int			c,
				j,
				k,
				d = s->in.d;

	memset(w, 0, sizeof(ClusterWarm));
	for (c = 0; c < s->in.n_clusters; c++)
	{
		const IcmModel *m = s->out.cluster_icm[c];

		if (m == NULL)
			continue;
		w->T[c] = m->T;
		w->rank[c] = m->rank;
		for (j = 0, k = 0; j < d; j++)
			w->ls[c * d + j] = s->members[c * d + j] ? m->lengthscales[k++] : NAN;
		memcpy(w->W + c * 4, m->W, sizeof(double) * m->T * m->rank);
		memcpy(w->v + c * 2, m->v, sizeof(double) * m->T);
		memcpy(w->noise + c * 2, m->noise, sizeof(double) * m->T);
		memcpy(w->mean + c * 2, m->mean, sizeof(double) * m->T);
	}
}

static void
use_warm(CStudy *s, const ClusterWarm *w)
{
	s->in.warm_cluster_T = w->T;
	s->in.warm_cluster_rank = w->rank;
	s->in.warm_cluster_lengthscales = w->ls;
	s->in.warm_cluster_W = w->W;
	s->in.warm_cluster_v = w->v;
	s->in.warm_cluster_noise = w->noise;
	s->in.warm_cluster_mean = w->mean;
}

/*
 * Warm starts: refining the previous step's fits never ends below where
 * they started (on the same data), a later step from them is valid, and
 * a warm start that does not match or is invalid is ignored.
 */
static void
test_warm_start(void)
{
	CStudy		s;
	ClusterWarm w,
				bad;
	double		before[CK];
	int			c;

	cstudy_init(&s, 10, 21, 9);
	CHECK(csuggest_ok(&s));
	keep_warm(&s, &w);
	for (c = 0; c < CK; c++)
		before[c] = s.out.cluster_icm[c] != NULL ?
			s.out.cluster_icm[c]->log_likelihood : NAN;

	/* same data, from the fits just made: the models change little */
	use_warm(&s, &w);
	CHECK(csuggest_ok(&s));
	for (c = 0; c < CK; c++)
		if (s.out.cluster_icm[c] != NULL && !isnan(before[c]))
			CHECK(fabs(s.out.cluster_icm[c]->log_likelihood - before[c]) <
				  0.05 * fabs(before[c]) + 1.0);

	/* the next steps from the previous fits */
	for (c = 0; c < 4; c++)
	{
		keep_warm(&s, &w);
		observe(&s);
		use_warm(&s, &w);
		CHECK(csuggest_ok(&s));
		CHECK(s.out.source == SUGGEST_MODEL);
		CHECK(!ctaken(&s, s.cfg));
	}

	/* a previous fit of another shape, or with a bad value, is ignored */
	bad = w;
	bad.T[0] = 1;
	bad.v[2] = -1.0;
	bad.ls[2 * 10 + 6] = NAN;
	use_warm(&s, &bad);
	CHECK(csuggest_ok(&s));
	CHECK(s.out.source == SUGGEST_MODEL);
	result_free(&s);

	/* what the warm start saves at n = 100 (printed, not asserted) */
	cstudy_init(&s, 10, 99, 4);
	CHECK(csuggest_ok(&s));
	{
		double		cold = s.out.fit_seconds;

		keep_warm(&s, &w);
		observe(&s);
		CHECK(csuggest_ok(&s));
		cold = 0.5 * (cold + s.out.fit_seconds);
		keep_warm(&s, &w);
		observe(&s);
		use_warm(&s, &w);
		CHECK(csuggest_ok(&s));
		printf("  clustered ICM d=10, 3 clusters, n=101: fits %.1f ms cold, "
			   "%.1f ms from the previous step's fits\n",
			   1e3 * cold, 1e3 * s.out.fit_seconds);
	}
	result_free(&s);
}

/*
 * suggest_alternate_start's schedule: every fourth trial below
 * SUGGEST_ALTERNATE_SPARSE_N, every SUGGEST_ALTERNATE_SPARSE_PERIOD-th from
 * there, rotating through the three other starts.
 */
static void
test_alternate_schedule(void)
{
	int			n,
				first,
				last = -1,
				runs = 0;

	for (n = 1; n < SUGGEST_ALTERNATE_SPARSE_N; n++)
		CHECK(suggest_alternate_start(n, &first) == (n % 4 == 0));
	CHECK(suggest_alternate_start(SUGGEST_ALTERNATE_SPARSE_N, &first) == 0);
	for (n = SUGGEST_ALTERNATE_SPARSE_N; n < 400; n++)
	{
		int			other = suggest_alternate_start(n, &first);

		CHECK(other == (n % SUGGEST_ALTERNATE_SPARSE_PERIOD == 0));
		if (!other)
			continue;
		CHECK(first >= 0 && first < 3 && first != last);
		last = first;
		runs++;
	}
	CHECK(runs == 399 / SUGGEST_ALTERNATE_SPARSE_PERIOD -
		  (SUGGEST_ALTERNATE_SPARSE_N - 1) / SUGGEST_ALTERNATE_SPARSE_PERIOD);
}

/* Most likelihood evaluations any cluster's fit made in s's last step. */
static int
most_cluster_evals(const CStudy *s)
{
	int			c,
				most = 0;

	for (c = 0; c < s->in.n_clusters; c++)
	{
		CHECK(s->out.cluster_icm[c] != NULL);
		CHECK(s->out.cluster_icm[c]->fit_evals > 0);
		if (s->out.cluster_icm[c]->fit_evals > most)
			most = s->out.cluster_icm[c]->fit_evals;
	}
	return most;
}

/*
 * Warm clustered steps follow the schedule: at n = 100 each cluster only
 * refines its previous fit (at most CLUSTER_WARM_MAX_EVALS = 40
 * evaluations); at n = 96, a SUGGEST_ALTERNATE_SPARSE_PERIOD multiple, one
 * also runs another start to the end, past what the refinement may take.
 */
static void
test_alternate_steps(void)
{
	CStudy	   *s = malloc(sizeof(CStudy));
	ClusterWarm w;
	int			at,
				most[2];

	for (at = 0; at < 2; at++)
	{
		int			n = at == 0 ? 100 : 96;

		cstudy_init(s, 10, n - 1, 4);
		CHECK(csuggest_ok(s));
		keep_warm(s, &w);
		result_free(s);
		observe(s);
		CHECK(s->in.n_observed == n);
		use_warm(s, &w);
		CHECK(csuggest_ok(s));
		most[at] = most_cluster_evals(s);
		result_free(s);
	}
	CHECK(most[0] <= 40);
	CHECK(most[1] > 40);
	printf("  clustered ICM d=10, 3 clusters, warm: at most %d likelihood "
		   "evaluations per cluster at n=100, %d at n=96 (another start)\n",
		   most[0], most[1]);
	free(s);
}

void
test_clustered_suggest(void)
{
	test_study();
	test_determinism();
	test_unclustered_keep_incumbent();
	test_overlap();
	test_unusable_metrics();
	test_pending();
	test_converged_clusters();
	test_exhaustion();
	test_bad_input();
	test_optimisation();
	test_warm_start();
	test_alternate_schedule();
	test_alternate_steps();
	report_timing(25);
	report_timing(100);
}
