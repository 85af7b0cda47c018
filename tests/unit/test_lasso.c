/*
 * test_lasso.c
 *	  The Lasso core: soft-thresholding on an orthogonal design, lambda >=
 *	  lambda_max gives zero, a constant column stays at zero, n < p, the
 *	  KKT conditions at the solution (both solvers), the bound-skipping
 *	  sweeps of the sklearn solver give the plain algorithm's iterates, the
 *	  fast solver's path equals the sklearn solver's at a tight tolerance
 *	  (n > p and n < p, a grid down to 1e-4 lambda_max), CV folds are
 *	  deterministic, and bad input returns an error status.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lasso.h"
#include "rng.h"
#include "unit.h"

/* Random x (n x p, row-major) with a sparse truth, y = x b + noise. */
static void
random_problem(uint64_t seed, int n, int p, double *x, double *y)
{
	TunerRng rng;
	int i, j;

	rng_seed(&rng, seed);
	for (i = 0; i < n * p; i++)
		x[i] = rng_normal(&rng) * (1.0 + (i % p) * 0.1) + 0.5;
	for (i = 0; i < n; i++)
	{
		y[i] = 0.3 * rng_normal(&rng) + 1.0;
		for (j = 0; j < p && j < 4; j++)
			y[i] += (j + 1) * (j % 2 ? -1.0 : 1.0) * x[i * p + j];
	}
}

/*
 * Orthogonal, centred columns with ||x_j||^2 = n: the Lasso solution is
 * the soft-thresholded least-squares one, b_j = S(x_j^T y / n, lambda).
 */
