/*
 * pairs.c: the statistics of a paired trial's per-pair ratios (pairs.h).
 */
#include "pairs.h"

#include <math.h>

void
pair_stats_of(const double *ratios, int n, pair_stats *out)
{
	double sum_log = 0, sum = 0;
	double ss_log = 0, ss = 0;
	int k = 0, i;

	for (i = 0; i < n; i++)
		if (isfinite(ratios[i]) && ratios[i] > 0)
		{
			sum_log += log(ratios[i]);
			sum += ratios[i];
			k++;
		}
	out->n = k;
	out->geomean = out->sd_log = out->std_error = out->cv = NAN;
	if (k == 0)
		return;
	out->geomean = exp(sum_log / k);
	if (k < 2)
		return;
	/* two passes: the sums of squares about the means, not sumsq - n m^2 */
	for (i = 0; i < n; i++)
		if (isfinite(ratios[i]) && ratios[i] > 0)
		{
			double dl = log(ratios[i]) - sum_log / k;
			double d = ratios[i] - sum / k;

			ss_log += dl * dl;
			ss += d * d;
		}
	out->sd_log = sqrt(ss_log / (k - 1));
	out->std_error = out->geomean * out->sd_log / sqrt((double)k);
	out->cv = sqrt(ss / (k - 1)) / (sum / k);
}

void
sb_json_numbers(strbuf *sb, const double *v, int n)
{
	int i;

	sb_append(sb, "[");
	for (i = 0; i < n; i++)
	{
		if (i)
			sb_append(sb, ", ");
		sb_json_number(sb, v[i]);
	}
	sb_append(sb, "]");
}
