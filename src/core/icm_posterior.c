/*
 * icm_posterior.c
 *	  beta and M of one ICM task, or of a weighted sum of tasks
 *	  (icm_posterior.h).  For g = sum_t a_t f_t, with b = B a (b = B[:, t]
 *	  for one task t, a = e_t), the cross-covariance of g(x) with the
 *	  observed entries is c(x) = C kx(x), with C[(i, s), j] = delta_ij b_s,
 *	  so
 *	    beta = C^T alpha,  M = C^T K^-1 C,  prior variance a^T B a.
 *	  Full path: M = Z^T Z with L Z = C.  Kronecker path (fully observed,
 *	  entries point-major): with D = diag(noise),
 *	    K^-1 = (I (x) D^-1/2) (Qx (x) Qb) (lx lb^T + 1)^-1 (Qx (x) Qb)^T
 *	           (I (x) D^-1/2)
 *	  and C kx = kx (x) b, so
 *	    c^T K^-1 c = sum_a,k (Qx^T kx)_a^2 g_k^2 / (lx_a lb_k + 1),
 *	    g = Qb^T D^-1/2 b,
 *	  that is M = Qx diag(h) Qx^T with h_a = sum_k g_k^2 / (lx_a lb_k + 1).
 */
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "icm_posterior.h"
#include "linalg.h"
#include "matern.h"

/* M = Z^T Z, L Z = C, b = B a (T values): O(N^2 n). */
static TunerErrorCode
m_full(const IcmModel *model, const double *b, double *m, TunerStatus *status)
{
	int n = model->n, T = model->T, N = model->n_obs;
	double *z = tuner_alloc_zero(sizeof(double) * N * n);
	int a;

	if (z == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-entry posterior", N);
	for (a = 0; a < N; a++)
	{
		int e = model->obs[a];

		z[a + (size_t)(e / T) * N] = b[e % T];
	}
	linalg_lower_solve_many(model->chol, N, z, n);
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, n, N, 1.0, z, N, z,
				N, 0.0, m, n);
	tuner_free(z);
	return TUNER_OK;
}

/* M = Qx diag(h) Qx^T, b = B a (T values): O(n^3 + n T^2). */
static TunerErrorCode
m_kronecker(const IcmModel *model, const double *b, double *m,
			TunerStatus *status)
{
	int n = model->n, T = model->T;
	double *scaled = tuner_alloc(sizeof(double) * n * n);
	double *g2 = tuner_alloc(sizeof(double) * T);
	int a, i, k, s;

	if (scaled == NULL || g2 == NULL)
	{
		tuner_free(scaled);
		tuner_free(g2);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point posterior", n);
	}
	for (k = 0; k < T; k++)
	{
		double g = 0.0;

		for (s = 0; s < T; s++)
			g += model->qb[s + k * T] * b[s] / sqrt(model->noise[s]);
		g2[k] = g * g;
	}
	for (a = 0; a < n; a++)
	{
		double h = 0.0;

		for (k = 0; k < T; k++)
			h += g2[k] / (model->lx[a] * model->lb[k] + 1.0);
		for (i = 0; i < n; i++)
			scaled[i + (size_t)a * n] = model->qx[i + (size_t)a * n] * h;
	}
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, scaled,
				n, model->qx, n, 0.0, m, n);
	tuner_free(scaled);
	tuner_free(g2);
	return TUNER_OK;
}

/*
 * beta and M of g with b = B a, its prior mean and variance; task is
 * recorded (-1 for a weighted sum).
 */
