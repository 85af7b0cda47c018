/*
 * feasibility.h
 *	  The probability that a configuration is feasible: that it runs (a
 *	  model of the failed trials) and that it meets every outcome
 *	  constraint (one model per constraint metric), as one term the
 *	  acquisition adds to log EI (posterior.h): constrained EI.
 *
 *	  Each term is a Matern-5/2 GP regression on the unit cube of an
 *	  outcome c(x), holding where c <= bound, and P(holds) = Phi((bound -
 *	  mu(x)) / sd(x)) under its posterior.  For failures the outcome is 1
 *	  for a failed trial and 0 for one that ran, with bound 1/2: a GP
 *	  regression on the 0/1 outcome rather than a GP classifier (probit
 *	  likelihood with a Laplace or EP approximation).  Why: it reuses the
 *	  fitted, tested GP with its analytic gradients and hyperparameter fit,
 *	  needs no inner iteration that could fail to converge at suggestion
 *	  time, treats failures and outcome constraints alike, and its
 *	  predictive sd makes P(feasible) tend to a middling value far from
 *	  every trial, so unexplored regions stay reachable.  What it gives
 *	  up: the outcome is not Gaussian, so the probability is a calibrated
 *	  ranking of regions rather than an exact class probability.  The
 *	  failure model also has a linear trend, so that failing regions that
 *	  reach the box's edges are predicted out there too, and the trend's
 *	  own uncertainty is part of the prediction's sd (feasibility.c,
 *	  fit_trend and refine_trend), its probability is calibrated on its
 *	  leave-one-out predictions, since a regression on 0/1 outcomes is
 *	  overconfident next to failures it did not foresee
 *	  (feasibility_calibration.h), and the acquisition's term (the hook)
 *	  penalises P(feasible) below FEASIBILITY_THRESHOLD steeply, so that
 *	  the model's trials stay where a configuration is predicted to run
 *	  (feasibility.c, penalised).  A Laplace GP
 *	  classifier (logistic, fitted by marginal likelihood; checked against
 *	  scikit-learn) was tried in its place and more than doubled the failed
 *	  trials on bench/constraints' Branin problem (bench/README.md,
 *	  section 9).
 */
#ifndef TUNER_FEASIBILITY_H
#define TUNER_FEASIBILITY_H

#include <stdint.h>

#include "gp.h"
#include "posterior.h"
#include "suggest.h"

/*
 * The model's trials keep to P(feasible) >= FEASIBILITY_THRESHOLD, the
 * probabilistic constraint P >= 1 - delta of Gelbart, Snoek and Adams
 * (2014) with delta = 0.1, as a penalty (feasibility.c, penalised).  A
 * failed trial costs a systems study a whole trial, often more (a crashed
 * server, a node to restart).  On bench/constraints (30 seeds, five
 * problems) 0.8, 0.9 and 0.95 each had a quarter fewer failed or
 * constraint-breaking trials after the design than 1/2, and on
 * hartmann6-ring, whose optimum lies on its constraint's boundary, 16-40%
 * as many; the best values found stayed within the seeds' spread
 * (bench/README.md, section 9).
 */
#define FEASIBILITY_THRESHOLD 0.9

