/*
 * mean_interval.h
 *	  The interval and test a confirmation reports (issue 29): Student's t
 *	  on n independent measurements (log ratios of paired runs), so that
 *	  what tuner says about an improvement is a mean with its confidence
 *	  interval and a p-value against no change, never one trial.
 */
#ifndef TUNER_MEAN_INTERVAL_H
#define TUNER_MEAN_INTERVAL_H

#include "tuner_status.h"

typedef struct TunerMeanInterval
{
	int n;       /* measurements */
	double mean; /* their mean */
	double sd;   /* sample standard deviation (n - 1) */
	double low;  /* the two-sided interval of the mean at the level */
	double high;
	double p_value; /* two-sided, against a mean of 0; 1 when sd is 0 */
} TunerMeanInterval;

/*
 * The t interval of the mean of x[0..n-1] at level (e.g. 0.95) and the
 * t test against 0.  Needs n >= 2, finite values, 0 < level < 1.  With
 * sd 0 the interval is the mean itself and the p-value is 0 if the mean
 * is not 0, else 1.
 */
extern TunerErrorCode tuner_mean_interval(const double *x, int n, double level,
										  TunerMeanInterval *out,
										  TunerStatus *status);

/* Student's t distribution with df > 0 degrees of freedom. */
extern double tuner_student_t_cdf(double t, double df);
/* Its quantile: the t with cdf(t) = p, 0 < p < 1. */
extern double tuner_student_t_quantile(double p, double df);

#endif
