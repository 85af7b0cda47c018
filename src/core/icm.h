/*
 * icm.h
 *	  Multi-task Gaussian process with the intrinsic coregionalisation model
 *	  (ICM) over T tasks (metrics) observed at n shared inputs:
 *
 *	    y_t(x) = m_t + f_t(x) + e_t,   e_t ~ N(0, noise_t)
 *	    cov(f_i(x), f_j(x')) = k52(x, x') B[i, j],  B = W W^T + diag(v)
 *
 *	  k52 is the Matern-5/2 ARD kernel of matern.h with unit variance and one
 *	  set of lengthscales shared by all tasks; each task's signal variance is
 *	  the diagonal of B.  W is T x rank (1 <= rank <= T), v > 0.  Its input
 *	  metric (matern.h: ordered or categorical dimensions) is the model's
 *	  categories.
 *
 *	  y is n x T, row-major, NaN where a task was not observed at a point.
 *	  The caller standardises each task's observed y separately (zero mean,
 *	  unit sd) and scales x to the unit cube: the priors and bounds of
 *	  icm_fit are meant for that scale.
 *
 *	  icm_prepare chooses between two exact computations of the same
 *	  posterior: the full (N_obs x N_obs) Cholesky over the observed entries,
 *	  and, when every entry is observed, the Kronecker path, O(n^3 + T^3):
 *	  with D = diag(noise) and Bw = D^-1/2 B D^-1/2 = Qb Lb Qb^T,
 *	  Kx = Qx Lx Qx^T,
 *	    K = (I (x) D^1/2) (Kx (x) Bw + I) (I (x) D^1/2),
 *	  so K^-1 and log|K| follow from the eigenvalues lx_a lb_k + 1.
 *	  The two paths agree to round-off; the only exception is when the full
 *	  path had to add jitter (model->jitter > 0), which the Kronecker path
 *	  never needs since its eigenvalues are >= 1.
 *
 *	  A fit evaluates the likelihood dozens of times and predicts never, so
 *	  with likelihood_only the Kronecker path skips Kx's eigen-decomposition:
 *	  in the basis of Qb, K is block-diagonal with blocks lb_k Kx + I, and T
 *	  Cholesky factorisations of those blocks give the same likelihood and
 *	  gradient at about half the cost for T = 4 (icm_likelihood_cholesky.c).
 */
#ifndef TUNER_ICM_H
#define TUNER_ICM_H

#include <stdint.h>
#include "tuner_status.h"

typedef struct IcmModel
{
	int n;                /* points */
	int d;                /* input dimension */
	int T;                /* tasks */
	int rank;             /* columns of W */
	double *x;            /* n * d, row-major */
	double *y;            /* n * T, row-major, NaN = missing */
	double *lengthscales; /* d */
	double *W;            /* T * rank, row-major */
	double *v;            /* T, task-specific variance, > 0 */
	double *noise;        /* T, noise variance, > 0 */
	double *mean;         /* T, constant mean */
	int force_full;       /* 1: never use the Kronecker path */
	int likelihood_only;  /* 1: the Kronecker path factorises for the
						   * likelihood and its gradient alone, without
						   * Kx's eigen-decomposition (see below);
						   * icm_predict refuses such a model */
	int *categories;      /* d or NULL (all ordered): the input metric of
						   * matern.h; icm_model_set_categories */
	int kx_ready;         /* 1: icm_prepare keeps kx as the caller filled
						   * it (icm_fit builds it from the pair distances
						   * its gradient needs anyway) */

	/* Filled by icm_prepare. */
	int kronecker;         /* 1 if the Kronecker path was used */
	int n_obs;             /* observed entries N */
	int *obs;              /* N: entry index i * T + t, point-major */
	double *B;             /* T * T */
	double *kx;            /* n * n unit-variance Gram matrix */
	double *alpha;         /* N: K^-1 (y - m), in the order of obs */
	double *chol;          /* full path: N * N lower factor of K */
	double jitter;         /* full path: diagonal added to factorise K */
	double *qx;            /* Kronecker path: n * n eigenvectors of Kx */
	double *lx;            /* n eigenvalues of Kx (clamped at 0) */
	double *qb;            /* T * T eigenvectors of Bw */
	double *lb;            /* T eigenvalues of Bw (clamped at 0) */
	double *lk;            /* likelihood_only Kronecker path: T * n * n,
							* lower Cholesky factors of lb_k Kx + I */
	double log_likelihood; /* log marginal likelihood of the observed y */

	/* Set by icm_fit: likelihood evaluations it made (all starts), else 0 */
	int fit_evals;
} IcmModel;

/*
 * Allocate a model; x, y and the hyperparameters are allocated
 * (uninitialised, y all NaN is the caller's to fill) and filled by the
 * caller before icm_prepare.  TUNER_ERR_INVALID unless n, d >= 1, T >= 1
 * and 1 <= rank <= T.
 */
