/*
 * floor.c
 *	  A lower bound on the CPU time of any exact homotopy (LARS-type)
 *	  solution of the Lasso path + 5-fold CV that tuner.lasso_cv computes,
 *	  on this machine, for the data given (bench/README.md, section 5).
 *
 *	  An exact path solver moves from one support to the next one feature at
 *	  a time.  Each feature that enters or leaves the support costs at least
 *	  a factor update of the support's Gram matrix (one triangular solve of
 *	  the support's size m), the new direction (two triangular solves) and
 *	  the change of the other features' correlations along it (a (p - m) x m
 *	  matrix-vector product).  The supports at the grid points come from
 *	  tuner's exact solver; between two grid points at least |S_k xor
 *	  S_k-1| features changed, each at a support no smaller than the
 *	  smaller of the two.  Every feature that is ever in a path's support
 *	  also needs its column of the Gram matrix, X^T x_j over the path's
 *	  rows: one matrix product per path.  The floor is the time of exactly
 *	  those BLAS calls (OpenBLAS, one thread) and nothing else: no data
 *	  copies, no centring, no checks, no extra events.
 *
 *	  Usage: floor X.bin Y.bin N P [REPEATS]
 *	  X.bin is N x P row-major float64, Y.bin N float64 (little endian).
 *	  Prints one line "key value" per result.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lasso.h"

#define FOLDS 5

static double
cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double *
read_doubles(const char *path, size_t count)
{
	double *v = malloc(sizeof(double) * count);
	FILE *f = fopen(path, "rb");

	if (v == NULL || f == NULL || fread(v, sizeof(double), count, f) != count)
	{
		fprintf(stderr, "floor: cannot read %zu doubles from %s\n", count,
				path);
		exit(1);
	}
	fclose(f);
	return v;
}

/* Support changes of one path: events[k] features changed before grid
 * point k, each at support size size[k]. */
typedef struct PathEvents
{
	int *events;
	int *size;
	int rows;       /* rows of the path's data */
	int union_size; /* features ever in the support */
} PathEvents;

static void
path_events(const double *coefs, int nl, int p, PathEvents *pe, long *n_events,
			double *sum_m2)
{
	int k, j;

	pe->events = calloc(nl, sizeof(int));
	pe->size = calloc(nl, sizeof(int));
	pe->union_size = 0;
	for (j = 0; j < p; j++)
		for (k = 0; k < nl; k++)
			if (coefs[(size_t)k * p + j] != 0.0)
			{
				pe->union_size++;
				break;
			}
	for (k = 0; k < nl; k++)
	{
		int m_now = 0, m_prev = 0, changed = 0;

		for (j = 0; j < p; j++)
		{
			int in_now = coefs[(size_t)k * p + j] != 0.0;
			int in_prev = k > 0 && coefs[(size_t)(k - 1) * p + j] != 0.0;

			m_now += in_now;
			m_prev += in_prev;
			changed += in_now != in_prev;
		}
		pe->events[k] = changed;
		pe->size[k] = m_now < m_prev ? m_now : m_prev;
		if (pe->size[k] < 1)
			pe->size[k] = 1;
		*n_events += changed;
		*sum_m2 += (double)changed * pe->size[k] * pe->size[k];
	}
}

/* The BLAS calls the support changes of one path force (see above). */
static void
replay_path(const PathEvents *pe, int nl, int p, const double *tri,
			const double *gram, double *vec, double *out)
{
	int k, e;

	for (k = 0; k < nl; k++)
		for (e = 0; e < pe->events[k]; e++)
		{
			int m = pe->size[k];

			cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit,
						m, tri, p, vec, 1);
			cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit,
						m, tri, p, vec, 1);
			cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, m,
						tri, p, vec, 1);
			if (p > m)
				cblas_dgemv(CblasColMajor, CblasNoTrans, p - m, m, 1.0, gram,
							p, vec, 1, 0.0, out, 1);
			vec[0] = 1.0 + out[0] * 1e-300; /* keep the calls live */
		}
}

/* The path on rows [0, lo) and [hi, n) (lo == hi: every row). */
static double *
fold_path(const double *x, const double *y, int n, int p, int lo, int hi,
		  const double *lambdas, int nl, const LassoOptions *o)
{
	int nt = n - (hi - lo);
	double *xt = malloc(sizeof(double) * (size_t)nt * p);
	double *yt = malloc(sizeof(double) * nt);
	double *coefs = malloc(sizeof(double) * (size_t)nl * p);
	double *icpt = malloc(sizeof(double) * nl);
	TunerStatus st;
	int i, t = 0;

	for (i = 0; i < n; i++)
	{
		if (i >= lo && i < hi)
			continue;
		memcpy(xt + (size_t)t * p, x + (size_t)i * p, sizeof(double) * p);
		yt[t++] = y[i];
	}
	if (lasso_path(xt, yt, nt, p, lambdas, nl, o, coefs, icpt, NULL, &st) !=
		TUNER_OK)
	{
		fprintf(stderr, "floor: lasso_path failed: %s\n", st.message);
		exit(1);
	}
	free(xt);
	free(yt);
	free(icpt);
	return coefs;
}

