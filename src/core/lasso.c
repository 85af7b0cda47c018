/*
 * lasso.c
 *	  The Lasso's entry points (a fit, the warm-started regularisation path,
 *	  k-fold cross-validation; see lasso.h for the conventions), the centred
 *	  design they share with the fast solver (lasso_fast.c), and the
 *	  scikit-learn solver: cyclic coordinate descent with scikit-learn's
 *	  stopping rule.
 *
 *	  Speed of the scikit-learn solver.  A sweep of plain coordinate descent costs O(n p): every
 *	  feature's gradient x_j^T r is recomputed.  Along a path most features
 *	  sit at zero and stay there; a feature at zero is only updated if
 *	  |x_j^T r| > n lambda.  We keep, per feature, the gradient g_j at the
 *	  last time it was computed exactly and a bound on how far the residual
 *	  has moved since: each sweep starts an epoch whose reference residual
 *	  is the current one, C accumulates the exact distances between
 *	  successive references, and within a sweep every coefficient change
 *	  delta adds |delta| ||x_j|| (the triangle inequality).  By
 *	  Cauchy-Schwarz |x_j^T r_now| <= |g_j| + ||x_j|| ||r_now - r_then||,
 *	  so when that bound is below n lambda the feature provably stays at
 *	  zero and the sweep moves on without touching its column.  The
 *	  iterates, and so the sweep count and the stopping decision, are those
 *	  of the plain algorithm.  The duality gap needs max_j |x_j^T r|; it is
 *	  computed exactly over the non-zero features, and a zero feature is
 *	  evaluated only when its bound exceeds that maximum.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "lasso_int.h"

/* Relative slack on the skip bound, far above the rounding of a dot. */
#define BOUND_SLACK 1e-9

/* Coordinate-descent state of one design. */
typedef struct CdState
{
	double *w;      /* p coefficients */
	double *r;      /* n residual y - X w */
	double *r_ref;  /* n residual at the start of the current sweep */
	double *g_last; /* p: x_j^T r when last computed exactly */
	double *a;      /* p: distance bound at that time, minus C then */
	double c;       /* sum of distances between successive references */
	double t;       /* triangle bound on ||r - r_ref|| within the sweep */
} CdState;

/* The defaults: scikit-learn's (and its solver). */
void
lasso_options_init(LassoOptions *options)
{
	memset(options, 0, sizeof(LassoOptions));
	options->solver = LASSO_SOLVER_SKLEARN;
	options->standardize = 0;
	options->tol = LASSO_SKLEARN_TOL;
	options->max_iter = 1000;
	options->n_lambdas = 100;
	options->eps = 1e-3;
	options->folds = 5;
	options->lambdas = NULL;
	options->n_given = 0;
	options->use_bounds = 1;
	options->progress = NULL;
}

/* Choose a solver and its default tol. */
void
lasso_options_set_solver(LassoOptions *options, int solver)
{
	options->solver = solver;
	options->tol =
		solver == LASSO_SOLVER_SKLEARN ? LASSO_SKLEARN_TOL : LASSO_FAST_TOL;
}

/* Check sizes, values and options shared by every entry point. */
static TunerErrorCode
check_input(const double *x, const double *y, int n, int p,
			const LassoOptions *o, TunerStatus *status)
{
	size_t i;
	int k;

	if (n < 1 || p < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "need at least one row and one column, got %d x %d",
						  n, p);
	for (i = 0; i < (size_t)n * p; i++)
		if (!isfinite(x[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x row %d, column %d is not finite",
							  (int)(i / p) + 1, (int)(i % p) + 1);
	for (k = 0; k < n; k++)
		if (!isfinite(y[k]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "y element %d is not finite", k + 1);
	if (!(o->tol >= 0.0) || !isfinite(o->tol))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "tol must be a non-negative number");
	if (o->max_iter < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "max_iter must be at least 1");
	if (o->solver != LASSO_SOLVER_FAST && o->solver != LASSO_SOLVER_SKLEARN)
		return tuner_fail(status, TUNER_ERR_INVALID, "unknown solver %d",
						  o->solver);
	return TUNER_OK;
}

/* Check the grid options (lasso_grid and lasso_cv). */
static TunerErrorCode
check_grid_options(const LassoOptions *o, TunerStatus *status)
{
	int k;

	if (o->lambdas != NULL)
	{
		if (o->n_given < 1)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "the lambda grid must not be empty");
		for (k = 0; k < o->n_given; k++)
			if (!isfinite(o->lambdas[k]) || o->lambdas[k] < 0.0)
				return tuner_fail(status, TUNER_ERR_INVALID,
								  "lambda %d of the grid is %g, not a "
								  "non-negative number",
								  k + 1, o->lambdas[k]);
		return TUNER_OK;
	}
	if (o->n_lambdas < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "n_lambdas must be at least 1");
	if (!(o->eps > 0.0) || !isfinite(o->eps))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "eps must be a positive number");
	return TUNER_OK;
}