static void
test_orthogonal(void)
{
	/* Hadamard columns 2..4 of order 4, repeated twice: n = 8 */
	double h[4][3] = {{1, 1, 1}, {-1, 1, -1}, {1, -1, -1}, {-1, -1, 1}};
	double x[8 * 3];
	double y[8] = {3.0, -1.0, 2.5, 0.5, 2.0, -2.0, 1.5, 1.0};
	double coef[3], b0, lambda = 0.4;
	int i, j, it, conv;
	LassoOptions o;
	TunerStatus st;

	for (i = 0; i < 8; i++)
		for (j = 0; j < 3; j++)
			x[i * 3 + j] = h[i % 4][j];
	lasso_options_init(&o);
	o.tol = 1e-12;
	CHECK(lasso_fit(x, y, 8, 3, lambda, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_OK);
	CHECK(conv == 1);
	for (j = 0; j < 3; j++)
	{
		double z = 0.0, ybar = 0.0, expect;

		for (i = 0; i < 8; i++)
			ybar += y[i] / 8.0;
		for (i = 0; i < 8; i++)
			z += x[i * 3 + j] * (y[i] - ybar) / 8.0;
		expect = fabs(z) > lambda ? copysign(fabs(z) - lambda, z) : 0.0;
		CHECK_CLOSE(coef[j], expect, 1e-12);
	}
	{
		double ybar = 0.0;

		for (i = 0; i < 8; i++)
			ybar += y[i] / 8.0;
		CHECK_CLOSE(b0, ybar, 1e-12); /* columns have mean zero */
	}
}

/* lambda >= lambda_max: every coefficient is zero, intercept mean(y). */
static void
test_lambda_max(void)
{
	int n = 30, p = 6;
	double x[30 * 6], y[30], coef[6], grid[10], b0, ybar = 0.0;
	int i, it, conv;
	LassoOptions o;
	TunerStatus st;

	random_problem(1, n, p, x, y);
	lasso_options_init(&o);
	o.n_lambdas = 10;
	CHECK(lasso_grid(x, y, n, p, &o, grid, &st) == TUNER_OK);
	CHECK(grid[0] > grid[9]);
	CHECK_CLOSE(grid[9] / grid[0], 1e-3, 1e-9);
	CHECK(lasso_fit(x, y, n, p, grid[0] * 1.0000001, &o, coef, &b0, &it,
					&conv, &st) == TUNER_OK);
	for (i = 0; i < n; i++)
		ybar += y[i] / n;
	for (i = 0; i < p; i++)
		CHECK(coef[i] == 0.0);
	CHECK_CLOSE(b0, ybar, 1e-12);
	/* just below: something enters */
	CHECK(lasso_fit(x, y, n, p, grid[0] * 0.99, &o, coef, &b0, &it, &conv,
					&st) == TUNER_OK);
	{
		int nz = 0;

		for (i = 0; i < p; i++)
			nz += coef[i] != 0.0;
		CHECK(nz >= 1);
	}
}

/*
 * KKT at a tightly converged solution: x_j^T r / n = lambda sign(b_j) for
 * b_j != 0 and |x_j^T r / n| <= lambda otherwise (r with the intercept).
 */
static void
check_kkt(const double *x, const double *y, int n, int p, double lambda,
		  const double *coef, double b0, double tol)
{
	int i, j;
	double *r = malloc(sizeof(double) * n);
	double rsum = 0.0;

	for (i = 0; i < n; i++)
	{
		r[i] = y[i] - b0;
		for (j = 0; j < p; j++)
			r[i] -= x[i * p + j] * coef[j];
		rsum += r[i];
	}
	CHECK(fabs(rsum) < 1e-8 * n); /* the intercept is fitted */
	for (j = 0; j < p; j++)
	{
		double g = 0.0;

		for (i = 0; i < n; i++)
			g += x[i * p + j] * r[i] / n;
		if (coef[j] != 0.0)
			CHECK_CLOSE(g, copysign(lambda, coef[j]), tol);
		else
			CHECK(fabs(g) <= lambda * (1.0 + tol));
	}
	free(r);
}

/* KKT for n > p and n < p, a constant column, and standardisation. */
static void
test_kkt(void)
{
	int shapes[3][2] = {{60, 8}, {15, 40}, {25, 25}};
	int s, solver;

	for (solver = 0; solver < 2; solver++)
	for (s = 0; s < 3; s++)
	{
		int n = shapes[s][0], p = shapes[s][1];
		double *x = malloc(sizeof(double) * n * p);
		double *y = malloc(sizeof(double) * n);
		double *coef = malloc(sizeof(double) * p);
		double grid[20], b0;
		int i, it, conv, k;
		LassoOptions o;
		TunerStatus st;

		random_problem(10 + s, n, p, x, y);
		for (i = 0; i < n; i++)
			x[i * p + p - 1] = 0.7; /* a constant column */
		lasso_options_init(&o);
		lasso_options_set_solver(&o, solver == 0 ? LASSO_SOLVER_FAST
												 : LASSO_SOLVER_SKLEARN);
		o.n_lambdas = 20;
		o.tol = 1e-14;
		o.max_iter = 100000;
		CHECK(lasso_grid(x, y, n, p, &o, grid, &st) == TUNER_OK);
		for (k = 2; k < 20; k += 6)
		{
			CHECK(lasso_fit(x, y, n, p, grid[k], &o, coef, &b0, &it, &conv,
							&st) == TUNER_OK);
			CHECK(conv == 1);
			CHECK(coef[p - 1] == 0.0);
			check_kkt(x, y, n, p, grid[k], coef, b0, 1e-5);
		}
		/* standardize: the same fit on x / sd, coefficients rescaled */
		o.standardize = 1;
		CHECK(lasso_fit(x, y, n, p, grid[5], &o, coef, &b0, &it, &conv,
						&st) == TUNER_OK);
		CHECK(coef[p - 1] == 0.0);
		{
			double *z = malloc(sizeof(double) * n * p);
			double *c2 = malloc(sizeof(double) * p);
			double b02;
			int j;

			for (j = 0; j < p; j++)
			{
				double m = 0.0, v = 0.0, sd;

				for (i = 0; i < n; i++)
					m += x[i * p + j] / n;
				for (i = 0; i < n; i++)
					v += (x[i * p + j] - m) * (x[i * p + j] - m) / n;
				sd = v > 0 ? sqrt(v) : 1.0;
				for (i = 0; i < n; i++)
					z[i * p + j] = x[i * p + j] / sd;
			}
			o.standardize = 0;
			CHECK(lasso_fit(z, y, n, p, grid[5], &o, c2, &b02, &it, &conv,
							&st) == TUNER_OK);
			for (j = 0; j < p - 1; j++)
			{
				double m = 0.0, v = 0.0;

				for (i = 0; i < n; i++)
					m += x[i * p + j] / n;
				for (i = 0; i < n; i++)
					v += (x[i * p + j] - m) * (x[i * p + j] - m) / n;
				CHECK_CLOSE(coef[j] * sqrt(v), c2[j], 1e-9);
			}
			CHECK_CLOSE(b0, b02, 1e-9);
			free(z);
			free(c2);
		}
		free(x);
		free(y);
		free(coef);
	}
}

/* Bound-skipping sweeps reproduce the plain sweeps along a path. */
static void
test_bounds_exact(void)
{
	int n = 40, p = 120, nl = 30;
	double *x = malloc(sizeof(double) * n * p);
	double *y = malloc(sizeof(double) * n);
	double *c1 = malloc(sizeof(double) * nl * p);
	double *c2 = malloc(sizeof(double) * nl * p);
	double grid[30], b1[30], b2[30];
	int it1[30], it2[30];
	int k, j, same_iter = 1;
	double worst = 0.0;
	LassoOptions o;
	TunerStatus st;

	random_problem(7, n, p, x, y);
	lasso_options_init(&o);
	lasso_options_set_solver(&o, LASSO_SOLVER_SKLEARN);
	o.n_lambdas = nl;
	CHECK(lasso_grid(x, y, n, p, &o, grid, &st) == TUNER_OK);
	o.use_bounds = 1;
	CHECK(lasso_path(x, y, n, p, grid, nl, &o, c1, b1, it1, &st) ==
		  TUNER_OK);
	o.use_bounds = 0;
	CHECK(lasso_path(x, y, n, p, grid, nl, &o, c2, b2, it2, &st) ==
		  TUNER_OK);
	for (k = 0; k < nl; k++)
	{
		same_iter &= it1[k] == it2[k];
		worst = fmax(worst, fabs(b1[k] - b2[k]));
		for (j = 0; j < p; j++)
			worst = fmax(worst, fabs(c1[k * p + j] - c2[k * p + j]));
	}
	CHECK(same_iter);
	CHECK(worst < 1e-12);
	free(x);
	free(y);
	free(c1);
	free(c2);
}

/*
 * The fast solver's warm-started path (homotopy, screening, exact solves)
 * equals the sklearn solver's run to a tight tolerance, for n > p and
 * n < p (where the support nearly saturates at the end of the grid), and
 * every fit converges.
 */
static void
test_fast_path(void)
{
	int shapes[3][2] = {{80, 30}, {30, 90}, {50, 200}};
	int sh;

	for (sh = 0; sh < 3; sh++)
	{
		int n = shapes[sh][0], p = shapes[sh][1], nl = 60;
		double *x = malloc(sizeof(double) * n * p);
		double *y = malloc(sizeof(double) * n);
		double *c1 = malloc(sizeof(double) * nl * p);
		double *c2 = malloc(sizeof(double) * nl * p);
		double grid[60], b1[60], b2[60];
		int it1[60], it2[60];
		int k, j, all_converged = 1;
		double worst = 0.0;
		LassoOptions o;
		TunerStatus st;

		random_problem(20 + sh, n, p, x, y);
		lasso_options_init(&o);
		lasso_options_set_solver(&o, LASSO_SOLVER_FAST);
		o.n_lambdas = nl;
		o.eps = 1e-4;
		CHECK(lasso_grid(x, y, n, p, &o, grid, &st) == TUNER_OK);
		o.max_iter = 100000;
		CHECK(lasso_path(x, y, n, p, grid, nl, &o, c1, b1, it1, &st) ==
			  TUNER_OK);
		lasso_options_set_solver(&o, LASSO_SOLVER_SKLEARN);
		o.tol = 1e-15;
		o.max_iter = 1000000;
		CHECK(lasso_path(x, y, n, p, grid, nl, &o, c2, b2, it2, &st) ==
			  TUNER_OK);
		for (k = 0; k < nl; k++)
		{
			double big = 1.0;

			all_converged &= it1[k] < 100000;
			for (j = 0; j < p; j++)
				big = fmax(big, fabs(c2[k * p + j]));
			worst = fmax(worst, fabs(b1[k] - b2[k]) / big);
			for (j = 0; j < p; j++)
				worst = fmax(worst, fabs(c1[k * p + j] - c2[k * p + j]) / big);
		}
		CHECK(all_converged);
		CHECK(worst < 1e-7);
		/* a single fit from zero equals the path's fit */
		{
			double *coef = malloc(sizeof(double) * p);
			double b0, diff = 0.0;
			int it, conv;

			lasso_options_init(&o);
			lasso_options_set_solver(&o, LASSO_SOLVER_FAST);
			CHECK(lasso_fit(x, y, n, p, grid[nl / 2], &o, coef, &b0, &it,
							&conv, &st) == TUNER_OK);
			CHECK(conv == 1);
			for (j = 0; j < p; j++)
				diff = fmax(diff, fabs(coef[j] - c1[(nl / 2) * p + j]));
			CHECK(diff < 1e-9);
			free(coef);
		}
		free(x);
		free(y);
		free(c1);
		free(c2);
	}
}

/* Cross-validation: deterministic, sane, entered_at consistent. */
static void
test_cv(void)
{
	int n = 53, p = 10;
	double x[53 * 10], y[53];
	LassoOptions o;
	LassoCvResult r1, r2;
	TunerStatus st;
	int k, j, ok = 1;

	random_problem(3, n, p, x, y);
	lasso_options_init(&o);
	lasso_options_set_solver(&o, LASSO_SOLVER_FAST);
	o.n_lambdas = 40;
	CHECK(lasso_cv(x, y, n, p, &o, &r1, &st) == TUNER_OK);
	CHECK(lasso_cv(x, y, n, p, &o, &r2, &st) == TUNER_OK);
	CHECK(r1.n_lambdas == 40 && r1.folds == 5);
	for (k = 0; k < 40 * 5; k++)
		ok &= r1.fold_mse[k] == r2.fold_mse[k];
	CHECK(ok);
	CHECK(r1.best == r2.best);
	CHECK(r1.best_1se <= r1.best);
	CHECK(r1.lambda_1se >= r1.lambda);
	for (k = 0; k < 40; k++)
		CHECK(r1.cv_mean[k] >= r1.cv_mean[r1.best]);
	/* the four true effects are found, and entered before the noise */
	for (j = 0; j < 4; j++)
	{
		CHECK(r1.coef[j] != 0.0);
		CHECK(r1.entered_at[j] >= 0);
	}
	for (j = 4; j < p; j++)
		CHECK(r1.entered_at[j] < 0 || r1.entered_at[j] >= r1.entered_at[0]);
	CHECK(r1.path_nonzero[0] <= 1);
	/*
	 * the fit at the chosen lambda equals lasso_fit there: to the last bit
	 * with the sklearn solver (a refit from zero), to the tolerance with the
	 * fast one (the path's fit)
	 */
	{
		double coef[10], b0;
		int it, conv;

		CHECK(lasso_fit(x, y, n, p, r1.lambda, &o, coef, &b0, &it, &conv,
						&st) == TUNER_OK);
		for (j = 0; j < p; j++)
			CHECK_CLOSE(coef[j], r1.coef[j], 1e-9);
		CHECK_CLOSE(b0, r1.intercept, 1e-9);
		lasso_options_set_solver(&o, LASSO_SOLVER_SKLEARN);
		lasso_cv_free(&r2);
		CHECK(lasso_cv(x, y, n, p, &o, &r2, &st) == TUNER_OK);
		CHECK(lasso_fit(x, y, n, p, r2.lambda, &o, coef, &b0, &it, &conv,
						&st) == TUNER_OK);
		for (j = 0; j < p; j++)
			CHECK(coef[j] == r2.coef[j]);
		CHECK(b0 == r2.intercept);
		CHECK(r2.lambda == r1.lambda);
		lasso_options_set_solver(&o, LASSO_SOLVER_FAST);
	}
	/* an explicit grid is sorted descending */
	{
		double g[3] = {0.01, 1.0, 0.1};
		LassoCvResult r3;

		o.lambdas = g;
		o.n_given = 3;
		CHECK(lasso_cv(x, y, n, p, &o, &r3, &st) == TUNER_OK);
		CHECK(r3.n_lambdas == 3 && r3.lambdas[0] == 1.0 &&
			  r3.lambdas[2] == 0.01);
		lasso_cv_free(&r3);
		o.lambdas = NULL;
		o.n_given = 0;
	}
	lasso_cv_free(&r1);
	lasso_cv_free(&r2);
}

/* Bad input: an error status, never a crash. */
static void
test_bad_input(void)
{
	double x[4 * 2] = {1, 2, 3, 4, 5, 6, 7, 8};
	double y[4] = {1, 2, 3, 4};
	double coef[2], b0;
	int it, conv;
	LassoOptions o;
	LassoCvResult r;
	TunerStatus st;

	lasso_options_init(&o);
	tuner_status_clear(&st);
	CHECK(lasso_cv(x, y, 4, 2, &o, &r, &st) == TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "folds") != NULL);
	o.folds = 1;
	CHECK(lasso_cv(x, y, 4, 2, &o, &r, &st) == TUNER_ERR_INVALID);
	o.folds = 2;
	CHECK(lasso_cv(x, y, 4, 2, &o, &r, &st) == TUNER_OK);
	lasso_cv_free(&r);
	CHECK(lasso_fit(x, y, 4, 2, -1.0, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(lasso_fit(x, y, 4, 2, NAN, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	x[3] = NAN;
	CHECK(lasso_fit(x, y, 4, 2, 0.1, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	x[3] = 4;
	y[2] = INFINITY;
	CHECK(lasso_fit(x, y, 4, 2, 0.1, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	y[2] = 3;
	CHECK(lasso_fit(x, y, 0, 2, 0.1, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	o.eps = 0.0;
	CHECK(lasso_cv(x, y, 4, 2, &o, &r, &st) == TUNER_ERR_INVALID);
	lasso_options_init(&o);
	o.solver = 7;
	CHECK(lasso_fit(x, y, 4, 2, 0.1, &o, coef, &b0, &it, &conv, &st) ==
		  TUNER_ERR_INVALID);
	CHECK(strstr(st.message, "solver") != NULL);
	/* constant y: zero coefficients, converged */
	{
		double yc[4] = {2, 2, 2, 2};

		lasso_options_init(&o);
		CHECK(lasso_fit(x, yc, 4, 2, 0.0, &o, coef, &b0, &it, &conv, &st) ==
			  TUNER_OK);
		CHECK(coef[0] == 0.0 && coef[1] == 0.0 && b0 == 2.0 && conv == 1);
	}
}

/* Every Lasso test. */
void
test_lasso(void)
{
	test_orthogonal();
	test_lambda_max();
	test_kkt();
	test_bounds_exact();
	test_fast_path();
	test_cv();
	test_bad_input();
}
