/*
 * likelihood_eval.c
 *	  What one ICM likelihood-and-gradient evaluation costs on each path
 *	  (icm.h): the eigen path (dsyevd of Kx) and the likelihood_only path
 *	  (T Cholesky factors), and what inverting one Cholesky factor costs
 *	  with linalg_cholesky_inverse and with LAPACK's dpotri.  Smooth
 *	  correlated data in d = 10, T = 4, rank 2, hyperparameters fixed.
 *
 *	  usage: likelihood_eval [n [reps]]   (default 100 300)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lapacke.h>

#include "icm.h"
#include "linalg.h"
#include "rng.h"

#define D 10
#define T 4

static double
seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int reps = argc > 2 ? atoi(argv[2]) : 300;
	TunerStatus st;
	TunerRng rng;
	IcmModel *m;
	double *c, mm[T * T], gdiag[T], asum[T], *l, *work, jitter = 0.0;
	int i, t, r, path;

	if (n < 2 || reps < 1)
	{
		fprintf(stderr, "usage: likelihood_eval [n >= 2 [reps >= 1]]\n");
		return 2;
	}
	rng_seed(&rng, 1);
	m = icm_model_create(n, D, T, 2, &st);
	c = malloc(sizeof(double) * n * n);
	l = malloc(sizeof(double) * n * n);
	work = malloc(sizeof(double) * n * n);
	for (i = 0; i < n * D; i++)
		m->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			m->y[i * T + t] = sin(3.0 * m->x[i * D] + t) +
							  0.5 * cos(2.0 * m->x[i * D + 1 + t]) +
							  0.1 * rng_normal(&rng);
	for (i = 0; i < D; i++)
		m->lengthscales[i] = 0.8;
	for (i = 0; i < T * 2; i++)
		m->W[i] = rng_normal(&rng);
	for (t = 0; t < T; t++)
	{
		m->v[t] = 0.1;
		m->noise[t] = 0.01;
		m->mean[t] = 0.0;
	}

	printf("n = %d, T = %d, d = %d, %d repetitions, ms per call:\n", n, T, D,
		   reps);
	for (path = 0; path <= 1; path++)
	{
		double prepare = 0.0, parts = 0.0;

		m->likelihood_only = path;
		for (r = 0; r < reps; r++)
		{
			double t0 = seconds(), t1;

			if (icm_prepare(m, &st) != TUNER_OK)
				goto fail;
			t1 = seconds();
			if (icm_gradient_parts(m, c, mm, gdiag, asum, &st) != TUNER_OK)
				goto fail;
			prepare += t1 - t0;
			parts += seconds() - t1;
		}
		printf("  %-30s prepare %.3f  gradient pieces %.3f  sum %.3f "
			   "(log-lik %.6f)\n",
			   path ? "likelihood_only (Cholesky)" : "eigen path (dsyevd)",
			   1e3 * prepare / reps, 1e3 * parts / reps,
			   1e3 * (prepare + parts) / reps, m->log_likelihood);
	}

	/* one block lb Kx + I, lb = 3: its factor, inverted two ways */
	for (i = 0; i < n * n; i++)
		work[i] = 3.0 * m->kx[i];
	for (i = 0; i < n; i++)
		work[i + (size_t)i * n] += 1.0;
	if (linalg_cholesky(work, n, c, &jitter, &st) != TUNER_OK)
		goto fail;
	for (path = 0; path <= 1; path++)
	{
		double t0 = seconds();

		for (r = 0; r < reps; r++)
		{
			memcpy(l, work, sizeof(double) * n * n);
			if (path == 0)
				LAPACKE_dpotri_work(LAPACK_COL_MAJOR, 'L', n, l, n);
			else if (linalg_cholesky_inverse(l, n, &st) != TUNER_OK)
				goto fail;
		}
		printf("  %-30s %.3f\n",
			   path ? "linalg_cholesky_inverse" : "dpotri (LAPACK)",
			   1e3 * (seconds() - t0) / reps);
	}
	icm_model_free(m);
	free(c);
	free(l);
	free(work);
	return 0;

fail:
	fprintf(stderr, "likelihood_eval: %s\n", st.message);
	return 1;
}