int
main(int argc, char **argv)
{
	int n, p, repeats, nl, f, r, i;
	double *x, *y, *lambdas, *tri, *gram, *vec, *out, *cols;
	double best_floor = 1e300, best_floor_folds = 1e300, best_gram = 1e300;
	double best_gram_folds = 1e300, best_solver = 1e300;
	double sum_m2 = 0.0;
	long n_events = 0;
	PathEvents pe[FOLDS + 1];
	LassoOptions o;
	LassoCvResult res;
	TunerStatus st;

	if (argc < 5)
	{
		fprintf(stderr, "usage: floor X.bin Y.bin N P [REPEATS]\n");
		return 2;
	}
	n = atoi(argv[3]);
	p = atoi(argv[4]);
	repeats = argc > 5 ? atoi(argv[5]) : 7;
	x = read_doubles(argv[1], (size_t)n * p);
	y = read_doubles(argv[2], n);

	lasso_options_init(&o);
	lasso_options_set_solver(&o, LASSO_SOLVER_FAST);
	nl = o.n_lambdas;
	lambdas = malloc(sizeof(double) * nl);
	if (lasso_grid(x, y, n, p, &o, lambdas, &st) != TUNER_OK)
	{
		fprintf(stderr, "floor: lasso_grid failed: %s\n", st.message);
		return 1;
	}

	/* LassoCV's contiguous folds (the first n % FOLDS one row larger),
	 * then the path on every row, as lasso_cv computes them. */
	for (f = 0, i = 0; f <= FOLDS; f++)
	{
		int len = f < FOLDS ? n / FOLDS + (f < n % FOLDS) : 0;
		double *coefs = fold_path(x, y, n, p, i, i + len, lambdas, nl, &o);

		path_events(coefs, nl, p, &pe[f], &n_events, &sum_m2);
		pe[f].rows = n - len;
		free(coefs);
		i += len;
	}

	/* Operands of the replayed BLAS calls: a well-conditioned triangular
	 * factor and a dense Gram block (their values do not change the time). */
	tri = calloc((size_t)p * p, sizeof(double));
	gram = malloc(sizeof(double) * (size_t)p * p);
	vec = malloc(sizeof(double) * p);
	out = malloc(sizeof(double) * p);
	for (i = 0; i < p * p; i++)
		gram[i] = (double)((i * 7919) % 1000) / 1000.0 - 0.5;
	for (i = 0; i < p; i++)
	{
		int j;

		tri[(size_t)i * p + i] = 2.0;
		for (j = i + 1; j < p; j++)
			tri[(size_t)i * p + j] = gram[(size_t)i * p + j] / p;
		vec[i] = 1.0;
	}

	/* Timed per path: the five fold paths are what LassoCV computes, the
	 * path on every row is tuner's extra (entered_at). */
	for (r = 0; r < repeats; r++)
	{
		double folds_ms = 0.0, all_ms = 0.0;

		for (f = 0; f <= FOLDS; f++)
		{
			double t0 = cpu_ms();

			replay_path(&pe[f], nl, p, tri, gram, vec, out);
			t0 = cpu_ms() - t0;
			all_ms += t0;
			if (f < FOLDS)
				folds_ms += t0;
		}
		if (all_ms < best_floor)
			best_floor = all_ms;
		if (folds_ms < best_floor_folds)
			best_floor_folds = folds_ms;
	}

	cols = calloc((size_t)p * p, sizeof(double)); /* p x union_size */
	for (r = 0; r < repeats; r++)
	{
		double folds_ms = 0.0, all_ms = 0.0;

		for (f = 0; f <= FOLDS; f++)
		{
			double t0 = cpu_ms();

			if (pe[f].union_size > 0)
				cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p,
							pe[f].union_size, pe[f].rows, 1.0, x, pe[f].rows,
							x, pe[f].rows, 0.0, cols, p);
			t0 = cpu_ms() - t0;
			all_ms += t0;
			if (f < FOLDS)
				folds_ms += t0;
		}
		if (all_ms < best_gram)
			best_gram = all_ms;
		if (folds_ms < best_gram_folds)
			best_gram_folds = folds_ms;
	}

	for (r = 0; r < repeats; r++)
	{
		double t0 = cpu_ms();

		if (lasso_cv(x, y, n, p, &o, &res, &st) != TUNER_OK)
		{
			fprintf(stderr, "floor: lasso_cv failed: %s\n", st.message);
			return 1;
		}
		t0 = cpu_ms() - t0;
		if (t0 < best_solver)
			best_solver = t0;
		lasso_cv_free(&res);
	}

	printf("paths %d\n", FOLDS + 1);
	printf("support_changes %ld\n", n_events);
	printf("sum_m2 %.4g\n", sum_m2);
	printf("floor_steps_ms %.2f\n", best_floor);
	printf("floor_gram_ms %.2f\n", best_gram);
	printf("floor_ms %.2f\n", best_floor + best_gram);
	printf("floor_folds_ms %.2f\n", best_floor_folds + best_gram_folds);
	printf("fast_solver_ms %.2f\n", best_solver);
	return 0;
}
