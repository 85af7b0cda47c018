/*
 * linalg.c
 *	  Cholesky with jitter retries and triangular solves.  LAPACK reports a
 *	  non-positive-definite matrix through info; we never abort on it, we add
 *	  jitter and try again, and only then report.
 *
 *	  Above LINALG_BLOCK_MIN rows the O(n^3) kernels (the factorisation and
 *	  the inverse) run blocked, one BLAS call on at most a few blocks at a
 *	  time, and poll tuner_interrupted() between blocks: a single dpotrf at
 *	  n = 5000 is some 4e10 flops (over ten seconds) that nothing could
 *	  cancel.  Below the threshold the plain LAPACK calls run, so small fits
 *	  give bit-for-bit the results they always did.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "linalg.h"

#define JITTER_TRIES 7

/*
 * Largest work between two polls: a block update is at most
 * n * LINALG_BLOCK^2 flops, about 0.03 s at n = 5000 on one core.
 */
#define LINALG_BLOCK     256
#define LINALG_BLOCK_MIN 512

static int
imin(int a, int b)
{
	return a < b ? a : b;
}

/* Lower Cholesky in place, blocked; see linalg.h. */
int
linalg_potrf_blocked(double *a, int n, int ld, int nb, TunerStatus *status)
{
	int k;

	if (nb < 1)
		nb = LINALG_BLOCK;
	for (k = 0; k < n; k += nb)
	{
		int kb = imin(nb, n - k);
		int rest = n - k - kb;
		double *akk = a + k + (size_t)k * ld;
		lapack_int info;
		int j;

		if (tuner_check_interrupt(status) != TUNER_OK)
			return -1;
		info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', kb, akk, ld);
		if (info != 0)
			return info > 0 ? (int)info + k : -2;
		if (rest == 0)
			break;
		/* A21 := A21 L11^-T */
		cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans,
					CblasNonUnit, rest, kb, 1.0, akk, ld, akk + kb, ld);
		/* A22 -= A21 A21^T, one block column at a time */
		for (j = k + kb; j < n; j += nb)
		{
			int jb = imin(nb, n - j);
			const double *a21j = a + j + (size_t)k * ld;

			if (tuner_check_interrupt(status) != TUNER_OK)
				return -1;
			cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, jb, kb, -1.0,
						a21j, ld, 1.0, a + j + (size_t)j * ld, ld);
			if (j + jb < n)
				cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans,
							n - j - jb, jb, kb, -1.0, a21j + jb, ld, a21j, ld,
							1.0, a + j + jb + (size_t)j * ld, ld);
		}
	}
	return 0;
}

/*
 * B := T B for a lower-triangular T (m x m) and B (m x cols), in place, by
 * row blocks from the bottom up (a row block needs the rows above it as
 * they were).  Returns -1 when interrupted.
 */
static int
trmm_lower_blocked(const double *t, int m, int ldt, double *b, int cols,
				   int ldb, int nb, TunerStatus *status)
{
	int i;

	if (m < 1 || cols < 1)
		return 0;
	for (i = ((m - 1) / nb) * nb; i >= 0; i -= nb)
	{
		int ib = imin(nb, m - i);

		if (tuner_check_interrupt(status) != TUNER_OK)
			return -1;
		cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
					CblasNonUnit, ib, cols, 1.0, t + i + (size_t)i * ldt, ldt,
					b + i, ldb);
		if (i > 0)
			cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, ib, cols, i,
						1.0, t + i, ldt, b, ldb, 1.0, b + i, ldb);
	}
	return 0;
}

