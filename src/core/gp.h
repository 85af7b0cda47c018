/*
 * gp.h
 *	  Gaussian-process regression with a Matern-5/2 ARD kernel, a constant
 *	  mean and Gaussian noise:
 *
 *	    y = m + f(x) + e,  f ~ GP(0, s * k52(r)),  e ~ N(0, noise)
 *	    r^2 = sum_k delta_k^2 / l_k^2
 *
 *	  delta_k is x_k - x'_k for an ordered dimension and the overlap
 *	  distance [c(x_k) != c(x'_k)] for an unordered categorical one
 *	  (matern.h); a model's categories say which.
 *
 *	  The hyperparameters (l, s, noise, m) live in whatever coordinates the
 *	  data is in; gp_fit works in normalised coordinates internally and
 *	  returns a model expressed in the caller's coordinates.
 */
#ifndef TUNER_GP_H
#define TUNER_GP_H

#include <stdint.h>
#include "tuner_status.h"

typedef struct GpModel
{
	int n;                /* training points */
	int d;                /* input dimension */
	double *x;            /* n * d, row-major, owned by the model */
	double *y;            /* n, owned by the model */
	double *lengthscales; /* d, owned by the model */
	double outputscale;   /* signal variance s */
	double noise;         /* noise variance */
	double mean;          /* constant mean m */
	/*
	 * d, owned by the model, or NULL (the default): the input metric of
	 * matern.h, 0 for an ordered dimension, C for a categorical of C
	 * choices.  Set with gp_model_set_categories.
	 */
	int *categories;
	/*
	 * n, owned by the model, or NULL (the default): each point's extra
	 * noise variance (a measurement's known standard error squared, or the
	 * inflation of a disturbed trial), so that point i is y_i = m + f(x_i)
	 * + e_i with e_i ~ N(0, noise + extra_noise[i]) and K gets diag(noise +
	 * extra_noise[i]).  Set with gp_model_set_extra_noise; NULL is the
	 * homoscedastic model, bit for bit.
	 */
	double *extra_noise;

	/* Filled by gp_prepare. */
	double *chol;          /* n * n lower Cholesky factor of K + jitter */
	double *alpha;         /* (K + jitter)^-1 (y - m) */
	double jitter;         /* diagonal added to make K factorisable */
	double log_likelihood; /* log marginal likelihood of y */
} GpModel;

typedef struct GpFitOptions
{
	int restarts;     /* starts of the optimiser, >= 1 */
	int max_evals;    /* per start */
	uint64_t seed;    /* for the random restarts */
	int use_priors;   /* add log-priors to the objective */
	double min_noise; /* lower bound, in normalised units */
	/* Optional warm start, in normalised coordinates (NULL = none). */
	const double *warm_lengthscales; /* d */
	double warm_outputscale;
	double warm_noise;
	double warm_mean;
	/*
	 * Which of the other starts (0 interpolating, 1 prior centre, 2+
	 * random) comes first, so that callers with a small budget of starts
	 * can rotate through them.
	 */
	int first_alternate;
	/*
	 * The input metric (matern.h), d values, or NULL = every dimension
	 * ordered.  Categorical coordinates must be on the unit cube (a
	 * choice's bin); gp_fit does not rescale them.
	 */
	const int *categories;
	/*
	 * The priors of tuner 0.2.0 in every dimension (those below
	 * GP_HIGH_DIM), so that a suggestion recorded by 0.2.0 replays as it
	 * was computed.
	 */
	int legacy_priors;
	/*
	 * n values in the units of the data fitted (normalised for
	 * gp_fit_standardized, the caller's for gp_fit), or NULL: each point's
	 * extra noise variance (GpModel.extra_noise), held fixed while the
	 * homoscedastic noise and the other hyperparameters are fitted.  NULL
	 * or all zero is the fit without it, bit for bit.
	 */
	const double *extra_noise;
} GpFitOptions;

/*
 * The fit's priors that depend on the dimension (gp_fit.c says why), on
 * the normalised scale: log lengthscale ~ N(ls_mean, ls_var) for every
 * dimension, log noise ~ N(noise_mean, noise_var).  They change at
 * GP_HIGH_DIM dimensions; below it (and with legacy set, the priors of
 * tuner 0.2.0, in every dimension) they are those from before issue 28.
 */
#define GP_HIGH_DIM 10

typedef struct GpPrior
{
	double ls_mean;
	double ls_var;
	double noise_mean;
	double noise_var;
} GpPrior;

extern void gp_fit_prior(int d, int legacy, GpPrior *prior);

/* Defaults for GpFitOptions. */
extern void gp_fit_options_init(GpFitOptions *options);

/*
 * Allocate a model for n points in d dimensions; x, y and lengthscales are
 * allocated (uninitialised) and the caller fills them before gp_prepare.
 */
extern GpModel *gp_model_create(int n, int d, TunerStatus *status);
extern void gp_model_free(GpModel *model);

/*
 * Give the model the input metric categories (d values, copied; NULL or
 * all zero leaves every dimension ordered).
 */
extern TunerErrorCode gp_model_set_categories(GpModel *model,
											  const int *categories,
											  TunerStatus *status);

/*
 * The largest extra noise variance in normalised units (y's variance 1):
 * a point with that much is as good as left out (tests/unit), and a
 * larger one, or one that overflows when scaled, is taken as this.
 */
#define GP_MAX_EXTRA_NOISE 1e12

