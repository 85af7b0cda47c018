/*
 * icm_units.h
 *	  The ICM model (icm.h) in the caller's units.  icm_fit's priors and
 *	  bounds assume x on the unit cube and each task standardised; these
 *	  helpers map the caller's data there and the fitted hyperparameters
 *	  back, the way gp_fit does for the single-task GP, so that the model a
 *	  caller gets predicts directly in the units of its own x and y.
 *
 *	  With xn = (x - lo) / range per column and yn_t = (y_t - mu_t) / s_t per
 *	  task, a model fitted to (xn, yn) is the same distribution over (x, y)
 *	  with
 *	    lengthscales l -> l * range
 *	    W[t, :] -> s_t W[t, :]       (so B -> S B S, S = diag(s))
 *	    v_t -> s_t^2 v_t,  noise_t -> s_t^2 noise_t
 *	    mean_t -> mu_t + s_t mean_t
 *
 *	  Fallbacks: a constant column of x keeps range 1 (it is only shifted);
 *	  a task with a single observation, or whose observations are all equal,
 *	  is centred on its mean but not scaled (s_t = 1), as gp_fit does for y.
 */
#ifndef TUNER_ICM_UNITS_H
#define TUNER_ICM_UNITS_H

#include "icm.h"
#include "tuner_status.h"

/*
 * Map x (n * d, row-major, finite) to the unit cube per column: xn =
 * (x - lo) / range.  xn, lo (d) and range (d) are the caller's.
 */
extern void icm_units_scale_x(const double *x, int n, int d, double *xn,
							  double *lo, double *range);

/*
 * Standardise each task (column of y, n * T row-major, NaN = missing) over
 * its observed values: yn = (y - mu) / s with the sample sd (n_t - 1); NaN
 * stays NaN.  s_t = 1 when the task has one observation or zero variance.
 * TUNER_ERR_INVALID if a task has no observation or y holds infinity.
 */
extern TunerErrorCode icm_units_standardise_y(const double *y, int n, int T,
											  double *yn, double *mu,
											  double *s, TunerStatus *status);

/*
 * Convert a model's hyperparameters in place from the standardised units
 * to the caller's (see the top of this file).  Does not touch x, y or the
 * icm_prepare results: call icm_prepare again after copying the caller's
 * data in.
 */
extern void icm_units_to_caller(IcmModel *model, const double *range,
								const double *mu, const double *s);

/*
 * icm_fit in the caller's units: scale x, standardise y, fit, and return
 * in *out a model prepared on the caller's x and y with the converted
 * hyperparameters (so its log_likelihood is that of the caller's y).
 * options->warm, if set, must be in the standardised units.
 */
extern TunerErrorCode icm_fit_caller_units(const double *x, const double *y,
										   int n, int d, int T,
										   const IcmFitOptions *options,
										   IcmModel **out,
										   TunerStatus *status);

#endif /* TUNER_ICM_UNITS_H */
