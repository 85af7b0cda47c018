/*
 * icm.c
 *	  The ICM multi-task model (see icm.h): allocation, input checks, the
 *	  full and Kronecker factorisations, prediction, the task correlation and
 *	  the path-specific pieces of the likelihood gradient.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "icm_internal.h"
#include "linalg.h"
#include "matern.h"

#define LOG_2PI 1.8378770664093454836

/* Allocate a model; see icm.h. */
IcmModel *
icm_model_create(int n, int d, int T, int rank, TunerStatus *status)
{
	IcmModel *model;

	if (n < 1 || d < 1 || T < 1)
	{
		tuner_fail(status, TUNER_ERR_INVALID,
				   "a multi-task model needs at least one point, dimension "
				   "and task");
		return NULL;
	}
	if (rank < 1 || rank > T)
	{
		tuner_fail(status, TUNER_ERR_INVALID,
				   "rank %d is out of range: it must be between 1 and the "
				   "number of tasks (%d)",
				   rank, T);
		return NULL;
	}
	model = tuner_alloc_zero(sizeof(IcmModel));
	if (model == NULL)
		goto nomem;
	model->n = n;
	model->d = d;
	model->T = T;
	model->rank = rank;
	model->x = tuner_alloc(sizeof(double) * n * d);
	model->y = tuner_alloc(sizeof(double) * n * T);
	model->lengthscales = tuner_alloc(sizeof(double) * d);
	model->W = tuner_alloc(sizeof(double) * T * rank);
	model->v = tuner_alloc(sizeof(double) * T);
	model->noise = tuner_alloc(sizeof(double) * T);
	model->mean = tuner_alloc(sizeof(double) * T);
	model->obs = tuner_alloc(sizeof(int) * n * T);
	model->B = tuner_alloc(sizeof(double) * T * T);
	model->kx = tuner_alloc(sizeof(double) * n * n);
	model->alpha = tuner_alloc(sizeof(double) * n * T);
	if (!model->x || !model->y || !model->lengthscales || !model->W ||
		!model->v || !model->noise || !model->mean || !model->obs ||
		!model->B || !model->kx || !model->alpha)
	{
		icm_model_free(model);
		goto nomem;
	}
	return model;

nomem:
	tuner_fail(status, TUNER_ERR_NOMEM,
			   "out of memory for a %d-point, %d-task model", n, T);
	return NULL;
}

/* Free a model and everything it owns. */
void
icm_model_free(IcmModel *model)
{
	if (model == NULL)
		return;
	tuner_free(model->x);
	tuner_free(model->y);
	tuner_free(model->lengthscales);
	tuner_free(model->W);
	tuner_free(model->v);
	tuner_free(model->noise);
	tuner_free(model->mean);
	tuner_free(model->obs);
	tuner_free(model->B);
	tuner_free(model->kx);
	tuner_free(model->alpha);
	tuner_free(model->chol);
	tuner_free(model->qx);
	tuner_free(model->lx);
	tuner_free(model->qb);
	tuner_free(model->lb);
	tuner_free(model->lk);
	tuner_free(model->categories);
	tuner_free(model);
}

/* Set the model's input metric; see icm.h. */
TunerErrorCode
icm_model_set_categories(IcmModel *model, const int *categories,
						 TunerStatus *status)
{
	return matern_copy_categories(&model->categories, categories, model->d,
								  status);
}

