/*
 * pairs.h: the statistics of a paired trial (issue 29), written once for
 * every runner that measures a configuration against the default: the
 * geometric mean of the per-pair ratios, the spread of their logarithms
 * and the ratio's standard error, the value a runner reports under
 * "_std_error" (docs/runners.md).
 */
#ifndef TUNER_RUNNER_PAIRS_H
#define TUNER_RUNNER_PAIRS_H

#include "json.h"

typedef struct
{
	int n;            /* pairs with a finite positive ratio */
	double geomean;   /* exp(mean of log ratio); NaN when n == 0 */
	double sd_log;    /* sample sd of the log ratios; NaN when n < 2 */
	double std_error; /* geomean * sd_log / sqrt(n); NaN when n < 2 */
	double cv;        /* sample sd of the ratios / their mean; NaN n < 2 */
} pair_stats;

/*
 * The statistics of n per-pair ratios; ratios that are not finite and
 * positive (a failed measurement) are left out.  The standard error is
 * the delta method's: the geometric mean is exp(mean log), whose standard
 * error is the mean log's (sd_log / sqrt(n)) times the ratio itself.
 */
extern void pair_stats_of(const double *ratios, int n, pair_stats *out);

/* Append "[r1, r2, ...]" (null for a ratio that is not finite). */
extern void sb_json_numbers(strbuf *sb, const double *v, int n);

#endif /* TUNER_RUNNER_PAIRS_H */
