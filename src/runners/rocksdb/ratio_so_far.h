/*
 * ratio_so_far.h
 *	  A paired trial's ratio to the default while it runs (issue 30): the
 *	  estimate of the final ratio_to_default from the seconds measured so
 *	  far, streamed as progress so that a pruning rule judges a trial by
 *	  what its final value will be near, not by one second of warm-up.
 *
 *	  A pair's two runs report their throughput second by second; once
 *	  the second run of a pair (the trial in a default-first pair, the
 *	  default in a trial-first one) reports second s and the first run
 *	  had one, that second is paired.  The pair's ratio so far is its
 *	  paired seconds' trial ops over their default ops (the ratio of the
 *	  runs' mean throughputs, as the pair's final ratio is), and the
 *	  trial's ratio so far the geometric mean of that and the earlier
 *	  pairs' (as the final ratio_to_default is over all pairs).
 */
#ifndef TUNER_RATIO_SO_FAR_H
#define TUNER_RATIO_SO_FAR_H

#include <stdbool.h>

typedef struct ratio_so_far
{
	double *first_qps; /* the pair's first run, by second (NaN: none) */
	int first_n;
	int capacity;
	bool first_is_default;
	double pair_trial;   /* the pair's paired seconds: sum of trial ops/s */
	double pair_default; /* ... and of the default's */
	double done_log_sum; /* log ratios of the earlier pairs */
	int done_pairs;
} ratio_so_far;

/* Allocates room for capacity seconds a run; false when out of memory. */
extern bool ratio_so_far_init(ratio_so_far *r, int capacity);

/*
 * A run starts.  first_of_pair: it is its pair's first run (the pair
 * before it, if any, is then complete).
 */
extern void ratio_so_far_start_run(ratio_so_far *r, bool is_default,
								   bool first_of_pair);

/*
 * Second secs of the current run measured qps.  In a pair's second run,
 * when the first run had that second, sets *this_second (trial over
 * default at that second) and *so_far (the trial's ratio so far) and
 * returns true; otherwise stores it (first run) and returns false.
 * Either is NaN when the default has no throughput to divide by (that
 * second, or the pair's paired seconds), and *so_far is 0 when the trial
 * did nothing in the pair's paired seconds while the default worked.
 */
extern bool ratio_so_far_second(ratio_so_far *r, bool is_default, int secs,
								double qps, double *this_second,
								double *so_far);

#endif /* TUNER_RATIO_SO_FAR_H */
