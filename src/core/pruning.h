/*
 * pruning.h
 *	  Whether to stop a trial early from its intermediate results (issue
 *	  30): the median rule and successive halving.  The glue gathers the
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

#endif /* TUNER_PRUNING_H */
