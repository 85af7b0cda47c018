/*
 * test_interrupt.c
 *	  Cancellation (issue 25): the blocked Cholesky kernels against LAPACK's
 *	  unblocked results at sizes around the block size, and every long
 *	  computation (GP and ICM fits, the lasso, cluster learning, the
 *	  suggestion over a large categorical, a prediction at many points)
 *	  returning TUNER_ERR_INTERRUPTED, with every allocation freed, when the
 *	  interrupt callback fires after k polls.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "clusters.h"
#include "gp.h"
#include "icm.h"
#include "lasso.h"
#include "linalg.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

/* allocations made through the hooks and not yet freed */
static long live_allocs;

static void *
counting_alloc(size_t size)
{
	live_allocs++;
	return malloc(size);
}

static void
counting_free(void *ptr)
{
	live_allocs--;
	free(ptr);
}

/* the callback: polls counts every call; fires from poll number fire_at on */
static long polls;
static long fire_at;

static int
fire_after_k(void)
{
	polls++;
	return fire_at > 0 && polls >= fire_at;
}

static void
arm(long k)
{
	polls = 0;
	fire_at = k;
	tuner_set_interrupt_check(fire_after_k);
}

/* A random SPD matrix G G^T / n + 0.1 I (column-major, n x n). */
static void
spd_matrix(TunerRng *rng, int n, double *k, double *g)
{
	int i;

	for (i = 0; i < n * n; i++)
		g[i] = rng_normal(rng);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0 / n, g,
				n, g, n, 0.0, k, n);
	for (i = 0; i < n; i++)
		k[i + i * n] += 0.1;
}

/* max |a - b| over the lower triangle, relative to max |b| there */
static double
lower_diff(const double *a, const double *b, int n)
{
	double diff = 0.0, scale = 1e-300;
	int i, j;

	for (j = 0; j < n; j++)
		for (i = j; i < n; i++)
		{
			diff = fmax(diff, fabs(a[i + j * n] - b[i + j * n]));
			scale = fmax(scale, fabs(b[i + j * n]));
		}
	return diff / scale;
}

/*
 * The three blocked kernels equal dpotrf, dtrtri and dlauum to round-off,
 * at sizes on both sides of the block size (odd sizes included), with the
 * default block (256) and a small one; linalg_cholesky_inverse above its
 * blocking threshold equals dpotri.
 */
static void
test_blocked_kernels(void)
{
	static const struct
	{
		int n, nb;
	} cases[] = {{1, 0},   {255, 0}, {256, 0}, {257, 0}, {511, 0},
				 {513, 0}, {600, 0}, {1, 16},  {15, 16}, {16, 16},
				 {17, 16}, {33, 16}, {50, 16}, {100, 7}, {131, 32}};
	TunerStatus status;
	TunerRng rng;
	size_t z;

	tuner_set_interrupt_check(NULL);
	rng_seed(&rng, 11);
	for (z = 0; z < sizeof(cases) / sizeof(cases[0]); z++)
	{
		int n = cases[z].n, nb = cases[z].nb;
		double *g = malloc(sizeof(double) * n * n);
		double *k = malloc(sizeof(double) * n * n);
		double *ref = malloc(sizeof(double) * n * n);
		double *got = malloc(sizeof(double) * n * n);

		spd_matrix(&rng, n, k, g);

		memcpy(ref, k, sizeof(double) * n * n);
		memcpy(got, k, sizeof(double) * n * n);
		CHECK(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, ref, n) == 0);
		CHECK(linalg_potrf_blocked(got, n, n, nb, &status) == 0);
		CHECK(lower_diff(got, ref, n) < 1e-12);

		/* the factor's inverse */
		memcpy(got, ref, sizeof(double) * n * n);
		CHECK(LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, ref, n) == 0);
		CHECK(linalg_trtri_blocked(got, n, n, nb, &status) == 0);
		CHECK(lower_diff(got, ref, n) < 1e-11);

		/* X^T X */
		memcpy(got, ref, sizeof(double) * n * n);
		CHECK(LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, ref, n) == 0);
		CHECK(linalg_lauum_blocked(got, n, n, nb, &status) == 0);
		CHECK(lower_diff(got, ref, n) < 1e-11);

		/* the whole inverse, blocked above 512 rows, against dpotri */
		if (nb == 0)
		{
			double jitter = -1.0;

			memcpy(ref, k, sizeof(double) * n * n);
			memcpy(got, k, sizeof(double) * n * n);
			CHECK(linalg_cholesky(got, n, g, &jitter, &status) == TUNER_OK);
			CHECK(jitter == 0.0);
			CHECK(LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, ref, n) == 0);
			CHECK(lower_diff(got, ref, n) < 1e-12);
			CHECK(linalg_cholesky_inverse(got, n, &status) == TUNER_OK);
			CHECK(LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', n, ref, n) == 0);
			CHECK(lower_diff(got, ref, n) < 1e-10);
		}
		free(g);
		free(k);
		free(ref);
		free(got);
	}
}

