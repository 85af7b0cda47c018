/*
 * test_icm_posterior.c
 *	  The precomputed posterior of one ICM task equals icm_predict on the
 *	  Kronecker path, the forced full path and with missing entries, one
 *	  point at a time and in batches, and the log-EI gradient through it
 *	  equals finite differences.
 */
#include <math.h>
#include <string.h>

#include "acquisition.h"
#include "log_ei.h"
#include "icm.h"
#include "icm_posterior.h"
#include "rng.h"
#include "unit.h"

#define N_POINTS 25
#define N_TEST	 8

/* A prepared 3-task, rank-2 model on smooth correlated data. */
static IcmModel *
make_model(uint64_t seed, int missing, int force_full)
{
	int			n = N_POINTS,
				d = 3,
				T = 3,
				i,
				t;
	TunerStatus st;
	TunerRng	rng;
	IcmModel   *m = icm_model_create(n, d, T, 2, &st);

	rng_seed(&rng, seed);
	for (i = 0; i < n * d; i++)
		m->x[i] = rng_uniform(&rng);
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
		{
			double		v = sin(3 * m->x[i * d] + t) + 0.3 * t * m->x[i * d + 1] +
				0.05 * rng_normal(&rng);

			/* the objective stays complete; the others lose a third */
			m->y[i * T + t] = (missing && t > 0 && (i + t) % 3 == 0) ? NAN : v;
		}
	for (i = 0; i < d; i++)
		m->lengthscales[i] = 0.3 + 0.2 * i;
	for (i = 0; i < T * 2; i++)
		m->W[i] = rng_normal(&rng);
	for (t = 0; t < T; t++)
	{
		m->v[t] = 0.1 + 0.1 * t;
		m->noise[t] = 0.01 * (t + 1);
		m->mean[t] = 0.2 * t - 0.1;
	}
	m->force_full = force_full;
	CHECK(icm_prepare(m, &st) == TUNER_OK);
	return m;
}

/* Every task's posterior against icm_predict. */
static void
check_against_predict(IcmModel *m, uint64_t seed)
{
	double		xs[N_TEST * 3],
				mp[N_TEST],
				sp[N_TEST],
				mq[N_TEST],
				sq[N_TEST],
				scratch[3 * N_POINTS];
	TunerStatus st;
	TunerRng	rng;
	int			i,
				t;

	rng_seed(&rng, seed);
	for (i = 0; i < N_TEST * 3; i++)
		xs[i] = rng_uniform(&rng);
	/* one test point on a training input, where the variance is smallest */
	memcpy(xs, m->x, sizeof(double) * 3);
	for (t = 0; t < m->T; t++)
	{
		IcmPosterior *p = icm_posterior_create(m, t, &st);
		Posterior	post;

		CHECK(p != NULL);
		if (p == NULL)
			continue;
		icm_posterior_as_posterior(p, &post);
		CHECK(icm_predict(m, xs, N_TEST, t, mp, sp, &st) == TUNER_OK);
		CHECK(icm_posterior_predict(p, xs, N_TEST, mq, sq, &st) == TUNER_OK);
		for (i = 0; i < N_TEST; i++)
		{
			double		mu,
						var;

			CHECK_CLOSE(mq[i], mp[i], 1e-10);
			CHECK_CLOSE(sq[i] * sq[i], sp[i] * sp[i], 1e-10);
			if (i > 0)
				CHECK_CLOSE(sq[i], sp[i], 1e-10);
			post.point(post.state, xs + i * 3, &mu, &var, NULL, NULL, scratch);
			CHECK_CLOSE(mu, mp[i], 1e-10);
			CHECK_CLOSE(var, sp[i] * sp[i], 1e-10);
		}
		icm_posterior_free(p);
	}
}

/* The log-EI gradient through the objective task's posterior. */
static void
check_log_ei_gradient(IcmModel *m, uint64_t seed)
{
	TunerStatus st;
	TunerRng	rng;
	IcmPosterior *p = icm_posterior_create(m, 0, &st);
	Posterior	post;
	double		scratch[3 * N_POINTS + 6];
	double		best = HUGE_VAL;
	int			i,
				k,
				trial;

	CHECK(p != NULL);
	if (p == NULL)
		return;
	icm_posterior_as_posterior(p, &post);
	CHECK(acquisition_scratch_size(&post) <= 3 * N_POINTS + 6);
	for (i = 0; i < m->n; i++)
		best = fmin(best, m->y[i * m->T]);
	rng_seed(&rng, seed);
	for (trial = 0; trial < 5; trial++)
	{
		double		u[3],
					grad[3],
					mu,
					sd;
		double		v;

		for (k = 0; k < 3; k++)
			u[k] = 0.05 + 0.9 * rng_uniform(&rng);
		v = acquisition_log_ei(&post, best, u, grad, scratch);
		icm_posterior_predict(p, u, 1, &mu, &sd, &st);
		CHECK_CLOSE(v, log_ei(mu, sd, best), 1e-9);
		for (k = 0; k < 3; k++)
		{
			double		up[3],
						um[3],
						h = 1e-6;

			memcpy(up, u, sizeof(up));
			memcpy(um, u, sizeof(um));
			up[k] += h;
			um[k] -= h;
			CHECK_CLOSE(grad[k],
						(acquisition_log_ei(&post, best, up, NULL, scratch) -
						 acquisition_log_ei(&post, best, um, NULL, scratch)) / (2 * h),
						1e-5);
		}
	}
	icm_posterior_free(p);
}

void
test_icm_posterior(void)
{
	IcmModel   *kron = make_model(31, 0, 0);
	IcmModel   *full = make_model(31, 0, 1);
	IcmModel   *missing = make_model(32, 1, 0);
	TunerStatus st;

	CHECK(kron->kronecker == 1 && full->kronecker == 0 &&
		  missing->kronecker == 0);
	check_against_predict(kron, 41);
	check_against_predict(full, 41);
	check_against_predict(missing, 42);
	check_log_ei_gradient(kron, 51);
	check_log_ei_gradient(missing, 52);

	tuner_status_clear(&st);
	CHECK(icm_posterior_create(kron, 3, &st) == NULL);
	CHECK(st.code == TUNER_ERR_INVALID);
	icm_model_free(kron);
	icm_model_free(full);
	icm_model_free(missing);
}