/*
 * Population sd of each column (1 for constant columns, scikit-learn's
 * rule) and, if z is not NULL, x divided by it (row-major).
 */
static void
column_scale(const double *x, int n, int p, double *scale, double *z)
{
	int i, j;

	for (j = 0; j < p; j++)
	{
		double mean = 0.0, var = 0.0;

		for (i = 0; i < n; i++)
			mean += x[(size_t)i * p + j];
		mean /= n;
		for (i = 0; i < n; i++)
		{
			double d = x[(size_t)i * p + j] - mean;

			var += d * d;
		}
		var /= n;
		/* constant up to rounding: var <= n eps var + (n mean eps)^2 */
		if (var <= n * DBL_EPSILON * var +
					   (n * mean * DBL_EPSILON) * (n * mean * DBL_EPSILON))
			scale[j] = 1.0;
		else
			scale[j] = sqrt(var);
	}
	if (z != NULL)
		for (i = 0; i < n; i++)
			for (j = 0; j < p; j++)
				z[(size_t)i * p + j] = x[(size_t)i * p + j] / scale[j];
}

/* Free the arrays of a design. */
void
lasso_design_free(Design *d)
{
	tuner_free(d->x);
	tuner_free(d->y);
	tuner_free(d->mean);
	tuner_free(d->norm2);
	tuner_free(d->norm);
	tuner_free(d->xty);
	memset(d, 0, sizeof(Design));
}

/*
 * The centred design of the rows of x (row-major, p columns) outside
 * [skip_lo, skip_hi); centre_with, if not NULL, gives the means (and
 * ymean) to centre with instead of the rows' own (for a test fold).
 */
TunerErrorCode
lasso_design_init(Design *d, const double *x, const double *y, int n_all,
				  int p, int skip_lo, int skip_hi, const Design *centre_with,
				  TunerStatus *status)
{
	int n = n_all - (skip_hi - skip_lo);
	int i, j, row;

	memset(d, 0, sizeof(Design));
	d->n = n;
	d->p = p;
	d->x = tuner_alloc(sizeof(double) * (size_t)n * p);
	d->y = tuner_alloc(sizeof(double) * n);
	d->mean = tuner_alloc_zero(sizeof(double) * p);
	d->norm2 = tuner_alloc(sizeof(double) * p);
	d->norm = tuner_alloc(sizeof(double) * p);
	d->xty = tuner_alloc(sizeof(double) * p);
	if (!d->x || !d->y || !d->mean || !d->norm2 || !d->norm || !d->xty)
	{
		lasso_design_free(d);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d x %d lasso design", n, p);
	}
	row = 0;
	for (i = 0; i < n_all; i++)
	{
		if (i >= skip_lo && i < skip_hi)
			continue;
		for (j = 0; j < p; j++)
			d->x[(size_t)j * n + row] = x[(size_t)i * p + j];
		d->y[row] = y[i];
		row++;
	}
	if (centre_with != NULL)
	{
		memcpy(d->mean, centre_with->mean, sizeof(double) * p);
		d->ymean = centre_with->ymean;
	}
	else
	{
		double ym = 0.0;

		for (j = 0; j < p; j++)
		{
			double m = 0.0;
			const double *col = d->x + (size_t)j * n;
			int constant = 1;

			for (i = 0; i < n; i++)
			{
				m += col[i];
				constant &= col[i] == col[0];
			}
			/* a constant column centres to exact zeros (and is skipped) */
			d->mean[j] = constant ? col[0] : m / n;
		}
		for (i = 0; i < n; i++)
			ym += d->y[i];
		d->ymean = ym / n;
	}
	for (j = 0; j < p; j++)
	{
		double *col = d->x + (size_t)j * n;
		double m = d->mean[j];

		for (i = 0; i < n; i++)
			col[i] -= m;
		d->norm2[j] = cblas_ddot(n, col, 1, col, 1);
		d->norm[j] = sqrt(d->norm2[j]);
	}
	for (i = 0; i < n; i++)
		d->y[i] -= d->ymean;
	d->yy = cblas_ddot(n, d->y, 1, d->y, 1);
	cblas_dgemv(CblasColMajor, CblasTrans, n, p, 1.0, d->x, n, d->y, 1, 0.0,
				d->xty, 1);
	return TUNER_OK;
}