/*
 * A matrix that is not positive definite from column 300 on: the blocked
 * factorisation reports the column LAPACK reports, and linalg_cholesky still
 * rescues a nearly singular matrix with jitter above the threshold.
 */
static void
test_blocked_failures(void)
{
	int n = 600;
	double *g = malloc(sizeof(double) * n * n);
	double *k = malloc(sizeof(double) * n * n);
	double *a = malloc(sizeof(double) * n * n);
	double *w = malloc(sizeof(double) * n * n);
	double jitter = 0.0;
	TunerStatus status;
	TunerRng rng;
	lapack_int ref;
	int i, j;

	tuner_set_interrupt_check(NULL);
	rng_seed(&rng, 12);
	spd_matrix(&rng, n, k, g);
	k[299 + 299 * n] = -1.0;
	memcpy(a, k, sizeof(double) * n * n);
	ref = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, n);
	memcpy(a, k, sizeof(double) * n * n);
	CHECK(ref == 300);
	CHECK(linalg_potrf_blocked(a, n, n, 0, &status) == ref);

	/* rank 10: singular, but jitter makes it definite */
	for (i = 0; i < n * 10; i++)
		g[i] = rng_normal(&rng);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, 10, 1.0, g, n,
				g, n, 0.0, k, n);
	CHECK(linalg_cholesky(k, n, w, &jitter, &status) == TUNER_OK);
	CHECK(jitter > 0.0);
	/* a zero on the factor's diagonal is an error, not a division */
	for (j = 0; j < n; j++)
		for (i = 0; i < n; i++)
			a[i + j * n] = i == j ? 1.0 : (i > j ? 0.01 : 0.0);
	a[400 + 400 * n] = 0.0;
	CHECK(linalg_trtri_blocked(a, n, n, 0, &status) == 401);
	free(g);
	free(k);
	free(a);
	free(w);
}

/* The blocked kernels stop between blocks. */
static void
test_blocked_interrupt(void)
{
	int n = 700;
	double *g = malloc(sizeof(double) * n * n);
	double *k = malloc(sizeof(double) * n * n);
	double *w = malloc(sizeof(double) * n * n);
	double jitter;
	TunerStatus status;
	TunerRng rng;

	rng_seed(&rng, 13);
	spd_matrix(&rng, n, k, g);
	arm(3);
	tuner_status_clear(&status);
	CHECK(linalg_cholesky(k, n, w, &jitter, &status) == TUNER_ERR_INTERRUPTED);
	CHECK(status.code == TUNER_ERR_INTERRUPTED);
	CHECK(polls == 3);
	/* never interrupted: the polls happen, the factor is right */
	arm(0);
	spd_matrix(&rng, n, k, g);
	CHECK(linalg_cholesky(k, n, w, &jitter, &status) == TUNER_OK);
	CHECK(polls >= 6);
	arm(2);
	CHECK(linalg_cholesky_inverse(k, n, &status) == TUNER_ERR_INTERRUPTED);
	tuner_set_interrupt_check(NULL);
	free(g);
	free(k);
	free(w);
}

