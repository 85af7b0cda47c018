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

/*
 * The blocked kernels behind linalg_cholesky and linalg_cholesky_inverse at
 * large n, exposed for the unit tests.  Each works in place on an n x n
 * lower triangle with leading dimension ld, in blocks of nb (< 1: the
 * default), and polls tuner_interrupted() between blocks.  They return 0,
 * -1 when interrupted (status then holds TUNER_ERR_INTERRUPTED), -2 when
 * LAPACK rejected an argument, or LAPACK's positive info (the 1-based
 * column where the factorisation or inversion failed).
 *   linalg_potrf_blocked: A := L with A = L L^T (dpotrf 'L').
 *   linalg_trtri_blocked: L := L^-1 (dtrtri 'L', non-unit).
 *   linalg_lauum_blocked: X := X^T X, lower triangle (dlauum 'L').
 */
extern int linalg_potrf_blocked(double *a, int n, int ld, int nb,
								TunerStatus *status);
extern int linalg_trtri_blocked(double *l, int n, int ld, int nb,
								TunerStatus *status);
extern int linalg_lauum_blocked(double *x, int n, int ld, int nb,
								TunerStatus *status);

#endif /* TUNER_LINALG_H */