typedef struct FeasibilityTerm
{
	GpModel *model; /* standardised outcome */
	Posterior post; /* of model */
	double bound;   /* standardised */
	double y_mean;
	double y_sd;
	/*
	 * Failures only: the standardised outcome's linear trend a + b.(u -
	 * 1/2), the GP modelling what the trend leaves (NULL: none).  b is 0
	 * along categorical dimensions.  The trend is uncertain, and far from
	 * the trials that uncertainty is most of the outcome's: the
	 * prediction's variance includes it (a GP with a parametric mean,
	 * Rasmussen & Williams section 2.7).  Its basis functions are 1 and
	 * u_k - 1/2 for each ordered dimension k (basis_dim: -1, then k).
	 */
	double *trend_slopes; /* d */
	double trend_intercept;
	int n_basis;
	int *basis_dim;        /* n_basis */
	double *basis_weights; /* n x n_basis, K^-1 H^T of the GP's data */
	double *trend_chol;    /* n_basis^2, Cholesky factor of the
						   * coefficients' posterior precision
						   * H K^-1 H^T + prior precision */
	int source;            /* -1 failures, k outcome constraint k */
	/*
	 * Failures only: P(feasible) = Phi((calibration_c - mu) /
	 * sqrt(calibration_tau^2 + var + noise)), the probit fitted to the
	 * model's leave-one-out predictions (feasibility_calibration.h), when
	 * calibrated; else Phi((bound - mu) / sqrt(var)).
	 */
	int calibrated;
	double calibration_threshold; /* c, standardised */
	double calibration_spread;    /* tau, standardised */
	/*
	 * Failures only: fitted from SuggestInput's warm start.  Such a step
	 * is new arithmetic (tuner.suggestion records the warm start), so its
	 * batch scoring also takes the trend's weights from the cross
	 * covariance of the posterior's prediction rather than from a kernel
	 * row per point (feasibility.c, hook_batch): the same quantity, with
	 * different rounding.
	 */
	int warm_started;
} FeasibilityTerm;

/*
 * A term as tuner.model stores it: its hyperparameters (normalised units,
 * lengthscales d values), its standardised bound, whether it has a trend
 * (whose coefficients follow from the rest) and its calibration.
 */
typedef struct FeasibilityTermSpec
{
	const double *lengthscales;
	double outputscale;
	double noise;
	double mean; /* without a trend; with one the trend's intercept is it */
	double bound;
	int with_trend;
	int calibrated;
	double calibration_threshold;
	double calibration_spread;
} FeasibilityTermSpec;

typedef struct FeasibilityModel
{
	int d;
	int n_terms;
	FeasibilityTerm *terms;
	PosteriorFeasibility hook; /* for Posterior.feasibility */
} FeasibilityModel;

/*
 * Fit the terms of in (unit-cube coordinates from in->params): the
 * failures when in->n_failed > 0, each outcome constraint with two values
 * or more and spread.  *out is NULL when there is nothing to model.
 */
extern TunerErrorCode feasibility_fit(const SuggestInput *in, uint64_t seed,
									  FeasibilityModel **out,
									  TunerStatus *status);

extern void feasibility_free(FeasibilityModel *model);

/*
 * Does in carry a usable warm start of the failure model
 * (SuggestInput.warm_feasibility_*: every value positive and finite, the
 * mean finite)?  Without one, or below 50 trials, the failure model is
 * fitted from three cold starts.
 */
extern int feasibility_warm_usable(const SuggestInput *in);

/*
 * log P(feasible) at unit point u (d values), with its gradient when grad
 * is not NULL; scratch holds model->hook.n_scratch doubles.
 */
extern double feasibility_log_prob(const FeasibilityModel *model,
								   const double *u, double *grad,
								   double *scratch);

/*
 * log P(holds) of one stored term at m unit points u (m x d): the term is
 * rebuilt on its n trials x (unit cube) with standardised outcome ys (for
 * failures 1 failed, 0 ran, standardised; before the trend) and the
 * stored hyperparameters, and answers as the acquisition's term does,
 * without the acquisition's penalty.  categories: the kernel's metric
 * (space_kernel_categories) or NULL.
 */
extern TunerErrorCode
feasibility_term_predict(const double *x, const double *ys, int n, int d,
						 const int *categories,
						 const FeasibilityTermSpec *spec, const double *u,
						 int m, double *log_p, TunerStatus *status);

/* Does observed trial i meet every outcome constraint of in? */
extern int feasibility_trial_ok(const SuggestInput *in, int i);

/* Describe term t's fit in fit (lengthscales copied when not NULL). */
extern void feasibility_describe(const FeasibilityModel *model, int t,
								 ConstraintFit *fit);

#endif /* TUNER_FEASIBILITY_H */