extern IcmModel *icm_model_create(int n, int d, int T, int rank,
								  TunerStatus *status);
extern void icm_model_free(IcmModel *model);

/*
 * Give the model the input metric categories (d values, copied; NULL or
 * all zero leaves every dimension ordered).
 */
extern TunerErrorCode icm_model_set_categories(IcmModel *model,
											   const int *categories,
											   TunerStatus *status);

/*
 * Check the inputs (finite x, y finite or NaN, every task observed at least
 * once, valid hyperparameters), build B and factorise K on the Kronecker
 * path when everything is observed (unless force_full), else on the full
 * path.  Computes alpha and the log marginal likelihood.
 */
extern TunerErrorCode icm_prepare(IcmModel *model, TunerStatus *status);

/*
 * Posterior mean and sd of the latent f_task (without noise, including the
 * task mean) at m points xs (m * d, row-major); task is 0-based.  Requires
 * icm_prepare.
 */
extern TunerErrorCode icm_predict(const IcmModel *model, const double *xs,
								  int m, int task, double *mean, double *sd,
								  TunerStatus *status);

/* corr(B) (T * T, symmetric) from the model's W and v. */
extern TunerErrorCode icm_task_correlation(const IcmModel *model, double *corr,
										   TunerStatus *status);

/*
 * The pieces of the log-likelihood gradient, with G = alpha alpha^T - K^-1
 * over the observed entries (a = (i, t), b = (j, s)):
 *   c[i + j n] = sum G_ab B[t, s]      (n * n)
 *   mm[t + s T] = sum G_ab Kx[i, j]    (T * T)
 *   gdiag[t] = sum_i G_(i,t),(i,t)
 *   asum[t] = sum_i alpha_(i,t)
 * so that dL/dtheta = 1/2 sum G_ab dK_ab/dtheta reduces to them.  Uses the
 * path icm_prepare chose.  Requires icm_prepare.
 */
extern TunerErrorCode icm_gradient_parts(const IcmModel *model, double *c,
										 double *mm, double *gdiag,
										 double *asum, TunerStatus *status);

typedef struct IcmFitOptions
{
	int rank;       /* columns of W, 1..T */
	int restarts;   /* starts of the optimiser, >= 1 */
	int max_evals;  /* per start */
	uint64_t seed;  /* for the random starts */
	int use_priors; /* add the log priors */
	double min_noise;
	int force_full; /* never use the Kronecker path (tests, timing) */
	/* Optional warm start: a previous model with the same d, T and rank. */
	const IcmModel *warm;
	/*
	 * Which of the other starts (0 correlation at the prior centre, 1
	 * correlation with short lengthscales, 2+ random) comes first, so that
	 * callers with a small budget of starts can rotate through them.
	 */
	int first_alternate;
	/* Evaluations for the warm start; 0 = max_evals like the others. */
	int warm_max_evals;
	/*
	 * With a warm start: evaluations for each other start; 0 = max_evals.
	 */
	int alternate_max_evals;
	/*
	 * Optional prior mean of W (T x rank, row-major; NULL = 0 everywhere,
	 * the N(0, 1) prior).  Task pairs that no point observes together start
	 * the correlation-based starts at the correlation this prior implies
	 * (with v at its prior centre) instead of 0.
	 */
	const double *w_prior_mean;
	/*
	 * The input metric (matern.h), d values, or NULL = every dimension
	 * ordered; the fitted model keeps a copy.
	 */
	const int *categories;
} IcmFitOptions;

/* Defaults for IcmFitOptions (rank 1). */
extern void icm_fit_options_init(IcmFitOptions *options);

/* Length of theta for icm_fit_objective: d + T * rank + 3 T. */
extern int icm_theta_size(int d, int T, int rank);

/*
 * Fit the hyperparameters of an ICM model to standardised data (see the
 * top of this file) by maximising log likelihood + log priors with NLopt's
 * L-BFGS and analytic gradients.  On success *out is a prepared model.
 */
extern TunerErrorCode icm_fit(const double *x, const double *y, int n, int d,
							  int T, const IcmFitOptions *options,
							  IcmModel **out, TunerStatus *status);

/*
 * The objective icm_fit minimises: -(log likelihood + log priors) at
 * theta = (log l_1..d, W row-major (T * rank), log v_1..T, log noise_1..T,
 * mean_1..T), with its gradient when grad is not NULL.  Exposed for the
 * finite-difference test.
 */
extern TunerErrorCode icm_fit_objective(const double *x, const double *y,
										int n, int d, int T, int rank,
										int use_priors, int force_full,
										const double *theta, double *value,
										double *grad, TunerStatus *status);

/* The same under the input metric categories (matern.h; NULL = ordered). */
extern TunerErrorCode
icm_fit_objective_metric(const double *x, const double *y, int n, int d, int T,
						 int rank, const int *categories, int use_priors,
						 int force_full, const double *theta, double *value,
						 double *grad, TunerStatus *status);

#endif /* TUNER_ICM_H */
