/*
 * lasso.h
 *	  Lasso regression, its regularisation path and k-fold
 *	  cross-validation, following scikit-learn's conventions so that results
 *	  agree with Lasso / LassoCV:
 *
 *	    minimise (1/2n) ||y - X b - b0||^2 + lambda ||b||_1
 *
 *	  with a fitted intercept b0 (X and y centred) and features scaled to
 *	  unit (population) standard deviation only with standardize.  Two
 *	  solvers:
 *
 *	  LASSO_SOLVER_FAST (lasso_fast.c): a working-set homotopy on the Gram
 *	  matrix of the working set with the sequential strong rule, coordinate
 *	  descent and exact solves as the fallback, and a KKT check over all
 *	  features; it stops when the duality gap is below tol ||y - mean||^2
 *	  with tol 1e-12 by default, i.e. at the exact optimum.  Not the
 *	  default: its cross-validation curve is the exact one, and on flat
 *	  curves LassoCV's inexact one (tol 1e-4) can choose another lambda
 *	  (bench/README.md, section 5).
 *
 *	  LASSO_SOLVER_SKLEARN (the default, lasso.c): scikit-learn's cyclic coordinate
 *	  descent step for step, with its stopping rule: a sweep whose largest
 *	  coefficient change is below tol times the largest coefficient
 *	  triggers a duality gap check, and the fit stops when the gap is below
 *	  tol ||y - mean||^2 (tol 1e-4 by default) or after max_iter sweeps.
 *	  Sweeps visit every feature in order; a feature at zero is skipped only
 *	  when a safe bound proves it stays at zero, so the iterates are those
 *	  of the plain algorithm (up to rounding) at a fraction of the cost.
 *
 *	  x is row-major n x p (one row per observation).  No PostgreSQL here.
 */
#ifndef TUNER_LASSO_H
#define TUNER_LASSO_H

#include "tuner_status.h"

#define LASSO_SOLVER_FAST    0
#define LASSO_SOLVER_SKLEARN 1

/* Default tol of each solver. */
#define LASSO_FAST_TOL    1e-12
#define LASSO_SKLEARN_TOL 1e-4

typedef struct LassoOptions
{
	int solver;             /* LASSO_SOLVER_FAST or LASSO_SOLVER_SKLEARN */
	int standardize;        /* scale columns to unit population sd */
	double tol;             /* relative duality-gap tolerance (1e-12 fast,
							 * 1e-4 sklearn) */
	int max_iter;           /* sweeps per lambda (1000) */
	int n_lambdas;          /* size of the default grid (100) */
	double eps;             /* lambda_min / lambda_max of it (1e-3) */
	int folds;              /* cross-validation folds (5) */
	const double *lambdas;  /* explicit grid (NULL: the default grid) */
	int n_given;            /* its length */
	int use_bounds;         /* sklearn solver: skip features proven to stay
							 * at zero (1) */
	void (*progress)(void); /* called once per lambda fitted, or NULL */
} LassoOptions;

/* Result of lasso_cv; arrays are owned by it (lasso_cv_free). */
typedef struct LassoCvResult
{
	int p;
	int folds;
	int n_lambdas;
	double *lambdas;     /* n_lambdas, descending */
	double *cv_mean;     /* n_lambdas: mean over folds of the test MSE */
	double *cv_std;      /* n_lambdas: sd over folds (ddof 1) */
	double *fold_mse;    /* n_lambdas x folds, row-major */
	int best;            /* index of the minimum of cv_mean (first one) */
	int best_1se;        /* largest lambda within one standard error */
	double lambda;       /* lambdas[best] */
	double lambda_1se;   /* lambdas[best_1se] */
	double intercept;    /* refit on all rows at lambda */
	double *coef;        /* p, in the units of x */
	double *coef_scaled; /* p, per unit sd of each column */
	double *scale;       /* p: the population sd of each column */
	int *entered_at;     /* p: first index on the full-data path where the
						  * coefficient is non-zero, -1 if never */
	int *path_nonzero;   /* n_lambdas: non-zeros on the full-data path */
	int n_iter;          /* sweeps of the refit */
	int converged;       /* the refit met the tolerance */
} LassoCvResult;

/* The defaults: scikit-learn's (and its solver). */
extern void lasso_options_init(LassoOptions *options);

/* Choose a solver and its default tol. */
extern void lasso_options_set_solver(LassoOptions *options, int solver);

/*
 * One fit at lambda from zero coefficients (as Lasso(alpha=lambda).fit).
 * coef (p) is in the units of x; *n_iter sweeps; *converged is 0 when
 * max_iter was reached first.
 */
extern TunerErrorCode lasso_fit(const double *x, const double *y, int n, int p,
								double lambda, const LassoOptions *options,
								double *coef, double *intercept, int *n_iter,
								int *converged, TunerStatus *status);

/*
 * The grid lasso_cv uses: options->lambdas sorted descending, or
 * n_lambdas values log-spaced from lambda_max = max |X^T (y - mean)| / n
 * (after standardisation if asked) down to eps * lambda_max.  lambdas
 * must hold the grid's size (options->n_given or n_lambdas).
 */
extern TunerErrorCode lasso_grid(const double *x, const double *y, int n,
								 int p, const LassoOptions *options,
								 double *lambdas, TunerStatus *status);

/*
 * The path over nl descending lambdas with warm starts: coefs (nl x p,
 * row-major, units of x) and intercepts (nl).  n_iter (nl) may be NULL.
 */
extern TunerErrorCode lasso_path(const double *x, const double *y, int n,
								 int p, const double *lambdas, int nl,
								 const LassoOptions *options, double *coefs,
								 double *intercepts, int *n_iter,
								 TunerStatus *status);

/*
 * k-fold cross-validation over the grid (contiguous folds, no shuffling,
 * the first n % k folds one row larger), the full-data path for
 * entered_at, and the fit on all rows at the chosen lambda: a refit from
 * zero with the sklearn solver (as LassoCV), the full-data path's fit at
 * that lambda with the fast one (both are the optimum to the tolerance).
 */
extern TunerErrorCode lasso_cv(const double *x, const double *y, int n, int p,
							   const LassoOptions *options,
							   LassoCvResult *result, TunerStatus *status);

/* Free the arrays of a result (safe on a zeroed or partial result). */
extern void lasso_cv_free(LassoCvResult *result);

#endif /* TUNER_LASSO_H */