/*
 * Give the model per-point extra noise variances (n values, copied; NULL
 * or all zero: none).  TUNER_ERR_INVALID for a negative or non-finite one.
 */
extern TunerErrorCode gp_model_set_extra_noise(GpModel *model,
											   const double *extra_noise,
											   TunerStatus *status);

/* 1 if any of n extra noise variances is nonzero (NULL: 0). */
extern int gp_has_extra_noise(const double *extra_noise, int n);

/*
 * Factorise K and compute alpha and the log marginal likelihood.  Retries
 * with growing jitter; TUNER_ERR_NUMERIC only if K stays singular.
 */
extern TunerErrorCode gp_prepare(GpModel *model, TunerStatus *status);

/*
 * Posterior of the latent f (not of y) at m points; sd is the standard
 * deviation.  Requires gp_prepare.
 */
extern TunerErrorCode gp_predict(const GpModel *model, const double *xs, int m,
								 double *mean, double *sd,
								 TunerStatus *status);

/*
 * gp_predict, and with it weights (m x p, row-major) = k(u_j)^T a for the
 * p columns of a (n x p, row-major) at each of the m points, from the same
 * cross covariance (a NULL: gp_predict exactly).
 */
extern TunerErrorCode gp_predict_weights(const GpModel *model,
										 const double *xs, int m,
										 const double *a, int p,
										 double *weights, double *mean,
										 double *sd, TunerStatus *status);

/*
 * out[j] = sum_i k(u, x_i) a[i][j] for the p columns of a (n x p,
 * row-major), and when dout is not NULL its gradient wrt u (p x d,
 * row-major; 0 along categorical dimensions).  scratch holds 2 n doubles.
 * What a GP with a parametric mean needs besides the posterior: with a =
 * K^-1 H^T it is how much of the basis functions H the data explain at u.
 */
extern void gp_kernel_weights(const GpModel *model, const double *u,
							  const double *a, int p, double *out,
							  double *dout, double *scratch);

/*
 * The pieces of the single-task posterior at one point u, for a caller
 * that needs several things of the same kernel row (the failure model's
 * mean, variance and trend share one; feasibility.c): gp_kernel_row fills
 * kvec[i] = k(u, x_i) and, when radial is not NULL, radial[i] = -(1/r)
 * dk/dr (n values each); gp_point_from_row is the posterior's point
 * function (posterior.h) on that row, leaving K^-1 k in kvec (radial is
 * read only with dmean); gp_kernel_weights_from_row is gp_kernel_weights
 * on it (radial read only with dout).  Each gives exactly what the
 * function computing its own row gives.
 */
extern void gp_kernel_row(const GpModel *model, const double *u, double *kvec,
						  double *radial);
extern void gp_point_from_row(const GpModel *model, const double *u,
							  double *kvec, const double *radial, double *mean,
							  double *var, double *dmean, double *dvar);
extern void gp_kernel_weights_from_row(const GpModel *model, const double *u,
									   const double *kvec,
									   const double *radial, const double *a,
									   int p, double *out, double *dout);

/*
 * out[k] = sum_i c_i dk(u, x_i)/du_k (0 along categorical dimensions) from
 * u's kernel row's radial part (gp_kernel_row): the gradient of k(u)^T c
 * for fixed weights c, in n d operations where gp_kernel_weights_from_row's
 * dout for p columns takes n p d.
 */
extern void gp_kernel_row_gradient(const GpModel *model, const double *u,
								   const double *radial, const double *c,
								   double *out);

/*
 * Fit hyperparameters by maximising the log marginal likelihood (+ log
 * priors) with NLopt's bounded L-BFGS and analytic gradients.  x is n * d,
 * row-major.  On success *out is a prepared model in the caller's
 * coordinates.
 */
extern TunerErrorCode gp_fit(const double *x, const double *y, int n, int d,
							 const GpFitOptions *options, GpModel **out,
							 TunerStatus *status);

/*
 * The same fit on data already in normalised coordinates (inputs about unit
 * scale, y standardised): priors and bounds are meant for these, and the
 * returned model stays in them.  The suggestion loop uses this directly.
 */
extern TunerErrorCode gp_fit_standardized(const double *x, const double *y,
										  int n, int d,
										  const GpFitOptions *options,
										  GpModel **out, TunerStatus *status);

/*
 * The objective gp_fit maximises, at hyperparameters theta =
 * (log l_1..d, log s, log noise, mean), with its gradient (d + 3 values)
 * when grad is not NULL.  Exposed so that a unit test can check the gradient
 * against finite differences.
 */
extern TunerErrorCode gp_fit_objective(const double *x, const double *y, int n,
									   int d, int use_priors,
									   const double *theta, double *value,
									   double *grad, TunerStatus *status);

/* The same under the input metric categories (matern.h; NULL = ordered). */
extern TunerErrorCode
gp_fit_objective_metric(const double *x, const double *y, int n, int d,
						const int *categories, int use_priors,
						const double *theta, double *value, double *grad,
						TunerStatus *status);

/*
 * The same with per-point extra noise variances (n values on K's diagonal,
 * GpModel.extra_noise; NULL = none).  They are constants of the fit, so
 * the gradient's form is unchanged, but K^-1 in it is that of the
 * heteroscedastic K.
 */
extern TunerErrorCode
gp_fit_objective_noise(const double *x, const double *y, int n, int d,
					   const int *categories, const double *extra_noise,
					   int use_priors, const double *theta, double *value,
					   double *grad, TunerStatus *status);

#endif /* TUNER_GP_H */