static IcmPosterior *
posterior_build(const IcmModel *model, int task, const double *b, double mean,
				double prior_var, TunerStatus *status)
{
	int n = model->n, d = model->d, T = model->T;
	IcmPosterior *p;
	TunerErrorCode rc;
	int a, k;

	if (model->kronecker && model->likelihood_only)
	{
		tuner_fail(status, TUNER_ERR_INVALID,
				   "the model was prepared for its likelihood only");
		return NULL;
	}
	p = tuner_alloc_zero(sizeof(IcmPosterior));
	if (p == NULL)
		goto nomem;
	p->model = model;
	p->task = task;
	p->mean = mean;
	p->btt = prior_var;
	p->beta = tuner_alloc_zero(sizeof(double) * n);
	p->m = tuner_alloc(sizeof(double) * n * n);
	p->inv_ls = tuner_alloc(sizeof(double) * d);
	if (!p->beta || !p->m || !p->inv_ls)
	{
		icm_posterior_free(p);
		goto nomem;
	}
	/* alpha is in the order of obs on both paths */
	for (a = 0; a < model->n_obs; a++)
	{
		int e = model->obs[a];

		p->beta[e / T] += b[e % T] * model->alpha[a];
	}
	for (k = 0; k < d; k++)
		p->inv_ls[k] = 1.0 / model->lengthscales[k];
	rc = model->kronecker ? m_kronecker(model, b, p->m, status)
						  : m_full(model, b, p->m, status);
	if (rc != TUNER_OK)
	{
		icm_posterior_free(p);
		return NULL;
	}
	return p;

nomem:
	tuner_fail(status, TUNER_ERR_NOMEM,
			   "out of memory for the posterior of a %d-point model", n);
	return NULL;
}

/* beta and M of one task; see icm_posterior.h. */
IcmPosterior *
icm_posterior_create(const IcmModel *model, int task, TunerStatus *status)
{
	int T = model->T;
	IcmPosterior *p;
	double *b;
	int s;

	if (task < 0 || task >= T)
	{
		tuner_fail(status, TUNER_ERR_INVALID, "task %d is out of range 1..%d",
				   task + 1, T);
		return NULL;
	}
	b = tuner_alloc(sizeof(double) * T);
	if (b == NULL)
	{
		tuner_fail(status, TUNER_ERR_NOMEM,
				   "out of memory for the posterior of a %d-task model", T);
		return NULL;
	}
	/* B[:, t] itself, not a product with e_t */
	for (s = 0; s < T; s++)
		b[s] = model->B[s + task * T];
	p = posterior_build(model, task, b, model->mean[task],
						model->B[task + task * T], status);
	tuner_free(b);
	return p;
}

/* beta and M of a weighted sum of tasks; see icm_posterior.h. */
IcmPosterior *
icm_posterior_create_weighted(const IcmModel *model, const double *weights,
							  TunerStatus *status)
{
	int T = model->T;
	IcmPosterior *p;
	double *b;
	double mean = 0.0, prior_var = 0.0;
	int nonzero = 0;
	int s, u;

	for (s = 0; s < T; s++)
	{
		if (!isfinite(weights[s]))
		{
			tuner_fail(status, TUNER_ERR_INVALID,
					   "the weight of task %d is NaN or infinite", s + 1);
			return NULL;
		}
		nonzero += weights[s] != 0.0;
	}
	if (nonzero == 0)
	{
		tuner_fail(status, TUNER_ERR_INVALID,
				   "at least one task weight must be nonzero");
		return NULL;
	}
	b = tuner_alloc(sizeof(double) * T);
	if (b == NULL)
	{
		tuner_fail(status, TUNER_ERR_NOMEM,
				   "out of memory for the posterior of a %d-task model", T);
		return NULL;
	}
	/*
	 * Zero weights are skipped, so that a = e_t gives B[:, t], mean_t and
	 * B[t, t] exactly, as icm_posterior_create.
	 */
	for (s = 0; s < T; s++)
	{
		b[s] = 0.0;
		for (u = 0; u < T; u++)
			if (weights[u] != 0.0)
				b[s] += model->B[s + u * T] * weights[u];
	}
	for (s = 0; s < T; s++)
		if (weights[s] != 0.0)
		{
			mean += weights[s] * model->mean[s];
			prior_var += weights[s] * b[s];
		}
	p = posterior_build(model, -1, b, mean, prior_var, status);
	tuner_free(b);
	return p;
}

/* Free what icm_posterior_create allocated (not the model). */
void
icm_posterior_free(IcmPosterior *posterior)
{
	if (posterior == NULL)
		return;
	tuner_free(posterior->beta);
	tuner_free(posterior->m);
	tuner_free(posterior->inv_ls);
	tuner_free(posterior);
}

