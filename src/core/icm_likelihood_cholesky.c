/*
 * icm_likelihood_cholesky.c
 *	  The ICM likelihood and its gradient on fully observed data without
 *	  the eigen-decomposition of Kx (icm.h, likelihood_only).
 *
 *	  With D = diag(noise) and D^-1/2 B D^-1/2 = Qb Lb Qb^T,
 *	    K = (I (x) D^1/2 Qb) blockdiag_k(lb_k Kx + I) (I (x) Qb^T D^1/2),
 *	  so with M_k = lb_k Kx + I = L_k L_k^T (eigenvalues >= 1, never
 *	  jitter):
 *	    log|K| = sum_k log|M_k| + n sum_t log noise_t
 *	    alpha  = D^-1/2 Qb-columns of M_k^-1 (R Qb), R = D^-1/2-whitened
 *	             residuals (n x T)
 *	  and the K^-1 parts of icm_gradient_parts become
 *	    sum_ts K^-1_(.t),(.s) B_ts        = sum_k lb_k M_k^-1
 *	    sum_ij K^-1_(it),(js) Kx_ij        = D^-1/2 Qb diag(tr(M_k^-1 Kx))
 *	                                         Qb^T D^-1/2
 *	    sum_i K^-1_(it),(it)              = sum_k Qb_tk^2 tr(M_k^-1) / noise_t
 *	  Why: an n x n eigen-decomposition (dsyevd) costs several times one
 *	  Cholesky factorisation and inverse, and a fit never needs Qx.
 */
#include <math.h>
#include <string.h>

#include <cblas.h>
#include <lapacke.h>

#include "icm_internal.h"
#include "linalg.h"

/* Prepare; see icm_internal.h. */
TunerErrorCode
icm_prepare_kronecker_cholesky(IcmModel *model, TunerStatus *status)
{
	int n = model->n, T = model->T;
	size_t nn = (size_t)n * n;
	double *r = NULL, *p = NULL;
	double logdet = 0.0;
	int i, k;
	TunerErrorCode rc;

	rc = icm_whitened_task_eigen(model, status);
	if (rc != TUNER_OK)
		return rc;
	if (model->lk == NULL)
		model->lk = tuner_alloc(sizeof(double) * nn * T);
	r = tuner_alloc(sizeof(double) * n * T);
	p = tuner_alloc(sizeof(double) * n * T);
	if (model->lk == NULL || r == NULL || p == NULL)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory for a %d-point model", n);
		goto done;
	}
	model->jitter = 0.0;
	for (k = 0; k < T; k++)
	{
		double *l = model->lk + k * nn;
		lapack_int info;

		for (i = 0; i < (int)nn; i++)
			l[i] = model->lb[k] * model->kx[i];
		for (i = 0; i < n; i++)
			l[i + (size_t)i * n] += 1.0;
		info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'L', n, l, n);
		if (info != 0)
		{
			rc = tuner_fail(status, TUNER_ERR_NUMERIC,
							"dpotrf failed with info %d on a task block",
							(int)info);
			goto done;
		}
		for (i = 0; i < n; i++)
			logdet += 2.0 * log(l[i + (size_t)i * n]);
	}

	/* P = R Qb, column k solved with M_k, then R = P Qb^T */
	icm_whitened_residuals(model, r);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, T, T, 1.0, r, n,
				model->qb, T, 0.0, p, n);
	for (k = 0; k < T; k++)
		LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'L', n, 1, model->lk + k * nn, n,
							p + k * n, n);
	cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, T, T, 1.0, p, n,
				model->qb, T, 0.0, r, n);
	icm_kronecker_finish(model, r, logdet);

done:
	tuner_free(r);
	tuner_free(p);
	return rc;
}

/* Gradient pieces; see icm_internal.h and the top of this file. */
TunerErrorCode
icm_gradient_parts_kronecker_cholesky(const IcmModel *model, double *c,
									  double *mm, double *gdiag, double *asum,
									  TunerStatus *status)
{
	int n = model->n, T = model->T;
	size_t nn = (size_t)n * n;
	double *inv = NULL, *a_m = NULL, *tmp = NULL;
	int i, t, s, k;
	TunerErrorCode rc = TUNER_OK;

	inv = tuner_alloc(sizeof(double) * nn);
	a_m = tuner_alloc(sizeof(double) * n * T);
	tmp = tuner_alloc(sizeof(double) * n * T);
	if (!inv || !a_m || !tmp)
	{
		rc = tuner_fail(status, TUNER_ERR_NOMEM,
						"out of memory for a %d-point gradient", n);
		goto done;
	}
	for (i = 0; i < n; i++)
		for (t = 0; t < T; t++)
			a_m[i + t * n] = model->alpha[i * T + t];

	icm_alpha_products(model, a_m, tmp, 0.0, c, mm);
	for (t = 0; t < T; t++)
		gdiag[t] = 0.0;

	for (k = 0; k < T; k++)
	{
		double tr_inv = 0.0, tr_inv_kx;

		memcpy(inv, model->lk + k * nn, sizeof(double) * nn);
		rc = linalg_cholesky_inverse(inv, n, status);
		if (rc != TUNER_OK)
			goto done;
		for (i = 0; i < n; i++)
			tr_inv += inv[i + (size_t)i * n];
		tr_inv_kx = cblas_ddot((int)nn, inv, 1, model->kx, 1);
		cblas_daxpy((int)nn, -model->lb[k], inv, 1, c, 1);
		for (t = 0; t < T; t++)
		{
			double qt = model->qb[t + k * T];

			for (s = 0; s < T; s++)
				mm[t + s * T] -= qt * model->qb[s + k * T] * tr_inv_kx /
								 sqrt(model->noise[t] * model->noise[s]);
			gdiag[t] -= qt * qt * tr_inv / model->noise[t];
		}
	}
	for (t = 0; t < T; t++)
	{
		double sq = 0.0, sum = 0.0;

		for (i = 0; i < n; i++)
		{
			sq += a_m[i + t * n] * a_m[i + t * n];
			sum += a_m[i + t * n];
		}
		gdiag[t] += sq;
		asum[t] = sum;
	}

done:
	tuner_free(inv);
	tuner_free(a_m);
	tuner_free(tmp);
	return rc;
}