static double
wavy(const double *x, int d)
{
	double s = 0.0;
	int k;

	for (k = 0; k < d; k++)
		s += sin(3.0 * x[k] + k);
	return s;
}

/* How many polls a whole run makes (never firing); at least one. */
static long
count_polls(void)
{
	long n = polls;

	tuner_set_interrupt_check(NULL);
	return n > 0 ? n : 1;
}

/*
 * gp_fit: interrupted at the first poll, early, midway and late, it returns
 * TUNER_ERR_INTERRUPTED, no model, and no allocation left behind.
 */
static void
test_gp_fit_interrupt(void)
{
	enum
	{
		N = 80,
		D = 3
	};
	double x[N * D], y[N];
	GpFitOptions opt;
	GpModel *model = NULL;
	TunerStatus status;
	TunerRng rng;
	long total, ks[4];
	int i, t;

	rng_seed(&rng, 21);
	for (i = 0; i < N * D; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < N; i++)
		y[i] = wavy(x + i * D, D) + 0.05 * rng_normal(&rng);
	gp_fit_options_init(&opt);
	opt.seed = 3;

	tuner_set_allocator(counting_alloc, counting_free);
	live_allocs = 0;
	arm(0);
	CHECK(gp_fit(x, y, N, D, &opt, &model, &status) == TUNER_OK);
	total = count_polls();
	CHECK(total > 20); /* at least once per likelihood evaluation */
	gp_model_free(model);
	CHECK(live_allocs == 0);

	ks[0] = 1;
	ks[1] = 5;
	ks[2] = total / 2;
	ks[3] = total - 1;
	for (t = 0; t < 4; t++)
	{
		model = (GpModel *)&status; /* must be reset to NULL */
		live_allocs = 0;
		arm(ks[t]);
		tuner_status_clear(&status);
		CHECK(gp_fit(x, y, N, D, &opt, &model, &status) ==
			  TUNER_ERR_INTERRUPTED);
		CHECK(status.code == TUNER_ERR_INTERRUPTED);
		CHECK(model == NULL);
		CHECK(polls == ks[t]); /* stopped at the poll that fired */
		CHECK(live_allocs == 0);
	}
	tuner_set_interrupt_check(NULL);
	tuner_set_allocator(NULL, NULL);
}

/* icm_fit, with missing values (the full path) and without (Kronecker). */
static void
test_icm_fit_interrupt(void)
{
	enum
	{
		N = 30,
		D = 2,
		T = 2
	};
	double x[N * D], y[N * T];
	IcmFitOptions opt;
	IcmModel *model = NULL;
	TunerStatus status;
	TunerRng rng;
	int i, t, pass;

	rng_seed(&rng, 22);
	for (i = 0; i < N * D; i++)
		x[i] = rng_uniform(&rng);
	for (pass = 0; pass < 2; pass++)
	{
		long total, ks[3];

		for (i = 0; i < N; i++)
		{
			y[i * T] = wavy(x + i * D, D) + 0.05 * rng_normal(&rng);
			y[i * T + 1] = pass == 0 && i % 3 == 0
							   ? NAN
							   : y[i * T] + 0.3 * rng_normal(&rng);
		}
		icm_fit_options_init(&opt);
		opt.rank = 1;
		opt.seed = 4;
		tuner_set_allocator(counting_alloc, counting_free);
		live_allocs = 0;
		arm(0);
		CHECK(icm_fit(x, y, N, D, T, &opt, &model, &status) == TUNER_OK);
		total = count_polls();
		CHECK(total > 20);
		icm_model_free(model);
		CHECK(live_allocs == 0);
		ks[0] = 1;
		ks[1] = total / 3;
		ks[2] = total - 1;
		for (t = 0; t < 3; t++)
		{
			live_allocs = 0;
			arm(ks[t]);
			CHECK(icm_fit(x, y, N, D, T, &opt, &model, &status) ==
				  TUNER_ERR_INTERRUPTED);
			CHECK(model == NULL);
			CHECK(polls == ks[t]);
			CHECK(live_allocs == 0);
		}
		tuner_set_interrupt_check(NULL);
		tuner_set_allocator(NULL, NULL);
	}
}

