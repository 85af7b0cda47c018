/*
 * icm_internal.h
 *	  Pieces of the ICM model (icm.h) shared between icm.c and
 *	  icm_likelihood_cholesky.c; not for callers of the model.
 */
#ifndef TUNER_ICM_INTERNAL_H
#define TUNER_ICM_INTERNAL_H

#include "icm.h"

/*
 * Qb and Lb: the eigen-decomposition of the whitened task covariance
 * D^-1/2 B D^-1/2 (model->B and noise set), eigenvalues clamped at 0.
 * Allocates model->qb and model->lb if needed.
 */
extern TunerErrorCode icm_whitened_task_eigen(IcmModel *model,
											  TunerStatus *status);

/* R = D^-1/2 (y - mean), n x T column-major. */
extern void icm_whitened_residuals(const IcmModel *model, double *r);

/*
 * Given r = (whitened K)^-1 applied to the whitened residuals (n x T,
 * column-major) and log|whitened K|, set alpha = D^-1/2 r and the log
 * likelihood (adding log|D^1/2 (x) I|^2).
 */
extern void icm_kronecker_finish(IcmModel *model, const double *r,
								 double logdet_whitened);

/*
 * The alpha terms of icm_gradient_parts on the Kronecker paths, with A =
 * alpha as n x T column-major (a_m) and tmp n x T scratch:
 * c = A B A^T + c_beta c (n x n) and mm = A^T Kx A (T x T).
 */
extern void icm_alpha_products(const IcmModel *model, const double *a_m,
							   double *tmp, double c_beta, double *c,
							   double *mm);

/*
 * The Kronecker path with likelihood_only: alpha and the log likelihood
 * from T Cholesky factors of lb_k Kx + I (model->lk), after B and Kx are
 * built and every entry is observed.
 */
extern TunerErrorCode icm_prepare_kronecker_cholesky(IcmModel *model,
													 TunerStatus *status);

/* icm_gradient_parts for a model prepared by the function above. */
extern TunerErrorCode
icm_gradient_parts_kronecker_cholesky(const IcmModel *model, double *c,
									  double *mm, double *gdiag, double *asum,
									  TunerStatus *status);

#endif /* TUNER_ICM_INTERNAL_H */
