/*
 * linalg.c
 *	  Cholesky with jitter retries and triangular solves.  LAPACK reports a
 *	  non-positive-definite matrix through info; we never abort on it, we add
 *	  jitter and try again, and only then report.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "linalg.h"

#define JITTER_TRIES 7

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
		/* the _work variant skips LAPACKE's NaN scan: the diagonal was checked */
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
	lapack_int info = lower_inverse(l, n, n);
	int i, j;

	if (info == 0)
		info = LAPACKE_dlauum_work(LAPACK_COL_MAJOR, 'L', n, l, n);
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
