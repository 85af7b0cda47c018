/*
 * suggest_additive.h
 *	  Clustered ICM's model step over the sum of the clusters' metric models
 *	  (suggest_additive.c).  Internal to src/core/suggest*.c.
 */
#ifndef TUNER_SUGGEST_ADDITIVE_H
#define TUNER_SUGGEST_ADDITIVE_H

#include "suggest_cluster.h"

/*
 * With every cluster of props fitted to its metric: learn the link of the
 * objective (y0: standardised, minimised, n_observed values; x: the trials
 * in the unit cube) to the metrics, maximise log EI of the sum over the
 * whole space and fill unit and out as suggest_choose does, the
 * parameters in no cluster at incumbent's values.  coef receives the
 * n_clusters weights.  *used = 0 (and nothing filled) when the step does
 * not apply: a cluster without its metric, or too few trials reporting
 * every metric.
 */
extern TunerErrorCode
suggest_additive(const SuggestInput *in, const ClusterProposal *props,
				 const double *x, const double *y0, const double *incumbent,
				 double y_mean, double y_sd, TunerRng *rng, double *unit,
				 SuggestResult *out, double *coef, int *used,
				 TunerStatus *status);

#endif /* TUNER_SUGGEST_ADDITIVE_H */