/* Inputs and hyperparameters that can define the model. */
static TunerErrorCode
check_model(IcmModel *model, TunerStatus *status)
{
	int n = model->n, d = model->d, T = model->T;
	int i, t;

	for (i = 0; i < n * d; i++)
		if (!isfinite(model->x[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "x contains NaN or infinity (point %d)",
							  i / d + 1);
	for (i = 0; i < n * T; i++)
		if (isinf(model->y[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "y contains infinity (point %d, task %d)",
							  i / T + 1, i % T + 1);
	for (t = 0; t < T; t++)
	{
		int seen = 0;

		for (i = 0; i < n && !seen; i++)
			seen = !isnan(model->y[(size_t)i * T + t]);
		if (!seen)
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task %d has no observations", t + 1);
	}
	for (i = 0; i < d; i++)
		if (!(model->lengthscales[i] > 0.0) ||
			!isfinite(model->lengthscales[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "lengthscale %d must be positive and finite",
							  i + 1);
	for (i = 0; i < T * model->rank; i++)
		if (!isfinite(model->W[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task covariance factor W must be finite");
	for (t = 0; t < T; t++)
	{
		if (!(model->v[t] > 0.0) || !isfinite(model->v[t]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task variance v %d must be positive and finite",
							  t + 1);
		if (!(model->noise[t] > 0.0) || !isfinite(model->noise[t]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "noise of task %d must be positive and finite",
							  t + 1);
		if (!isfinite(model->mean[t]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "mean of task %d must be finite", t + 1);
	}
	return TUNER_OK;
}

/* B = W W^T + diag(v), column-major (symmetric). */
static void
build_b(const IcmModel *model, double *b)
{
	int T = model->T, r = model->rank;
	int i, j, k;

	for (i = 0; i < T; i++)
		for (j = 0; j < T; j++)
		{
			double sum = i == j ? model->v[i] : 0.0;

			for (k = 0; k < r; k++)
				sum += model->W[i * r + k] * model->W[j * r + k];
			b[i + j * T] = sum;
		}
}

/*
 * Eigen-decomposition of a symmetric n x n matrix (column-major, replaced by
 * its eigenvectors), eigenvalues ascending in w.  Workspace from
 * tuner_alloc, so that the glue's memory context owns it.
 */
static TunerErrorCode
sym_eigen(double *a, int n, double *w, TunerStatus *status)
{
	double wq;
	lapack_int iq;
	lapack_int info;
	double *work;
	lapack_int *iwork;
	lapack_int lwork, liwork;

	info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a, n, w, &wq, -1,
							   &iq, -1);
	if (info != 0)
		return tuner_fail(status, TUNER_ERR_NUMERIC,
						  "dsyevd workspace query failed with info %d",
						  (int)info);
	lwork = (lapack_int)wq;
	liwork = iq;
	work = tuner_alloc(sizeof(double) * (lwork > 1 ? lwork : 1));
	iwork = tuner_alloc(sizeof(lapack_int) * (liwork > 1 ? liwork : 1));
	if (work == NULL || iwork == NULL)
	{
		tuner_free(work);
		tuner_free(iwork);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for an eigen-decomposition");
	}
	info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'L', n, a, n, w, work,
							   lwork, iwork, liwork);
	tuner_free(work);
	tuner_free(iwork);
	if (info != 0)
		return tuner_fail(status, TUNER_ERR_NUMERIC,
						  "dsyevd failed with info %d", (int)info);
	return TUNER_OK;
}

/* Allocate *p with count doubles if it is not allocated yet. */
static int
ensure(double **p, size_t count)
{
	if (*p == NULL)
		*p = tuner_alloc(sizeof(double) * (count > 0 ? count : 1));
	return *p != NULL;
}

/* Full path: Cholesky of K over the observed entries. */
static TunerErrorCode
prepare_full(IcmModel *model, TunerStatus *status)
{
	int N = model->n_obs, n = model->n, T = model->T;
	double *work;
	double quad = 0.0;
	int a, b;
	TunerErrorCode rc;

	if (!ensure(&model->chol, (size_t)N * N))
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-entry covariance", N);
	for (b = 0; b < N; b++)
	{
		int j = model->obs[b] / T, s = model->obs[b] % T;

		if (b % 256 == 0 && tuner_check_interrupt(status) != TUNER_OK)
			return TUNER_ERR_INTERRUPTED;
		for (a = b; a < N; a++)
		{
			int i = model->obs[a] / T, t = model->obs[a] % T;
			double k = model->kx[i + (size_t)j * n] * model->B[t + s * T];

			if (a == b)
				k += model->noise[t];
			model->chol[a + (size_t)b * N] = k;
			model->chol[b + (size_t)a * N] = k;
		}
	}
	work = tuner_alloc(sizeof(double) * N * N);
	if (work == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-entry covariance", N);
	rc = linalg_cholesky(model->chol, N, work, &model->jitter, status);
	tuner_free(work);
	if (rc != TUNER_OK)
		return rc;
	for (a = 0; a < N; a++)
	{
		int e = model->obs[a];

		model->alpha[a] = model->y[e] - model->mean[e % T];
	}
	linalg_cholesky_solve(model->chol, N, model->alpha);
	for (a = 0; a < N; a++)
	{
		int e = model->obs[a];

		quad += (model->y[e] - model->mean[e % T]) * model->alpha[a];
	}
	model->log_likelihood = -0.5 * quad -
							0.5 * linalg_cholesky_logdet(model->chol, N) -
							0.5 * N * LOG_2PI;
	return TUNER_OK;
}

/* Whitened residuals; see icm_internal.h. */
void
icm_whitened_residuals(const IcmModel *model, double *r)
{
	int n = model->n, T = model->T;
	int i, t;

	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			r[i + t * n] = (model->y[(size_t)i * T + t] - model->mean[t]) /
						   sqrt(model->noise[t]);
}

/* alpha and the log likelihood from a whitened solve; see icm_internal.h. */
void
icm_kronecker_finish(IcmModel *model, const double *r, double logdet_whitened)
{
	int n = model->n, T = model->T;
	double quad = 0.0, logdet = logdet_whitened;
	int i, t;

	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
		{
			double resid = model->y[(size_t)i * T + t] - model->mean[t];

			model->alpha[i * T + t] = r[i + t * n] / sqrt(model->noise[t]);
			quad += resid * model->alpha[i * T + t];
		}
	for (t = 0; t < T; t++)
		logdet += n * log(model->noise[t]);
	model->log_likelihood =
		-0.5 * quad - 0.5 * logdet - 0.5 * (double)n * T * LOG_2PI;
}

/* The alpha terms of the gradient pieces; see icm_internal.h. */
void
icm_alpha_products(const IcmModel *model, const double *a_m, double *tmp,
				   double c_beta, double *c, double *mm)
{
	int n = model->n, T = model->T;

	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, T, T, 1.0, a_m,
				n, model->B, T, 0.0, tmp, n);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, T, 1.0, tmp, n,
				a_m, n, c_beta, c, n);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, T, n, 1.0,
				model->kx, n, a_m, n, 0.0, tmp, n);
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, T, T, n, 1.0, a_m, n,
				tmp, n, 0.0, mm, T);
}

/* Qb and Lb of the whitened B; see icm_internal.h. */
TunerErrorCode
icm_whitened_task_eigen(IcmModel *model, TunerStatus *status)
{
	int T = model->T;
	int t, k;
	TunerErrorCode rc;

	if (!ensure(&model->qb, (size_t)T * T) || !ensure(&model->lb, T))
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-task model", T);
	for (t = 0; t < T; t++)
		for (k = 0; k < T; k++)
			model->qb[t + k * T] =
				model->B[t + k * T] / sqrt(model->noise[t] * model->noise[k]);
	rc = sym_eigen(model->qb, T, model->lb, status);
	if (rc != TUNER_OK)
		return rc;
	/* Round-off can make a PSD matrix's eigenvalues slightly negative. */
	for (k = 0; k < T; k++)
		model->lb[k] = fmax(model->lb[k], 0.0);
	return TUNER_OK;
}

/* Kronecker path: eigen-decompositions of Kx and of the whitened B. */
static TunerErrorCode
prepare_kronecker(IcmModel *model, TunerStatus *status)
{
	int n = model->n, T = model->T;
	double *r = NULL;
	double *p = NULL;
	double logdet = 0.0;
	int a, k;
	TunerErrorCode rc;

	if (!ensure(&model->qx, (size_t)n * n) || !ensure(&model->lx, n))
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point model", n);
	model->jitter = 0.0;
	memcpy(model->qx, model->kx, sizeof(double) * n * n);
	rc = sym_eigen(model->qx, n, model->lx, status);
	if (rc != TUNER_OK)
		return rc;
	rc = icm_whitened_task_eigen(model, status);
	if (rc != TUNER_OK)
		return rc;
	/* Round-off can make a PSD matrix's eigenvalues slightly negative. */
	for (a = 0; a < n; a++)
		model->lx[a] = fmax(model->lx[a], 0.0);

	r = tuner_alloc(sizeof(double) * n * T);
	p = tuner_alloc(sizeof(double) * n * T);
	if (r == NULL || p == NULL)
	{
		tuner_free(r);
		tuner_free(p);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point model", n);
	}
	icm_whitened_residuals(model, r);
	/* P = Qx^T R Qb, divided by lx_a lb_k + 1, then R = Qx P Qb^T */
	cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, T, n, 1.0,
				model->qx, n, r, n, 0.0, p, n);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, T, T, 1.0, p, n,
				model->qb, T, 0.0, r, n);
	for (k = 0; k < T; k++)
		for (a = 0; a < n; a++)
		{
			double e = model->lx[a] * model->lb[k] + 1.0;

			r[a + k * n] /= e;
			logdet += log(e);
		}
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, T, T, 1.0, r, n,
				model->qb, T, 0.0, p, n);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, T, n, 1.0,
				model->qx, n, p, n, 0.0, r, n);
	icm_kronecker_finish(model, r, logdet);
	tuner_free(r);
	tuner_free(p);
	return TUNER_OK;
}

/* Build B and Kx, pick a path and factorise; see icm.h. */
TunerErrorCode
icm_prepare(IcmModel *model, TunerStatus *status)
{
	int n = model->n, d = model->d, T = model->T;
	int e, N = 0;
	TunerErrorCode rc;

	rc = check_model(model, status);
	if (rc != TUNER_OK)
		return rc;
	for (e = 0; e < n * T; e++)
		if (!isnan(model->y[e]))
			model->obs[N++] = e;
	model->n_obs = N;
	build_b(model, model->B);
	if (!model->kx_ready)
	{
		double *inv_ls = tuner_alloc(sizeof(double) * d);

		if (inv_ls == NULL)
			return tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
		for (e = 0; e < d; e++)
			inv_ls[e] = 1.0 / model->lengthscales[e];
		matern52_gram(model->x, n, d, inv_ls, model->categories, 1.0,
					  model->kx);
		tuner_free(inv_ls);
	}

	model->kronecker = (N == n * T && !model->force_full);
	if (model->kronecker && model->likelihood_only)
		return icm_prepare_kronecker_cholesky(model, status);
	if (model->kronecker)
		return prepare_kronecker(model, status);
	return prepare_full(model, status);
}

/* icm_predict on one block of points. */
static TunerErrorCode
predict_block(const IcmModel *model, const double *xs, int m, int task,
			  double *mean, double *sd, TunerStatus *status)
{
	int n = model->n, d = model->d, T = model->T, N = model->n_obs;
	double *inv_ls = NULL, *kc = NULL, *ks = NULL, *ab = NULL, *wb = NULL;
	double btt;
	int i, j, a, k, s;
	TunerErrorCode rc = TUNER_OK;

	if (task < 0 || task >= T)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "task %d is out of range 1..%d", task + 1, T);
	if (model->kronecker && model->likelihood_only)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the model was prepared for its likelihood only");
	for (i = 0; i < m * d; i++)
		if (!isfinite(xs[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "prediction points contain NaN or infinity");
	if (m < 1)
		return TUNER_OK;
	btt = model->B[task + task * T];
	inv_ls = tuner_alloc(sizeof(double) * d);
	kc = tuner_alloc(sizeof(double) * n * m);
	ab = tuner_alloc(sizeof(double) * n);
	wb = tuner_alloc(sizeof(double) * T);
	ks = tuner_alloc(sizeof(double) *
					 (model->kronecker ? (size_t)n * m : (size_t)N * m));
	if (!inv_ls || !kc || !ab || !wb || !ks)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory predicting %d points", m);
		goto done;
	}
	for (i = 0; i < d; i++)
		inv_ls[i] = 1.0 / model->lengthscales[i];
	matern52_cross(model->x, n, xs, m, d, inv_ls, model->categories, 1.0, kc);

	if (model->kronecker)
	{
		/* mean: kx^T (A B[:, task]); A = alpha as n x T */
		for (i = 0; i < n; i++)
		{
			double sum = 0.0;

			for (s = 0; s < T; s++)
				sum += model->alpha[i * T + s] * model->B[s + task * T];
			ab[i] = sum;
		}
		/* (Qb^T D^-1/2 B[:, task])_k, squared */
		for (k = 0; k < T; k++)
		{
			double sum = 0.0;

			for (s = 0; s < T; s++)
				sum += model->qb[s + k * T] * model->B[s + task * T] /
					   sqrt(model->noise[s]);
			wb[k] = sum * sum;
		}
		cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, n, m, n, 1.0,
					model->qx, n, kc, n, 0.0, ks, n);
		for (j = 0; j < m; j++)
		{
			double q = 0.0;

			for (a = 0; a < n; a++)
			{
				double u = ks[a + (size_t)j * n];
				double inner = 0.0;

				for (k = 0; k < T; k++)
					inner += wb[k] / (model->lx[a] * model->lb[k] + 1.0);
				q += u * u * inner;
			}
			mean[j] = model->mean[task] +
					  cblas_ddot(n, kc + (size_t)j * n, 1, ab, 1);
			sd[j] = btt - q > 0.0 ? sqrt(btt - q) : 0.0;
		}
	}
	else
	{
		for (j = 0; j < m; j++)
			for (a = 0; a < N; a++)
			{
				int e = model->obs[a];

				ks[a + (size_t)j * N] =
					kc[e / T + (size_t)j * n] * model->B[e % T + task * T];
			}
		for (j = 0; j < m; j++)
			mean[j] = model->mean[task] +
					  cblas_ddot(N, ks + (size_t)j * N, 1, model->alpha, 1);
		linalg_lower_solve_many(model->chol, N, ks, m);
		for (j = 0; j < m; j++)
		{
			double q =
				cblas_ddot(N, ks + (size_t)j * N, 1, ks + (size_t)j * N, 1);

			sd[j] = btt - q > 0.0 ? sqrt(btt - q) : 0.0;
		}
	}

done:
	tuner_free(inv_ls);
	tuner_free(kc);
	tuner_free(ks);
	tuner_free(ab);
	tuner_free(wb);
	return rc;
}

/*
 * Above this much work (rows^2 m flops) the points are predicted in chunks
 * of PREDICT_CHUNK, polling for an interrupt between them; below it in one
 * piece, as always.
 */
#define PREDICT_CHUNK     256
#define PREDICT_CHUNK_MIN 1e9

/* Posterior of f_task at m points; see icm.h. */
TunerErrorCode
icm_predict(const IcmModel *model, const double *xs, int m, int task,
			double *mean, double *sd, TunerStatus *status)
{
	double rows = model->kronecker ? model->n : model->n_obs;
	int first;

	if (rows * rows * m <= PREDICT_CHUNK_MIN || m <= PREDICT_CHUNK)
		return predict_block(model, xs, m, task, mean, sd, status);
	for (first = 0; first < m; first += PREDICT_CHUNK)
	{
		int c = m - first < PREDICT_CHUNK ? m - first : PREDICT_CHUNK;
		TunerErrorCode rc;

		if (tuner_check_interrupt(status) != TUNER_OK)
			return TUNER_ERR_INTERRUPTED;
		rc = predict_block(model, xs + (size_t)first * model->d, c, task,
						   mean + first, sd + first, status);
		if (rc != TUNER_OK)
			return rc;
	}
	return TUNER_OK;
}

/* corr(B); see icm.h. */
TunerErrorCode
icm_task_correlation(const IcmModel *model, double *corr, TunerStatus *status)
{
	int T = model->T;
	int i, j;

	build_b(model, corr);
	for (i = 0; i < T; i++)
		if (!(corr[i + i * T] > 0.0) || !isfinite(corr[i + i * T]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "task %d has no positive variance", i + 1);
	for (j = 0; j < T; j++)
		for (i = 0; i < T; i++)
			if (i != j)
				corr[i + j * T] /= sqrt(corr[i + i * T] * corr[j + j * T]);
	for (i = 0; i < T; i++)
		corr[i + i * T] = 1.0;
	return TUNER_OK;
}

/* Gradient pieces on the full path, from an explicit K^-1. */
static TunerErrorCode
gradient_parts_full(const IcmModel *model, double *c, double *mm,
					double *gdiag, double *asum, TunerStatus *status)
{
	int n = model->n, T = model->T, N = model->n_obs;
	double *kinv;
	int a, b;
	TunerErrorCode rc;

	kinv = tuner_alloc(sizeof(double) * N * N);
	if (kinv == NULL)
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-entry covariance", N);
	memcpy(kinv, model->chol, sizeof(double) * N * N);
	rc = linalg_cholesky_inverse(kinv, N, status);
	if (rc != TUNER_OK)
	{
		tuner_free(kinv);
		return rc;
	}
	memset(c, 0, sizeof(double) * n * n);
	memset(mm, 0, sizeof(double) * T * T);
	memset(gdiag, 0, sizeof(double) * T);
	memset(asum, 0, sizeof(double) * T);
	for (b = 0; b < N; b++)
	{
		int j = model->obs[b] / T, s = model->obs[b] % T;

		if (b % 256 == 0 && tuner_check_interrupt(status) != TUNER_OK)
		{
			tuner_free(kinv);
			return TUNER_ERR_INTERRUPTED;
		}
		asum[s] += model->alpha[b];
		gdiag[s] +=
			model->alpha[b] * model->alpha[b] - kinv[b + (size_t)b * N];
		for (a = 0; a < N; a++)
		{
			int i = model->obs[a] / T, t = model->obs[a] % T;
			double g =
				model->alpha[a] * model->alpha[b] - kinv[a + (size_t)b * N];

			c[i + (size_t)j * n] += g * model->B[t + s * T];
			mm[t + s * T] += g * model->kx[i + (size_t)j * n];
		}
	}
	tuner_free(kinv);
	return TUNER_OK;
}

/*
 * Gradient pieces on the Kronecker path, O(n^3 + T^3):
 *   c  = A B A^T - Qx diag(sum_k lb_k / (lx_a lb_k + 1)) Qx^T
 *   mm = A^T Kx A - D^-1/2 Qb diag(sum_a lx_a / (lx_a lb_k + 1)) Qb^T D^-1/2
 *   gdiag_t = sum_i A_it^2 - sum_k Qb_tk^2 sum_a 1 / (lx_a lb_k + 1) / noise_t
 */
static TunerErrorCode
gradient_parts_kronecker(const IcmModel *model, double *c, double *mm,
						 double *gdiag, double *asum, TunerStatus *status)
{
	int n = model->n, T = model->T;
	double *a_m, *tmp, *scaled;
	int i, t, s, a, k;

	a_m = tuner_alloc(sizeof(double) * n * T);
	tmp = tuner_alloc(sizeof(double) * n * T);
	scaled = tuner_alloc(sizeof(double) * n * n);
	if (!a_m || !tmp || !scaled)
	{
		tuner_free(a_m);
		tuner_free(tmp);
		tuner_free(scaled);
		return tuner_fail(status, TUNER_ERR_NOMEM,
						  "out of memory for a %d-point gradient", n);
	}
	/* A, n x T column-major */
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			a_m[i + t * n] = model->alpha[i * T + t];

	/* c = A B A^T - Qx diag(cc) Qx^T */
	for (a = 0; a < n; a++)
	{
		double cc = 0.0;

		for (k = 0; k < T; k++)
			cc += model->lb[k] / (model->lx[a] * model->lb[k] + 1.0);
		for (i = 0; i < n; i++)
			scaled[i + (size_t)a * n] = model->qx[i + (size_t)a * n] * cc;
	}
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, scaled,
				n, model->qx, n, 0.0, c, n);
	icm_alpha_products(model, a_m, tmp, 1.0, c, mm);

	/* mm = A^T Kx A - D^-1/2 Qb diag(mk) Qb^T D^-1/2 */
	for (k = 0; k < T; k++)
	{
		double mk = 0.0, dk = 0.0;

		for (a = 0; a < n; a++)
		{
			double e = model->lx[a] * model->lb[k] + 1.0;

			mk += model->lx[a] / e;
			dk += 1.0 / e;
		}
		for (t = 0; t < T; t++)
		{
			double qt = model->qb[t + k * T];

			for (s = 0; s < T; s++)
				mm[t + s * T] -= qt * model->qb[s + k * T] * mk /
								 sqrt(model->noise[t] * model->noise[s]);
		}
		/* gdiag's K^-1 part, accumulated here while dk is at hand */
		for (t = 0; t < T; t++)
			tmp[t] = (k == 0 ? 0.0 : tmp[t]) +
					 model->qb[t + k * T] * model->qb[t + k * T] * dk;
	}
	for (t = 0; t < T; t++)
	{
		double sq = 0.0, sum = 0.0;

		for (i = 0; i < n; i++)
		{
			sq += a_m[i + t * n] * a_m[i + t * n];
			sum += a_m[i + t * n];
		}
		gdiag[t] = sq - tmp[t] / model->noise[t];
		asum[t] = sum;
	}
	tuner_free(a_m);
	tuner_free(tmp);
	tuner_free(scaled);
	return TUNER_OK;
}

/* Gradient pieces; see icm.h. */
TunerErrorCode
icm_gradient_parts(const IcmModel *model, double *c, double *mm, double *gdiag,
				   double *asum, TunerStatus *status)
{
	if (model->kronecker && model->likelihood_only)
		return icm_gradient_parts_kronecker_cholesky(model, c, mm, gdiag, asum,
													 status);
	if (model->kronecker)
		return gradient_parts_kronecker(model, c, mm, gdiag, asum, status);
	return gradient_parts_full(model, c, mm, gdiag, asum, status);
}