static void
state_free(CdState *s)
{
	tuner_free(s->w);
	tuner_free(s->r);
	tuner_free(s->r_ref);
	tuner_free(s->g_last);
	tuner_free(s->a);
	memset(s, 0, sizeof(CdState));
}

static TunerErrorCode
state_init(CdState *s, const Design *d, TunerStatus *status)
{
	memset(s, 0, sizeof(CdState));
	s->w = tuner_alloc(sizeof(double) * d->p);
	s->r = tuner_alloc(sizeof(double) * d->n);
	s->r_ref = tuner_alloc(sizeof(double) * d->n);
	s->g_last = tuner_alloc(sizeof(double) * d->p);
	s->a = tuner_alloc(sizeof(double) * d->p);
	if (!s->w || !s->r || !s->r_ref || !s->g_last || !s->a)
	{
		state_free(s);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for lasso state");
	}
	return TUNER_OK;
}

/* Zero coefficients: r = y, every gradient known exactly (X^T y). */
static void
state_reset(CdState *s, const Design *d)
{
	memset(s->w, 0, sizeof(double) * d->p);
	memcpy(s->r, d->y, sizeof(double) * d->n);
	memcpy(s->r_ref, d->y, sizeof(double) * d->n);
	memcpy(s->g_last, d->xty, sizeof(double) * d->p);
	memset(s->a, 0, sizeof(double) * d->p);
	s->c = 0.0;
	s->t = 0.0;
}

/* Upper bound on |x_j^T r| now, from the last exact value. */
static inline double
grad_bound(const CdState *s, const Design *d, int j)
{
	return fabs(s->g_last[j]) + d->norm[j] * (s->a[j] + s->c + s->t);
}

/* x_j^T r now, remembered for later bounds. */
static inline double
grad_exact(CdState *s, const Design *d, int j)
{
	double g = cblas_ddot(d->n, d->x + (size_t)j * d->n, 1, s->r, 1);

	s->g_last[j] = g;
	s->a[j] = s->t - s->c;
	return g;
}

/*
 * Duality gap of the current iterate at alpha = n lambda (scikit-learn's
 * formula for beta = 0).
 */
static double
duality_gap(CdState *s, const Design *d, double alpha, int use_bounds)
{
	int n = d->n;
	int p = d->p;
	double dual_norm = 0.0;
	double r_norm2, ry, l1 = 0.0, gap, cst;
	int j;

	/* exact over the non-zero features first */
	for (j = 0; j < p; j++)
		if (s->w[j] != 0.0)
		{
			dual_norm = fmax(dual_norm, fabs(grad_exact(s, d, j)));
			l1 += fabs(s->w[j]);
		}
	for (j = 0; j < p; j++)
	{
		if (s->w[j] != 0.0)
			continue;
		if (use_bounds &&
			grad_bound(s, d, j) * (1.0 + BOUND_SLACK) <= dual_norm)
			continue;
		dual_norm = fmax(dual_norm, fabs(grad_exact(s, d, j)));
	}
	r_norm2 = cblas_ddot(n, s->r, 1, s->r, 1);
	ry = cblas_ddot(n, s->r, 1, d->y, 1);
	if (dual_norm > alpha)
	{
		cst = alpha / dual_norm;
		gap = 0.5 * (r_norm2 + r_norm2 * cst * cst);
	}
	else
	{
		cst = 1.0;
		gap = r_norm2;
	}
	return gap + alpha * l1 - cst * ry;
}

/*
 * Coordinate descent at lambda from the state's coefficients.  Returns 1
 * when the gap met the tolerance, -1 when tuner_interrupted() stopped it;
 * *n_iter is the number of sweeps.
 */