/* Mean and sd at m points; see icm_posterior.h. */
TunerErrorCode
icm_posterior_predict(const IcmPosterior *posterior, const double *xs, int m,
					  double *mean, double *sd, TunerStatus *status)
{
	const IcmModel *model = posterior->model;
	int n = model->n, d = model->d;
	double *kc, *mk;
	int j;

	if (m < 1)
		return TUNER_OK;
	kc = tuner_alloc(sizeof(double) * n * m);
	mk = tuner_alloc(sizeof(double) * n * m);
	if (kc == NULL || mk == NULL)
	{
		tuner_free(kc);
		tuner_free(mk);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory predicting %d points", m);
	}
	matern52_cross(model->x, n, xs, m, d, posterior->inv_ls, model->categories,
				   1.0, kc);
	cblas_dsymm(CblasColMajor, CblasLeft, CblasLower, n, m, 1.0, posterior->m,
				n, kc, n, 0.0, mk, n);
	for (j = 0; j < m; j++)
	{
		const double *k = kc + (size_t)j * n;
		double var =
			posterior->btt - cblas_ddot(n, k, 1, mk + (size_t)j * n, 1);

		mean[j] = posterior->mean + cblas_ddot(n, k, 1, posterior->beta, 1);
		sd[j] = var > 0.0 ? sqrt(var) : 0.0;
	}
	tuner_free(kc);
	tuner_free(mk);
	return TUNER_OK;
}

/*
 * Mean and variance at one point, with gradients: dk_i/du_k =
 * -radial_i (u_k - x_ik) / l_k^2 (0 along a categorical dimension),
 * dmean = beta^T dk, dvar = -2 (M kx)^T dk.  scratch 3n.
 */
static void
icm_point(const void *state, const double *u, double *mean, double *var,
		  double *dmean, double *dvar, double *scratch)
{
	const IcmPosterior *p = state;
	const IcmModel *model = p->model;
	int n = model->n, d = model->d;
	double *kvec = scratch;
	double *radial = scratch + n;
	double *mk = scratch + 2 * n;
	int i, k;

	for (i = 0; i < n; i++)
	{
		double r = sqrt(matern52_r2_metric(u, model->x + (size_t)i * d,
										   p->inv_ls, model->categories, d));

		kvec[i] = matern52_unit(r);
		radial[i] = matern52_radial(r);
	}
	cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, p->m, n, kvec, 1, 0.0, mk,
				1);
	*mean = p->mean + cblas_ddot(n, kvec, 1, p->beta, 1);
	*var = p->btt - cblas_ddot(n, kvec, 1, mk, 1);
	if (dmean == NULL)
		return;
	for (k = 0; k < d; k++)
	{
		double inv_l2 = p->inv_ls[k] * p->inv_ls[k];
		double dmu = 0.0, dv = 0.0;

		/* constant within a choice's bin (matern.h) */
		if (model->categories != NULL && model->categories[k] > 0)
		{
			dmean[k] = 0.0;
			dvar[k] = 0.0;
			continue;
		}
		for (i = 0; i < n; i++)
		{
			double dk =
				-radial[i] * (u[k] - model->x[(size_t)i * d + k]) * inv_l2;

			dmu += p->beta[i] * dk;
			dv += -2.0 * mk[i] * dk;
		}
		dmean[k] = dmu;
		dvar[k] = dv;
	}
}

/* icm_posterior_predict with the signature of PosteriorBatchFn. */
static TunerErrorCode
icm_batch(const void *state, const double *u, int m, double *mean, double *sd,
		  TunerStatus *status)
{
	return icm_posterior_predict(state, u, m, mean, sd, status);
}

/* The task's posterior for the acquisition; see icm_posterior.h. */
void
icm_posterior_as_posterior(const IcmPosterior *posterior, Posterior *post)
{
	post->d = posterior->model->d;
	post->prior_var = posterior->btt;
	post->n_scratch = 3 * posterior->model->n;
	post->point = icm_point;
	post->batch = icm_batch;
	post->state = posterior;
	post->categories = posterior->model->categories;
	post->feasibility = NULL;
}
