/*
 * linalg.h
 *	  The few dense linear-algebra steps the GP needs, on column-major
 *	  matrices, through LAPACKE and CBLAS.
 */
#ifndef TUNER_LINALG_H
#define TUNER_LINALG_H

#include "tuner_status.h"

/*
 * Cholesky factor of a symmetric positive (semi)definite matrix.  a holds
 * the n x n matrix and is overwritten with its lower factor L; work must hold
 * n * n doubles.  When the plain factorisation fails, a growing multiple of
 * the mean diagonal is added (up to 1e-2 of it) and the amount added is
 * returned in *jitter.  TUNER_ERR_NUMERIC only if every try failed.
 */
extern TunerErrorCode linalg_cholesky(double *a, int n, double *work,
									  double *jitter, TunerStatus *status);

/* Solve (L L^T) x = b in place for one right-hand side. */
extern void linalg_cholesky_solve(const double *l, int n, double *b);

/* Solve L x = b in place (lower triangular, one right-hand side). */
extern void linalg_lower_solve(const double *l, int n, double *b);

/* Solve L X = B in place for m right-hand sides (B is n x m). */
extern void linalg_lower_solve_many(const double *l, int n, double *b, int m);

/* Overwrite L with the full symmetric inverse (L L^T)^-1. */
extern TunerErrorCode linalg_cholesky_inverse(double *l, int n,
											  TunerStatus *status);

/* log det (L L^T) = 2 sum log L_ii. */
extern double linalg_cholesky_logdet(const double *l, int n);

#endif /* TUNER_LINALG_H */