static int
cd_solve(CdState *s, const Design *d, double lambda, const LassoOptions *o,
		 int *n_iter)
{
	int n = d->n;
	int p = d->p;
	double alpha = lambda * n;
	double tol = o->tol * d->yy;
	int it, j;

	*n_iter = 0;
	if (d->yy == 0.0)
	{
		/* constant y: zero is the solution (and the gap test cannot pass) */
		state_reset(s, d);
		*n_iter = 1;
		return 1;
	}
	for (it = 0; it < o->max_iter; it++)
	{
		double w_max = 0.0, d_w_max = 0.0;

		if (tuner_interrupted())
		{
			*n_iter = it;
			return -1;
		}
		if (o->use_bounds)
		{
			double dist = 0.0;
			int i;

			for (i = 0; i < n; i++)
			{
				double e = s->r[i] - s->r_ref[i];

				dist += e * e;
			}
			s->c += sqrt(dist);
			memcpy(s->r_ref, s->r, sizeof(double) * n);
			s->t = 0.0;
		}
		for (j = 0; j < p; j++)
		{
			double wj = s->w[j];
			const double *xj;
			double tmp, wn;

			if (d->norm2[j] == 0.0)
				continue;
			if (wj == 0.0 && o->use_bounds &&
				grad_bound(s, d, j) * (1.0 + BOUND_SLACK) < alpha)
				continue;
			/*
			 * scikit-learn's order of operations: add the feature back into
			 * the residual, take its correlation, subtract the new value.
			 * At a knife edge (lambda at lambda_max) the rounding of this
			 * order decides whether a coefficient of 1e-17 settles, and so
			 * the sweep count.
			 */
			xj = d->x + (size_t)j * n;
			if (wj != 0.0)
				cblas_daxpy(n, wj, xj, 1, s->r, 1);
			tmp = cblas_ddot(n, xj, 1, s->r, 1);
			wn = fabs(tmp) > alpha
					 ? copysign(fabs(tmp) - alpha, tmp) / d->norm2[j]
					 : 0.0;
			if (wn != 0.0)
				cblas_daxpy(n, -wn, xj, 1, s->r, 1);
			if (wn != wj)
			{
				s->t += fabs(wn - wj) * d->norm[j];
				d_w_max = fmax(d_w_max, fabs(wn - wj));
			}
			s->g_last[j] = tmp - wn * d->norm2[j];
			s->a[j] = s->t - s->c;
			s->w[j] = wn;
			w_max = fmax(w_max, fabs(wn));
		}
		if (o->progress != NULL && (it & 63) == 63)
			o->progress();
		if (w_max == 0.0 || d_w_max / w_max < o->tol || it == o->max_iter - 1)
		{
			if (duality_gap(s, d, alpha, o->use_bounds) < tol)
			{
				*n_iter = it + 1;
				return 1;
			}
		}
	}
	*n_iter = o->max_iter;
	return 0;
}

/* Either solver, on one design. */
typedef struct Solver
{
	int kind;       /* LASSO_SOLVER_FAST or LASSO_SOLVER_SKLEARN */
	CdState cd;     /* the sklearn solver's state */
	FastState fast; /* the fast solver's state */
	double *w;      /* p: the coefficients of the one in use */
} Solver;

/* Allocate the state of the solver options ask for, at zero. */
static TunerErrorCode
solver_init(Solver *sv, const Design *d, const LassoOptions *o,
			TunerStatus *status)
{
	TunerErrorCode rc;

	memset(sv, 0, sizeof(Solver));
	sv->kind = o->solver;
	if (sv->kind == LASSO_SOLVER_SKLEARN)
	{
		if ((rc = state_init(&sv->cd, d, status)) != TUNER_OK)
			return rc;
		state_reset(&sv->cd, d);
		sv->w = sv->cd.w;
	}
	else
	{
		if ((rc = fast_init(&sv->fast, d, status)) != TUNER_OK)
			return rc;
		sv->w = sv->fast.w;
	}
	return TUNER_OK;
}

/* Back to zero coefficients. */
static void
solver_reset(Solver *sv, const Design *d)
{
	if (sv->kind == LASSO_SOLVER_SKLEARN)
		state_reset(&sv->cd, d);
	else
		fast_reset(&sv->fast);
}

/*
 * Move the solver to another design with the same columns and at most as
 * many rows (a fold), at zero.
 */
static void
solver_bind(Solver *sv, const Design *d)
{
	if (sv->kind == LASSO_SOLVER_SKLEARN)
		state_reset(&sv->cd, d);
	else
		fast_bind(&sv->fast, d);
}

/* Fit at lambda, warm-started from the current coefficients. */
static TunerErrorCode
solver_solve(Solver *sv, const Design *d, double lambda, const LassoOptions *o,
			 int *n_iter, int *converged, TunerStatus *status)
{
	int iters = 0, ok = 0;
	TunerErrorCode rc = TUNER_OK;

	if (sv->kind == LASSO_SOLVER_SKLEARN)
	{
		ok = cd_solve(&sv->cd, d, lambda, o, &iters);
		if (ok < 0)
		{
			ok = 0;
			rc = tuner_fail(status, TUNER_ERR_INTERRUPTED,
							"fitting the lasso was interrupted");
		}
	}
	else
		rc = fast_solve(&sv->fast, lambda, o, &iters, &ok, status);
	if (n_iter)
		*n_iter = iters;
	if (converged)
		*converged = ok;
	return rc;
}

