/*
 * pruning.h
 *	  Whether to stop a trial early from its intermediate results (issue
 *	  30): the median rule, successive halving and the model rule.  The glue gathers the
 *	  values to compare at one step (or rung) and asks here; the rules are
 *	  plain functions of those values so that they are unit-tested alone
 *	  and replay exactly.
 *
 *	  sign is +1 when smaller values are better (minimize) and -1 when
 *	  larger are; values are compared as sign * value.
 */
#ifndef TUNER_PRUNING_H
#define TUNER_PRUNING_H

#include "tuner_status.h"

/*
 * Median rule: stop when value is worse than the median of others[0..n-1]
 * (the completed trials' values at the same step), once at least
 * min_trials of them exist.  Sets *stop.
 */
extern TunerErrorCode tuner_prune_median(const double *others, int n,
										 double value, double sign,
										 int min_trials, int *stop,
										 TunerStatus *status);

/*
 * Successive halving at one rung: of the n trials that reached it (others,
 * this one not included) and this one, continue only within the best
 * ceil((n + 1) / reduction); stop otherwise, once n + 1 >= min_trials.
 */
extern TunerErrorCode tuner_prune_halving(const double *others, int n,
										  double value, double sign,
										  double reduction, int min_trials,
										  int *stop, TunerStatus *status);

/*
 * The rung of a step: the largest min_step * reduction^k (k >= 0) that is
 * at most step, or a negative value when step is below min_step.
 */
extern double tuner_prune_rung(double step, double min_step, double reduction);

/*
 * The model rule's prediction of a trial's final value from its value at
 * a step: the Bayesian linear regression final = a + b * partial + e,
 * e ~ N(0, sigma^2), over the n complete trials' (partial[i], final[i])
 * pairs (their values at that step and their final values), with the
 * reference prior p(a, b, sigma) ~ 1 / sigma.  The posterior predictive of
 * the final value at value is then Student's t with df = n - 2 degrees
 * of freedom, centre mean and scale
 *   s * sqrt(1 + 1/n + (value - mean(partial))^2 / Sxx),
 * s^2 the residual sum of squares over n - 2 (the textbook prediction
 * interval of least squares).  When the partial values are all equal
 * (Sxx = 0) the slope is dropped: the predictive is the finals' mean with
 * scale s * sqrt(1 + 1/n), df = n - 1.
 */
typedef struct TunerPruneForecast
{
	int n;        /* complete trials the regression used */
	double mean;  /* predictive centre of the final value */
	double scale; /* predictive scale (0 when the fit is exact) */
	double df;    /* degrees of freedom of the predictive t */
	double prob;  /* P(final better than the incumbent) */
} TunerPruneForecast;

/*
 * The model rule: *abstain is set (and nothing else decided) when fewer
 * than max(min_trials, 3) complete trials are given; otherwise out holds
 * the forecast and out->prob the predictive probability that the final
 * value is strictly better than incumbent in the direction sign (with
 * scale 0: 1 if the mean is better, 0.5 if equal, 0 if worse).  The
 * caller stops the trial when prob < its threshold.
 */
extern TunerErrorCode
tuner_prune_model(const double *partial, const double *final, int n,
				  double value, double incumbent, double sign, int min_trials,
				  int *abstain, TunerPruneForecast *out, TunerStatus *status);

/*
 * What the optimizer learns from a trial stopped at a step where its value
 * was value.  Its last value is biased (a curve that improves with steps
 * looks worse early than it ends), so once n >= 3 complete trials got that
 * far, the value observed is the model rule's forecast of its final value
 * from their (partial, final) pairs (tuner_prune_model), with the standard
 * error of the normal that has the predictive t's central 68 % interval.
 * With fewer, it is value itself, with the spread (sample standard
 * deviation) of the study's complete final values finals[0..n_finals-1]
 * as its standard error, or NaN (not known) with fewer than 2 of them.
 */
typedef struct TunerPrunedObservation
{
	double value;
	double std_error; /* NaN: not known */
	int forecast;     /* value is the regression's forecast */
} TunerPrunedObservation;

extern TunerErrorCode
tuner_pruned_observation(const double *partial, const double *final, int n,
						 double value, const double *finals, int n_finals,
						 TunerPrunedObservation *out, TunerStatus *status);

#endif /* TUNER_PRUNING_H */
