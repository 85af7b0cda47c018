/*
 * lasso_int.h
 *	  Internals shared by the two Lasso solvers (lasso.c, the scikit-learn
 *	  replica, and lasso_fast.c, the working-set solver): the centred
 *	  design of one fit.  Not part of the core's interface.
 */
#ifndef TUNER_LASSO_INT_H
#define TUNER_LASSO_INT_H

#include "lasso.h"

/* Centred (and scaled) data of one fit, column-major. */
typedef struct Design
{
	int n;
	int p;
	double *x;     /* n x p column-major, columns centred */
	double *y;     /* n, centred */
	double *mean;  /* p column means before centring */
	double ymean;  /* mean of y */
	double *norm2; /* p: ||x_j||^2 */
	double *norm;  /* p: ||x_j|| */
	double *xty;   /* p: x_j^T y */
	double yy;     /* ||y||^2 */
} Design;

/*
 * State of the working-set solver on one design (lasso_fast.c).  w is the
 * full coefficient vector (zero outside the working set) after each solve.
 */
typedef struct FastState
{
	const Design *d;
	double *w;            /* p coefficients */
	double *g;            /* p: x_j^T r outside the working set, exact when
						 * the distance stamp ga_j was the current c */
	double *ga;           /* p: c when g_j was computed */
	double c;             /* sum of ||r_t - r_t-1|| over the checkpoints */
	double *r;            /* n: residual scratch */
	int n_alloc;          /* rows the arrays were allocated for */
	double lambda_prev;   /* lambda of the previous solve (lambda_max first) */
	int exact;            /* w is the optimum at lambda_prev on the working
						 * set, and L factors the Gram matrix of its
						 * support */
	int s;                /* size of the working set */
	int cap;              /* its capacity */
	int m;                /* size of the support in L */
	int *widx;            /* cap: feature of each working-set slot */
	int *pos;             /* p: slot of each feature, -1 outside */
	double *xw;           /* n x cap: the working set's columns */
	double *gram;         /* cap x cap: their Gram matrix, leading dim cap */
	double *gw;           /* cap: x_j^T r over the working set */
	double *ww;           /* cap: coefficients over the working set */
	double *wref;         /* cap: ww at the last checkpoint */
	double *sgn;          /* cap: sign of each support slot, 0 outside */
	double *chol;         /* cap x cap: L, lower Cholesky factor, leading
						 * dim cap, of the support's Gram matrix */
	int *aidx;            /* cap: slot of each row of L */
	double *dvec;         /* cap: scratch */
	double *dg;           /* cap: scratch */
	double *wdir;         /* cap: scratch */
	int *cand;            /* p: scratch (features to add) */
	double *key;          /* p: scratch (their |g_j|) */
	long n_newton;        /* exact solves tried (statistics) */
	long n_newton_ok;     /* and accepted */
	long n_steps;         /* homotopy steps */
	long n_homotopy_fail; /* homotopies abandoned */
	long n_exact_dots;    /* gradients outside W computed exactly */
	long n_sweeps;        /* sweeps over the working set */
} FastState;

extern TunerErrorCode lasso_design_init(Design *d, const double *x,
										const double *y, int n_all, int p,
										int skip_lo, int skip_hi,
										const Design *centre_with,
										TunerStatus *status);
extern void lasso_design_free(Design *d);

extern TunerErrorCode fast_init(FastState *s, const Design *d,
								TunerStatus *status);
extern void fast_reset(FastState *s);
extern void fast_bind(FastState *s, const Design *d);
extern TunerErrorCode fast_solve(FastState *s, double lambda,
								 const LassoOptions *o, int *n_iter,
								 int *converged, TunerStatus *status);
extern void fast_free(FastState *s);

#endif /* TUNER_LASSO_INT_H */
