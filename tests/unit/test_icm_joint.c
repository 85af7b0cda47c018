/*
 * test_icm_joint.c
 *	  The posterior of a weighted sum of ICM tasks (icm_posterior_create_
 *	  weighted) and joint optimisation in tuner_suggest (aux_weights):
 *	  a unit weight vector gives exactly the task's posterior; a
 *	  combination's mean is the combination of the tasks' means and its
 *	  variance a^T Sigma a, with Sigma the tasks' joint posterior covariance
 *	  computed here directly from the dense covariance of the observations;
 *	  the log-EI gradient through it equals finite differences.  In
 *	  tuner_suggest: no weights, zero weights and weights on metrics the
 *	  model leaves out give the same point; the reported log EI is g's with
 *	  the documented incumbent and the prediction the objective's; with a
 *	  flat objective, the joint suggestion moves to where the auxiliary
 *	  metric is good; bad weights are rejected.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "icm.h"
#include "icm_posterior.h"
#include "acquisition.h"
#include "log_ei.h"
#include "matern.h"
#include "rng.h"
#include "suggest.h"
#include "unit.h"

#define N_POINTS 20
#define DIM		 3
#define TASKS	 3
#define N_TEST	 6

/* A prepared 3-task, rank-2 model; missing: tasks 1, 2 lose a third. */
static IcmModel *
make_model(uint64_t seed, int missing, int force_full)
{
	int			n = N_POINTS,
				d = DIM,
				T = TASKS,
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
			double		v = cos(2 * m->x[i * d] + t) + 0.4 * t * m->x[i * d + 2] +
				0.05 * rng_normal(&rng);

			m->y[i * T + t] = (missing && t > 0 && (i + t) % 3 == 0) ? NAN : v;
		}
	for (i = 0; i < d; i++)
		m->lengthscales[i] = 0.35 + 0.15 * i;
	for (i = 0; i < T * 2; i++)
		m->W[i] = rng_normal(&rng);
	for (t = 0; t < T; t++)
	{
		m->v[t] = 0.1 + 0.05 * t;
		m->noise[t] = 0.02 * (t + 1);
		m->mean[t] = 0.3 * t - 0.2;
	}
	m->force_full = force_full;
	CHECK(icm_prepare(m, &st) == TUNER_OK);
	return m;
}

/* a = e_t: bit for bit the single task's posterior. */
static void
check_unit_weights(const IcmModel *m)
{
	TunerStatus st;
	int			t;

	for (t = 0; t < m->T; t++)
	{
		double		a[TASKS] = {0.0, 0.0, 0.0};
		IcmPosterior *p = icm_posterior_create(m, t, &st);
		IcmPosterior *q;

		a[t] = 1.0;
		q = icm_posterior_create_weighted(m, a, &st);
		CHECK(p != NULL && q != NULL);
		if (p == NULL || q == NULL)
			return;
		CHECK(p->mean == q->mean);
		CHECK(p->btt == q->btt);
		CHECK(memcmp(p->beta, q->beta, sizeof(double) * m->n) == 0);
		CHECK(memcmp(p->m, q->m, sizeof(double) * m->n * m->n) == 0);
		icm_posterior_free(p);
		icm_posterior_free(q);
	}
}

/*
 * The tasks' joint posterior covariance at x (T x T, sigma) and means
 * (T), straight from the dense covariance K of the observed entries:
 * Sigma = B - C^T K^-1 C, mean = m + C^T K^-1 (y - m), with
 * C[(i, r), s] = k(x, x_i) B[r, s].
 */
