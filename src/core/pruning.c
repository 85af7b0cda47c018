/*
 * pruning.c
 *	  The median rule and successive halving (see pruning.h).
 *
 *	  The median rule is Golovin et al.'s "median stopping rule" (Google
 *	  Vizier, 2017) as Optuna's MedianPruner applies it: a trial's best
 *	  value so far against the median of the completed trials' values at
 *	  the same step.  Successive halving keeps the best 1/reduction of the
 *	  trials at each rung min_step * reduction^k, asynchronously as in
 *	  ASHA (Li et al., 2020): a trial is judged against the trials that
 *	  reached the rung so far.
 *
 *	  The model rule is a Bayesian linear regression of the complete
 *	  trials' final values on their values at the step reached, which
 *	  gives the running trial's final value a predictive Student t; it
 *	  stops the trial when that makes beating the incumbent improbable
 *	  (the probability-of-improvement criterion of Domhan et al., 2015,
 *	  with the simplest curve model that can carry it).  The same
 *	  forecast is what the optimizer observes of a pruned trial.
 */
#include "pruning.h"

#include "mean_interval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a;
	double y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The values, signed so that smaller is better, sorted; NULL on failure. */
static double *
signed_sorted(const double *values, int n, double sign, TunerStatus *status)
{
	double *v = tuner_alloc(sizeof(double) * (n > 0 ? n : 1));

	if (v == NULL)
	{
		tuner_fail(status, TUNER_ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		v[i] = sign * values[i];
	qsort(v, n, sizeof(double), compare_doubles);
	return v;
}

static TunerErrorCode
check_inputs(const double *others, int n, double value, double sign,
			 int min_trials, TunerStatus *status)
{
	if (n < 0 || (n > 0 && others == NULL))
		return tuner_fail(status, TUNER_ERR_INVALID, "no values to compare");
	if (sign != 1.0 && sign != -1.0)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "sign must be 1 or -1, got %g", sign);
	if (min_trials < 1)
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "min_trials must be at least 1, got %d", min_trials);
	if (!isfinite(value))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the trial's value is not finite");
	for (int i = 0; i < n; i++)
		if (!isfinite(others[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "value %d of the other trials is not finite",
							  i + 1);
	return TUNER_OK;
}

TunerErrorCode
tuner_prune_median(const double *others, int n, double value, double sign,
				   int min_trials, int *stop, TunerStatus *status)
{
	double *v;
	double median;

	tuner_status_clear(status);
	*stop = 0;
	if (check_inputs(others, n, value, sign, min_trials, status) != TUNER_OK)
		return status->code;
	if (n < min_trials)
		return TUNER_OK;
	if ((v = signed_sorted(others, n, sign, status)) == NULL)
		return status->code;
	median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	*stop = sign * value > median;
	tuner_free(v);
	return TUNER_OK;
}

TunerErrorCode
tuner_prune_halving(const double *others, int n, double value, double sign,
					double reduction, int min_trials, int *stop,
					TunerStatus *status)
{
	double *v;
	int keep;
	int better = 0;

	tuner_status_clear(status);
	*stop = 0;
	if (check_inputs(others, n, value, sign, min_trials, status) != TUNER_OK)
		return status->code;
	if (!(reduction > 1.0) || !isfinite(reduction))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "reduction must be a finite number above 1, got %g",
						  reduction);
	if (n + 1 < min_trials)
		return TUNER_OK;
	if ((v = signed_sorted(others, n, sign, status)) == NULL)
		return status->code;
	/* the trials strictly better than this one; ties keep it */
	for (int i = 0; i < n && v[i] < sign * value; i++)
		better++;
	keep = (int)ceil((n + 1) / reduction);
	*stop = better >= keep;
	tuner_free(v);
	return TUNER_OK;
}

double
tuner_prune_rung(double step, double min_step, double reduction)
{
	double rung;

	if (!(min_step > 0) || !(reduction > 1.0) || !isfinite(step) ||
		step < min_step)
		return -1.0;
	rung = min_step;
	while (rung * reduction <= step && isfinite(rung * reduction))
		rung *= reduction;
	return rung;
}

TunerErrorCode
tuner_prune_model(const double *partial, const double *final, int n,
				  double value, double incumbent, double sign, int min_trials,
				  int *abstain, TunerPruneForecast *out, TunerStatus *status)
{
	double xbar = 0, ybar = 0, sxx = 0, sxy = 0, rss = 0;
	double slope, intercept, lever, df, gap;

	tuner_status_clear(status);
	*abstain = 1;
	memset(out, 0, sizeof(*out));
	if (check_inputs(partial, n, value, sign, min_trials, status) != TUNER_OK)
		return status->code;
	if (n > 0 && final == NULL)
		return tuner_fail(status, TUNER_ERR_INVALID, "no final values");
	for (int i = 0; i < n; i++)
		if (!isfinite(final[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "final value %d is not finite", i + 1);
	if (!isfinite(incumbent))
		return tuner_fail(status, TUNER_ERR_INVALID,
						  "the incumbent is not finite");
	if (n < min_trials || n < 3)
		return TUNER_OK;
	*abstain = 0;

	for (int i = 0; i < n; i++)
	{
		xbar += partial[i];
		ybar += final[i];
	}
	xbar /= n;
	ybar /= n;
	for (int i = 0; i < n; i++)
	{
		sxx += (partial[i] - xbar) * (partial[i] - xbar);
		sxy += (partial[i] - xbar) * (final[i] - ybar);
	}
	/* all partial values equal (to rounding): no slope to learn */
	if (!(sxx > 1e-24 * n * (1.0 + xbar * xbar)))
	{
		slope = 0;
		lever = 1.0 + 1.0 / n;
		df = n - 1;
	}
	else
	{
		slope = sxy / sxx;
		lever = 1.0 + 1.0 / n + (value - xbar) * (value - xbar) / sxx;
		df = n - 2;
	}
	intercept = ybar - slope * xbar;
	for (int i = 0; i < n; i++)
	{
		double r = final[i] - intercept - slope * partial[i];

		rss += r * r;
	}
	out->n = n;
	out->df = df;
	out->mean = intercept + slope * value;
	out->scale = sqrt(rss / df * lever);
	if (!isfinite(out->mean) || !isfinite(out->scale))
		return tuner_fail(status, TUNER_ERR_NUMERIC,
						  "the model rule's forecast is not finite");
	/* the predictive mass on the better side of the incumbent */
	gap = sign * (incumbent - out->mean);
	if (out->scale > 0)
		out->prob = tuner_student_t_cdf(gap / out->scale, df);
	else
		out->prob = gap > 0 ? 1.0 : gap < 0 ? 0.0 : 0.5;
	return TUNER_OK;
}

/* the standard normal's cdf at 1: a t's central "one sigma" interval */
#define ONE_SIGMA_CDF 0.8413447460685429

TunerErrorCode
tuner_pruned_observation(const double *partial, const double *final, int n,
						 double value, const double *finals, int n_finals,
						 TunerPrunedObservation *out, TunerStatus *status)
{
	TunerPruneForecast forecast;
	int abstain;
	double mean = 0, ss = 0;

	tuner_status_clear(status);
	out->value = value;
	out->std_error = NAN;
	out->forecast = 0;
	if (n_finals < 0 || (n_finals > 0 && finals == NULL))
		return tuner_fail(status, TUNER_ERR_INVALID, "no final values");
	for (int i = 0; i < n_finals; i++)
		if (!isfinite(finals[i]))
			return tuner_fail(status, TUNER_ERR_INVALID,
							  "final value %d is not finite", i + 1);
	/* (the incumbent is not used: value stands in for it) */
	if (tuner_prune_model(partial, final, n, value, value, 1.0, 3, &abstain,
						  &forecast, status) != TUNER_OK)
		return status->code;
	if (!abstain)
	{
		out->value = forecast.mean;
		out->std_error = forecast.scale *
						 tuner_student_t_quantile(ONE_SIGMA_CDF, forecast.df);
		out->forecast = 1;
		return TUNER_OK;
	}
	if (n_finals < 2)
		return TUNER_OK;
	for (int i = 0; i < n_finals; i++)
		mean += finals[i];
	mean /= n_finals;
	for (int i = 0; i < n_finals; i++)
		ss += (finals[i] - mean) * (finals[i] - mean);
	out->std_error = sqrt(ss / (n_finals - 1));
	return TUNER_OK;
}