static void
solver_free(Solver *sv)
{
	if (sv->kind == LASSO_SOLVER_SKLEARN)
		state_free(&sv->cd);
	else
		fast_free(&sv->fast);
	memset(sv, 0, sizeof(Solver));
}

/* Intercept of coefficients w (in the design's units). */
static double
design_intercept(const Design *d, const double *w)
{
	double b0 = d->ymean;
	int j;

	for (j = 0; j < d->p; j++)
		b0 -= d->mean[j] * w[j];
	return b0;
}

/*
 * The data the fits see: x itself, or x divided by each column's sd
 * (*owned set when a copy was made).  scale (p) receives the sds (1
 * without standardize).
 */
static TunerErrorCode
working_data(const double *x, int n, int p, const LassoOptions *o,
			 double *scale, const double **z, double **owned,
			 TunerStatus *status)
{
	int j;

	*owned = NULL;
	if (!o->standardize)
	{
		for (j = 0; j < p; j++)
			scale[j] = 1.0;
		*z = x;
		return TUNER_OK;
	}
	*owned = tuner_alloc(sizeof(double) * (size_t)n * p);
	if (*owned == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory standardising a %d x %d matrix", n,
						  p);
	column_scale(x, n, p, scale, *owned);
	*z = *owned;
	return TUNER_OK;
}

