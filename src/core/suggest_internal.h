/*
 * suggest_internal.h
 *	  What the parts of the suggestion step share: suggest.c (entry point,
 *	  design, random points and the choice among the acquisition's best
 *	  points), suggest_gp.c (single-task GP) and suggest_icm.c (ICM).  Not
 *	  for callers outside src/core/suggest*.c.
 */
#ifndef TUNER_SUGGEST_INTERNAL_H
#define TUNER_SUGGEST_INTERNAL_H

#include <time.h>

#include "posterior.h"
#include "rng.h"
#include "suggest.h"

/* Uniform random points until one is new; EXHAUSTED if none is found. */
extern TunerErrorCode suggest_random_untaken(const SuggestInput *in,
											 TunerRng *rng, double *unit,
											 SuggestResult *out,
											 TunerStatus *status);

/*
 * Mean and sample sd of the non-NaN values among n values spaced stride
 * apart; returns how many there were (sd is 0 below two).
 */
extern int suggest_metric_scale(const double *values, int n, int stride,
								double *mean, double *sd);

/*
 * Maximise log EI of post (standardised objective, incumbent best), search
 * around the lowest of the n observed points x (unit cube) with
 * standardised objective y, snap to the grid, skip taken points, and fill
 * out's config, source and prediction (in objective units via y_mean and
 * y_sd).  Falls back to a random untaken point.
 */
extern TunerErrorCode suggest_choose(const SuggestInput *in,
									 const Posterior *post, double best,
									 const double *x, const double *y, int n,
									 double y_mean, double y_sd, TunerRng *rng,
									 double *unit, SuggestResult *out,
									 TunerStatus *status);

/* Seconds elapsed on CLOCK_MONOTONIC since start. */
extern double suggest_seconds_since(const struct timespec *start);

/* The model steps of each algorithm. */
extern TunerErrorCode suggest_gp(const SuggestInput *in, TunerRng *rng,
								 double *unit, SuggestResult *out,
								 TunerStatus *status);
extern TunerErrorCode suggest_icm(const SuggestInput *in, TunerRng *rng,
								  double *unit, SuggestResult *out,
								  TunerStatus *status);

#endif /* TUNER_SUGGEST_INTERNAL_H */