static void
dense_posterior(const IcmModel *m, const double *x, double *sigma,
				double *mean)
{
	int			n = m->n,
				d = m->d,
				T = m->T,
				N = 0,
				a,
				b,
				s,
				u;
	int		   *obs = malloc(sizeof(int) * n * T);
	double	   *k,
			   *rhs,
			   *c,
				inv_ls[DIM];
	double	   *kxs = malloc(sizeof(double) * n);

	for (a = 0; a < n * T; a++)
		if (!isnan(m->y[a]))
			obs[N++] = a;
	k = malloc(sizeof(double) * N * N);
	rhs = malloc(sizeof(double) * N * (T + 1));
	c = malloc(sizeof(double) * N * T);
	for (a = 0; a < d; a++)
		inv_ls[a] = 1.0 / m->lengthscales[a];
	for (a = 0; a < n; a++)
		kxs[a] = matern52_unit(sqrt(matern52_r2(x, m->x + a * d, inv_ls, d)));
	for (a = 0; a < N; a++)
	{
		int			i = obs[a] / T,
					r = obs[a] % T;

		for (b = 0; b < N; b++)
		{
			int			j = obs[b] / T,
						q = obs[b] % T;

			k[a + b * N] = matern52_unit(sqrt(matern52_r2(m->x + i * d,
														  m->x + j * d,
														  inv_ls, d))) *
				m->B[r + q * T] + (a == b ? m->noise[r] : 0.0);
		}
		for (s = 0; s < T; s++)
			c[a + s * N] = rhs[a + s * N] = kxs[i] * m->B[r + s * T];
		rhs[a + T * N] = m->y[obs[a]] - m->mean[r];
	}
	CHECK(LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', N, T + 1, k, N, rhs, N) == 0);
	for (s = 0; s < T; s++)
	{
		mean[s] = m->mean[s];
		for (a = 0; a < N; a++)
			mean[s] += c[a + s * N] * rhs[a + T * N];
		for (u = 0; u < T; u++)
		{
			double		q = 0.0;

			for (a = 0; a < N; a++)
				q += c[a + s * N] * rhs[a + u * N];
			sigma[s + u * T] = m->B[s + u * T] - q;
		}
	}
	free(obs);
	free(k);
	free(rhs);
	free(c);
	free(kxs);
}

/* A combination's mean and variance against the dense joint posterior. */
static void
check_combination(const IcmModel *m, uint64_t seed)
{
	const double a[TASKS] = {1.0, 0.7, -0.4};
	TunerStatus st;
	TunerRng	rng;
	IcmPosterior *q = icm_posterior_create_weighted(m, a, &st);
	Posterior	post;
	double		xs[N_TEST * DIM],
				mq[N_TEST],
				sq[N_TEST],
				scratch[3 * N_POINTS];
	double		tm[TASKS][N_TEST],
				ts[TASKS][N_TEST];
	int			i,
				s,
				u;

	CHECK(q != NULL && q->task == -1);
	if (q == NULL)
		return;
	icm_posterior_as_posterior(q, &post);
	rng_seed(&rng, seed);
	for (i = 0; i < N_TEST * DIM; i++)
		xs[i] = rng_uniform(&rng);
	memcpy(xs, m->x + DIM, sizeof(double) * DIM);	/* on a training input */
	CHECK(icm_posterior_predict(q, xs, N_TEST, mq, sq, &st) == TUNER_OK);
	for (s = 0; s < m->T; s++)
		CHECK(icm_predict(m, xs, N_TEST, s, tm[s], ts[s], &st) == TUNER_OK);
	for (i = 0; i < N_TEST; i++)
	{
		double		sigma[TASKS * TASKS],
					dmean[TASKS],
					lin = 0.0,
					var = 0.0,
					mu,
					pv;

		dense_posterior(m, xs + i * DIM, sigma, dmean);
		for (s = 0; s < m->T; s++)
		{
			/* the dense computation agrees with icm_predict per task */
			CHECK_CLOSE(dmean[s], tm[s][i], 1e-9);
			CHECK_CLOSE(sigma[s + s * m->T], ts[s][i] * ts[s][i], 1e-9);
			lin += a[s] * tm[s][i];
			for (u = 0; u < m->T; u++)
				var += a[s] * sigma[s + u * m->T] * a[u];
		}
		CHECK_CLOSE(mq[i], lin, 1e-10);
		CHECK_CLOSE(sq[i] * sq[i], var, 1e-9);
		post.point(post.state, xs + i * DIM, &mu, &pv, NULL, NULL, scratch);
		CHECK_CLOSE(mu, lin, 1e-10);
		CHECK_CLOSE(pv, var, 1e-9);
	}
	/* the prior variance is a^T B a */
	{
		double		prior = 0.0;

		for (s = 0; s < m->T; s++)
			for (u = 0; u < m->T; u++)
				prior += a[s] * m->B[s + u * m->T] * a[u];
		CHECK_CLOSE(post.prior_var, prior, 1e-12);
	}
	icm_posterior_free(q);
}

/* The log-EI gradient through a combination, against finite differences. */
static void
check_gradient(const IcmModel *m, uint64_t seed)
{
	const double a[TASKS] = {1.0, -0.5, 1.5};
	TunerStatus st;
	TunerRng	rng;
	IcmPosterior *q = icm_posterior_create_weighted(m, a, &st);
	Posterior	post;
	double		scratch[3 * N_POINTS + 2 * DIM];
	double		best = -0.5;
	int			k,
				trial;

	CHECK(q != NULL);
	if (q == NULL)
		return;
	icm_posterior_as_posterior(q, &post);
	CHECK(acquisition_scratch_size(&post) <= 3 * N_POINTS + 2 * DIM);
	rng_seed(&rng, seed);
	for (trial = 0; trial < 5; trial++)
	{
		double		u[DIM],
					grad[DIM],
					mu,
					sd,
					v;

		for (k = 0; k < DIM; k++)
			u[k] = 0.05 + 0.9 * rng_uniform(&rng);
		v = acquisition_log_ei(&post, best, u, grad, scratch);
		icm_posterior_predict(q, u, 1, &mu, &sd, &st);
		CHECK_CLOSE(v, log_ei(mu, sd, best), 1e-9);
		for (k = 0; k < DIM; k++)
		{
			double		up[DIM],
						um[DIM],
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
	icm_posterior_free(q);
}

/* Bad weight vectors. */
static void
check_bad_weights(const IcmModel *m)
{
	double		zero[TASKS] = {0.0, 0.0, 0.0};
	double		nan_w[TASKS] = {1.0, NAN, 0.0};
	TunerStatus st;

	tuner_status_clear(&st);
	CHECK(icm_posterior_create_weighted(m, zero, &st) == NULL);
	CHECK(st.code == TUNER_ERR_INVALID);
	tuner_status_clear(&st);
	CHECK(icm_posterior_create_weighted(m, nan_w, &st) == NULL);
	CHECK(st.code == TUNER_ERR_INVALID);
}

/* ---- tuner_suggest with aux_weights ---- */

#define S_AUX	3
#define S_MAX_N 30

/*
 * An objective flat in x0 and x1 (it depends on x2 only), a bowl metric
 * in x0 and x1 that is lowest at (0.8, 0.2, .), the same bowl negated
 * (higher is better), and a constant (left out of the model).
 */
static double
flat_objective(const double *x, TunerRng *rng)
{
	return (x[2] - 0.5) * (x[2] - 0.5) + 0.001 * rng_normal(rng);
}

static double
bowl(const double *x)
{
	return (x[0] - 0.8) * (x[0] - 0.8) + (x[1] - 0.2) * (x[1] - 0.2);
}

typedef struct JointStudy
{
	ParamSpec	space[DIM];
	double		x[S_MAX_N * DIM];
	double		y[S_MAX_N];
	double		aux[S_MAX_N * S_AUX];
	double		weights[S_AUX];
	double		cfg[DIM];
	double		ls[DIM];
	int			used[1 + S_AUX];
	SuggestInput in;
	SuggestResult out;
} JointStudy;

static void
joint_init(JointStudy *s, int n, uint64_t seed)
{
	TunerRng	rng;
	int			i,
				k;

	memset(s, 0, sizeof(JointStudy));
	for (k = 0; k < DIM; k++)
	{
		s->space[k].kind = PARAM_FLOAT;
		s->space[k].low = 0.0;
		s->space[k].high = 1.0;
	}
	rng_seed(&rng, seed);
	for (i = 0; i < n; i++)
	{
		for (k = 0; k < DIM; k++)
			s->x[i * DIM + k] = rng_uniform(&rng);
		s->y[i] = flat_objective(s->x + i * DIM, &rng);
		s->aux[i * S_AUX] = bowl(s->x + i * DIM);
		s->aux[i * S_AUX + 1] = -bowl(s->x + i * DIM);
		s->aux[i * S_AUX + 2] = 4.0;
	}
	s->in.params = s->space;
	s->in.d = DIM;
	s->in.x_observed = s->x;
	s->in.y_observed = s->y;
	s->in.n_observed = n;
	s->in.n_initial = 5;
	s->in.design_index = n;
	s->in.design_seed = 3;
	s->in.seed = 1000 + seed;
	s->in.algorithm = SUGGEST_ALG_ICM;
	s->in.y_aux = s->aux;
	s->in.n_aux = S_AUX;
	s->out.config = s->cfg;
	s->out.lengthscales = s->ls;
	s->out.task_used = s->used;
}

static int
joint_suggest(JointStudy *s)
{
	TunerStatus st;
	TunerErrorCode rc = tuner_suggest(&s->in, &s->out, &st);

	if (rc != TUNER_OK)
		fprintf(stderr, "suggest failed: %s\n", st.message);
	return rc == TUNER_OK;
}

/* Mean and sample sd of n values spaced stride apart (no NaN). */
static void
scale_of(const double *v, int n, int stride, double *mean, double *sd)
{
	double		m = 0.0,
				ss = 0.0;
	int			i;

	for (i = 0; i < n; i++)
		m += v[i * stride] / n;
	for (i = 0; i < n; i++)
		ss += (v[i * stride] - m) * (v[i * stride] - m);
	*mean = m;
	*sd = sqrt(ss / (n - 1));
}

/* Off is off: no weights, zero weights, weight on the constant metric. */
static void
check_off_identical(void)
{
	JointStudy	s;
	double		cfg[DIM],
				mean,
				sd,
				lei;
	int			variant;

	joint_init(&s, 14, 7);
	CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
	memcpy(cfg, s.cfg, sizeof(cfg));
	mean = s.out.predicted_mean;
	sd = s.out.predicted_sd;
	lei = s.out.log_ei;
	icm_model_free(s.out.icm);
	for (variant = 0; variant < 2; variant++)
	{
		s.weights[0] = s.weights[1] = 0.0;
		s.weights[2] = variant == 0 ? 0.0 : 5.0;
		s.in.aux_weights = s.weights;
		CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
		CHECK(s.used[3] == -1);
		CHECK(memcmp(cfg, s.cfg, sizeof(cfg)) == 0);
		CHECK(s.out.predicted_mean == mean && s.out.predicted_sd == sd);
		CHECK(s.out.log_ei == lei);
		icm_model_free(s.out.icm);
	}
}

/*
 * With weights: log EI is g's at the chosen point with the lowest
 * observed g as incumbent; the prediction is the objective's.
 */
static void
check_reported(void)
{
	JointStudy	s;
	TunerStatus st;
	double		a[TASKS],
				mean[1 + S_AUX],
				sd[1 + S_AUX],
				best = HUGE_VAL,
				mu,
				psd;
	IcmPosterior *p;
	int			i;

	joint_init(&s, 14, 8);
	s.weights[0] = 0.5;
	s.weights[1] = -0.25;
	s.weights[2] = 3.0;		/* the constant: not modelled, not in g */
	s.in.aux_weights = s.weights;
	CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
	if (s.out.icm == NULL)
		return;
	CHECK(s.out.icm->T == 3 && s.used[1] == 1 && s.used[2] == 2 &&
		  s.used[3] == -1);
	scale_of(s.y, 14, 1, &mean[0], &sd[0]);
	for (i = 0; i < 2; i++)
		scale_of(s.aux + i, 14, S_AUX, &mean[1 + i], &sd[1 + i]);
	for (i = 0; i < 14; i++)
	{
		double		g = (s.y[i] - mean[0]) / sd[0] +
			0.5 * (s.aux[i * S_AUX] - mean[1]) / sd[1] -
			0.25 * (s.aux[i * S_AUX + 1] - mean[2]) / sd[2];

		best = fmin(best, g);
	}
	a[0] = 1.0;
	a[1] = 0.5;
	a[2] = -0.25;
	p = icm_posterior_create_weighted(s.out.icm, a, &st);
	CHECK(p != NULL);
	if (p != NULL)
	{
		CHECK(icm_posterior_predict(p, s.cfg, 1, &mu, &psd, &st) == TUNER_OK);
		CHECK_CLOSE(s.out.log_ei, log_ei(mu, psd, best), 1e-9);
		icm_posterior_free(p);
	}
	CHECK(icm_predict(s.out.icm, s.cfg, 1, 0, &mu, &psd, &st) == TUNER_OK);
	CHECK_CLOSE(s.out.predicted_mean, mean[0] + mu * sd[0], 1e-9);
	CHECK_CLOSE(s.out.predicted_sd, psd * sd[0], 1e-9);
	icm_model_free(s.out.icm);

	/* bad weights */
	s.weights[1] = NAN;
	tuner_status_clear(&st);
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);
	s.weights[1] = INFINITY;
	CHECK(tuner_suggest(&s.in, &s.out, &st) == TUNER_ERR_INVALID);
}

/*
 * The objective is flat in x0 and x1: alone, the suggestions scatter
 * there; optimised jointly with the bowl (weight 1 on it, or -1 on its
 * negation), five steps from ten random trials come close to its minimum
 * (on average within 0.12; the objective alone, 0.26)
 * at (0.8, 0.2) while the objective stays near its own (x2 = 0.5).
 */
static void
check_moves_to_aux(void)
{
	double		dist[3] = {0.0, 0.0, 0.0},
				obj[3] = {0.0, 0.0, 0.0};
	int			seed,
				runs = 6,
				steps = 5,
				n0 = 10;

	for (seed = 0; seed < runs; seed++)
	{
		JointStudy	s;
		TunerRng	rng;
		int			variant,
					step;

		for (variant = 0; variant < 3; variant++)
		{
			double		closest = HUGE_VAL,
						last_obj = 0.0;

			joint_init(&s, n0, 20 + seed);
			rng_seed(&rng, 99 + seed);
			if (variant > 0)
			{
				s.weights[variant - 1] = variant == 1 ? 1.0 : -1.0;
				s.in.aux_weights = s.weights;
			}
			for (step = 0; step < steps; step++)
			{
				int			n = n0 + step;

				s.in.n_observed = n;
				s.in.design_index = n;
				s.in.seed = 500 + 10 * seed + step;
				CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
				icm_model_free(s.out.icm);
				memcpy(s.x + n * DIM, s.cfg, sizeof(s.cfg));
				s.y[n] = flat_objective(s.cfg, &rng);
				s.aux[n * S_AUX] = bowl(s.cfg);
				s.aux[n * S_AUX + 1] = -bowl(s.cfg);
				s.aux[n * S_AUX + 2] = 4.0;
				closest = fmin(closest, sqrt(bowl(s.cfg)));
				last_obj = s.y[n];
			}
			dist[variant] += closest / runs;
			obj[variant] += last_obj / runs;
			if (variant > 0)
				CHECK(closest < 0.25);
		}
	}
	printf("  objective flat in x0, x1: closest of 5 steps to the metric's "
		   "minimum %.3f alone, %.3f joint, %.3f joint on the negated metric; "
		   "objective at the last step %.4f, %.4f, %.4f\n",
		   dist[0], dist[1], dist[2], obj[0], obj[1], obj[2]);
	CHECK(dist[1] < 0.12 && dist[1] < 0.5 * dist[0]);
	CHECK(dist[2] < 0.5 * dist[0]);
	/* good for both: the objective (minimum 0, 0.25 at the edges) too */
	CHECK(obj[1] < 0.02 && obj[2] < 0.02);
}

/*
 * Missing values: trials that lack a metric of g do not count for the
 * incumbent; when no trial reported every metric of g, the incumbent is
 * the lowest posterior mean of g, and the step still works.
 */
static void
check_missing(void)
{
	JointStudy	s;
	int			i;

	joint_init(&s, 14, 9);
	s.weights[0] = 1.0;
	s.in.aux_weights = s.weights;
	for (i = 0; i < 14; i += 3)
		s.aux[i * S_AUX] = NAN;
	CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
	CHECK(s.out.icm != NULL && s.out.icm->kronecker == 0);
	CHECK(isfinite(s.out.log_ei) && isfinite(s.out.predicted_mean));
	icm_model_free(s.out.icm);

	/* the bowl on even trials, its negation on odd ones: none has both */
	joint_init(&s, 14, 9);
	s.weights[0] = 1.0;
	s.weights[1] = -1.0;
	s.in.aux_weights = s.weights;
	for (i = 0; i < 14; i++)
		s.aux[i * S_AUX + (i % 2)] = NAN;
	CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
	CHECK(s.out.icm != NULL && s.out.icm->T == 3);
	CHECK(isfinite(s.out.log_ei) && isfinite(s.out.predicted_mean));
	icm_model_free(s.out.icm);

	/* and with running trials (fantasised, every task) */
	s.x[13 * DIM] = 0.5;
	s.in.x_pending = s.x + 13 * DIM;
	s.in.n_observed = 13;
	s.in.n_pending = 1;
	CHECK(joint_suggest(&s) && s.out.source == SUGGEST_MODEL);
	CHECK(isfinite(s.out.log_ei));
	icm_model_free(s.out.icm);
}

void
test_icm_joint(void)
{
	IcmModel   *kron = make_model(61, 0, 0);
	IcmModel   *full = make_model(61, 0, 1);
	IcmModel   *missing = make_model(62, 1, 0);

	CHECK(kron->kronecker == 1 && full->kronecker == 0 &&
		  missing->kronecker == 0 && full->jitter == 0.0 &&
		  missing->jitter == 0.0);
	check_unit_weights(kron);
	check_unit_weights(full);
	check_unit_weights(missing);
	check_combination(kron, 71);
	check_combination(full, 71);
	check_combination(missing, 72);
	check_gradient(kron, 81);
	check_gradient(missing, 82);
	check_bad_weights(kron);
	icm_model_free(kron);
	icm_model_free(full);
	icm_model_free(missing);

	check_off_identical();
	check_reported();
	check_moves_to_aux();
	check_missing();
}
