/*
 * test_linalg.c
 *	  Cholesky against a hand-computed factor, jitter on singular matrices,
 *	  and a clean error (not a crash) on a matrix with NaN.
 */
#include <math.h>
#include <string.h>

#include "linalg.h"
#include "unit.h"

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
}