/* L^-1 in place, blocked (LAPACK dtrtri's lower variant); see linalg.h. */
int
linalg_trtri_blocked(double *l, int n, int ld, int nb, TunerStatus *status)
{
	int j;

	if (nb < 1)
		nb = LINALG_BLOCK;
	if (n < 1)
		return 0;
	/* like dtrtri, report a zero on the diagonal before dividing by it */
	for (j = 0; j < n; j++)
		if (l[j + (size_t)j * ld] == 0.0)
			return j + 1;
	for (j = ((n - 1) / nb) * nb; j >= 0; j -= nb)
	{
		int jb = imin(nb, n - j);
		int rest = n - j - jb;
		double *ljj = l + j + (size_t)j * ld;
		lapack_int info;

		if (rest > 0)
		{
			/* rows below: X22 L21, then times -L11^-1 */
			if (trmm_lower_blocked(ljj + jb + (size_t)jb * ld, rest, ld,
								   ljj + jb, jb, ld, nb, status) != 0)
				return -1;
			cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans,
						CblasNonUnit, rest, jb, -1.0, ljj, ld, ljj + jb, ld);
		}
		if (tuner_check_interrupt(status) != TUNER_OK)
			return -1;
		info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', jb, ljj, ld);
		if (info != 0)
			return info > 0 ? (int)info + j : -2;
	}
	return 0;
}

/* Lower triangle of X^T X in place, blocked (LAPACK dlauum); see linalg.h. */
int
linalg_lauum_blocked(double *x, int n, int ld, int nb, TunerStatus *status)
{
	int i;

	if (nb < 1)
		nb = LINALG_BLOCK;
	for (i = 0; i < n; i += nb)
	{
		int ib = imin(nb, n - i);
		int rest = n - i - ib;
		double *xii = x + i + (size_t)i * ld;
		lapack_int info;
		int c;

		if (tuner_check_interrupt(status) != TUNER_OK)
			return -1;
		/* row block i, columns left of it: X_ii^T X_i,0:i */
		if (i > 0)
			cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasTrans,
						CblasNonUnit, ib, i, 1.0, xii, ld, x + i, ld);
		info = LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', ib, xii, ld);
		if (info != 0)
			return -2;
		if (rest == 0)
			continue;
		/* ... plus the rows below: X_below,i^T X_below,0:i */
		for (c = 0; c < i; c += nb)
		{
			int cb = imin(nb, i - c);

			if (tuner_check_interrupt(status) != TUNER_OK)
				return -1;
			cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, ib, cb, rest,
						1.0, xii + ib, ld, x + i + ib + (size_t)c * ld, ld,
						1.0, x + i + (size_t)c * ld, ld);
		}
		cblas_dsyrk(CblasColMajor, CblasLower, CblasTrans, ib, rest, 1.0,
					xii + ib, ld, 1.0, xii, ld);
	}
	return 0;
}

/* Cholesky with growing diagonal jitter; see linalg.h. */
TunerErrorCode
linalg_cholesky(double *a, int n, double *work, double *jitter,
				TunerStatus *status)
{
	double mean_diag = 0.0;
	double added = 0.0;
	int try;
	int i;

	for (i = 0; i < n; i++)
	{
		if (!isfinite(a[i + (size_t)i * n]))
			return tuner_fail(status, TUNER_ERR_NUMERIC,
							  "covariance matrix has a non-finite diagonal");
		mean_diag += a[i + (size_t)i * n];
	}
	mean_diag = n > 0 ? mean_diag / n : 1.0;
	if (!(mean_diag > 0.0))
		mean_diag = 1.0;

	memcpy(work, a, sizeof(double) * n * n);
	for (try = 0; try <= JITTER_TRIES; try++)
	{
		lapack_int info;

		if (try > 0)
		{
			/* 1e-8 .. 1e-2 of the mean diagonal, a decade per try */
			double next = mean_diag * pow(10.0, -9.0 + try);

			memcpy(a, work, sizeof(double) * n * n);
			for (i = 0; i < n; i++)
				a[i + (size_t)i * n] += next;
			added = next;
		}
		if (n >= LINALG_BLOCK_MIN)
		{
			info = linalg_potrf_blocked(a, n, n, LINALG_BLOCK, status);
			if (info == -1)
				return TUNER_ERR_INTERRUPTED;
		}
		else
			/* the _work variant skips LAPACKE's NaN scan (diagonal checked) */
			info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, a, n);
		if (info == 0)
		{
			*jitter = added;
			return TUNER_OK;
		}
		if (info < 0)
			return tuner_fail(status, TUNER_ERR_NUMERIC,
							  "dpotrf rejected argument %d", (int)-info);
	}
	return tuner_fail(
		status, TUNER_ERR_NUMERIC,
		"covariance matrix is not positive definite even with jitter %g",
		added);
}