/* The lasso path and cross-validation, with both solvers. */
static void
test_lasso_interrupt(void)
{
	enum
	{
		N = 60,
		P = 40,
		NL = 30
	};
	double *x = malloc(sizeof(double) * N * P);
	double y[N], grid[NL], coefs[NL * P], icpt[NL];
	int iters[NL];
	LassoOptions o;
	TunerStatus status;
	TunerRng rng;
	int i, solver;

	rng_seed(&rng, 23);
	for (i = 0; i < N * P; i++)
		x[i] = rng_normal(&rng);
	for (i = 0; i < N; i++)
		y[i] = 2.0 * x[i * P] - x[i * P + 3] + 0.1 * rng_normal(&rng);
	for (solver = 0; solver < 2; solver++)
	{
		LassoCvResult r;
		long total;

		lasso_options_init(&o);
		lasso_options_set_solver(&o, solver == 0 ? LASSO_SOLVER_FAST
												 : LASSO_SOLVER_SKLEARN);
		o.n_lambdas = NL;
		tuner_set_interrupt_check(NULL);
		CHECK(lasso_grid(x, y, N, P, &o, grid, &status) == TUNER_OK);
		tuner_set_allocator(counting_alloc, counting_free);
		live_allocs = 0;
		arm(0);
		CHECK(lasso_path(x, y, N, P, grid, NL, &o, coefs, icpt, iters,
						 &status) == TUNER_OK);
		total = count_polls();
		CHECK(total >= NL);
		CHECK(live_allocs == 0);
		arm(total / 2);
		CHECK(lasso_path(x, y, N, P, grid, NL, &o, coefs, icpt, iters,
						 &status) == TUNER_ERR_INTERRUPTED);
		CHECK(status.code == TUNER_ERR_INTERRUPTED);
		CHECK(live_allocs == 0);

		memset(&r, 0, sizeof(r));
		arm(0);
		CHECK(lasso_cv(x, y, N, P, &o, &r, &status) == TUNER_OK);
		total = count_polls();
		lasso_cv_free(&r);
		CHECK(live_allocs == 0);
		memset(&r, 0, sizeof(r));
		arm(total / 2);
		CHECK(lasso_cv(x, y, N, P, &o, &r, &status) == TUNER_ERR_INTERRUPTED);
		lasso_cv_free(&r);
		CHECK(live_allocs == 0);
		tuner_set_interrupt_check(NULL);
		tuner_set_allocator(NULL, NULL);
	}
	free(x);
}

/* Cluster learning's permutation tests. */
static void
test_clusters_interrupt(void)
{
	enum
	{
		N = 40,
		D = 4,
		T = 2
	};
	double x[N * D], y[N * T];
	ClusterOptions opt;
	ClusterResult *r = NULL;
	TunerStatus status;
	TunerRng rng;
	long total;
	int i;

	rng_seed(&rng, 24);
	for (i = 0; i < N * D; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < N; i++)
	{
		y[i * T] = 3.0 * x[i * D] + 0.1 * rng_normal(&rng);
		y[i * T + 1] = 2.0 * x[i * D + 2] + 0.1 * rng_normal(&rng);
	}
	cluster_options_init(&opt);
	opt.seed = 5;
	tuner_set_allocator(counting_alloc, counting_free);
	live_allocs = 0;
	arm(0);
	CHECK(cluster_learn(x, y, N, D, T, &opt, &r, &status) == TUNER_OK);
	total = count_polls();
	CHECK(total > 100); /* once per permutation */
	cluster_result_free(r);
	CHECK(live_allocs == 0);
	r = NULL;
	arm(total / 2);
	CHECK(cluster_learn(x, y, N, D, T, &opt, &r, &status) ==
		  TUNER_ERR_INTERRUPTED);
	CHECK(r == NULL);
	CHECK(live_allocs == 0);
	tuner_set_interrupt_check(NULL);
	tuner_set_allocator(NULL, NULL);
}

