/*
 * feasibility_calibration.h
 *	  Calibrating the failure model's probability on its leave-one-out
 *	  predictions (Rasmussen & Williams, section 6.5).  The failure model
 *	  is a GP regression on the 0/1 outcome (feasibility.h), and
 *	  Phi((bound - mu) / sd) of a Gaussian fit to 0/1 data is a ranking,
 *	  not a probability: a failure that no other trial predicted leaves
 *	  the regression confident that its neighbourhood runs.  Each trial's
 *	  prediction from all the others says how well the model predicts
 *	  failures it has not seen, and the probit
 *
 *	    P(fails | mu, v) = Phi((mu - c) / sqrt(tau^2 + v))
 *
 *	  with its threshold c and extra spread tau fitted to those
 *	  predictions' outcomes by maximum likelihood turns the ranking into a
 *	  probability.  This is R&W's (alpha mu + beta) / sqrt(1 + alpha^2 v)
 *	  with alpha = 1 / tau and beta = -c / tau, written so that tau -> 0
 *	  is the uncalibrated model.
 */
#ifndef TUNER_FEASIBILITY_CALIBRATION_H
#define TUNER_FEASIBILITY_CALIBRATION_H

#include "feasibility.h"

/*
 * The leave-one-out predictive mean and variance (noise included) of
 * each of the term's n trials' standardised outcome ys, under the term's
 * GP and its trend with the trend's coefficients re-estimated without the
 * trial (a GP with a parametric mean, R&W section 2.7).  The term must be
 * fitted with a trend (feasibility.c, refine_trend).
 */
extern TunerErrorCode feasibility_loo(const FeasibilityTerm *term,
									  const double *ys, double *mu,
									  double *var, TunerStatus *status);

/*
 * Fit c and tau of the probit above to n predictions (mu, var) whose
 * outcomes are failed (1 failed, 0 ran), by maximum likelihood with a
 * N(prior_c, 1) prior on c (standardised units) and tau within
 * [CALIBRATION_MIN_TAU, CALIBRATION_MAX_TAU].  When the predictions
 * separate the outcomes, tau stays near its lower bound.
 */
extern TunerErrorCode probit_calibration_fit(const double *mu,
											 const double *var,
											 const int *failed, int n,
											 double prior_c, double *c,
											 double *tau, TunerStatus *status);

/* The log likelihood probit_calibration_fit maximises (prior included). */
extern double probit_calibration_objective(const double *mu, const double *var,
										   const int *failed, int n,
										   double prior_c, double c,
										   double tau, double *grad);

#define CALIBRATION_MIN_TAU 1e-3
#define CALIBRATION_MAX_TAU 10.0

#endif /* TUNER_FEASIBILITY_CALIBRATION_H */
