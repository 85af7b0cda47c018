/*
 * ratio_so_far.c
 *	  A paired trial's ratio to the default while it runs (ratio_so_far.h).
 */
#include "ratio_so_far.h"

#include <math.h>
#include <stdlib.h>

bool
ratio_so_far_init(ratio_so_far *r, int capacity)
{
	r->first_qps = malloc((size_t)capacity * sizeof(double));
	r->capacity = r->first_qps != NULL ? capacity : 0;
	r->first_n = 0;
	r->first_is_default = true;
	r->pair_trial = r->pair_default = 0;
	r->done_log_sum = 0;
	r->done_pairs = 0;
	return r->first_qps != NULL;
}

void
ratio_so_far_start_run(ratio_so_far *r, bool is_default, bool first_of_pair)
{
	if (!first_of_pair)
		return;
	/* a pair without a paired second (or with no throughput on either
	 * side) has no ratio, as the final statistics leave it out */
	if (r->pair_trial > 0 && r->pair_default > 0)
	{
		r->done_log_sum += log(r->pair_trial / r->pair_default);
		r->done_pairs++;
	}
	r->pair_trial = r->pair_default = 0;
	r->first_n = 0;
	r->first_is_default = is_default;
}

bool
ratio_so_far_second(ratio_so_far *r, bool is_default, int secs, double qps,
					double *this_second, double *so_far)
{
	double trial, dflt;

	*this_second = *so_far = NAN;
	if (secs < 0 || secs >= r->capacity || !isfinite(qps) || qps < 0)
		return false;
	if (is_default == r->first_is_default)
	{
		while (r->first_n <= secs)
			r->first_qps[r->first_n++] = NAN;
		r->first_qps[secs] = qps;
		return false;
	}
	if (secs >= r->first_n || isnan(r->first_qps[secs]))
		return false;
	trial = is_default ? r->first_qps[secs] : qps;
	dflt = is_default ? qps : r->first_qps[secs];
	r->pair_trial += trial;
	r->pair_default += dflt;
	if (dflt > 0)
		*this_second = trial / dflt;
	/* a trial that did nothing in this pair while the default worked is
	 * at 0 so far, whatever its earlier pairs did */
	if (r->pair_default > 0 && r->pair_trial == 0)
		*so_far = 0;
	else if (r->pair_default > 0)
		*so_far =
			exp((r->done_log_sum + log(r->pair_trial / r->pair_default)) /
				(r->done_pairs + 1));
	return true;
}