/*
 * A suggestion over a categorical parameter with 10^6 choices: the sweep
 * over its choices polls, so it stops within a few thousand evaluations,
 * frees everything and reports the interrupt.
 */
static void
test_suggest_interrupt(void)
{
	enum
	{
		N = 12
	};
	ParamSpec sp[2] = {{PARAM_FLOAT, 0, 1, 0, 0},
					   {PARAM_CATEGORICAL, 0, 0, 0, 1000000}};
	double x[N * 2], y[N], cfg[2], ls[2];
	SuggestInput in;
	SuggestResult out;
	TunerStatus status;
	TunerRng rng;
	int i;

	rng_seed(&rng, 25);
	for (i = 0; i < N; i++)
	{
		x[i * 2] = rng_uniform(&rng);
		x[i * 2 + 1] = (double)rng_below(&rng, 1000000);
		y[i] = sin(4.0 * x[i * 2]) + 0.1 * rng_normal(&rng);
	}
	memset(&in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	in.params = sp;
	in.d = 2;
	in.n_initial = 5;
	in.design_seed = 3;
	in.x_observed = x;
	in.y_observed = y;
	in.n_observed = N;
	in.design_index = N;
	in.seed = 9;
	in.algorithm = SUGGEST_ALG_GP_EI;
	out.config = cfg;
	out.lengthscales = ls;

	tuner_set_allocator(counting_alloc, counting_free);
	/*
	 * early: in the model fit; late: in the sweep over the choices (the fit
	 * takes some 250 polls; the whole suggestion, never interrupted, 12,000
	 * polls in about 5 s, so the sweep polls every half millisecond)
	 */
	live_allocs = 0;
	arm(2);
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_ERR_INTERRUPTED);
	CHECK(live_allocs == 0);
	live_allocs = 0;
	arm(2000);
	CHECK(tuner_suggest(&in, &out, &status) == TUNER_ERR_INTERRUPTED);
	CHECK(status.code == TUNER_ERR_INTERRUPTED);
	CHECK(polls == 2000);
	CHECK(live_allocs == 0);
	tuner_set_interrupt_check(NULL);
	tuner_set_allocator(NULL, NULL);
}

/*
 * gp_predict over many points (n^2 m above 1e9) runs in chunks, polling:
 * the same predictions as small calls, and an interrupt stops it.
 */
static void
test_predict_chunks(void)
{
	enum
	{
		N = 200,
		D = 2,
		M = 30000
	};
	GpModel *model;
	TunerStatus status;
	TunerRng rng;
	double *xs = malloc(sizeof(double) * M * D);
	double *mean = malloc(sizeof(double) * M);
	double *sd = malloc(sizeof(double) * M);
	double mean1[100], sd1[100];
	double diff = 0.0;
	int i, j;

	tuner_set_interrupt_check(NULL);
	rng_seed(&rng, 26);
	model = gp_model_create(N, D, &status);
	CHECK(model != NULL);
	if (model == NULL)
		return;
	for (i = 0; i < N * D; i++)
		model->x[i] = rng_uniform(&rng);
	for (i = 0; i < N; i++)
		model->y[i] = wavy(model->x + i * D, D);
	model->lengthscales[0] = 0.3;
	model->lengthscales[1] = 0.5;
	model->outputscale = 1.0;
	model->noise = 0.01;
	model->mean = 0.0;
	CHECK(gp_prepare(model, &status) == TUNER_OK);
	for (i = 0; i < M * D; i++)
		xs[i] = rng_uniform(&rng);
	arm(0);
	CHECK(gp_predict(model, xs, M, mean, sd, &status) == TUNER_OK);
	CHECK(polls >= M / 256); /* one poll per chunk */
	tuner_set_interrupt_check(NULL);
	for (j = 0; j < M; j += 100)
	{
		CHECK(gp_predict(model, xs + (size_t)j * D, 100, mean1, sd1,
						 &status) == TUNER_OK);
		for (i = 0; i < 100; i++)
		{
			diff = fmax(diff, fabs(mean1[i] - mean[j + i]));
			diff = fmax(diff, fabs(sd1[i] - sd[j + i]));
		}
	}
	CHECK(diff < 1e-12);
	arm(3);
	CHECK(gp_predict(model, xs, M, mean, sd, &status) ==
		  TUNER_ERR_INTERRUPTED);
	tuner_set_interrupt_check(NULL);
	gp_model_free(model);
	free(xs);
	free(mean);
	free(sd);
}

