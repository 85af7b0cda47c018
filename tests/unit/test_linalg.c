/*
 * test_linalg.c
 *	  Cholesky against a hand-computed factor, jitter on singular matrices,
 *	  a clean error (not a crash) on a matrix with NaN, and the inverse by
 *	  halves against LAPACK's dpotri and the identity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "linalg.h"
#include "rng.h"
#include "unit.h"

/*
 * Sizes on both sides of the recursion's base (32), odd splits included:
 * the inverse equals dpotri's, K K^-1 = I, and a zero on the diagonal of
 * the factor (in the second half) is an error.
 */
static void
test_cholesky_inverse_sizes(void)
{
	static const int sizes[] = {1, 5, 32, 33, 77, 100, 131};
	TunerStatus status;
	TunerRng	rng;
	size_t		z;

	rng_seed(&rng, 5);
	for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++)
	{
		int			n = sizes[z];
		double	   *g = malloc(sizeof(double) * n * n);
		double	   *k = malloc(sizeof(double) * n * n);
		double	   *l = malloc(sizeof(double) * n * n);
		double	   *ref = malloc(sizeof(double) * n * n);
		double	   *prod = malloc(sizeof(double) * n * n);
		double	   *work = malloc(sizeof(double) * n * n);
		double		jitter = 0.0, err = 0.0, diff = 0.0;
		int			i, j;

		for (i = 0; i < n * n; i++)
			g[i] = rng_normal(&rng);
		/* K = G G^T / n + 0.1 I: condition number in the hundreds */
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0 / n,
					g, n, g, n, 0.0, k, n);
		for (i = 0; i < n; i++)
			k[i + i * n] += 0.1;
		memcpy(l, k, sizeof(double) * n * n);
		CHECK(linalg_cholesky(l, n, work, &jitter, &status) == TUNER_OK);
		CHECK(jitter == 0.0);
		memcpy(ref, l, sizeof(double) * n * n);
		CHECK(LAPACKE_dpotri(LAPACK_COL_MAJOR, 'L', n, ref, n) == 0);
		CHECK(linalg_cholesky_inverse(l, n, &status) == TUNER_OK);
		cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
					k, n, l, n, 0.0, prod, n);
		for (j = 0; j < n; j++)
			for (i = 0; i < n; i++)
			{
				err = fmax(err, fabs(prod[i + j * n] - (i == j)));
				CHECK(l[i + j * n] == l[j + i * n]);
				if (i >= j)
					diff = fmax(diff, fabs(l[i + j * n] - ref[i + j * n]) /
									  fmax(1.0, fabs(ref[i + j * n])));
			}
		CHECK(err < 1e-10);
		CHECK(diff < 1e-11);

		/* a factor with a zero on its diagonal, past the first half */
		if (n > 2)
		{
			memcpy(l, k, sizeof(double) * n * n);
			CHECK(linalg_cholesky(l, n, work, &jitter, &status) == TUNER_OK);
			l[(n - 2) + (n - 2) * n] = 0.0;
			tuner_status_clear(&status);
			CHECK(linalg_cholesky_inverse(l, n, &status) == TUNER_ERR_NUMERIC);
			CHECK(strstr(status.message, "info") != NULL);
		}
		free(g);
		free(k);
		free(l);
		free(ref);
		free(prod);
		free(work);
	}
}

void
test_linalg(void)
{
	/* [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]] */
	double		a[4] = {4, 2, 2, 3};
	double		work[9];
	double		jitter = -1;
	double		b[2] = {1, 2};
	TunerStatus status;

	tuner_status_clear(&status);
	CHECK(linalg_cholesky(a, 2, work, &jitter, &status) == TUNER_OK);
	CHECK(jitter == 0.0);
	CHECK_CLOSE(a[0], 2.0, 1e-15);
	CHECK_CLOSE(a[1], 1.0, 1e-15);
	CHECK_CLOSE(a[3], sqrt(2.0), 1e-15);
	CHECK_CLOSE(linalg_cholesky_logdet(a, 2), log(8.0), 1e-14);
	/* [[4,2],[2,3]]^-1 [1,2] = [-1/8, 3/4] */
	linalg_cholesky_solve(a, 2, b);
	CHECK_CLOSE(b[0], -0.125, 1e-14);
	CHECK_CLOSE(b[1], 0.75, 1e-14);
	CHECK(linalg_cholesky_inverse(a, 2, &status) == TUNER_OK);
	CHECK_CLOSE(a[0], 3.0 / 8.0, 1e-14);
	CHECK_CLOSE(a[1], -2.0 / 8.0, 1e-14);
	CHECK_CLOSE(a[2], -2.0 / 8.0, 1e-14);

	/* a rank-one 3x3 matrix needs jitter but must factorise */
	{
		double		s[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};

		jitter = 0;
		CHECK(linalg_cholesky(s, 3, work, &jitter, &status) == TUNER_OK);
		CHECK(jitter > 0.0 && jitter <= 1e-2);
	}
	/* a negative definite matrix cannot be rescued by small jitter */
	{
		double		s[4] = {-1, 0, 0, -1};

		CHECK(linalg_cholesky(s, 2, work, &jitter, &status) == TUNER_ERR_NUMERIC);
		CHECK(strlen(status.message) > 0);
	}
	/* NaN on the diagonal is an error, not a crash */
	{
		double		s[4] = {NAN, 0, 0, 1};

		CHECK(linalg_cholesky(s, 2, work, &jitter, &status) == TUNER_ERR_NUMERIC);
	}
	test_cholesky_inverse_sizes();
}