/* One fit from zero on the full data. */
TunerErrorCode
lasso_fit(const double *x, const double *y, int n, int p, double lambda,
		  const LassoOptions *options, double *coef, double *intercept,
		  int *n_iter, int *converged, TunerStatus *status)
{
	Design d;
	Solver s;
	const double *z;
	double *owned = NULL;
	double *scale;
	TunerErrorCode rc;
	int j;

	if ((rc = check_input(x, y, n, p, options, status)) != TUNER_OK)
		return rc;
	if (!isfinite(lambda) || lambda < 0.0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "lambda must be a non-negative number, got %g",
						  lambda);
	scale = tuner_alloc(sizeof(double) * p);
	if (scale == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	if ((rc = working_data(x, n, p, options, scale, &z, &owned, status)) !=
		TUNER_OK)
	{
		tuner_free(scale);
		return rc;
	}
	if ((rc = lasso_design_init(&d, z, y, n, p, 0, 0, NULL, status)) !=
		TUNER_OK)
	{
		tuner_free(owned);
		tuner_free(scale);
		return rc;
	}
	if ((rc = solver_init(&s, &d, options, status)) != TUNER_OK)
	{
		lasso_design_free(&d);
		tuner_free(owned);
		tuner_free(scale);
		return rc;
	}
	if (s.kind == LASSO_SOLVER_FAST)
	{
		/*
		 * The fast solver gets to lambda along a path from lambda_max with
		 * the default grid's spacing: each step is a short warm-started
		 * homotopy, where a jump from zero would need many more features
		 * screened in at once.
		 */
		double lmax = s.fast.lambda_prev;
		double ratio = pow(10.0, -3.0 / 99.0);
		double l = lmax * ratio;
		int k, total = 0, iters = 0;

		for (k = 0; rc == TUNER_OK && k < 1000 && l > lambda; k++)
		{
			rc = solver_solve(&s, &d, l, options, &iters, NULL, status);
			total += iters;
			l *= ratio;
		}
		if (rc == TUNER_OK)
			rc = solver_solve(&s, &d, lambda, options, &iters, converged,
							  status);
		if (n_iter)
			*n_iter = total + iters;
	}
	else
		rc = solver_solve(&s, &d, lambda, options, n_iter, converged, status);
	if (rc == TUNER_OK)
	{
		*intercept = design_intercept(&d, s.w);
		for (j = 0; j < p; j++)
			coef[j] = s.w[j] / scale[j];
	}
	solver_free(&s);
	lasso_design_free(&d);
	tuner_free(owned);
	tuner_free(scale);
	return rc;
}

/* Descending order for qsort. */
static int
cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* The grid of an already prepared design (see lasso_grid). */
static void
design_grid(const Design *d, const LassoOptions *o, double *lambdas)
{
	double amax = 0.0;
	double start, stop, step;
	int k, m = o->n_lambdas;

	if (o->lambdas != NULL)
	{
		memcpy(lambdas, o->lambdas, sizeof(double) * o->n_given);
		qsort(lambdas, o->n_given, sizeof(double), cmp_desc);
		return;
	}
	for (k = 0; k < d->p; k++)
		amax = fmax(amax, fabs(d->xty[k]));
	amax /= d->n;
	if (amax <= 1e-15)
	{
		/* numpy's float64 resolution, as scikit-learn does */
		for (k = 0; k < m; k++)
			lambdas[k] = 1e-15;
		return;
	}
	/* numpy.logspace(log10(eps amax), log10(amax), m), reversed */
	start = log10(amax * o->eps);
	stop = log10(amax);
	step = m > 1 ? (stop - start) / (m - 1) : 0.0;
	for (k = 0; k < m; k++)
	{
		double e = (k == m - 1) ? stop : start + k * step;

		lambdas[m - 1 - k] = pow(10.0, e);
	}
}

/* The grid lasso_cv uses. */
TunerErrorCode
lasso_grid(const double *x, const double *y, int n, int p,
		   const LassoOptions *options, double *lambdas, TunerStatus *status)
{
	Design d;
	const double *z;
	double *owned = NULL;
	double *scale;
	TunerErrorCode rc;

	if ((rc = check_input(x, y, n, p, options, status)) != TUNER_OK)
		return rc;
	if ((rc = check_grid_options(options, status)) != TUNER_OK)
		return rc;
	scale = tuner_alloc(sizeof(double) * p);
	if (scale == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	rc = working_data(x, n, p, options, scale, &z, &owned, status);
	if (rc == TUNER_OK)
		rc = lasso_design_init(&d, z, y, n, p, 0, 0, NULL, status);
	if (rc == TUNER_OK)
	{
		design_grid(&d, options, lambdas);
		lasso_design_free(&d);
	}
	tuner_free(owned);
	tuner_free(scale);
	return rc;
}

/* Run the path on a prepared design; coefs in the design's units. */
static TunerErrorCode
design_path(Solver *s, const Design *d, const double *lambdas, int nl,
			const LassoOptions *o, double *coefs, int *n_iter,
			TunerStatus *status)
{
	TunerErrorCode rc;
	int k, iters;

	solver_reset(s, d);
	for (k = 0; k < nl; k++)
	{
		rc = solver_solve(s, d, lambdas[k], o, &iters, NULL, status);
		if (rc != TUNER_OK)
			return rc;
		if (coefs)
			memcpy(coefs + (size_t)k * d->p, s->w, sizeof(double) * d->p);
		if (n_iter)
			n_iter[k] = iters;
		if (o->progress != NULL)
			o->progress();
	}
	return TUNER_OK;
}

/* The warm-started path on the full data. */
TunerErrorCode
lasso_path(const double *x, const double *y, int n, int p,
		   const double *lambdas, int nl, const LassoOptions *options,
		   double *coefs, double *intercepts, int *n_iter, TunerStatus *status)
{
	Design d;
	Solver s;
	const double *z;
	double *owned = NULL;
	double *scale;
	TunerErrorCode rc;
	int k, j;

	if ((rc = check_input(x, y, n, p, options, status)) != TUNER_OK)
		return rc;
	for (k = 0; k < nl; k++)
		if (!isfinite(lambdas[k]) || lambdas[k] < 0.0)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "lambda %d is %g, not a non-negative number",
							  k + 1, lambdas[k]);
	scale = tuner_alloc(sizeof(double) * p);
	if (scale == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	rc = working_data(x, n, p, options, scale, &z, &owned, status);
	if (rc == TUNER_OK)
		rc = lasso_design_init(&d, z, y, n, p, 0, 0, NULL, status);
	if (rc == TUNER_OK)
	{
		rc = solver_init(&s, &d, options, status);
		if (rc == TUNER_OK)
		{
			rc = design_path(&s, &d, lambdas, nl, options, coefs, n_iter,
							 status);
			for (k = 0; rc == TUNER_OK && k < nl; k++)
			{
				double *w = coefs + (size_t)k * p;

				intercepts[k] = design_intercept(&d, w);
				for (j = 0; j < p; j++)
					w[j] /= scale[j];
			}
			solver_free(&s);
		}
		lasso_design_free(&d);
	}
	tuner_free(owned);
	tuner_free(scale);
	return rc;
}

/* Free the arrays of a result. */
void
lasso_cv_free(LassoCvResult *r)
{
	tuner_free(r->lambdas);
	tuner_free(r->cv_mean);
	tuner_free(r->cv_std);
	tuner_free(r->fold_mse);
	tuner_free(r->coef);
	tuner_free(r->coef_scaled);
	tuner_free(r->scale);
	tuner_free(r->entered_at);
	tuner_free(r->path_nonzero);
	memset(r, 0, sizeof(LassoCvResult));
}

/*
 * Test MSE of every lambda of one fold: the path on the training rows
 * (outside [lo, hi)), predictions on the test rows.  s is a solver made
 * for all n rows, bound here to the training rows.
 */
static TunerErrorCode
fold_mse(Solver *s, const double *z, const double *y, int n, int p, int lo,
		 int hi, const double *lambdas, int nl, const LassoOptions *o,
		 int fold, int folds, double *mse, TunerStatus *status)
{
	Design train, test;
	double *pred = NULL;
	int nt = hi - lo;
	int k, j, i;
	TunerErrorCode rc;

	if ((rc = lasso_design_init(&train, z, y, n, p, lo, hi, NULL, status)) !=
		TUNER_OK)
		return rc;
	/* test rows only: skip the rows before lo and after hi */
	{
		Design tmp;

		rc = lasso_design_init(&tmp, z + (size_t)lo * p, y + lo, nt, p, 0, 0,
							   &train, status);
		if (rc != TUNER_OK)
		{
			lasso_design_free(&train);
			return rc;
		}
		test = tmp;
	}
	pred = tuner_alloc(sizeof(double) * nt);
	if (pred == NULL)
	{
		lasso_design_free(&train);
		lasso_design_free(&test);
		return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
	}
	solver_bind(s, &train);
	for (k = 0; k < nl; k++)
	{
		double sum = 0.0;

		rc = solver_solve(s, &train, lambdas[k], o, NULL, NULL, status);
		if (rc != TUNER_OK)
			break;
		/* test y and x are centred with the training means */
		for (i = 0; i < nt; i++)
			pred[i] = -test.y[i];
		for (j = 0; j < p; j++)
			if (s->w[j] != 0.0)
				cblas_daxpy(nt, s->w[j], test.x + (size_t)j * nt, 1, pred, 1);
		for (i = 0; i < nt; i++)
			sum += pred[i] * pred[i];
		mse[(size_t)k * folds + fold] = sum / nt;
		if (o->progress != NULL)
			o->progress();
	}
	tuner_free(pred);
	lasso_design_free(&train);
	lasso_design_free(&test);
	return rc;
}

/* Cross-validation, the full-data path and the refit (lasso.h). */
TunerErrorCode
lasso_cv(const double *x, const double *y, int n, int p,
		 const LassoOptions *options, LassoCvResult *r, TunerStatus *status)
{
	const LassoOptions *o = options;
	const double *z;
	double *owned = NULL;
	Design d;
	Solver s;
	double *wbest = NULL;
	TunerErrorCode rc;
	int folds = o->folds;
	int nl, f, k, j, lo, iters, ok;

	memset(r, 0, sizeof(LassoCvResult));
	if ((rc = check_input(x, y, n, p, o, status)) != TUNER_OK)
		return rc;
	if ((rc = check_grid_options(o, status)) != TUNER_OK)
		return rc;
	if (folds < 2)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "folds must be at least 2, got %d", folds);
	if (n < folds)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "%d rows cannot be split into %d folds", n, folds);
	nl = o->lambdas != NULL ? o->n_given : o->n_lambdas;
	r->p = p;
	r->folds = folds;
	r->n_lambdas = nl;
	r->lambdas = tuner_alloc(sizeof(double) * nl);
	r->cv_mean = tuner_alloc(sizeof(double) * nl);
	r->cv_std = tuner_alloc(sizeof(double) * nl);
	r->fold_mse = tuner_alloc(sizeof(double) * (size_t)nl * folds);
	r->coef = tuner_alloc(sizeof(double) * p);
	r->coef_scaled = tuner_alloc(sizeof(double) * p);
	r->scale = tuner_alloc(sizeof(double) * p);
	r->entered_at = tuner_alloc(sizeof(int) * p);
	r->path_nonzero = tuner_alloc(sizeof(int) * nl);
	if (!r->lambdas || !r->cv_mean || !r->cv_std || !r->fold_mse || !r->coef ||
		!r->coef_scaled || !r->scale || !r->entered_at || !r->path_nonzero)
	{
		lasso_cv_free(r);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for lasso cross-validation");
	}
	if ((rc = working_data(x, n, p, o, r->scale, &z, &owned, status)) !=
		TUNER_OK)
		goto fail;
	if ((rc = lasso_design_init(&d, z, y, n, p, 0, 0, NULL, status)) !=
		TUNER_OK)
		goto fail;
	design_grid(&d, o, r->lambdas);
	wbest = tuner_alloc(sizeof(double) * p);
	if (wbest == NULL)
	{
		lasso_design_free(&d);
		rc = tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
		goto fail;
	}
	/* one solver for every fit: its memory is reused fold after fold */
	if ((rc = solver_init(&s, &d, o, status)) != TUNER_OK)
	{
		lasso_design_free(&d);
		goto fail;
	}

	/* contiguous folds; the first n % folds are one row larger */
	lo = 0;
	for (f = 0; f < folds; f++)
	{
		int size = n / folds + (f < n % folds ? 1 : 0);

		rc = fold_mse(&s, z, y, n, p, lo, lo + size, r->lambdas, nl, o, f,
					  folds, r->fold_mse, status);
		if (rc != TUNER_OK)
		{
			solver_free(&s);
			lasso_design_free(&d);
			goto fail;
		}
		lo += size;
	}
	r->best = 0;
	for (k = 0; k < nl; k++)
	{
		double mean = 0.0, var = 0.0;

		for (f = 0; f < folds; f++)
			mean += r->fold_mse[(size_t)k * folds + f];
		mean /= folds;
		for (f = 0; f < folds; f++)
		{
			double e = r->fold_mse[(size_t)k * folds + f] - mean;

			var += e * e;
		}
		r->cv_mean[k] = mean;
		r->cv_std[k] = sqrt(var / (folds - 1));
		if (mean < r->cv_mean[r->best])
			r->best = k;
	}
	/* one-standard-error rule: the largest lambda within mean + sd/sqrt(k) */
	r->best_1se = r->best;
	for (k = 0; k < r->best; k++)
		if (r->cv_mean[k] <=
			r->cv_mean[r->best] + r->cv_std[r->best] / sqrt((double)folds))
		{
			r->best_1se = k;
			break;
		}
	r->lambda = r->lambdas[r->best];
	r->lambda_1se = r->lambdas[r->best_1se];

	/* full-data path: where each feature enters */
	solver_bind(&s, &d);
	for (j = 0; j < p; j++)
		r->entered_at[j] = -1;
	for (k = 0; k < nl; k++)
	{
		int nz = 0;

		rc = solver_solve(&s, &d, r->lambdas[k], o, &iters, &ok, status);
		if (rc != TUNER_OK)
		{
			solver_free(&s);
			lasso_design_free(&d);
			goto fail;
		}
		for (j = 0; j < p; j++)
			if (s.w[j] != 0.0)
			{
				nz++;
				if (r->entered_at[j] < 0)
					r->entered_at[j] = k;
			}
		r->path_nonzero[k] = nz;
		if (k == r->best)
		{
			memcpy(wbest, s.w, sizeof(double) * p);
			r->n_iter = iters;
			r->converged = ok;
		}
		if (o->progress != NULL)
			o->progress();
	}
	if (o->solver == LASSO_SOLVER_SKLEARN)
	{
		/* the refit at the chosen lambda, from zero (as LassoCV does) */
		solver_reset(&s, &d);
		rc = solver_solve(&s, &d, r->lambda, o, &r->n_iter, &r->converged,
						  status);
		memcpy(wbest, s.w, sizeof(double) * p);
	}
	/* the fast solver's path fit is already the optimum at lambda */
	solver_free(&s);
	if (rc != TUNER_OK)
	{
		lasso_design_free(&d);
		goto fail;
	}
	r->intercept = design_intercept(&d, wbest);
	for (j = 0; j < p; j++)
	{
		r->coef[j] = wbest[j] / r->scale[j];
		r->coef_scaled[j] = wbest[j];
	}
	if (!o->standardize)
	{
		double *sd = tuner_alloc(sizeof(double) * p);

		if (sd == NULL)
		{
			lasso_design_free(&d);
			rc = tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
			goto fail;
		}
		/* per unit sd: the coefficient times the column's sd */
		column_scale(x, n, p, sd, NULL);
		for (j = 0; j < p; j++)
			r->coef_scaled[j] = wbest[j] * sd[j];
		memcpy(r->scale, sd, sizeof(double) * p);
		tuner_free(sd);
	}
	tuner_free(wbest);
	lasso_design_free(&d);
	tuner_free(owned);
	return TUNER_OK;

fail:
	tuner_free(wbest);
	tuner_free(owned);
	lasso_cv_free(r);
	return rc;
}