/* icm_predict over many points, on both paths, likewise. */
static void
test_icm_predict_chunks(void)
{
	enum
	{
		N = 150,
		D = 2,
		T = 2,
		M = 30000
	};
	double x[N * D], y[N * T];
	IcmFitOptions opt;
	IcmModel *model = NULL;
	TunerStatus status;
	TunerRng rng;
	double *xs = malloc(sizeof(double) * M * D);
	double *mean = malloc(sizeof(double) * M);
	double *sd = malloc(sizeof(double) * M);
	double mean1[100], sd1[100];
	int i, j, pass;

	tuner_set_interrupt_check(NULL);
	rng_seed(&rng, 27);
	for (i = 0; i < N * D; i++)
		x[i] = rng_uniform(&rng);
	for (i = 0; i < M * D; i++)
		xs[i] = rng_uniform(&rng);
	for (pass = 0; pass < 2; pass++)
	{
		double diff = 0.0;

		for (i = 0; i < N; i++)
		{
			y[i * T] = wavy(x + i * D, D);
			/* missing values: the full path, N x T = 300 rows > 256 */
			y[i * T + 1] = pass == 1 && i % 10 == 0
							   ? NAN
							   : y[i * T] + 0.2 * rng_normal(&rng);
		}
		icm_fit_options_init(&opt);
		opt.rank = 1;
		opt.seed = 6;
		opt.max_evals = 20;
		CHECK(icm_fit(x, y, N, D, T, &opt, &model, &status) == TUNER_OK);
		if (model == NULL)
			continue;
		CHECK(model->kronecker == (pass == 0));
		arm(0);
		CHECK(icm_predict(model, xs, M, 1, mean, sd, &status) == TUNER_OK);
		if (pass == 1)
			CHECK(polls >= M / 256);
		tuner_set_interrupt_check(NULL);
		for (j = 0; j < M; j += 100)
		{
			CHECK(icm_predict(model, xs + (size_t)j * D, 100, 1, mean1, sd1,
							  &status) == TUNER_OK);
			for (i = 0; i < 100; i++)
			{
				diff = fmax(diff, fabs(mean1[i] - mean[j + i]));
				diff = fmax(diff, fabs(sd1[i] - sd[j + i]));
			}
		}
		CHECK(diff < 1e-12);
		if (pass == 1)
		{
			arm(3);
			CHECK(icm_predict(model, xs, M, 1, mean, sd, &status) ==
				  TUNER_ERR_INTERRUPTED);
			tuner_set_interrupt_check(NULL);
		}
		icm_model_free(model);
		model = NULL;
	}
	free(xs);
	free(mean);
	free(sd);
}

void
test_interrupt(void)
{
	test_blocked_kernels();
	test_blocked_failures();
	test_blocked_interrupt();
	test_gp_fit_interrupt();
	test_icm_fit_interrupt();
	test_lasso_interrupt();
	test_clusters_interrupt();
	test_suggest_interrupt();
	test_predict_chunks();
	test_icm_predict_chunks();
}