/* Solve (L L^T) x = b in place. */
void
linalg_cholesky_solve(const double *l, int n, double *b)
{
	cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, l, n,
				b, 1);
	cblas_dtrsv(CblasColMajor, CblasLower, CblasTrans, CblasNonUnit, n, l, n,
				b, 1);
}

/* Solve L x = b in place. */
void
linalg_lower_solve(const double *l, int n, double *b)
{
	cblas_dtrsv(CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, l, n,
				b, 1);
}

/* Solve L X = B in place, B n x m column-major. */
void
linalg_lower_solve_many(const double *l, int n, double *b, int m)
{
	cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
				CblasNonUnit, n, m, 1.0, l, n, b, n);
}

/*
 * L^-1 in place for a lower-triangular L (leading dimension ld), by halves:
 * [L11 0; L21 L22]^-1 = [L11^-1 0; -L22^-1 L21 L11^-1  L22^-1].  Why not
 * dtrtri alone: OpenBLAS 0.3.21 runs it column by column (BLAS-2) at the
 * sizes our fits use; by halves, with dtrmm, and then dlauum, the inverse
 * of the factor takes about half dpotri's time at n = 100
 * (bench/multitask/likelihood_eval.sh).  Returns dtrtri's info (> 0: a
 * zero on the diagonal).
 */
static lapack_int
lower_inverse(double *l, int n, int ld)
{
	int n1 = n / 2, n2 = n - n1;
	double *l21 = l + n1, *l22 = l + n1 + (size_t)n1 * ld;
	lapack_int info;

	if (n <= 32)
		return LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'L', 'N', n, l, ld);
	info = lower_inverse(l, n1, ld);
	if (info != 0)
		return info;
	info = lower_inverse(l22, n2, ld);
	if (info != 0)
		return info + n1;
	cblas_dtrmm(CblasColMajor, CblasRight, CblasLower, CblasNoTrans,
				CblasNonUnit, n2, n1, 1.0, l, ld, l21, ld);
	cblas_dtrmm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans,
				CblasNonUnit, n2, n1, -1.0, l22, ld, l21, ld);
	return 0;
}

/* Replace L by (L L^T)^-1 = L^-T L^-1, both triangles filled. */
TunerErrorCode
linalg_cholesky_inverse(double *l, int n, TunerStatus *status)
{
	lapack_int info;
	int i, j;

	if (n >= LINALG_BLOCK_MIN)
	{
		info = linalg_trtri_blocked(l, n, n, LINALG_BLOCK, status);
		if (info == 0)
			info = linalg_lauum_blocked(l, n, n, LINALG_BLOCK, status);
		if (info == -1)
			return TUNER_ERR_INTERRUPTED;
	}
	else
	{
		info = lower_inverse(l, n, n);
		if (info == 0)
			info = LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, l, n);
	}
	if (info != 0)
		return tuner_fail(status, TUNER_ERR_NUMERIC,
						  "inverting a Cholesky factor failed with info %d",
						  (int)info);
	for (j = 0; j < n; j++)
		for (i = 0; i < j; i++)
			l[i + (size_t)j * n] = l[j + (size_t)i * n];
	return TUNER_OK;
}

/* log determinant from the factor's diagonal. */
double
linalg_cholesky_logdet(const double *l, int n)
{
	double sum = 0.0;
	int i;

	for (i = 0; i < n; i++)
		sum += log(l[i + (size_t)i * n]);
	return 2.0 * sum;
}
